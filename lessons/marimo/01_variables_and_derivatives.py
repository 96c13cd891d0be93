import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    # Lesson 1 · Variables and derivatives (marimo)

    **Goal:** compute a derivative with the engine, check it with a numerical
    derivative, see what `backward()` leaves behind, and know why gradients add up.

    This is the marimo version of `lessons/01_variables_and_derivatives.ipynb`
    (open it with `marimo edit lessons/marimo/01_variables_and_derivatives.py`).
    marimo runs cells in the order their names need, and reruns a cell when a name
    it uses changes. Two rules follow: **every name is defined in one cell only**,
    and a name that starts with `_` stays inside its cell.

    autograd_lab records your computation *while it runs* (*define-by-run*): the
    graph is simply whatever your Python code did. It behaves like Chainer, so we
    import it under Chainer's name.
    """)
    return


@app.cell
def _():
    import warnings

    import marimo as mo
    import numpy as np

    import autograd_lab as chainer
    import autograd_lab.functions as F
    from autograd_lab import Variable
    from autograd_lab_widget import GraphView

    from autograd_lab_lessons import checks  # the exercise checkers

    # y below has shape (1,): backward() treats it as a scalar but warns that this is
    # deprecated. We chose the shape on purpose, so the warning is switched off.
    warnings.simplefilter('ignore', DeprecationWarning)
    return F, GraphView, Variable, chainer, checks, mo, np


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## A first derivative

    An input that should take part in differentiation is wrapped in a `Variable`.
    Here it holds one number, 5. Ordinary arithmetic on a `Variable` gives a new
    `Variable`; let's evaluate the polynomial $y = x^2 - 2x + 1$:
    """)
    return


@app.cell
def _(Variable, np):
    x = Variable(np.array([5], dtype=np.float32))
    y = x**2 - 2*x + 1
    y.array
    return x, y


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    `y` has a value, 16, but it also remembers *how* it was made: its `creator`
    is the last function that ran (the `+ 1`), which in turn knows its inputs, and so
    on back to `x`.
    """)
    return


@app.cell
def _(y):
    print('y was made by:          ', y.creator.label)
    print('its input was made by:  ', y.creator.inputs[0].creator.label)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    `backward()` walks that record from `y` back to `x`, applying the chain rule at
    every step, and stores $\frac{dy}{dx} = 2x - 2 = 8$ in `x.grad`. Check it by
    hand: $2 \cdot 5 - 2 = 8$. `grad` is an array of the same shape as `x.data`.
    """)
    return


@app.cell
def _(x, y):
    y.backward()
    first_grad = x.grad.copy()
    first_grad, x.grad.shape == x.shape
    return (first_grad,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## Check it without calculus: the central difference

    A derivative is a slope: how much $y$ moves when $x$ moves a little. So we can
    *measure* it with no chain rule at all: evaluate the function a small step $h$ to
    each side of $x$ and divide the rise by the run,

    $$\frac{dy}{dx} \approx \frac{f(x + h) - f(x - h)}{2h}.$$

    This **central difference** is how every gradient is checked, in this course and
    in real libraries. (Stepping to one side only, $(f(x+h) - f(x))/h$, is cruder: its
    error shrinks like $h$, the central one's like $h^2$.)

    ### Exercise 1.1 · a numerical derivative

    Write `central_difference(f, x, h)` returning the central difference of the
    function `f` at `x` with step `h`. The check below reruns by itself when you
    change the cell.
    """)
    return


@app.cell
def _():
    def central_difference(f, x, h):
        return ...
    return (central_difference,)


@app.cell
def _(central_difference, checks):
    checks.ex01_central_difference(central_difference)
    return


@app.cell
def _(central_difference, first_grad):
    def polynomial(v):
        return v**2 - 2*v + 1

    _measured = central_difference(polynomial, 5.0, 1e-3)
    print('measured slope:', '(do exercise 1.1 first)' if _measured is ... else _measured)
    print('backward gave :', first_grad)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ### Why gradient checks use float64

    The step $h$ should be small, but not too small: $f(x+h)$ and $f(x-h)$ then agree
    in almost all their digits, and their difference is mostly rounding. float32
    keeps about 7 significant digits, float64 about 16. Here is the error of the
    central difference of $x^3$ at $x = 2$ (the true slope is 12):
    """)
    return


@app.cell
def _(np):
    def cube(v):
        return v**3

    def central(f, x, h):
        return (f(x + h) - f(x - h)) / (2 * h)

    print('    h     error in float64   error in float32')
    for _h in [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7]:
        _e64 = abs(central(cube, np.float64(2), np.float64(_h)) - 12)
        _e32 = abs(central(cube, np.float32(2), np.float32(_h)) - 12)
        print(f'{_h:8.0e} {_e64:14.1e} {_e32:18.1e}')
    return (central,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    In float64 the error shrinks like $h^2$ down to about $h = 10^{-5}$, where rounding
    starts to win. In float32 rounding wins already below $h = 10^{-2}$: too coarse to
    tell a right gradient from a slightly wrong one. So numerical checks run in float64.

    ## A second backward

    `x.grad` stays on `x` after `backward()` has run. What does another `backward()` do
    to a gradient that is already there? `cleargrad()` empties it first:
    """)
    return


@app.cell
def _(Variable, np):
    xa = Variable(np.array([5], dtype=np.float32))
    ya = xa**2 - 2*xa + 1
    ya.backward()
    print('after one backward:', xa.grad)
    xa.cleargrad()
    print('after cleargrad   :', xa.grad)
    ya.backward()
    print('after one backward:', xa.grad)
    return xa, ya


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ### Exercise 1.2 · predict, then run

    `xa.grad` holds 8 right now. If we call `ya.backward()` **once more**, without
    `cleargrad()`, what will `xa.grad` be? Write your prediction (a number) and check
    it; then press **Run ya.backward() once more** under the check to see what the
    engine does. (marimo runs every cell when it opens, so the cells that show an
    answer wait for a button.)
    """)
    return


@app.cell
def _():
    prediction = ...  # xa.grad after one more ya.backward()
    return (prediction,)


@app.cell
def _(checks, prediction):
    checks.ex01_accumulate(prediction)
    return


@app.cell
def _(mo):
    run_again = mo.ui.run_button(label='Run ya.backward() once more')
    run_again
    return (run_again,)


@app.cell
def _(mo, run_again, xa, ya):
    mo.stop(not run_again.value,
            mo.md('*Predict first (exercise 1.2), then press the button above: this cell '
                  'calls `ya.backward()` and shows `xa.grad`.*'))
    ya.backward()
    xa.grad
    return


@app.cell
def _(mo, run_again):
    mo.stop(not run_again.value)
    mo.md(r"""
    Gradients of inputs are **accumulated**: a second `backward()` adds its result to
    what `x.grad` already holds. A variable used in several places collects the
    contributions of each, but it surprises everyone once; `cleargrad()` (or making `x`
    afresh) starts again from nothing.
    """)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## More than one element

    The same code works elementwise on an array. Because `y` now has several elements,
    there is no single "1" to start backward from, and `backward()` refuses to guess:
    """)
    return


@app.cell
def _(Variable, np):
    xm = Variable(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    ym = xm**2 - 2*xm + 1
    try:
        ym.backward()
    except TypeError as _error:
        print('TypeError:', _error)
    return xm, ym


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    Set `y.grad` to the starting gradient first (ones here; lesson 4 explains why):
    """)
    return


@app.cell
def _(np, xm, ym):
    ym.grad = np.ones((2, 3), dtype=np.float32)
    ym.backward()
    xm.grad
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    Every entry is $2x - 2$ for its own $x$.

    `chainer.grad(outputs, inputs)` is a second way to differentiate: it returns the
    gradients as new variables and leaves every `.grad` attribute alone. Unlike
    `backward()`, it does **not** refuse a many-element output: it quietly starts from
    ones, so it gives the gradient of the *sum* of the outputs. `F` holds many more
    differentiable functions: `F.sin`, `F.exp`, `F.sum`, ...
    """)
    return


@app.cell
def _(F, chainer, xm):
    gx, = chainer.grad([xm**2 - 2*xm + 1], [xm])
    gx, F.sum(xm**2 - 2*xm + 1).array
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ### Exercise 1.3 · a cubic

    For `x = [-1, 0, 2]` (float32), compute the derivative of $y = x^3 - 3x$ at each
    element with the engine and put the gradient in `grad`. In marimo `x` and `y`
    already belong to another cell: call yours `_x` and `_y` (a leading `_` keeps them
    inside this cell). Then press **Compare with measured slopes** under the check.
    """)
    return


@app.cell
def _():
    grad = ...  # build _x, _y, seed _y.grad, call _y.backward(), then: grad = _x.grad
    return (grad,)


@app.cell
def _(checks, grad):
    checks.ex01_cubic(grad)
    return


@app.cell
def _(mo):
    compare = mo.ui.run_button(label='Compare with measured slopes')
    compare
    return (compare,)


@app.cell
def _(central, compare, grad, mo, np):
    mo.stop(not compare.value,
            mo.md('*Do exercise 1.3 first, then press the button above: this cell measures '
                  'the slope at each element and prints it next to your `grad`.*'))
    _points = np.array([-1.0, 0.0, 2.0])
    print('measured:', np.round(central(lambda v: v**3 - 3*v, _points, 1e-5), 6))
    print('engine  :', '(do exercise 1.3 first)' if grad is ... else grad)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## See the graph

    The graph view draws the record that `backward()` follows: every variable shows
    its value and its grad, every function its name. Press **Step** to run backward
    one function at a time: the ledger says what the step did with the numbers filled
    in, and the grads appear as they are computed. Click a node to inspect it.
    """)
    return


@app.cell
def _(GraphView, Variable, np):
    x5 = Variable(np.array([5], dtype=np.float32), name='x')
    y5 = x5**2 - 2*x5 + 1
    view = GraphView(y5)
    view
    return view, x5


@app.cell(hide_code=True)
def _(mo):
    read = mo.ui.button(label='Read x.grad now')
    mo.md(f"""
    Watch the last step: `x` is used twice (by `x**2` and by `2*x`), so its gradient
    arrives in two parts, and the ledger adds them up: `x.grad [10.0] + [−2.0] = [8.0]`.
    The view drives the engine's own backward, so once the status line says backward
    is finished, `x.grad` holds the same 8 as before (it is `None` until then).
    {read}
    """)
    return (read,)


@app.cell
def _(read, x5):
    read
    x5.grad
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    The buttons call methods you can also use from Python: `view.step()`,
    `view.run()`, `view.back()`, `view.reset()`; `view.snapshot()` is a picture of the
    graph as it is now, for your notes. (`view.dock()`, a JupyterLab side panel, has no
    marimo equivalent: keep the view in its own cell.)

    ## Summary

    * A `Variable` wraps an array and remembers the function that created it.
    * `backward()` applies the chain rule from the output back to the inputs and
      leaves the result in each input's `grad`.
    * The central difference $(f(x+h) - f(x-h)) / 2h$ measures a derivative without
      calculus; compare every new gradient with it, in float64.
    * Gradients accumulate; `cleargrad()` starts again from `None`.
    * With several output elements, set `y.grad` before `backward()`;
      `chainer.grad` silently seeds ones.

    Next: **Lesson 2**, the chain rule by hand on a small neuron.
    """)
    return


if __name__ == "__main__":
    app.run()
