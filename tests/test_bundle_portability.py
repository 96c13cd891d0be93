"""The widget's committed bundle runs in any anywidget host, not only JupyterLab.

VS Code's notebook renderer loads RequireJS, so a bundle that looks for a global
``define`` or ``require`` (a UMD wrapper, a CommonJS shim) takes the AMD path there and
breaks; Colab, VS Code and marimo have no JupyterLab application object or
``@jupyterlab/*`` modules.  The bundle is minified and carries Graphviz's WebAssembly as
one long base91 string, so the grep runs over its code only (tests/js_literals.py sets
strings, templates, regular expressions and comments apart) and then over its short
literals (where a module name would sit), leaving the embedded data alone.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import js_literals

BUNDLE = (Path(__file__).resolve().parent.parent / 'widgets' / 'autograd_lab_widget' /
          'static' / 'graph_view.js')
# Globals of module loaders that a bundle must not touch (as names of its own, not as
# properties: Object.defineProperty is fine).
LOADER_GLOBALS = re.compile(
    r'(?<![\w$.])(define|require|requirejs|module|exports|__webpack_require__)(?![\w$])')
# JupyterLab's application object and its packages exist only in JupyterLab; RequireJS
# (window.requirejs, require.config) only in classic Notebook and VS Code.
HOST_ONLY = re.compile(r'jupyterapp|@jupyterlab/|@jupyter-widgets/|requirejs|'
                             r'require\.config', re.IGNORECASE)
# Longer literals are data (the WebAssembly), not code or module names.
DATA_LITERAL = 64 * 1024


def loader_globals(code: str) -> list[str]:
    found = []
    for match in LOADER_GLOBALS.finditer(code):
        before = code[:match.start()].rstrip()[-1:]
        after = code[match.end():].lstrip()[:1]
        if after == ':' and before in '{,':  # an object key, {define: ...}
            continue
        found.append(code[max(0, match.start() - 40):match.end() + 40])
    return found


def portability_problems(source: str) -> list[str]:
    code, literals = js_literals.split(source)
    problems = [f'uses the global {snippet!r}' for snippet in loader_globals(code)]
    problems += [f'host-specific {m.group()!r} in code' for m in HOST_ONLY.finditer(code)]
    problems += [f'host-specific {m.group()!r} in {text[:60]!r}' for text in literals
                 if len(text) < DATA_LITERAL for m in HOST_ONLY.finditer(text)]
    if re.search(r'(?<![\w$.])import(?![\w$])\s*[({"\'\w*]', code):
        problems.append('imports another module (the bundle must be self-contained)')
    return problems


@pytest.fixture(scope='module')
def bundle() -> str:
    return BUNDLE.read_text(encoding='utf-8')


def test_bundle_is_one_self_contained_es_module(bundle):
    code, literals = js_literals.split(bundle)
    assert re.search(r'export\s*\{[^}]*\bas default\s*\}\s*;?\s*$', code.rstrip()), \
        'the bundle must end with an ES module default export (anywidget loads it as ESM)'
    # the embedded Graphviz WebAssembly is set apart as data, not read as code
    assert max(map(len, literals)) > 300_000


def test_bundle_uses_no_loader_globals_and_no_jupyterlab_only_api(bundle):
    assert portability_problems(bundle) == []


@pytest.mark.parametrize('snippet', [
    # a UMD wrapper: in VS Code (RequireJS loaded) it takes the AMD branch
    '(function(t,e){typeof define=="function"&&define.amd?define(e):t.X=e()})(this,()=>1);',
    'var x=typeof require=="function"?require("fs"):null;',
    'module.exports={a:1};',
    'window.requirejs.config({paths:{}});',
    'const app=window.jupyterapp;app.commands.execute("x");',
    'import{ISignal as s}from"@jupyterlab/coreutils";',
    'const m=await import("https://cdn.example/x.js");',
])
def test_the_grep_catches_what_breaks_other_hosts(snippet):
    assert portability_problems(snippet + 'export{a as default};')


@pytest.mark.parametrize('snippet', [
    'Object.defineProperty(t,"x",{value:1});customElements.define("x-y",C);',
    'var s="require(\'define\') in a string",t=`define ${a+"require"} x`;',
    'var r=/define|require/g,q=a/b/c;/* define(require) */',
    'var o={define:1,require:2};o.require(3);importScripts(u);',
    'var w="v7#define(#require' + '0' * 100 + '";',  # data that happens to spell them
])
def test_the_grep_does_not_false_match(snippet):
    assert portability_problems(snippet + 'export{a as default};') == []
