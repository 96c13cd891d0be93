"""What graph events cost: the engine unobserved, compiled out, and recorded.

The chain of benchmarks/overhead.py (4 small ops per block on 16-element arrays, so
the figures measure the engine, not NumPy) runs three ways in the same run:

- **a. compiled out**: a temporary copy of ``autograd_lab`` in which every read of
  ``_events.recorder`` (and of a local ``recorder`` holding it) is replaced by None
  and the blocks that ran only when it was not None are deleted (an AST transform),
  i.e. an engine that tells no recorder anything;
- **b. unobserved**: the normal engine with no subscriber and no FunctionHook;
- **c. recorded**: the normal engine inside ``events.recording()`` at its default size
  (a ring buffer of 100,000 events, filled before anything is timed and kept full: the
  steady state of a recording left running).  The widget's session log is smaller
  (``autograd_lab_widget.follow.recorder.MAX_EVENTS``, 20,000 events);
- **d. recorded + code lines**: c, also inside
  :class:`~autograd_lab.events.code_lines.capturing_code_lines` (the forward replay's
  separate mode: one stack walk per function applied).

Each variant runs in its own interpreter, pinned to one thread; the variants are
interleaved over several rounds so that drift of a shared machine hits all of them,
and time is the process's CPU time (``time.process_time``), which waiting for a
busy machine's cores does not inflate.
Printed: microseconds per op (best and median over rounds) and the ratios b/a, c/a
and d/a.  Targets (issue 17): b/a <= 1.03; c/a <= 1.7 forward, <= 2.0
forward+backward, <= 2.7 double backprop; d/a is stated (issue 33), a mode of its own.

Usage: ``python benchmarks/events_overhead.py [--ops 4000] [--repeat 5] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _peers import ONE_THREAD, ROOT

VARIANTS = ('compiled out', 'unobserved', 'recorded', 'recorded + code lines')
LABELS = ('a. compiled out', 'b. unobserved', 'c. recorded', 'd. + code lines')
COLUMNS = ('forward', 'forward+backward', 'double backprop')


# ---- variant a: the package with its event layer removed ---------------------------------------

class _StripEvents(ast.NodeTransformer):
    """``_events.recorder`` -> None, and so a local ``recorder`` (the engine keeps the
    recorder it was given under that name); then drop what only ran when it was not None."""

    def __init__(self, names: bool) -> None:
        self.sites = 0
        self.names = names  # also the Name ``recorder`` (engine modules, not events itself)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if (node.attr == 'recorder' and isinstance(node.value, ast.Name)
                and node.value.id == '_events' and isinstance(node.ctx, ast.Load)):
            self.sites += 1
            return ast.copy_location(ast.Constant(None), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if self.names and node.id == 'recorder' and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(None), node)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if (len(node.ops) == 1 and isinstance(node.left, ast.Constant)
                and node.left.value is None and isinstance(node.comparators[0], ast.Constant)
                and node.comparators[0].value is None
                and isinstance(node.ops[0], (ast.Is, ast.IsNot))):
            return ast.copy_location(ast.Constant(isinstance(node.ops[0], ast.Is)), node)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.And) and any(
                isinstance(v, ast.Constant) and v.value is False for v in node.values):
            return ast.copy_location(ast.Constant(False), node)
        return node

    def visit_If(self, node: ast.If) -> ast.AST | list:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant) and node.test.value is False:
            return node.orelse or ast.Pass()
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant) and node.test.value is False:
            return node.orelse
        return node


def strip_events(destination: Path) -> int:
    """Copy the package under ``destination`` without its event emission; return the sites."""
    package = destination / 'autograd_lab'
    shutil.copytree(ROOT / 'autograd_lab', package,
                    ignore=shutil.ignore_patterns('__pycache__'))
    sites = 0
    for path in package.rglob('*.py'):
        source = path.read_text()
        if '_events.recorder' not in source:
            continue
        transformer = _StripEvents(names='events' not in path.relative_to(package).parts)
        tree = ast.fix_missing_locations(transformer.visit(ast.parse(source)))
        path.write_text(ast.unparse(tree))
        sites += transformer.sites
    return sites


# ---- one child: one variant ---------------------------------------------------------------------

def child(variant: str, n_ops: int, repeat: int) -> dict:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * n_ops))
    import time

    import autograd_lab
    import autograd_lab.functions as F
    import overhead
    from overhead import measure_chainer_like

    def best_cpu_time(fn, repeat: int) -> float:
        fn()  # warm-up
        best = float('inf')
        for _ in range(repeat):
            t0 = time.process_time()
            fn()
            best = min(best, time.process_time() - t0)
        return best

    overhead._best = best_cpu_time  # the same chains, timed on CPU time
    if variant == 'compiled out':
        assert not Path(autograd_lab.__file__).resolve().is_relative_to(ROOT)  # the copy
        seconds = measure_chainer_like(autograd_lab, F, n_ops, repeat)
    elif variant == 'unobserved':
        assert autograd_lab.events.recorder is None
        seconds = measure_chainer_like(autograd_lab, F, n_ops, repeat)
    else:
        from autograd_lab.events.code_lines import capturing_code_lines
        lines = capturing_code_lines() if variant == 'recorded + code lines' else None
        with autograd_lab.events.recording() as log, lines or contextlib.nullcontext():
            fill = overhead.workloads(autograd_lab, F, n_ops)['forward+backward']
            while log.dropped == 0:  # the ring buffer full before anything is timed
                fill()
            seconds = measure_chainer_like(autograd_lab, F, n_ops, repeat)
        assert len(log) == log.maxlen and log.dropped > 0  # the ring buffer was full
    return {k: v / n_ops * 1e6 for k, v in seconds.items()}


def run_variant(variant: str, stripped: Path, n_ops: int, repeat: int) -> dict:
    path = stripped if variant == 'compiled out' else ROOT
    env = {**os.environ, **ONE_THREAD,
           'PYTHONPATH': os.pathsep.join([str(path), str(Path(__file__).resolve().parent)])}
    out = subprocess.run([sys.executable, __file__, '--child', variant, '--ops', str(n_ops),
                          '--repeat', str(repeat)], env=env, capture_output=True, text=True,
                         check=False, cwd=str(path))
    if out.returncode != 0:
        raise RuntimeError(f'{variant}: child failed\n{out.stderr[-3000:]}')
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--ops', type=int, default=4000)
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--child')
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.ops, args.repeat)))
        return
    with tempfile.TemporaryDirectory(prefix='autograd_lab_noevents_') as tmp:
        sites = strip_events(Path(tmp))
        rows: dict = {v: {c: [] for c in COLUMNS} for v in VARIANTS}
        for k in range(args.rounds):
            turn = k % len(VARIANTS)
            for variant in VARIANTS[turn:] + VARIANTS[:turn]:  # rotated: no order bias
                result = run_variant(variant, Path(tmp), args.ops, args.repeat)
                for c in COLUMNS:
                    rows[variant][c].append(result[c])
    print(f'Event overhead, chain of {args.ops} small ops (us/op; best / median of '
          f'{args.rounds} rounds, each the best of {args.repeat}); {sites} event sites '
          'compiled out for variant a')
    print(f"{'':16}" + ''.join(f'{c:>24}' for c in COLUMNS))
    for variant, label in zip(VARIANTS, LABELS):
        cells = [f'{min(v):.2f} / {statistics.median(v):.2f}' for v in rows[variant].values()]
        print(f'{label:16}' + ''.join(f'{cell:>24}' for cell in cells))
    for num, label in (('unobserved', 'b/a'), ('recorded', 'c/a'),
                       ('recorded + code lines', 'd/a')):
        cells = []
        for c in COLUMNS:
            best = min(rows[num][c]) / min(rows['compiled out'][c])
            med = statistics.median(rows[num][c]) / statistics.median(rows['compiled out'][c])
            cells.append(f'{best:.3f} / {med:.3f}')
        print(f'{label:16}' + ''.join(f'{cell:>24}' for cell in cells))
    print('targets: b/a <= 1.03; c/a <= 1.7 forward, 2.0 forward+backward, '
          '2.7 double backprop')


if __name__ == '__main__':
    main()
