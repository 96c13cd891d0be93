"""GraphView: traits, stepping with the engine's own stepper, time travel, predict mode,
run to here, through the widget (the stepping model itself: tests/test_stepping_model.py)."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events

from autograd_lab_widget import GraphView
from autograd_lab_widget.present import drawing, node_cells
from widget_helpers import function_ids, polynomial, send


def test_initial_traits_describe_the_graph(view_of):
    x, y = polynomial()
    view = view_of(y)
    assert view.dot.startswith('digraph')
    assert f'id=n{events.uid(x)}' in view.dot.replace('"', '')
    assert set(view.nodes) == {f'n{i}' for i in view.model.live.model.nodes}
    assert view.nodes[f'n{events.uid(x)}']['text'] == {'name': 'x', 'data': '3.0',
                                                       'gcap': 'grad', 'grad': '—'}
    assert view.status['step'] == 0 and view.status['done'] is False
    assert view.status['total'] == 4 and view.ledger['sections'][0]['kind'] == 'next'
    assert view.position == 0 and view.structure_key
    from autograd_lab_widget.view import BUNDLE
    # the committed bundle, once per kernel in its holder; the view's own _esm loads it
    assert view._agl_bundle.source == BUNDLE.read_text(encoding='utf-8')
    assert len(view._esm) < 2000 and 'get_model' in view._esm
    assert view.gpu_reason == (chainer.backend.gpu_unavailable_reason() or '')


def test_steps_are_the_engines_backward_and_match_plain_backward(view_of):
    x, y = polynomial(3.0)
    ref_x, ref_y = polynomial(3.0)
    ref_y.backward()
    view = view_of(y)
    funcs = function_ids(view)
    ran = []
    while not view.status['done']:
        expected_next = view.status['next_id']
        assert expected_next in funcs
        assert view.step() is True
        ran.append(view.status['last_id'])
        assert ran[-1] == expected_next  # the status said what would run, and it did
        assert view.status['step'] == len(ran)
    assert sorted(ran) == sorted(funcs) and len(ran) == 4
    assert x.grad == ref_x.grad == 4.0
    assert view.step() is False  # finished: nothing more to run
    # the accumulation of x's second gradient is spelled out: old + term = sum
    rows = {r['key']: r['value'] for r in view.ledger['sections'][0]['rows']}
    assert rows['x.grad'].startswith('6.0 + (−2.0) = 4.0')
    node = view.model.live.model.nodes[events.uid(x)]
    assert float(node.grad) == 4.0 and 'grad_accumulated' in node.states


def test_status_names_next_function_rank_and_frontier(view_of):
    x = chainer.Variable(np.array(2.0), name='x')
    y = x * x + F.exp(x)
    view = view_of(y)
    view.step()  # the final + ran; now both * and exp wait
    st = view.status
    assert st['text'].startswith('Step 1 of 3: next ')
    nxt = view.ledger['sections'][-1]
    assert nxt['kind'] == 'next' and 'rank' in nxt['why'] and 'Waiting: ' in nxt['why']
    rows = {r['key']: r['value'] for r in nxt['rows']}
    assert rows['grad in'].endswith(': 1.0')


def test_run_finishes_and_grads_match_the_engine(view_of):
    x = chainer.Variable(np.array([1.0, 2.0, 3.0]), name='x')
    y = F.sum(F.exp(x) * x)
    view = view_of(y)
    view.run()
    np.testing.assert_allclose(x.grad, np.exp([1, 2, 3]) * (1 + np.array([1, 2, 3])))
    assert view.status['done'] and view.status['step'] == 3


def test_back_and_forward_travel_through_recorded_steps(view_of):
    x, y = polynomial(3.0)
    view = view_of(y)
    view.run()
    end = view.position
    assert view.back() is True
    assert view.position < end and view.status['step'] == 3 and view.status['live'] is False
    # the frame shown is the replayed model at that point: x's grad is not complete yet
    steps = [view.status['step']]
    while view.back():
        steps.append(view.status['step'])
    assert steps[-1] == 0 and view.position == 0
    assert view.back() is False
    # Forward walks the same boundaries again up to the live end
    seen = [view.status['step']]
    while not view.status['live']:
        view.forward()
        seen.append(view.status['step'])
    assert seen[-1] == 4 and view.position == end
    assert x.grad == 4.0  # time travel never touched the engine


def test_history_frame_matches_replay_of_the_log(view_of):
    _x, y = polynomial(3.0)
    view = view_of(y)
    view.step()
    view.step()
    mid = view.position
    view.run()
    while view.position > mid:
        view.back()
    assert view.position == mid
    state = view.model.timeline.state_at(mid)
    frame = drawing.draw(state, view.options, names=view.model.names, roots=[events.uid(y)],
                         roles={view.status['next_id']: 'next'}, look=node_cells.Look())
    texts = {k: v['text'] for k, v in frame.nodes.items()}
    assert view.structure_key == frame.key
    assert {k: v['text'] for k, v in view.nodes.items()} == texts
    assert view.to_dot() == frame.dot  # the whole picture, texts included


def test_reset_clears_grads_and_starts_a_fresh_backward(view_of):
    x, y = polynomial(3.0)
    view = view_of(y)
    view.run()
    assert x.grad == 4.0
    view.reset()
    assert x.grad is None and view.status['step'] == 0 and not view.status['done']
    view.run()
    assert x.grad == 4.0  # not 8: reset cleared the leaf's accumulated grad


def test_step_in_history_moves_one_step(view_of):
    _x, y = polynomial()
    view = view_of(y)
    view.run()
    view.back()
    view.back()
    assert not view.status['live'] and view.status['step'] == 2
    view.step()  # one step forward in the recorded history, not to the end
    assert not view.status['live'] and view.status['step'] == 3
    view.step()
    assert view.status['live'] and view.status['step'] == 4


def test_predict_mode_grades_guesses_and_keeps_the_score(view_of):
    x = chainer.Variable(np.array(3.0), name='x')
    y = x * 5
    view = view_of(y)
    view.predict = True
    assert view.status['predict'] and view.status['targets'] == ['x']
    assert x.grad is None  # nothing ran: the guess comes first
    verdict = view.guess('4')
    assert not verdict.right
    assert str(verdict) == 'Not quite at step 1, f1 (_ * 5): x is off (you said 4.0: too small).'
    assert verdict.answer() == 'Not quite at step 1, f1 (_ * 5): x gets 5.0 (you said 4.0).'
    assert x.grad == 5.0  # the engine ran the step when the guess was in
    assert view.score.as_dict() == {'right': 0, 'wrong': 1, 'skipped': 0, 'total': 1}
    assert view.status['score']['wrong'] == 1
    assert view.ledger['sections'][0]['verdict'].startswith('Not quite')


def test_predict_guess_right_and_from_the_browser(view_of):
    x = chainer.Variable(np.array([1.0, 2.0]), name='x')
    w = chainer.Variable(np.array([3.0, 4.0]), name='w')
    y = F.sum(x * w)
    view = view_of(y)
    send(view, {'type': 'action', 'action': 'predict'})
    assert view.predict is True
    send(view, {'type': 'guess', 'value': '[1, 1]'})  # sum: the grad to (x*w) is ones
    assert view.status['verdict'].startswith('Right')
    assert view.status['targets'] == ['x', 'w']
    send(view, {'type': 'guess', 'value': ['[3, 4]', '[1, 2]']})  # one box per input
    assert view.status['verdict'].startswith('Right')
    assert view.score.right == 2 and view.status['done']


def test_guess_without_a_step_waiting_is_an_error(view_of):
    _, y = polynomial()
    view = view_of(y)
    view.run()
    with pytest.raises(RuntimeError, match='no step is waiting'):
        view.guess('1')
    assert view.score.total == 0


def test_run_to_from_the_browser(view_of):
    _x, y = polynomial(3.0)
    view = view_of(y)
    pow_id = events.uid(y.creator.inputs[0].creator.inputs[0].creator)
    send(view, {'type': 'run-to', 'id': f'n{pow_id}'})
    assert view.status['next_id'] == pow_id and view.status['step'] == 2
    view.select(pow_id)
    assert view.panel['actions'] == ['run-to'] and view.panel['title'].startswith('f1')


def test_new_operations_appear_live(view_of):
    x = chainer.Variable(np.array(2.0), name='x')
    y = x * 3
    view = view_of(y)
    before = len(view.model.live.model.nodes)
    z = F.exp(y)
    view.refresh()  # redraws are throttled; force one
    assert len(view.model.live.model.nodes) == before + 2
    assert f'n{events.uid(z)}' in view.nodes
    unrelated = chainer.Variable(np.array(1.0)) * 2  # not connected: not shown
    view.refresh()
    assert f'n{events.uid(unrelated)}' not in view.nodes


def test_view_does_not_keep_graph_alive():
    import gc
    import weakref

    x = chainer.Variable(np.array(2.0))
    y = x * 3
    view = GraphView(y)
    ref = weakref.ref(y.creator)
    view.close()
    del view, y
    gc.collect()
    assert ref() is None


def test_views_without_output_and_on_a_leaf(view_of):
    empty = view_of()
    assert empty.status['done'] and 'no output' in empty.status['text']
    leaf = view_of(chainer.Variable(np.array(1.0)))
    assert leaf.status['done'] and 'leaf' in leaf.status['text']
    with pytest.raises(TypeError):
        GraphView([np.ones(2)])


def test_event_redraws_are_throttled_inside_an_event_loop():
    import asyncio
    import threading

    from autograd_lab_widget import lifetime, redraw

    async def main():
        x = chainer.Variable(np.array(1.0), name='x')
        h = x * 2
        view = GraphView(h)
        lifetime.hold(view)  # a page shows it (one that does not: no redraw at all)
        redraws = []
        view.observe(lambda change: redraws.append(change['new']), 'dot')
        for _ in range(30):  # 60 new nodes while the "cell" runs
            h = h * 1.5
        assert redraws == []  # nothing drawn while the loop is busy
        await asyncio.sleep(redraw.THROTTLE_S * 3)
        assert len(redraws) == 1  # one coalesced redraw afterwards
        assert f'n{events.uid(h)}' in view.nodes
        view.close()

    # A thread of its own: a session-scoped Playwright browser (tests/browser) keeps an event
    # loop running in the main thread, and asyncio.run() refuses to nest in it.
    failures = []

    def run() -> None:
        try:
            asyncio.run(main())
        except BaseException as error:  # re-raised below, in the test's thread
            failures.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if failures:
        raise failures[0]


def test_oldest_views_are_detached_beyond_the_limit(monkeypatch):
    from autograd_lab_widget import lifetime

    monkeypatch.setattr(lifetime, 'MAX_LIVE_VIEWS', 2)
    views = [GraphView(chainer.Variable(np.array(float(i))) * 2) for i in range(3)]
    try:
        first = views[0]
        assert not first.model.following and first.model.roots == []
        assert 'Detached' in first.status['text']
        assert views[2].model.following and views[2].step() is True
        assert first.status['done']  # nothing left to step in a detached view
    finally:
        for v in views:
            v.close()
