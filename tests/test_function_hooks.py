"""TimerHook and PrintHook (Chainer's ``function_hooks``), and how FunctionHooks share the
event layer's observation switch.

The differential tests run the same program under Chainer 7.8.1 and compare call
histories, report layouts and printed text (variable addresses normalised).
"""

from __future__ import annotations

import gc
import io
import re
import textwrap
import warnings

import numpy as np
import pytest

import autograd_lab as chainer
import autograd_lab.functions as F
from autograd_lab import FunctionHook, Variable, events
from autograd_lab.function_hooks import PrintHook, TimerHook
from autograd_lab.function_hooks import timer as timer_module
from chainer_ref import requires_chainer
from chainer_ref import run as run_chainer


def f32(*values):
    return np.array(values, dtype=np.float32)


class Split(chainer.FunctionNode):
    """Two outputs; the second gets no gradient in the programs below."""

    def forward(self, inputs):
        return inputs[0][:1].copy(), inputs[0][1:].copy()

    def backward(self, target_input_indexes, grad_outputs):
        ga, _ = grad_outputs
        return F.concat([ga, Variable(np.zeros(1, np.float32))], axis=0),


SPLIT_SOURCE = '''
class Split(chainer.FunctionNode):
    def forward(self, inputs):
        return inputs[0][:1].copy(), inputs[0][1:].copy()
    def backward(self, target_input_indexes, grad_outputs):
        ga, _ = grad_outputs
        return F.concat([ga, chainer.Variable(np.zeros(1, np.float32))], axis=0),
'''


# ---- the shared switch ---------------------------------------------------------------------------


class TestObservationSwitch:
    def test_a_global_hook_turns_the_switch_on_and_off(self):
        assert events.active is False
        with FunctionHook():
            assert events.active is True
        assert events.active is False

    def test_a_local_hook_counts_until_deleted(self):
        fn = (Variable(f32(1)) * 2).creator
        fn.add_hook(FunctionHook())
        assert events.active is True
        fn.delete_hook('FunctionHook')
        assert events.active is False

    def test_a_node_that_dies_with_hooks_gives_them_back(self):
        fn = (Variable(f32(1)) * 2).creator
        fn.add_hook(FunctionHook(), name='a')
        fn.add_hook(FunctionHook(), name='b')
        assert events.active is True
        del fn
        gc.collect()
        assert events.active is False

    def test_editing_the_table_directly_counts_too(self):
        seen = []

        class Seen(FunctionHook):
            def forward_preprocess(self, function, in_data):
                seen.append(function.label)

        table = chainer.get_function_hooks()
        table['direct'] = Seen()
        try:
            assert events.active is True
            Variable(f32(1)) * 2
        finally:
            table.pop('direct')
        assert events.active is False and seen == ['_ * 2']

    def test_a_copy_of_the_table_is_not_a_registration(self):
        import copy
        with FunctionHook():
            duplicate = copy.deepcopy(chainer.get_function_hooks())
            assert list(duplicate) == ['FunctionHook']
        del duplicate
        gc.collect()
        assert events.active is False

    def test_subscribers_and_hooks_together(self):
        with events.recording() as log:
            assert events.active is True
            with FunctionHook():
                pass
            assert events.active is True
        assert events.active is False and len(log) == 0

    def test_hooks_and_events_see_the_same_functions(self):
        labels = []

        class Labels(FunctionHook):
            def forward_postprocess(self, function, in_data):
                labels.append(function.label)

        x = Variable(f32(1, 2), name='x')
        with events.recording() as log, Labels():
            F.sum(x * x + F.exp(x)).backward()
        assert labels == [e.label for e in log.of_kind('function_applied')]

    def test_hooks_alone_build_no_events(self):
        built = []
        with FunctionHook():
            sub = events.subscribe(built.append)
            sub.unsubscribe()
            x = Variable(f32(1, 2))
            F.sum(x * x).backward()
        assert built == []
        np.testing.assert_array_equal(x.grad, f32(2, 4))

    def test_hook_registered_in_another_thread_does_not_fire_here(self):
        import threading
        fired = []
        ready, release = threading.Event(), threading.Event()

        class Fire(FunctionHook):
            def forward_preprocess(self, function, in_data):
                fired.append(function.label)

        def other():
            with Fire():
                ready.set()
                release.wait(10)

        t = threading.Thread(target=other)
        t.start()
        ready.wait(10)
        try:
            assert events.active is True  # the switch is global, the tables thread-local
            y = Variable(f32(1)) * 5
        finally:
            release.set()
            t.join()
        assert fired == [] and y.array == 5 and events.active is False


# ---- TimerHook ---------------------------------------------------------------------------------


@pytest.fixture
def fake_clock(monkeypatch):
    """perf_counter returns 0, 1, 2, ...: every measured interval is exact."""
    ticks = iter(range(10_000))
    monkeypatch.setattr(timer_module.time, 'perf_counter', lambda: float(next(ticks)))


class TestTimerHook:
    def test_history_and_totals_with_a_fake_clock(self, fake_clock):
        x = Variable(f32(1, 2))
        with TimerHook() as hook:
            y = F.sum(x * x)  # Mul: 0->1, Sum: 2->3
            y.backward()      # Sum bwd: 4 -> [BroadcastTo 5->6] -> 7; Mul bwd: 8 -> ... -> 15
        assert hook.call_history == [
            ('Mul', 1.0), ('Sum', 1.0),
            ('BroadcastTo', 1.0), ('Sum', 3.0),
            ('Mul', 1.0), ('Mul', 1.0), ('Add', 1.0), ('Mul', 7.0)]
        assert hook.total_time() == 1 + 1 + 3 + 7  # nested calls are not counted twice
        assert hook.summary() == {
            'Mul': {'elapsed_time': 10.0, 'occurrence': 4},
            'Sum': {'elapsed_time': 4.0, 'occurrence': 2},
            'BroadcastTo': {'elapsed_time': 1.0, 'occurrence': 1},
            'Add': {'elapsed_time': 1.0, 'occurrence': 1}}

    def test_a_failed_forward_leaves_no_stale_clock(self, fake_clock):
        class Boom(chainer.FunctionNode):
            def forward(self, inputs):
                raise RuntimeError('boom')

        x = Variable(f32(1))
        with TimerHook() as hook:
            with pytest.raises(RuntimeError):
                Boom().apply((x,))  # started at 0, never finished
            x * 2                   # 1 -> 2
        assert hook.call_history == [('MulConstant', 1.0)]
        assert hook.total_time() == 1.0

    def test_a_failed_backward_leaves_no_stale_clock(self, fake_clock):
        class BadBackward(chainer.FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 1,

            def backward(self, indexes, grad_outputs):
                raise RuntimeError('boom')

        x = Variable(np.array(1, np.float32))
        with TimerHook() as hook:
            y, = BadBackward().apply((x,))  # 0 -> 1
            with pytest.raises(RuntimeError):
                y.backward()                # started at 2, never finished
            x * 2                           # 3 -> 4: a top-level call again
        assert hook.call_history == [('BadBackward', 1.0), ('MulConstant', 1.0)]
        assert hook.total_time() == 2.0

    def test_a_forward_inside_a_backward_called_by_hand_is_nested(self, fake_clock):
        # as a profiler or Chainer's own tests drive a hook: no engine backward is running
        hook, x, gy = TimerHook(), f32(1, 2), f32(1, 1)
        outer, inner = F.math.exponential.Exp(), F.math.identity.Identity()
        hook.backward_preprocess(outer, (x,), (gy,))  # 0
        hook.forward_preprocess(inner, (x,))          # 1
        hook.forward_postprocess(inner, (x,))         # 2
        hook.backward_postprocess(outer, (x,), (gy,))  # 3
        assert hook.call_history == [('Identity', 1.0), ('Exp', 3.0)]
        assert hook.total_time() == 3.0  # the outer call's time, the inner one inside it

    @requires_chainer
    def test_nested_by_hand_as_in_chainer(self):
        code = """
        import time
        from chainer.function_hooks import TimerHook
        from chainer.functions.math import exponential, identity
        hook, x = TimerHook(), np.ones(2, np.float32)
        outer, inner = exponential.Exp(), identity.Identity()
        hook.backward_preprocess(outer, (x,), (x,))
        hook.forward_preprocess(inner, (x,))
        time.sleep(0.002)
        hook.forward_postprocess(inner, (x,))
        hook.backward_postprocess(outer, (x,), (x,))
        out['names'] = np.array([name for name, _ in hook.call_history])
        out['times'] = np.array([seconds for _, seconds in hook.call_history])
        out['total'] = hook.total_time()
        """
        ref = run_chainer(code)
        ns = {'np': np, 'out': {}}
        exec(textwrap.dedent(code).replace('from chainer.', 'from autograd_lab.'), ns)
        ours = ns['out']
        for side in (ref, ours):
            assert side['names'].tolist() == ['Identity', 'Exp']
            inner_time, outer_time = side['times']
            assert outer_time >= inner_time >= 0.002
            assert side['total'] == outer_time  # the inner call is inside the outer one

    def test_real_clock_gives_positive_times(self):
        x = Variable(np.ones(100, np.float32))
        with TimerHook() as hook:
            F.sum(F.exp(x)).backward()
        assert all(seconds >= 0 for _, seconds in hook.call_history)
        assert 0 < hook.total_time() <= sum(seconds for _, seconds in hook.call_history)

    def test_units(self):
        hook = TimerHook()
        hook.call_history = [('Mul', 0.0012), ('Exp', 3e-6), ('Mul', 0.5)]
        out = io.StringIO()
        hook.print_report(unit='ms', file=out)
        assert out.getvalue() == ('FunctionName  ElapsedTime  Occurrence\n'
                                  '         Mul     501.20ms           2\n'
                                  '         Exp       0.00ms           1\n')
        with pytest.raises(KeyError, match='unknown unit'):
            hook.print_report(unit='minutes', file=out)

    def test_empty_report_is_the_header(self):
        out = io.StringIO()
        TimerHook().print_report(file=out)
        assert out.getvalue() == 'FunctionName  ElapsedTime  Occurrence\n'

    def test_default_file_is_the_current_stdout(self, capsys):
        hook = TimerHook()
        hook.call_history = [('Mul', 2.0)]
        hook.print_report()
        assert capsys.readouterr().out.splitlines()[1].split() == ['Mul', '2.00sec', '1']

    @requires_chainer
    @pytest.mark.parametrize('unit', ['auto', 'auto_foreach', 'sec', 'ms', 'us', 'ns'])
    def test_report_layout_matches_chainer(self, unit):
        history = [('LinearFunction', 1.24), ('ReLU', 0.00059), ('Mul', 2.5e-7),
                   ('ReLU', 0.3), ('SoftmaxCrossEntropy', 12.5)]
        ref = run_chainer(f'''
            from chainer.function_hooks import TimerHook
            hook = TimerHook()
            hook.call_history = {history!r}
            buf = io.StringIO()
            hook.print_report(unit={unit!r}, file=buf)
            out['text'] = np.array(buf.getvalue())
        ''')
        hook = TimerHook()
        hook.call_history = list(history)
        out = io.StringIO()
        hook.print_report(unit=unit, file=out)
        assert out.getvalue() == str(ref['text'])

    @requires_chainer
    def test_call_history_names_match_chainer(self):
        program = '''
            x = chainer.Variable(np.array([1., 2.], np.float32))
            w = chainer.Variable(np.array([0.5, -1.], np.float32))
            with TimerHook() as hook:
                h = F.tanh(x * w + 0.5)
                a, b = Split().apply((h,))
                y = F.sum(a * 3) + F.sum(F.exp(h) * h)
                y.backward()
                gx, = chainer.grad([F.sum(x * x * w)], [x], enable_double_backprop=True)
                F.sum(gx * x).backward()
        '''
        ref = run_chainer(SPLIT_SOURCE + 'from chainer.function_hooks import TimerHook\n'
                          + program.replace('\n            ', '\n')
                          + "\nout['names'] = np.array([n for n, _ in hook.call_history])")
        namespace = {'chainer': chainer, 'F': F, 'np': np, 'Split': Split,
                     'TimerHook': TimerHook}
        exec(program.replace('\n            ', '\n'), namespace)
        names = [n for n, _ in namespace['hook'].call_history]
        assert names == list(ref['names'])


# ---- PrintHook ---------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    return re.sub(r'<variable at 0x[0-9a-f]+>', '<variable at ADDR>', text)


PRINT_PROGRAM = '''
x = chainer.Variable(np.array([1., 2.], np.float32))
buf = io.StringIO()
with PrintHook(file=buf, end='#\\n'):
    a, b = Split().apply((x,))
    F.sum(a * 3).backward()
'''


class TestPrintHook:
    def test_forward_block(self):
        out = io.StringIO()
        x = Variable(f32(1, 3))
        with PrintHook(file=out):
            F.exp(x)
        assert _normalise(out.getvalue()) == (
            'function\texp\ninput data\n<variable at ADDR>\n- device: CPU\n'
            "- backend: <class 'numpy.ndarray'>\n- shape: (2,)\n- dtype: float32\n"
            '- statistics: mean=2.00000000, std=1.00000000\n- grad: None\n')

    def test_backward_block_shows_removed_inputs_and_missing_grads(self):
        out = io.StringIO()
        x = Variable(f32(1, 2))
        a, _ = Split().apply((x,))
        y = F.sum(a * 3)
        with PrintHook(file=out):
            y.backward()
        text = _normalise(out.getvalue())
        split = text[text.rindex('function\tSplit'):]
        split = split[:split.index('function\t', 1)]  # up to Concat, applied by its backward
        assert split.split('\n')[:3] == ['function\tSplit', 'input data', '(removed)']
        assert split.endswith('- device: None\n- backend: None\n- shape: None\n- dtype: None\n'
                              '- statistics: None\n- grad: None\n')
        np.testing.assert_array_equal(x.grad, f32(3, 0))

    def test_sep_is_deprecated_and_ignored(self):
        with pytest.warns(DeprecationWarning, match='sep argument'):
            hook = PrintHook(sep='|', file=io.StringIO())
        assert hook.sep == '|' and hook.end == '\n' and hook.flush is True

    def test_no_warning_without_sep(self):
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            PrintHook()

    def test_default_file_is_the_current_stdout(self, capsys):
        with PrintHook():
            Variable(f32(1)) * 2
        assert capsys.readouterr().out.startswith('function\t_ * 2\ninput data\n')

    def test_printing_announces_no_variables(self):
        def kinds(hook):
            x = Variable(f32(1, 2))
            with events.recording() as log, hook:
                F.sum(x * 2).backward()
            return [e.kind for e in log], log.of_kind('variable_created')

        plain, _ = kinds(FunctionHook())  # a hook that prints nothing: the same engine path
        printed, created = kinds(PrintHook(file=io.StringIO()))
        assert printed == plain  # not one variable_created more
        assert len(created) == plain.count('variable_created') > 0

    @requires_chainer
    def test_text_matches_chainer(self):
        ref = run_chainer(SPLIT_SOURCE + 'from chainer.function_hooks import PrintHook\n'
                          + PRINT_PROGRAM + "\nout['text'] = np.array(buf.getvalue())")
        namespace = {'chainer': chainer, 'F': F, 'np': np, 'io': io, 'Split': Split,
                     'PrintHook': PrintHook}
        exec(PRINT_PROGRAM, namespace)
        assert _normalise(namespace['buf'].getvalue()) == _normalise(str(ref['text']))
