"""The widget's JavaScript crosses the wire once per page, not once per view.

The bundle (``static/graph_view.js``, about 900 KB: the drawing code and the compiled
Graphviz) is held by one small widget model per kernel, :func:`holder`.  Each view's
own ``_esm`` is :data:`LOADER`, a few hundred bytes: it asks the page's widget manager
for the holder's model (the view's ``_agl_bundle`` names it), imports the bundle from
its text once per page, and hands ``render`` to it.  The holder is an ordinary widget,
so a notebook saved with its widget state carries the bundle once too, and a page that
restores it (JupyterLab, Notebook 7, Voila, nbconvert's HTML) finds it the same way.

marimo runs anywidgets with its own model (no widget manager to ask): there each view
carries the whole bundle, as before (:func:`esm`).
"""

from __future__ import annotations

import hashlib
import pathlib

import ipywidgets
import traitlets

from autograd_lab_widget import hosts

BUNDLE = pathlib.Path(__file__).parent / 'static' / 'graph_view.js'
_SOURCE = BUNDLE.read_text(encoding='utf-8')
#: Names the bundle's version on the page, so that two versions never mix.
VERSION = hashlib.sha256(_SOURCE.encode()).hexdigest()[:16]

#: A view's ``_esm`` where the page has a widget manager.
LOADER = """\
// autograd_lab: load the graph view's bundle once per page (see bundle.py)
const KEY = Symbol.for('autograd_lab.bundle.VERSION');
function bundle(model) {
  if (!globalThis[KEY]) {
    globalThis[KEY] = (async () => {
      const ref = String(model.get('_agl_bundle') || '').replace(/^IPY_MODEL_/, '');
      const holder = await model.widget_manager.get_model(ref);
      const url = URL.createObjectURL(
        new Blob([holder.get('source')], { type: 'text/javascript' }));
      try { return (await import(url)).default; } finally { URL.revokeObjectURL(url); }
    })().catch((error) => { delete globalThis[KEY]; throw error; });
  }
  return globalThis[KEY];
}
export default {
  async render(context) { return (await bundle(context.model)).render(context); },
};
""".replace('VERSION', VERSION)


class BundleHolder(ipywidgets.Widget):
    """A model with no view: the bundle's text, once per kernel (see the module)."""

    _model_name = traitlets.Unicode('WidgetModel').tag(sync=True)
    _model_module = traitlets.Unicode('@jupyter-widgets/base').tag(sync=True)
    _model_module_version = traitlets.Unicode(ipywidgets.__jupyter_widgets_base_version__
                                              ).tag(sync=True)
    _view_name = traitlets.Unicode(None, allow_none=True).tag(sync=True)
    source = traitlets.Unicode(_SOURCE).tag(sync=True)


_holder: list[BundleHolder] = []


def shared() -> bool:
    """True where views share the holder (every host but marimo)."""
    return hosts.current() != 'marimo'


def esm() -> str:
    """A view's ``_esm``: the loader where views share the holder, else the bundle."""
    return LOADER if shared() else _SOURCE


def holder() -> BundleHolder | None:
    """The kernel's holder of the bundle (made on first use, again if it was closed);
    None where views carry the bundle themselves."""
    if not shared():
        return None
    if not _holder or _holder[0].comm is None:
        _holder[:] = [BundleHolder()]
    return _holder[0]
