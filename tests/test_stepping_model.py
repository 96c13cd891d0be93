"""The kernel-side stepping model (autograd_lab_widget.session.stepping), without any
widget library:
following the engine, stepping its own backward, history, reset, backward run from code,
predict mode and its score, run to here, higher-order marking, and the ledger's numbers."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import events

from autograd_lab_widget.follow import recorder
from autograd_lab_widget.present.drawing import DEFAULT_OPTIONS
from autograd_lab_widget.quiz.prediction import Score


@pytest.fixture(autouse=True)
def values_recorded():
    """As in a notebook kernel: values of freed intermediates are recorded for views."""
    recorder.record_values(True)
    yield
    recorder.record_values(False)


@pytest.fixture
def models(step_models):
    """StepModels closed after the test (conftest's ``step_models``)."""
    return step_models


def tutorial(value=5.0):
    x = chainer.Variable(np.array(value, np.float32), name='x')
    y = x ** 2 - 2 * x + 1
    y.name = 'y'
    return x, y


def texts(scene):
    """Every node's cell texts, as the browser writes them."""
    return {k: dict(v['text']) for k, v in scene.frame.nodes.items()}


def options(**changes):
    return {**DEFAULT_OPTIONS, **changes}


def test_the_model_imports_no_widget_library():
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import autograd_lab as chainer
        from autograd_lab_widget.session.stepping import StepModel
        from autograd_lab_widget.present.drawing import DEFAULT_OPTIONS
        x = chainer.Variable(np.array(5.0), name='x')
        model = StepModel(x ** 2 - 2 * x + 1)
        model.predict = True
        model.guess(1.0)
        model.run_to('f1')
        model.run()
        model.scene(dict(DEFAULT_OPTIONS))
        model.frames(dict(DEFAULT_OPTIONS))
        assert float(x.grad) == 8.0
        print('LOADED', [m for m in ('anywidget', 'ipywidgets', 'traitlets')
                         if m in sys.modules])
    """)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         check=True, timeout=120, cwd='widgets')
    assert 'LOADED []' in out.stdout


def test_steps_are_the_engines_and_the_counter_counts_them(models):
    x, y = tutorial()
    model = models(y)
    scene = model.scene(options())
    assert scene.status['step'] == 0 and scene.status['total'] == 4
    assert scene.status['text'].startswith('Press Step')
    ran = []
    while True:
        up = model.upcoming()
        if not model.step():
            break
        ran.append(model.live.run.last.func_id)
        assert ran[-1] == up.func_id  # what the ledger announced as next is what ran
    assert len(ran) == 4 and float(x.grad) == 8.0
    scene = model.scene(options())
    assert scene.status['done'] and scene.status['step'] == 4
    assert scene.status['text'].startswith('Backward finished')


def test_every_node_shows_its_value_and_grad_after_backward(models):
    x, y = tutorial()
    model = models(y)
    model.run()
    cells = texts(model.scene(options()))
    xid = f'n{events.uid(x)}'
    assert cells[xid] == {'name': 'x', 'data': '5.0', 'gcap': 'grad', 'grad': '8.0'}
    # the intermediates were freed by the engine: their values and grads are the ones
    # the view recorded, and marked so
    variables = {k: v for k, v in cells.items() if 'data' in v}
    assert sorted(v['data'] for v in variables.values()) == \
        sorted(['5.0', '25.0', '10.0', '15.0', '16.0'])
    assert sorted(v['grad'] for v in variables.values()) == \
        sorted(['8.0', '1.0', '-1.0', '1.0', '1.0'])
    nodes = model.scene(options()).frame.nodes
    freed = [k for k, v in nodes.items() if 'freed' in v['cell'].get('grad', '')]
    assert len(freed) == 4 and xid not in freed  # x keeps its own grad


def test_no_grad_yet_differs_from_a_zero_grad(models):
    x = chainer.Variable(np.array(2.0), name='x')
    z = chainer.Variable(np.array(3.0), name='z')
    y = x * 0.0 + z
    model = models(y)
    before = model.scene(options()).frame.nodes[f'n{events.uid(x)}']
    assert before['text']['grad'] == '—' and before['cell']['grad'] == 'none'
    model.run()
    after = model.scene(options()).frame.nodes[f'n{events.uid(x)}']
    assert after['text']['grad'] == '0.0' and 'none' not in after['cell']['grad']


def test_names_are_the_same_everywhere(models):
    _x, y = tutorial()
    model = models(y)
    model.step()
    scene = model.scene(options())
    drawn = {v['text'].get('name', v['text'].get('fid')) for v in scene.frame.nodes.values()}
    assert drawn == {'x', 'y', 'v2', 'v3', 'v4', 'f1', 'f2', 'f3', 'f4'}
    words = ' '.join([scene.status['text']]
                     + [s['title'] for s in scene.ledger['sections']]
                     + [r['key'] + ' ' + r['value'] for s in scene.ledger['sections']
                        for r in s['rows']])
    assert 'f3 (_ - _)' in words and 'v4' in words and '#' not in words
    # and the inspect panel of the next function uses them too
    model.select(model.upcoming().func_id)
    panel = model.scene(options()).panel
    assert panel['title'].startswith('f3') and 'v2 = 25.0' in str(panel['main'])


def test_the_ledger_fills_in_the_numbers(models):
    _x, y = tutorial()
    model = models(y)
    for _ in range(4):
        model.step()
    last, = model.scene(options()).ledger['sections']  # finished: nothing is next
    rows = {r['key']: r['value'] for r in last['rows']}
    assert last['title'] == 'Just ran: f2 (_ * 2)'
    assert rows['inputs'] == 'x = 5.0' and rows['output'] == 'v3 = 10.0'
    assert rows['grad in'] == 'v3: −1.0'
    assert rows['∂v3/∂x'] == 'c = 2.0'
    assert rows['x'] == '−1.0 × 2.0 = −2.0'
    assert rows['x.grad'].startswith('10.0 + (−2.0) = 8.0')  # old + term = sum


def test_next_step_shows_the_rule_with_numbers_and_a_question(models):
    _x, y = tutorial()
    model = models(y)
    model.run_to('f1')  # _ ** 2 is next: its local derivative is 2x = 10 at x = 5
    sections = model.scene(options()).ledger['sections']
    nxt = sections[-1]
    assert nxt['kind'] == 'next' and nxt['title'] == 'Next: f1 (_ ** 2)'
    rows = {r['key']: r['value'] for r in nxt['rows']}
    assert rows['∂v2/∂x'] == 'c·x^(c−1) = 2·5.0^1 = 10.0'
    assert rows['x'] == '1.0 × 10.0 = ?'
    assert 'highest rank' in nxt['why']
    model.predict = True  # the student works the number out: the rule, filled in, no value
    rows = {r['key']: r['value'] for r in model.scene(options()).ledger['sections'][-1]['rows']}
    assert rows['∂v2/∂x'] == 'c·x^(c−1) = 2·5.0^1 = ?' and rows['x'] == '1.0 × ? = ?'


def test_history_step_moves_one_step_and_reset_restores_the_picture(models):
    x, y = tutorial()
    model = models(y)
    before = texts(model.scene(options()))
    model.run()
    end = model.position
    assert model.back() and model.back()
    assert model.scene(options()).status['step'] == 2
    assert model.step() is True  # in history, Step goes one step forward...
    st = model.scene(options()).status
    assert st['step'] == 3 and st['live'] is False
    assert model.step() is True and model.position == end  # ...and then to the end
    assert float(x.grad) == 8.0  # time travel never touched the engine
    model.reset()
    after = model.scene(options())
    assert texts(after) == before  # exactly the node texts from before backward
    assert not any('ran' in v['class'] for v in after.frame.nodes.values())
    assert x.grad is None and after.status['step'] == 0


def test_reset_half_way_forgets_the_grads_of_the_dropped_backward(models):
    x, y = tutorial()
    model = models(y)
    model.run_to('f2')  # v3's grad (-1) is waiting in the stepper for f2
    model.reset()
    scene = model.scene(options())
    assert all(v['text'].get('grad', '—') == '—' for v in scene.frame.nodes.values())
    model.step()
    model.step()  # _ - _ sends v3 its grad again: a first grad, not an accumulation
    scene = model.scene(options())
    v3 = scene.frame.nodes[f'n{model.names.find(model.live.model, "v3")}']
    assert v3['text']['grad'] == '-1.0' and 'stale' not in v3['cell']['grad']
    rows = [r['key'] for r in scene.ledger['sections'][0]['rows']]
    assert 'v3.grad' not in rows
    model.run()
    assert float(x.grad) == 8.0


def test_a_backward_run_from_code_is_followed_and_never_doubled(models):
    x, y = tutorial()
    model = models(y)
    y.backward()  # a cell runs backward itself
    st = model.scene(options()).status
    assert st['step'] == 4 and st['done'] and st['run'] == 'code'
    assert 'ran from your code' in st['text']
    assert model.step() is False and float(x.grad) == 8.0  # Step does not run it again
    model.reset()
    assert model.step() is True


def test_step_says_so_before_adding_to_grads_leaves_already_hold(models):
    x, y = tutorial()
    y.backward()  # before the view: x.grad is 8 already
    model = models(y)
    assert model.step(confirm=False) is False  # the button: the first press warns...
    st = model.scene(options()).status
    assert 'Press again' in st['notice'] and 'x (8.0)' in st['text']
    assert float(x.grad) == 8.0
    assert model.step(confirm=False) is True  # ...the second goes on, said in the notice
    model.run()
    assert float(x.grad) == 16.0
    assert 'Added to the grads held' in model.scene(options()).status['notice']


def test_predict_mode_grades_guesses_and_keeps_score(models):
    _x, y = tutorial()
    model = models(y)
    model.predict = True
    assert model.next_targets() == ['v4']
    verdict = model.guess('1')  # right: the seed passes through _ + 1
    assert verdict.right and model.score == Score(right=1)
    assert model.next_targets() == ['v2', 'v3']
    verdict = model.guess(v2=1.0, v3=1.0)  # wrong: _ - _ sends -1 to its second input
    assert not verdict.right and 'v3 is off (you said 1.0: the sign is wrong)' in str(verdict)
    assert 'v3 gets -1.0 (you said 1.0)' in verdict.answer()  # held back on a first try
    assert model.score == Score(right=1, wrong=1)
    model.step()  # revealed without a guess
    assert model.score == Score(right=1, wrong=1, skipped=1) and model.score.total == 3
    scene = model.scene(options())
    assert scene.status['score'] == {'right': 1, 'wrong': 1, 'skipped': 1, 'total': 3}
    assert scene.ledger['sections'][0]['verdict'] == 'Revealed without a guess.'


def test_a_bad_guess_runs_nothing(models):
    _x, y = tutorial()
    model = models(y)
    model.run_to('f3')
    for bad, error in [('', ValueError), ('[1, 2, 3]', ValueError), ('abc', ValueError),
                       ({'nope': 1}, KeyError), ([1, 'a'], ValueError)]:
        with pytest.raises(error):
            model.guess(bad)
    assert model.upcoming().func_id == model.names.find(model.live.model, 'f3')
    assert model.live.run.steps == 1 and model.score.total == 0


def test_run_to_stops_with_the_chosen_function_next(models):
    _x, y = tutorial()
    model = models(y)
    assert model.run_to('f2') is True
    assert model.upcoming().func_id == model.names.find(model.live.model, 'f2')
    assert model.live.run.steps == 3  # _ + 1, _ - _ and _ ** 2 ran first
    with pytest.raises(ValueError, match='already ran'):
        model.run_to('f1')
    with pytest.raises(ValueError, match='variable'):
        model.run_to('x')
    with pytest.raises(KeyError):
        model.run_to('f99')
    assert model.live.run.steps == 3  # refusals ran nothing


def test_run_to_a_function_backward_never_reaches(models):
    x = chainer.Variable(np.array(2.0), name='x')
    h = F.exp(x)
    y = h * 3
    model = models(y)
    model.unchain(h)  # exp is cut off: backward stops at h
    exp_id = model.names.find(model.live.model, 'f1')
    with pytest.raises(ValueError, match='not on a path'):
        model.run_to(exp_id)


def test_grad_of_grad_nodes_are_marked_from_any_entry(models):
    x = chainer.Variable(np.array(5.0, np.float32), name='x')
    y = x ** 2 - 2 * x + 1
    gx, = chainer.grad([y], [x], enable_double_backprop=True)
    model = models(gx)
    nodes = model.scene(options()).frame.nodes
    made = {k for k, v in nodes.items() if 'grad-of-grad' in v['class']}
    forward = {k for k, v in nodes.items() if 'grad-of-grad' not in v['class']}
    assert made and f'n{events.uid(gx)}' in made and f'n{events.uid(gx.creator)}' in made
    assert f'n{events.uid(x)}' in forward  # x is the forward input both graphs share
    assert 'STYLE="dashed"' in model.scene(options()).frame.dot


def test_double_backprop_view_marks_the_nodes_backward_makes(models):
    x, y = tutorial()
    model = models(y, enable_double_backprop=True)
    model.run()
    assert float(x.grad) == 8.0 and x.grad_var.creator is not None
    nodes = model.scene(options()).frame.nodes
    made = [k for k, v in nodes.items() if 'grad-of-grad' in v['class']]
    assert len(made) > 5 and f'n{events.uid(x.grad_var)}' in made
    assert model.scene(options()).orders == [0, 1]


def test_stepping_keeps_the_layout_and_only_rewrites_texts(models):
    _x, y = tutorial()
    model = models(y)
    keys = {model.scene(options()).frame.key}
    for _ in range(4):
        model.step()
        keys.add(model.scene(options()).frame.key)
    model.reset()
    keys.add(model.scene(options()).frame.key)
    assert len(keys) == 1  # the same layout throughout: the graph does not move


def test_frames_replay_the_history(models):
    x, y = tutorial()
    model = models(y)
    model.run()
    frames = model.frames(options())
    assert [f['status']['step'] for f in frames] == [0, 1, 2, 3, 4]
    assert frames[0]['nodes'][f'n{events.uid(x)}']['text']['grad'] == '—'
    assert frames[-1]['nodes'][f'n{events.uid(x)}']['text']['grad'] == '8.0'
    assert model.position == len(model.timeline)  # frames() left the live view as it was


def test_frames_show_no_selection_and_leave_the_shown_view_as_it_was(models):
    """The replay's frames are made from what each position shows: the selection and an
    unchain preview are the live view's, absent from the frames and untouched by them."""
    x, y = tutorial()
    model = models(y)
    model.step()
    model.back()
    model.select('x')
    cut = model.unchain_preview(y)
    before = model.scene(options())
    frames = model.frames(options())
    def marked(nodes, role):
        return {k for k, n in nodes.items() if f'hl-{role}' in n['class'].split()}

    assert frames and not any(marked(f['nodes'], 'selected') | marked(f['nodes'], 'cut')
                              for f in frames)
    after = model.scene(options())
    assert (model.position, model.selected_id, model.selected) == \
        (before.position, events.uid(x), x)
    assert after.panel == before.panel and after.status == before.status
    assert marked(after.frame.nodes, 'selected') == {f'n{events.uid(x)}'}
    next_one = after.status['next_id']  # marked as next, over the cut
    assert cut and marked(after.frame.nodes, 'cut') == {f'n{i}' for i in cut - {next_one}}
