"""Predict mode as a class uses it (issue 29): guesses typed as arithmetic, NaN guessed,
guesses bounded in size and type, a wrong step retried after Back (the score keeps
the first try), verdicts that name the step and come back with Back's history."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F

from autograd_lab_widget.quiz import prediction
from widget_helpers import polynomial, send


def sine_view(view_of, **kwargs):
    x = chainer.Variable(np.array(1.0), name='x')
    view = view_of(F.sin(x), **kwargs)
    return x, view


def test_predict_can_be_given_to_the_constructor(view_of):
    _x, view = sine_view(view_of, predict=True)
    assert view.predict and view.model.predict and view.status['predict']
    assert view.status['targets'] == ['x']


@pytest.mark.parametrize('text', ['cos(1)', ' cos( 1 ) * 1', '0.5403', '[cos(1)]',
                                  'sin(pi/2)*cos(1)', '-(-cos(1))', 'exp(log(cos(1)))'])
def test_a_guess_can_be_arithmetic(view_of, text):
    _x, view = sine_view(view_of, predict=True)
    verdict = view.guess(text)
    assert verdict.right, str(verdict)


def test_a_guess_typed_in_the_browser_can_be_arithmetic(view_of):
    x = chainer.Variable(np.array(2.0), name='x')
    w = chainer.Variable(np.array(3.0), name='w')
    view = view_of(x * w, predict=True)
    send(view, {'type': 'guess', 'value': ['3', '2**1']})
    assert view.status['verdict'].startswith('Right'), view.status['verdict']
    assert view.score.right == 1


@pytest.mark.parametrize('text', ['__import__(1)', 'q', 'os.system', '1; 2', 'lambda: 1',
                                  '()', '1 +', 'cos', 'cos(1, 2)', "'1'"])
def test_a_guess_is_arithmetic_only(view_of, text):
    x, view = sine_view(view_of, predict=True)
    with pytest.raises(ValueError):
        view.guess(text)
    assert x.grad is None and view.score.total == 0 and view.status['step'] == 0


@pytest.mark.parametrize('text', ['[' * 100_000, '1' * 5000, '(' * 40 + '1' + ')' * 40,
                                  '-' * 900 + '1', '2 ** 99999', 'exp(1e5)', '1/0'])
def test_hostile_text_gets_our_value_error(view_of, text):
    x, view = sine_view(view_of, predict=True)
    with pytest.raises(ValueError) as caught:
        view.guess(text)
    message = str(caught.value)
    assert type(caught.value) is ValueError and 'int' not in message and len(message) < 200
    assert x.grad is None and view.score.total == 0


def test_a_nan_gradient_can_be_guessed(view_of):
    x = chainer.Variable(np.array(1.0), name='x')
    w = chainer.Variable(np.array(np.nan), name='w')
    view = view_of(x * w, predict=True)  # x's grad is w: nan
    assert view.next_targets() == ['x', 'w']
    send(view, {'type': 'guess', 'value': ['nan', '1']})
    assert view.status['verdict'].startswith('Right'), view.status['verdict']
    assert math.isnan(float(x.grad)) and float(w.grad) == 1.0
    assert prediction.close(float('nan'), np.array(float('nan')))
    assert not prediction.close(float('nan'), np.array(1.0))
    assert not prediction.close(1.0, np.array(float('nan')))


def test_nan_typed_in_python_is_a_guess(view_of):
    _x, view = sine_view(view_of, predict=True)
    verdict = view.guess(float('nan'))
    assert not verdict.right and 'you said nan' in str(verdict)


@pytest.mark.parametrize('value', [True, False, np.bool_(True), b'1', bytearray(b'1'),
                                   [True], ['1'], object(), {1}, None + 0j if False else 1j])
def test_bools_bytes_and_others_are_refused(view_of, value):
    x, view = sine_view(view_of, predict=True)
    with pytest.raises(ValueError, match='a guess is a number'):
        view.guess(value)
    assert x.grad is None and view.score.total == 0


def test_a_guess_is_no_bigger_than_its_target(view_of):
    x, view = sine_view(view_of, predict=True)
    with pytest.raises(ValueError, match='x holds one value: give one number, got 1000000'):
        view.guess([1.0] * 1_000_000)
    with pytest.raises(ValueError, match='x holds one value'):
        view.guess(np.ones(2))
    assert x.grad is None and len(str(view.status)) < 5000
    v = chainer.Variable(np.array([1.0, 2.0, 3.0]), name='v')
    vec = view_of(F.sum(v * 2), predict=True)
    vec.step()  # the sum's step: the next one (* 2) sends v three numbers
    with pytest.raises(ValueError, match='v holds 3 values: give one number or 3, got 4'):
        vec.guess([2, 2, 2, 2])
    assert vec.guess([2, 2, 2]).right and vec.score.right == 1
    assert len(str(vec.status)) + len(str(vec.ledger)) < 5000


def test_a_wrong_step_is_named_and_can_be_retried_after_back(view_of):
    x, y = polynomial()  # x**2 - 2*x + 1 at x = 3: four steps
    view = view_of(y, predict=True)
    assert view.guess(1.0).right  # _ + 1
    wrong = view.guess([1.0, 1.0])  # _ - _: x**2 gets 1, 2*x gets -1
    assert not wrong.right and wrong.step.startswith('step 2, f') and '(_ - _)' in wrong.step
    # the first try names what is off, not the number (issue 38): the answer holds it
    assert 'v3 is off' in str(wrong) and 'gets' not in str(wrong)
    assert 'gets −1.0' in wrong.answer() or 'gets -1.0' in wrong.answer()
    assert view.score.as_dict() == {'right': 1, 'wrong': 1, 'skipped': 0, 'total': 2}
    assert view.back()  # to just before step 2: the step's question again
    assert not view.status['live'] and view.status['targets'] == view.model.next_targets()
    assert len(view.status['targets']) == 2
    again = view.guess([1.0, -1.0])
    assert again.right and again.retry and 'the score keeps your first try' in str(again)
    assert view.score.as_dict() == {'right': 1, 'wrong': 1, 'skipped': 0, 'total': 2}
    assert view.status['live']  # the recorded step was graded; nothing ran twice
    # the live backward goes on from where it was
    assert view.guess(6.0).right and view.guess(-2.0).right
    assert float(x.grad) == 4.0  # 2*3 - 2: each step ran once in the engine
    assert view.score.as_dict() == {'right': 3, 'wrong': 1, 'skipped': 0, 'total': 4}


def test_backs_history_shows_the_verdicts(view_of):
    _x, y = polynomial()
    view = view_of(y, predict=True)
    view.guess(1.0)
    view.guess([5.0, 5.0])
    view.step()  # revealed
    last = next(s for s in view.ledger['sections'] if s['kind'] == 'last')
    assert last['verdict'] == 'Revealed without a guess.'
    seen = []
    while view.back():
        last = [s for s in view.ledger['sections'] if s['kind'] == 'last']
        seen.append(last[0].get('verdict', '') if last else None)
    assert seen[0].startswith('Not quite at step 2')
    assert seen[1].startswith('Right! step 1')
    assert seen[2] is None  # before the first step: nothing ran


def test_a_step_revealed_then_guessed_is_a_retry(view_of):
    _x, view = sine_view(view_of, predict=True)
    view.step()
    view.back()
    verdict = view.guess('cos(1)')
    assert verdict.right and verdict.retry
    assert view.score.as_dict() == {'right': 0, 'wrong': 0, 'skipped': 1, 'total': 1}


def test_steps_run_ungraded_count_their_first_guess(view_of):
    _x, view = sine_view(view_of, predict=True)
    view.run()
    view.back()
    assert view.guess('cos(1)').right and view.score.right == 1
