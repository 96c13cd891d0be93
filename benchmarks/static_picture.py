"""What the static picture adds to displaying a graph view (autograd_lab_widget.present.picture).

A displayed GraphView also makes a static picture for saved notebooks: the view's drawing
of at most ``picture.MAX_NODES`` nodes (the part around the next function), laid out with
the ``graphviz-pure`` renderer and rewritten from an allow-list.  For the graphs of
benchmarks/widget_latency.py (chains of 50 and 500 nodes; one training step of a 9,604-node
MLP, collapsed per Link or capped) this prints, best of ``--repeat`` runs:

- ``view``: making the GraphView (the kernel's share of a first render),
- ``picture``: making its static picture, and the ratio picture / view,
- the nodes it draws and the size of its HTML (what a saved notebook keeps per view).

Usage: ``python benchmarks/static_picture.py [--cases 50,500,10000,10000-cap] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'benchmarks'))

from widget_latency import CASES, GRAPHS_SOURCE  # noqa: E402  (path above)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cases', default=','.join(CASES))
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()

    from autograd_lab_widget import GraphView
    from autograd_lab_widget.present import picture

    graphs: dict = {}
    exec(GRAPHS_SOURCE, graphs)  # the same builders as the browser benchmark
    print(f'static picture of a displayed view (at most {picture.MAX_NODES} nodes), '
          f'load average {os.getloadavg()[0]:.1f}')
    print(f'{"case":>10} {"nodes":>6} {"view ms":>8} {"picture ms":>11} {"ratio":>6} '
          f'{"drawn":>6} {"HTML KB":>8}')
    for case in args.cases.split(','):
        kwargs, out = graphs['build'](case)
        t_view = t_pic = float('inf')
        for _ in range(args.repeat):
            start = time.perf_counter()
            view = GraphView(out, **kwargs)
            t_view = min(t_view, time.perf_counter() - start)
            start = time.perf_counter()
            pic = view._picture(view.static_key)
            t_pic = min(t_pic, time.perf_counter() - start)
            view.close()
        nodes = len(view.model.live.model.nodes)
        drawn = pic.svg.count('<g class="node')
        print(f'{case:>10} {nodes:>6} {t_view * 1e3:8.0f} {t_pic * 1e3:11.0f} '
              f'{t_pic / t_view:6.2f} {drawn:>6} {len(pic.html()) / 1024:8.0f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
