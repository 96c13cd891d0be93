"""GraphView's arguments refused with a message that says what was wrong and what to do
(issue 39 point 5): each finding of the hostile probe, its exception type and its words.

A refused view leaves nothing behind: no model follows the engine afterwards.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from widget_helpers import polynomial

import autograd_lab as chainer
from autograd_lab import events
from autograd_lab_widget import GraphView
from autograd_lab_widget import arguments


@pytest.fixture(autouse=True)
def _nothing_left_following():
    """Every refusal below happens before a model subscribes (or is undone)."""
    yield
    assert events.recorder is None, 'a refused GraphView left a subscriber behind'


def _refused(error_type, *args, **kwargs):
    with pytest.raises(error_type) as caught:
        GraphView(*args, **kwargs)
    return str(caught.value)


# -- the outputs ------------------------------------------------------------------------

def test_a_number_is_refused_as_having_no_graph():
    text = _refused(TypeError, np.float32(1))
    assert 'float32' in text and 'no graph' in text and 'chainer.Variable(' in text


def test_a_function_node_is_refused_with_its_output_named():
    _, y = polynomial()
    text = _refused(TypeError, y.creator)
    assert 'FunctionNode' in text and 'not y.creator' in text and y.creator.label in text


def test_a_bad_item_of_a_list_of_outputs_is_named_by_its_place():
    _, y = polynomial()
    text = _refused(TypeError, [y, 'y'])
    assert 'item 1' in text and "'y'" in text and 'str' in text


def test_an_array_and_a_string_are_refused():
    assert 'an array' in _refused(TypeError, np.ones(3))
    assert 'give a Variable' in _refused(TypeError, 'y')


# -- events_log -------------------------------------------------------------------------

def test_events_log_of_non_events_names_the_item_and_how_to_record():
    text = _refused(TypeError, events_log=[1, 2])
    assert 'item 0' in text and 'int' in text and 'events.recording()' in text


def test_events_log_of_exported_dicts_says_to_pass_the_events():
    from autograd_lab_widget import exports

    with events.recording() as log:
        y = chainer.Variable(np.array(2.0)) * 3
    exported = [exports.event_dict(e) for e in log]  # what view.event_log() gives
    text = _refused(TypeError, y, events_log=exported)
    assert 'view.event_log() gives dicts' in text


def test_events_log_that_is_no_list_is_refused_and_a_recording_is_taken():
    assert 'list of recorded events' in _refused(TypeError, events_log=5)
    with events.recording() as log:
        x = chainer.Variable(np.array(2.0), name='x')
        y = x * x
    view = GraphView(y, events_log=list(log))
    assert view.name_of(x) == 'x'
    view.close()


# -- keywords -----------------------------------------------------------------------------

def test_a_misspelled_keyword_is_refused_with_the_known_ones():
    _, y = polynomial()
    text = _refused(TypeError, y, foo=1)
    assert "'foo'" in text
    for name in ('retain_grad', 'predict', 'harder', 'layout', 'focus', 'events_log',
                 'gradient_lens', 'code_lines', 'history', 'height', 'options', 'links'):
        assert name in text, name
    assert 'did you mean retain_grad' in _refused(TypeError, y, retian_grad=True)
    import ipywidgets  # the keywords it knows still pass: the traits, ipywidgets' layout

    view = GraphView(y, predict=True, harder=False, layout=ipywidgets.Layout(width='50%'))
    assert view.predict is True and view.layout.width == '50%'
    view.close()


def test_the_known_keywords_are_the_signatures():
    """Read from ``__init__`` itself: a keyword added there is known at once."""
    params = inspect.signature(GraphView.__init__).parameters
    named = {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert named <= set(arguments.known_keywords(GraphView.__init__))

    class Wider(GraphView):
        @arguments.checked
        def __init__(self, outputs=None, *, extra: bool = False, **kwargs):
            super().__init__(outputs, **kwargs)

    _, y = polynomial()
    Wider(y, extra=True).close()
    with pytest.raises(TypeError, match='extra'):
        Wider(y, extra='yes')


@pytest.mark.parametrize('flag', ['retain_grad', 'enable_double_backprop', 'gradient_lens',
                                  'predict', 'harder'])
@pytest.mark.parametrize('value', ['no', 1, None, [True]])
def test_a_flag_is_true_or_false_only(flag, value):
    _, y = polynomial()
    text = _refused(TypeError, y, **{flag: value})
    assert f'{flag}=' in text and 'True or False' in text
    if isinstance(value, str):
        assert 'any text counts as True' in text
    GraphView(y, **{flag: np.bool_(True)}).close()  # numpy's bools are bools


def test_height_that_is_no_number_says_the_range():
    _, y = polynomial()
    text = _refused(TypeError, y, height='big')
    assert 'height' in text and '100 to 10000' in text and "'big'" in text


# -- options ---------------------------------------------------------------------------

def test_max_nodes_out_of_range_gives_the_range():
    _, y = polynomial()
    for bad in (10 ** 9, 5, 2.5):
        text = _refused(ValueError, y, options={'max_nodes': bad})
        assert 'max_nodes' in text and 'from 10 to 5000' in text, text
        assert 'non-negative' not in text


def test_an_unknown_option_lists_the_options():
    _, y = polynomial()
    text = _refused(ValueError, y, options={'maxnodes': 30})
    assert "'maxnodes'" in text and 'max_nodes' in text and 'rankdir' in text


def test_a_bad_count_option_is_named():
    _, y = polynomial()
    text = _refused(ValueError, y, options={'max_depth': -1})
    assert text.startswith('GraphView(options=...): max_depth')


def test_options_that_are_no_dict_are_a_type_error():
    _, y = polynomial()
    assert 'dict of drawing options' in _refused(TypeError, y, options=[1])


# -- methods -------------------------------------------------------------------------

@pytest.fixture
def view():
    x, y = polynomial()
    v = GraphView(y)
    v.x = x
    yield v
    v.close()


@pytest.mark.parametrize('bad', [3.5, b'x', True, [1]])
def test_select_of_what_is_no_node_says_what_it_takes(view, bad):
    with pytest.raises(TypeError) as caught:
        view.select(bad)
    text = str(caught.value)
    assert 'select() takes a Variable' in text and type(bad).__name__ in text
    assert '_node' not in text


def test_select_still_takes_what_it_took(view):
    view.select(view.x)
    assert view.selected is view.x
    view.select('f1')
    view.select(np.int64(view.model.selected_id))
    view.select(None)
    assert view.selected is None


@pytest.mark.parametrize('bad', ['x', 3.5])
def test_name_of_what_is_no_node_says_what_it_takes(view, bad):
    with pytest.raises(TypeError) as caught:
        view.name_of(bad)
    text = str(caught.value)
    assert 'name_of() takes a Variable' in text and "select('x')" in text
    assert view.name_of(view.x) == 'x'


def test_guess_on_a_closed_view_says_it_is_closed_not_backward():
    _, y = polynomial()
    v = GraphView(y)
    v.close()
    with pytest.raises(RuntimeError) as caught:
        v.guess(1.0)
    text = str(caught.value)
    assert 'no longer follows the engine' in text and 'new view' in text
    assert 'backward' not in text
    done = GraphView(y)  # a view that is open and done still says so
    done.run()
    with pytest.raises(RuntimeError, match='finished'):
        done.guess(1.0)
    done.close()


@pytest.mark.parametrize('name', ['x.png', 'x.PNG', 'x.pdf', 'x', 'x.svg.txt'])
def test_save_refuses_a_name_of_another_format(view, tmp_path, name):
    with pytest.raises(ValueError) as caught:
        view.snapshot().save(tmp_path / name)
    text = str(caught.value)
    assert '.svg' in text and '.html' in text and 'PNG' in text
    assert not (tmp_path / name).exists()  # nothing written
    for good in ('x.svg', 'x.SVG', 'x.html', 'x.htm'):  # the format its name says
        text = view.snapshot().save(tmp_path / good).read_text(encoding='utf-8')
        assert text.startswith('<!DOCTYPE html>') is good.lower().endswith(('.html', '.htm'))
        assert text.startswith('<svg') is good.lower().endswith('.svg')
