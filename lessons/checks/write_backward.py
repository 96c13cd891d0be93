"""Checkers of lesson 6, write backward yourself: the order, the prediction, the loop,
and the engine's order.

The learner's backward must be their own loop over the public graph: the checker runs it
on graphs it makes (fan-out over paths of different lengths, a variable that is both
inputs of one multiply) watched (:mod:`.watch`: the engine's events and the profiler),
and rejects it when the engine's backward started (``y.backward()``, ``chainer.grad``), a
``grad`` of the graph's variables was set, or it changed the watching machinery.  Wrong
numbers are compared with what the usual mistakes give (a stored instead of added
gradient, a function run twice, a breadth-first order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

import autograd_lab.functions as F
from autograd_lab import BackwardStepper, FunctionNode, Variable

from .feedback import Feedback, _call, _checker, _dict_answer, _listed, _ok, _todo, _wrong
from .watch import _untampered, watching

#: The lesson's example, y = (2x + 1)**2 + sin(x), at x = 0.5; its variables by name.
EXAMPLE_X = 0.5
#: The points of exercise 6.2's prediction: the misconceptions differ at both.
PREDICT_AT = (0.5, -1.0)


def example(x0: float = EXAMPLE_X) -> tuple[Variable, Variable, dict]:
    """(x, y, {name: Variable}) of the lesson's graph: u = 2x, v = u + 1, b = v**2,
    a = sin(x), y = b + a.

    >>> x, y, named = example()
    >>> sorted(named), bool(float(y.array) == (2 * 0.5 + 1) ** 2 + np.sin(0.5))
    (['a', 'b', 'u', 'v', 'y'], True)
    """
    x = Variable(np.array(x0), name='x')
    u = x * 2
    v = u + 1
    b = v ** 2
    a = F.sin(x)
    y = b + a
    named = {'u': u, 'v': v, 'b': b, 'a': a, 'y': y}
    for name, var in named.items():
        var.name = name
    return x, y, named


def _meeting_paths(x0: np.ndarray, w0: np.ndarray) -> tuple[list[Variable], Variable]:
    """h = x*w feeds exp-then-sin (two functions deep), itself squared (h*h: the same node
    twice in one function) and the final add (one deep): a breadth-first order runs h's
    creator before every use of h has sent its part, and a stored (not added) gradient
    keeps only one part."""
    x, w = Variable(x0.copy(), name='x'), Variable(w0.copy(), name='w')
    h = x * w
    y = F.sum(F.sin(F.exp(h)) + h * h + h)
    return [x, w], y


def _shared_gradient() -> tuple[list[Variable], Variable]:
    """y = (p + q) + p: each add's backward hands one gradient object to both of its
    inputs, so an in-place += on p's gradient would change q's too (p 2, q 1)."""
    p, q = Variable(np.array(1.5), name='p'), Variable(np.array(-0.5), name='q')
    return [p, q], (p + q) + p


def _problems() -> list[tuple[list[Variable], Variable]]:
    """Fresh graphs to run the learner's code on: the lesson's example at two points,
    two adds sharing a gradient object, and the meeting paths at points of both signs."""
    problems = []
    for x0 in (0.5, -1.3):
        x, y, _ = example(x0)
        problems.append(([x], y))
    problems.append(_shared_gradient())
    problems.append(_meeting_paths(np.array([0.5, -1.3]), np.array([0.7, -0.4])))
    return problems


def _functions(y: Variable) -> set:
    """Every FunctionNode behind y."""
    seen, todo = set(), [y.creator]
    while todo:
        func = todo.pop()
        if func is None or func in seen:
            continue
        seen.add(func)
        todo.extend(node.creator for node in func.inputs)
    return seen


def _order_mistake(order: list, y: Variable) -> str | None:
    """The hint for an order that is not a reverse topological order of y's graph, or
    None when it is one."""
    funcs = _functions(y)
    if any(not isinstance(f, FunctionNode) for f in order):
        return ('List the functions (a FunctionNode: `creator` of a variable or node), '
                'not variables or nodes.')
    if len(set(order)) < len(order):
        return ('A function is listed more than once: one reached along two paths '
                'must be listed once (keep a set of the functions you visited).')
    if set(order) != funcs:
        return ('Some functions are missing: follow every input of every function '
                '(`func.inputs`, each node\'s `creator`), not only the first.')
    position = {f: i for i, f in enumerate(order)}

    def safe(seq: dict) -> bool:
        return all(seq[node.creator] > seq[f] for f in order for node in f.inputs
                   if node.creator is not None)

    if safe(position):
        return None
    if safe({f: -i for f, i in position.items()}):
        return ('That is the forward order (the first function first): backward starts '
                'at y, so read your list backwards.')
    if _is_depth_first_preorder(order, y):
        return ('That is a depth-first pre-order: each function is listed when the walk '
                'first reaches it, so where paths meet (h here feeds three uses) h\'s '
                'creator comes before a use of h that the walk reaches later. List a '
                'function after visiting the creators of its inputs (post-order), then '
                'reverse the list.')
    return ('A function comes before another that uses its output. Every use of a '
            'variable must have sent its part before its creator runs; a breadth-first '
            'walk from y breaks this where paths of different lengths meet.')


def _is_depth_first_preorder(order: list, y: Variable) -> bool:
    """Whether ``order`` lists the functions as a depth-first walk from y.creator first
    reaches them (inputs taken in any order): each next function is an unlisted creator
    of an input of the deepest function on the walk's path that still has one."""
    def feeders(func: Any) -> set:
        return {node.creator for node in func.inputs if node.creator is not None}

    listed, path = set(), []
    for k, func in enumerate(order):
        while path and not feeders(path[-1]) - listed:
            path.pop()
        reachable = {y.creator} if k == 0 else feeders(path[-1]) - listed if path else set()
        if func not in reachable:
            return False
        listed.add(func)
        path.append(func)
    return True


@_checker(answer=lambda: (
    'a depth-first walk from y.creator: visit(func) returns at once for None or a '
    'visited function, marks func visited, visits the creator of each of func.inputs,'
    ' then appends func; return the list reversed'))
def ex06_order(reverse_topological: Any) -> Feedback:
    """``reverse_topological(y)``: every function behind y once, each before the
    functions that made its inputs."""
    exercise = 'ex06_order'
    for _, y in _problems():
        order = _call(exercise, reverse_topological, y)
        if not isinstance(order, (list, tuple)):
            return _wrong(exercise, f'got {type(order).__name__}, not a list.',
                          'Return a list of FunctionNodes, y.creator first.')
        mistake = _order_mistake(list(order), y)
        if mistake is not None:
            return _wrong(exercise, 'not a safe backward order.', mistake)
    return _ok(exercise, 'a reverse topological order, on the example and on a graph where '
               'paths of different lengths meet.')


def _dy_dx(x: float) -> float:
    return 4 * (2 * x + 1) + np.cos(x)


@_checker(answer=lambda: (
    '{0.5: 4 * (2 * 0.5 + 1) + cos(0.5) = 8.8776, -1.0: 4 * (2 * -1 + 1) + cos(-1) = '
    '-3.4597}'))
def ex06_predict(dy_dx: Any) -> Feedback:
    """dy/dx of y = (2x + 1)**2 + sin(x), predicted at x = 0.5 and x = -1."""
    exercise = 'ex06_predict'
    dy_dx = _dict_answer(exercise, dy_dx, PREDICT_AT, key=float,
                         todo=f'a dict with the keys {_listed(PREDICT_AT)}',
                         hint='One number per point: {0.5: ..., -1.0: ...}.')
    got = {}
    for key, value in dy_dx.items():
        if value is ...:
            return _todo(exercise, f'the value at x = {key}')
        try:
            got[float(key)] = float(value)
        except (TypeError, ValueError):
            return _wrong(exercise, f'the value at x = {key} is not a number.',
                          'Give a plain number (a float).')
    # Each mistake, as a function of x: every one differs from the answer at both points.
    mistakes = [
        (lambda x: 4 * (2 * x + 1), 'That is only the path through u, v and b; x also '
         'reaches y through sin, and the two paths add up.'),
        (np.cos, 'That is only the path through sin; the path through u, v '
         'and b adds its part.'),
        (lambda x: 2 * (2 * x + 1) + np.cos(x), 'The path through u stops one factor '
         'early: u = 2x has the local derivative 2.'),
        (lambda x: 4 * (2 * x + 1) * np.cos(x), 'Two paths into one variable add up; '
         'multiplying is for the steps along one path.'),
        (lambda x: 4 * (2 * x + 1) - np.cos(x), 'The derivative of sin is +cos.'),
        (lambda x: (2 * x + 1) ** 2 + np.sin(x), 'That is y itself, not its derivative.'),
    ]

    def matches(f: Callable[[float], float]) -> bool:
        # hand arithmetic with 4 to 5 digits of cos(0.5), cos(-1) passes; every mistake
        # is at least 0.3 away at one of the points
        return all(abs(got[x] - f(x)) <= 1e-3 * max(1.0, abs(f(x))) for x in PREDICT_AT)

    if matches(_dy_dx):
        return _ok(exercise, 'right at both points: the path through u, v, b plus the one '
                   'through sin.')
    for f, hint in mistakes:
        if matches(f):
            return _wrong(exercise, 'not right at either point.', hint)
    bad = [f'x = {x:g}' for x in PREDICT_AT if abs(got[x] - _dy_dx(x)) > 1e-3 * max(
        1.0, abs(_dy_dx(x)))]
    return _wrong(exercise, f'not right at {" and ".join(bad)}.',
                  'Follow both paths from y down to x, multiply the local derivatives '
                  'along each, and add the two products.')


def _watch(y: Variable) -> list:
    """Make every function behind y note, in the returned list, each call of its
    ``backward`` (an instance attribute over the class's method: the learner calls
    ``func.backward``, and the note shows which ran, how often, in what order)."""
    calls: list = []
    for func in _functions(y):
        def watched(*args: Any, _func: Any = func, _backward: Any = func.backward) -> Any:
            calls.append(_func)
            return _backward(*args)
        func.backward = watched
    return calls


def _right_with_distinct_gradients(exercise: str, my_backward: Any, make: int) -> bool:
    """Whether the learner's backward gives the engine's gradients once no two inputs
    share a gradient object (each backward's results copied): then what went wrong is an
    in-place update of a shared one."""
    leaves, y = _problems()[make]
    for func in _functions(y):
        def copying(*args: Any, _backward: Any = func.backward) -> Any:
            return tuple(None if g is None else Variable(g.array.copy())
                         for g in _backward(*args))
        func.backward = copying
    try:
        grads = _call(exercise, my_backward, y)
        got = [grads[x.node].array for x in leaves]
    except Exception:  # the learner's code failing here proves nothing
        return False
    leaves_e, y_e = _problems()[make]
    return _same(got, _engine_grads(leaves_e, y_e))


def _diagnose(calls: list, y: Variable) -> str:
    """The hint for wrong gradients, read off which backwards ran in what order."""
    if not calls:
        return ("No function's backward ran: the chain rule of each step is in its "
                "function's backward; call func.backward(...) for each function in order.")
    if len(set(calls)) < len(calls):
        return ('A function ran more than once (once per path that reaches it), so its '
                'gradients were sent again: run each function once.')
    mistake = _order_mistake(calls, y)
    if mistake is not None and 'missing' in mistake:
        return mistake
    if mistake is not None:
        return ('A function ran before every use of its output had sent its part (as in a '
                'breadth-first order): run them in a reverse topological order.')
    return ('Every function ran once, in a safe order, so a part is lost in between: a '
            'variable used more than once gets a part from each use; add each part to what '
            'the node has (fan-out adds), do not store over it.')


def _engine_grads(leaves: list[Variable], y: Variable) -> list[np.ndarray]:
    y.backward()
    return [x.grad for x in leaves]


def _same(got: list, want: list) -> bool:
    # float64 on both sides: the same products and sums, added in another order, so
    # they agree to roundoff; a finite difference misses by 1e-7 or more
    return all(g is not None and np.shape(g) == np.shape(w)
               and np.allclose(g, w, rtol=1e-10, atol=1e-12) for g, w in zip(got, want))


def _run_watched(exercise: str, my_backward: Any, leaves: list[Variable], y: Variable) -> Any:
    """The learner's backward run on y inside a recording; stops the check when the
    engine's backward ran in it or it set a grad."""
    with watching() as seen:
        grads = _call(exercise, my_backward, y)
    _untampered(exercise, seen)
    if seen.engine_backward:
        _wrong(exercise, "the engine's backward ran inside your function.",
               "You ran the engine's backward (y.backward() or chainer.grad), which is what "
               "you are writing here: loop over your order and call each function's own "
               'backward.')
    if any(x.grad is not None for x in leaves):
        _wrong(exercise, 'your function set x.grad.',
               "Return the gradients in the dictionary; leave the variables' grad alone "
               '(backward() is what sets them).')
    return grads


@_checker(answer=lambda: (
    'grads = {y.node: ones}; for func in reverse_topological(y): gys = '
    'tuple(grads.get(r()) for r in func.outputs); gxs = '
    'func.backward(tuple(range(len(func.inputs))), gys); for each (node, g): '
    'grads[node] = g if node not in grads else grads[node] + g'))
def ex06_backward(my_backward: Any) -> Feedback:
    """``my_backward(y)``: {VariableNode: gradient} by the learner's own loop."""
    exercise = 'ex06_backward'
    for make in range(len(_problems())):
        leaves, y = _problems()[make]
        calls = _watch(y)
        grads = _run_watched(exercise, my_backward, leaves, y)
        if not isinstance(grads, Mapping):
            return _wrong(exercise, f'got {type(grads).__name__}, not a dict.',
                          "Return the dict {node: gradient}, keyed by each variable's node.")
        missing = [x.name for x in leaves if x.node not in grads]
        if missing:
            return _wrong(exercise, f'no gradient for {", ".join(missing)}.',
                          "Key the dict by nodes (func.inputs are nodes; a variable's is "
                          'x.node), and send gradients down to every input.')
        got = [grads[x.node] for x in leaves]
        got = [g.array if isinstance(g, Variable) else None if g is None
               else np.asarray(g, dtype=np.float64) for g in got]
        leaves_e, y_e = _problems()[make]
        want = _engine_grads(leaves_e, y_e)
        if _same(got, want):
            continue
        if calls and all(g is not None and np.shape(g) == np.shape(w)
                         and np.allclose(g, w, rtol=1e-4) for g, w in zip(got, want)):
            return _wrong(exercise, "close to the engine's gradients, but not equal.",
                          'The chain rule gives them exactly: a finite difference is only '
                          "an estimate. Use each function's backward.")
        if _right_with_distinct_gradients(exercise, my_backward, make):
            return _wrong(exercise, "the gradients differ from the engine's.",
                          'A += changed a gradient in place, and one function handed that '
                          "same gradient object to two inputs (an add's backward gives gy to "
                          'both): the other input\'s gradient changed with it. Add into a new '
                          'object, grads[node] = grads[node] + g, never .array += g.array.')
        return _wrong(exercise, "the gradients differ from the engine's.", _diagnose(calls, y))
    return _ok(exercise, "the engine's gradients, by your own loop: also where two paths "
               'meet and where one variable is both inputs of a multiply.')


def engine_order(x0: float = EXAMPLE_X) -> list[str]:
    """The names of the variables made by the functions of the example, in the order the
    engine's backward runs those functions.

    >>> engine_order()[0]
    'y'
    """
    _, y, named = example(x0)
    made_by = {var.creator: name for name, var in named.items()}
    stepper = BackwardStepper.for_backward([y])
    ran = []
    while not stepper.done:
        ran.append(made_by[stepper.step().function])
    return ran


@_checker(answer=lambda: "['y', 'b', 'v', 'a', 'u']")
def ex06_engine_order(order: Any) -> Feedback:
    """The predicted order of the engine's backward on the example, by variable names."""
    exercise = 'ex06_engine_order'
    if order is ...:
        return _todo(exercise, "a list of five names, 'y' first")
    names = ['y', 'b', 'v', 'a', 'u']
    if not isinstance(order, (list, tuple)) or any(n is ... for n in order):
        return _todo(exercise, "the whole list of five names, 'y' first")
    if sorted(map(str, order)) != sorted(names):
        return _wrong(exercise, 'give each of the five names once.',
                      "Five names, one per function: 'y', 'a', 'b', 'u', 'v'.")
    order = [str(n) for n in order]
    if order == engine_order():
        return _ok(exercise, 'right: highest rank first, and at the tie of rank 0, sin, which '
                   'joined the frontier first.')
    _, y, named = example()
    dfs = [next(n for n, v in named.items() if v.creator is f) for f in _dfs_order(y)]
    mistakes = [
        (dfs, 'That is a depth-first order (and the reverse of the creation order). The '
         'engine takes the ready function of the highest rank: compare the ranks of the '
         'functions that made a and v.'),
        (['y', 'b', 'a', 'v', 'u'], 'That is breadth first, by distance from y. The engine '
         'picks by rank, the depth from the inputs, not by distance from y.'),
        (['y', 'b', 'v', 'u', 'a'], 'At the end two functions of rank 0 are ready: the one '
         'that joined the frontier first runs first.'),
        (list(reversed(engine_order())), 'Backward starts at y, the last function, and ends '
         'at the first.'),
    ]
    for wrong_order, hint in mistakes:
        if order == wrong_order:
            return _wrong(exercise, 'not the engine\'s order.', hint)
    return _wrong(exercise, "not the engine's order.",
                  'The engine runs the ready function with the highest rank; a function '
                  'becomes ready when its output has received a gradient.')


def _dfs_order(y: Variable) -> list:
    order, seen = [], set()

    def visit(func: Any) -> None:
        if func is None or func in seen:
            return
        seen.add(func)
        for node in func.inputs:
            visit(node.creator)
        order.append(func)

    visit(y.creator)
    return order[::-1]
