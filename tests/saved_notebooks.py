"""A lesson as a teacher publishes it: executed with its outputs (nbclient), then converted
to HTML by nbconvert with its defaults.  Shared by tests/test_saved_notebook.py (what the
HTML holds) and tests/browser/test_browser_saved_notebook.py (what a browser shows of it
with no network)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LESSON_ONE = REPO / 'lessons' / '01_variables_and_derivatives.ipynb'
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'


def executed_and_converted(source: Path, folder: Path) -> tuple[object, str]:
    """``source`` run top to bottom in ``folder`` with nbclient (which also saves the
    widget state, as ``jupyter nbconvert --execute`` does), and the HTML of
    ``jupyter nbconvert --to html``.  Returns (the executed notebook, the HTML)."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.read(source, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name='python3',
                   resources={'metadata': {'path': str(folder)}}).execute()
    nbformat.write(nb, folder / source.name)
    body, _ = HTMLExporter().from_notebook_node(nb)
    (folder / source.with_suffix('.html').name).write_text(body, encoding='utf-8')
    return nb, body
