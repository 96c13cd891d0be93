"""What events cost, in instructions: a measure a busy machine does not disturb.

``events_overhead.py`` times the chain of ``overhead.py`` three ways (events compiled
out, unobserved, recorded); on a shared machine its timings swing by 20%.  This script
runs the same three variants under valgrind's callgrind, which counts the instructions
executed, the same from run to run (address randomisation off, a fixed hash seed): it
counts one run of each chain between two markers (calls of ``os.getppid``, at which
callgrind starts a new part) after a warm-up run, per op.

Instructions are not time (cache misses and the garbage collector's memory traffic cost
more than their count), so this is for comparing two versions of the engine, not for
the README's figures.  Needs ``valgrind`` and ``setarch`` (Linux); without them it says
so and exits.

Usage: ``python benchmarks/instruction_counts.py [--blocks 100] [--no-gc]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _peers import ONE_THREAD, ROOT
from events_overhead import COLUMNS, VARIANTS, strip_events


def child(variant: str, column: str, blocks: int, gc_on: bool) -> None:
    """Warm up, then run the chain three times, a marker after each run."""
    import gc

    import autograd_lab as chainer
    import autograd_lab.functions as F
    from autograd_lab import events
    from overhead import workloads
    if not gc_on:
        gc.disable()
    run = workloads(chainer, F, 4 * blocks)[column]  # the chains of overhead.py
    log = events.EventLog(maxlen=40 * blocks)  # kept full, as a log left open
    sub = events.subscribe(log) if variant == 'recorded' else None
    for _ in range(10):
        run()
    for _ in range(3):
        run()
        os.getppid()  # marker: callgrind starts a new part here
    if sub is not None:
        sub.unsubscribe()


def count(path: Path, variant: str, column: str, blocks: int, gc_on: bool) -> float:
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, **ONE_THREAD, 'PYTHONHASHSEED': '0',
               'PYTHONPATH': os.pathsep.join([str(path), str(Path(__file__).parent)])}
        subprocess.run(['setarch', os.uname().machine, '-R', 'valgrind', '--tool=callgrind',
                        '--dump-before=getppid', f'--callgrind-out-file={out}/cg',
                        sys.executable, __file__, '--child', variant, '--column', column,
                        '--blocks', str(blocks), *([] if gc_on else ['--no-gc'])],
                       env=env, cwd=str(path), check=True, capture_output=True)
        totals = [int(re.search(r'^summary: (\d+)', Path(f'{out}/cg.{k}').read_text(),
                                re.M).group(1)) for k in (2, 3)]  # the 2nd and 3rd runs
    return min(totals) / (4 * blocks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--blocks', type=int, default=100)
    parser.add_argument('--no-gc', action='store_true', help='the garbage collector off')
    parser.add_argument('--child')
    parser.add_argument('--column')
    args = parser.parse_args()
    if args.child:
        child(args.child, args.column, args.blocks, not args.no_gc)
        return
    if not (shutil.which('valgrind') and shutil.which('setarch')):
        print('valgrind and setarch are needed (apt install valgrind util-linux)')
        return
    with tempfile.TemporaryDirectory(prefix='autograd_lab_noevents_') as tmp:
        strip_events(Path(tmp))
        rows = {v: {c: count(Path(tmp) if v == 'compiled out' else ROOT, v, c, args.blocks,
                             not args.no_gc) for c in COLUMNS} for v in VARIANTS}
    print(f'Instructions per op, chain of {4 * args.blocks} small ops '
          f"(callgrind; garbage collector {'off' if args.no_gc else 'on'})")
    print(f"{'':16}" + ''.join(f'{c:>20}' for c in COLUMNS))
    for variant, label in zip(VARIANTS, ('a. compiled out', 'b. unobserved', 'c. recorded')):
        print(f'{label:16}' + ''.join(f'{rows[variant][c]:>20,.0f}' for c in COLUMNS))
    for num, label in (('unobserved', 'b/a'), ('recorded', 'c/a')):
        print(f'{label:16}' + ''.join(f"{rows[num][c] / rows['compiled out'][c]:>20.3f}"
                                      for c in COLUMNS))


if __name__ == '__main__':
    main()
