"""A lesson as a teacher publishes it: executed with its outputs (nbclient), then converted
to HTML by nbconvert with its defaults.  Shared by tests/test_saved_notebook.py (what the
HTML holds) and tests/browser/test_browser_saved_notebook.py (what a browser shows of it
with no network).  And a notebook someone else sent, with saved widget state
(:func:`with_widget_state`: tests/test_shipped_notebooks.py, test_sharing_clean.py,
browser/test_browser_sharing.py)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LESSON_ONE = REPO / 'lessons' / '01_variables_and_derivatives.ipynb'
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'
#: A one-pixel PNG, base64 as a notebook output holds it.
PNG = ('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJ'
       'RU5ErkJggg==')


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


def with_widget_state(esm: str) -> object:
    """A new notebook (python3 kernel) saved with the widget state of one anywidget
    model whose ``_esm`` is ``esm``, as Lab's widget manager restores it on opening."""
    import anywidget
    import nbformat

    widget = anywidget.AnyWidget()
    state = {k: v for k, v in widget.get_state().items() if k != 'layout'}
    widget.close()
    nb = nbformat.v4.new_notebook()
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3',
                                 'language': 'python'}
    nb.metadata['language_info'] = {'name': 'python'}
    nb.metadata['widgets'] = {'application/vnd.jupyter.widget-state+json': {
        'version_major': 2, 'version_minor': 0, 'state': {'m1': {
            'model_name': state['_model_name'], 'model_module': state['_model_module'],
            'model_module_version': state['_model_module_version'],
            'state': {**state, '_esm': esm}}}}}
    return nb
