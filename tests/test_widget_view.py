"""GraphView model: traits, stepping with the engine's own stepper, time travel, predict mode."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events

from autograd_lab_widget import GraphView, drawing
from widget_helpers import function_ids, polynomial, send


@pytest.fixture
def view_of():
    made = []

    def make(*args, **kwargs):
        view = GraphView(*args, **kwargs)
        made.append(view)
        return view
    yield make
    for view in made:
        view.close()


def test_initial_traits_describe_the_graph(view_of):
    x, y = polynomial()
    view = view_of(y)
    assert view.dot.startswith('digraph')
    assert f'id=n{events.uid(x)}' in view.dot.replace('"', '')
    assert set(view.node_info) == {f'n{i}' for i in view._live.nodes}
    assert view.status['step'] == 0 and view.status['done'] is False
    assert view.position == 0 and view.structure_key
    from autograd_lab_widget.view import BUNDLE
    assert view._esm == BUNDLE.read_text(encoding='utf-8')  # the committed bundle, inlined
    assert view.gpu_reason == (chainer.backend.gpu_unavailable_reason() or '')


def test_steps_are_the_engines_backward_and_match_plain_backward(view_of):
    x, y = polynomial(3.0)
    ref_x, ref_y = polynomial(3.0)
    ref_y.backward()
    view = view_of(y)
    funcs = function_ids(view)
    ran = []
    while not view.status['done']:
        assert view.status.get('next_id') in funcs | {None}
        expected_next = view.status.get('next_id')
        assert view.step() is True
        ran.append(view.status['last_id'])
        if expected_next is not None:
            assert ran[-1] == expected_next  # the status said what would run, and it did
        assert view.status['step'] == len(ran)
    assert sorted(ran) == sorted(funcs) and len(ran) == 4
    assert x.grad == ref_x.grad == 4.0
    assert view.step() is False  # finished: nothing more to run
    # the accumulation of x's second gradient is shown as +=
    assert any('+=' in line and 'x' in line for line in view.status['grad_inputs'])
    node = view._live.nodes[events.uid(x)]
    assert float(node.grad) == 4.0 and 'grad_accumulated' in node.states


def test_status_names_next_function_rank_and_frontier(view_of):
    x = chainer.Variable(np.array(2.0), name='x')
    y = x * x + F.exp(x)
    view = view_of(y)
    view.step()  # the final + ran; now both * and exp wait
    st = view.status
    assert st['text'].startswith('Next: ')
    assert 'rank' in st['reason'] and len(st['frontier']) == 2
    assert st['grad_outputs'] and st['grad_outputs'][0].endswith('= 1.0')


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
    frame = view._frame_model(mid)
    assert view.dot == drawing.draw(
        frame.refresh(), view.options, roots=[events.uid(y)],
        roles={view.status['next_id']: 'next'}).dot


def test_reset_clears_grads_and_starts_a_fresh_backward(view_of):
    x, y = polynomial(3.0)
    view = view_of(y)
    view.run()
    assert x.grad == 4.0
    view.reset()
    assert x.grad is None and view.status['step'] == 0 and not view.status['done']
    view.run()
    assert x.grad == 4.0  # not 8: reset cleared the leaf's accumulated grad


def test_step_while_in_history_returns_to_the_live_end(view_of):
    _x, y = polynomial()
    view = view_of(y)
    view.step()
    view.back()
    assert not view.status['live']
    view.step()
    assert view.status['live'] and view.status['step'] == 2


def test_predict_mode_hides_the_grad_until_guessed(view_of):
    x = chainer.Variable(np.array(3.0), name='x')
    y = x * 5
    view = view_of(y)
    view.predict = True
    view.select(x)
    view.step()
    st = view.status
    assert st['predict_pending'] and st['grad_inputs'] == []
    assert view.panel['grad'].startswith('(hidden')
    assert x.grad == 5.0  # the engine did run; only the display waits
    feedback = view.guess('4')
    assert feedback.startswith('Not quite') and '5.0' in feedback
    assert not view.status['predict_pending'] and view.panel['grad'] == '5.0'


def test_predict_guess_right_and_from_the_browser(view_of):
    x = chainer.Variable(np.array([1.0, 2.0]), name='x')
    w = chainer.Variable(np.array([3.0, 4.0]), name='w')
    y = F.sum(x * w)
    view = view_of(y)
    send(view, {'type': 'action', 'action': 'predict'})
    assert view.predict is True
    view.step()  # sum: grad to (x*w) is ones
    send(view, {'type': 'guess', 'value': '[1, 1]'})
    assert view.status['feedback'].startswith('Correct')
    view.step()  # mul: grads to x and w
    send(view, {'type': 'guess', 'value': '[[3, 4], [1, 2]]'})
    assert view.status['feedback'].startswith('Correct')


def test_guess_without_pending_step_is_an_error(view_of):
    _, y = polynomial()
    view = view_of(y)
    with pytest.raises(RuntimeError, match='no gradient is waiting'):
        view.guess('1')


def test_new_operations_appear_live(view_of):
    x = chainer.Variable(np.array(2.0), name='x')
    y = x * 3
    view = view_of(y)
    before = len(view._live.nodes)
    z = F.exp(y)
    view.refresh()  # redraws are throttled; force one
    assert len(view._live.nodes) == before + 2
    assert f'n{events.uid(z)}' in view.node_info
    unrelated = chainer.Variable(np.array(1.0)) * 2  # not connected: not shown
    view.refresh()
    assert f'n{events.uid(unrelated)}' not in view.node_info


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

    from autograd_lab_widget import view as view_module

    async def main():
        x = chainer.Variable(np.array(1.0), name='x')
        h = x * 2
        view = GraphView(h)
        redraws = []
        view.observe(lambda change: redraws.append(change['new']), 'dot')
        for _ in range(30):  # 60 new nodes while the "cell" runs
            h = h * 1.5
        assert redraws == []  # nothing drawn while the loop is busy
        await asyncio.sleep(view_module.THROTTLE_S * 3)
        assert len(redraws) == 1  # one coalesced redraw afterwards
        assert f'n{events.uid(h)}' in view.node_info
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
    from autograd_lab_widget import view as view_module

    monkeypatch.setattr(view_module, 'MAX_LIVE_VIEWS', 2)
    views = [GraphView(chainer.Variable(np.array(float(i))) * 2) for i in range(3)]
    try:
        first = views[0]
        assert first._subscription is None and first._roots == []
        assert 'Detached' in first.status['message']
        assert views[2]._subscription is not None and views[2].step() is True
        assert first.status['done']  # nothing left to step in a detached view
    finally:
        for v in views:
            v.close()
