"""Issue 18's programs for tests/test_differential_chainer.py: the behaviour differences,
the old-style Function, debug mode, the device API and the added optimizers/initializers,
run under Chainer 7.8.1 and under autograd_lab and compared value by value.

Error messages are compared too (``say``): class paths are made neutral
(``<class 'chainer.variable.Variable'>`` and ``<class 'autograd_lab.variable.Variable'>``
both read ``<class 'Variable'>``), and where a message carries what is specific to one
library or machine (a stack trace, an install hint) only its first line is kept.
"""

PROGRAMS = r'''
import copy as _copy
import io
import pickle as _pickle
import re as _re


def _neutral(text):
    return _re.sub(r"<class '(?:chainer|autograd_lab)\.[\w.]*?(\w+)'>", r"<class '\1'>", text)


def say(rec, key, thunk, first_line=False, last_line=False):
    """Record the class and message of the exception ``thunk()`` raises."""
    try:
        thunk()
    except Exception as e:
        text = _neutral(str(e))
        if first_line or last_line:
            lines = text.strip().splitlines() or ['']
            text = lines[0] if first_line else lines[-1]
        rec(key, type(e).__name__ + ': ' + text)
    else:
        rec(key, 'no error')


def warned(thunk):
    """The (class name, message) of the warnings ``thunk()`` emits."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        thunk()
    return [(type(w.message).__name__, str(w.message)) for w in caught]


def prog_issue18_01_check_type_forward_on_an_instance(rec, err):
    class Twice(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

    seen = []
    f = Twice()
    f.check_type_forward = lambda in_types: seen.append(len(in_types))
    f.apply((np.ones(2),))
    rec('called', seen)
    utils = importlib.import_module(chainer.__name__ + '.utils.type_check')

    def reject(in_types):
        utils.expect(in_types[0].ndim == 2)

    g = Twice()
    g.check_type_forward = reject
    say(rec, 'rejected', lambda: g.apply((np.ones(2),)))
    rec('accepted 2-d', g.apply((np.ones((1, 2)),))[0].array)
    rec('other instance unaffected', [Twice().apply((np.ones(2),))[0].array, seen])
    del g.check_type_forward
    rec('after del', g.apply((np.ones(2),))[0].array)

    class Checked(Twice):
        def check_type_forward(self, in_types):
            utils.expect(in_types[0].dtype == np.float32)

    say(rec, 'class check with a type constant', lambda: Checked().apply((np.ones(2),)))


def prog_issue18_02_link_to_cpu_is_deprecated(rec, err):
    link = chainer.Link()
    rec('to_cpu', warned(link.to_cpu))

    def define():
        class Old(chainer.Link):
            def to_cpu(self):
                return super().to_cpu()
        return Old

    rec('override', warned(define))

    class Parent(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.child = define()()

    parent = Parent()
    rec('to_device warns nothing', [w for w in warned(lambda: parent.to_device('@numpy'))
                                    if 'Overriding' not in w[1]])
    rec('to_cpu of a parent', warned(parent.to_cpu))
    rec('returns the link', parent.to_device('@numpy') is parent)
    say(rec, 'to_gpu without a GPU', lambda: chainer.Link().to_gpu(), first_line=True)


def prog_issue18_03_debug_mode(rec, err):
    def returning(gradient):
        class Returns(chainer.FunctionNode):
            def forward(self, inputs):
                return inputs[0] * 2,

            def backward(self, indexes, grad_outputs):
                return gradient(grad_outputs[0])
        return Returns()

    def run(gradient, debug=True):
        x = chainer.Variable(np.ones(2, f32))
        with chainer.using_config('debug', debug):
            y, = returning(gradient).apply((x,))
            y.grad = np.ones(2, f32)
            y.backward()
        return x.grad

    nan = lambda gy: (chainer.Variable(np.full(2, np.nan, f32)),)
    say(rec, 'nan grad', lambda: run(nan))
    rec('nan grad without debug', run(nan, debug=False))
    say(rec, 'wrong shape', lambda: run(lambda gy: (chainer.Variable(np.ones(3, f32)),)))
    say(rec, 'array instead of Variable', lambda: run(lambda gy: (gy.array,)))
    say(rec, 'two grads for one input', lambda: run(lambda gy: (gy, gy)))
    say(rec, 'nan in forward', lambda: run(lambda gy: (gy * np.nan,)), first_line=True)
    x = chainer.Variable(np.array([1.0, 2.0], f32))

    def forward_nan():
        with chainer.using_config('debug', True):
            return x * np.nan
    say(rec, 'forward nan', forward_nan)
    rec('is_debug', [chainer.is_debug(), warned(lambda: chainer.DebugMode(True))])


def prog_issue18_04_numerical_grad_smooth_points(rec, err):
    gc = importlib.import_module(chainer.__name__ + '.gradient_check')
    for dtype in (f32, f64):
        x = np.array([0.0], dtype)
        g = gc.numerical_grad(lambda: (-3 * x ** 3 + 2 * x ** 2 + 1,) * 2, (x,),
                              (np.ones(1, dtype),) * 2, detect_nondifferentiable=True)
        # numerical_grad's five points around 0 (eps 1e-3): two outputs, each |f| ~ 1
        rec('cubic ' + np.dtype(dtype).name, g, kind='finite_difference', step=1e-3,
            points=5, f_scale=2.01)
        z = np.array([100.0], dtype)
        g = gc.numerical_grad(lambda: (np.log(z),), (z,), (np.ones(1, dtype),),
                              detect_nondifferentiable=True)
        # log(100 + 1e-3) = 4.6052; a 1-ULP difference of log becomes 3/eps ULPs of g
        rec('log ' + np.dtype(dtype).name, g, kind='finite_difference', step=1e-3,
            points=5, f_scale=4.61)
        k = np.array([0.0, 1.0], dtype)
        err('abs kink ' + np.dtype(dtype).name, lambda: gc.numerical_grad(
            lambda: (np.abs(k),), (k,), (np.ones(2, dtype),), detect_nondifferentiable=True))
    s = np.array([0.3, -1.2, 2.0])
    rec('sin five points', gc.numerical_grad(lambda: (np.sin(s),), (s,), (np.ones(3),),
                                             detect_nondifferentiable=True),
        kind='finite_difference', step=1e-3, points=5, f_scale=1.0)


def prog_issue18_05_to_device_is_final(rec, err):
    for name in ('to_device', 'to_chx', 'from_chx'):
        say(rec, name, lambda: type('Mine', (chainer.Link,), {name: lambda self: self}))
    for name in ('to_cpu', 'to_gpu', 'to_intel64'):
        rec('override ' + name, warned(lambda: type('Mine', (chainer.Link,),
                                                      {name: lambda self: self})))


def prog_issue18_06_check_backward_no_grads(rec, err):
    gc = importlib.import_module(chainer.__name__ + '.gradient_check')
    err('no_grads both', lambda: gc.check_backward(
        lambda a, b: a + b, (np.ones(1), np.ones(1)), np.ones(1), no_grads=[True, True]))
    err('no_grads first', lambda: gc.check_backward(
        lambda a, b: a + b, (np.ones(1), np.ones(1)), np.ones(1), no_grads=[False, True]))
    err('no_grads when right', lambda: gc.check_backward(
        lambda a, b: a + b.array, (np.ones(1), np.ones(1)), np.ones(1),
        no_grads=[False, True]))
    err('numerical gradient nonzero', lambda: gc.check_backward(
        lambda a, b: a + b.array, (np.ones(1), np.ones(1)), np.ones(1),
        no_grads=[False, False]))
    err('int input skipped', lambda: gc.check_backward(
        lambda a, i: a * i.array, (np.ones(2), np.array([2, 3])), np.ones(2)))


def prog_issue18_07_link_copy_names_and_init_grads(rec, err):
    initializers = importlib.import_module(chainer.__name__ + '.initializers')
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(initializers.One(), (2,))
    link.name = 'a'
    rec('names', [link.copy(mode=m).name for m in ('copy', 'init', 'share')])

    class Net(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = chainer.Link()
                with self.l.init_scope():
                    self.l.w = chainer.Parameter(initializers.One(), (2, 3))

    net = Net()
    net.l.w.grad = np.zeros((2, 3), f32)
    for mode in ('init', 'copy', 'share'):
        c = net.copy(mode=mode)
        rec('child ' + mode, [c.l.name, c.name, None if c.l.w.grad is None else
                              np.isnan(c.l.w.grad).all(), c.l.w.array is net.l.w.array])
    say(rec, 'bad mode', lambda: link.copy(mode='deep'))


def prog_issue18_08_copied_parameter_shares_data(rec, err):
    x = chainer.Parameter()
    y = _copy.copy(x)
    x.initialize((3, 2))
    rec('shared after initialize', [y.array is x.array, y.shape, y.node is x.node])
    x.array = np.zeros((3, 2), f32)
    rec('shared after assignment', y.array is x.array)
    rec('copy keeps the rest', [y.name, y.update_rule, type(y).__name__])
    p = chainer.Parameter(np.ones(2, f32), name='p')
    q = _copy.copy(p)
    rec('initialized copy', [q.array is p.array, q.name, q.node is p.node, q.grad])
    p.array = np.full(2, 3.0, f32)
    rec('initialized copy follows assignment', q.array)


def prog_issue18_09_pickle_and_deepcopy(rec, err):
    x = chainer.Variable(np.ones(3, f32), name='x')
    y = x * 2
    y.grad = np.full(3, 2.0, f32)
    z = _pickle.loads(_pickle.dumps(y))
    rec('pickled', [z.array, z.grad, z.name, z.creator is None, z.requires_grad, z.rank])
    w = _pickle.loads(_pickle.dumps(x))
    rec('pickled name', [w.name, w.grad])
    d = _copy.deepcopy(y)
    rec('deepcopy', [d.array, d.grad, d.creator is None, d.array is y.array])
    c = _copy.copy(y)
    rec('copy', [c.array is y.array, c.node is y.node, c.creator is None])
    p = chainer.Parameter(np.ones(2, f32))
    p.grad = np.ones(2, f32)
    q = _pickle.loads(_pickle.dumps(p))
    rec('parameter', [type(q).__name__, q.array, q.grad, q.update_rule])


def prog_issue18_10_grad_arguments_must_be_sequences(rec, err):
    x = chainer.Variable(np.ones(2, f32))
    y = x * x
    gy = chainer.Variable(np.ones(2, f32))
    say(rec, 'grad gy', lambda: chainer.grad([y], [x], gy))
    say(rec, 'grad inputs', lambda: chainer.grad([y], x))
    say(rec, 'grad outputs', lambda: chainer.grad(y, [x]))
    say(rec, 'grad grad_inputs', lambda: chainer.grad([y], [x], None, gy))
    say(rec, 'backward gy', lambda: chainer.backward([y], gy))
    say(rec, 'backward outputs', lambda: chainer.backward(y))
    say(rec, 'grad length', lambda: chainer.grad([y], [x], [gy, gy]))


def prog_issue18_11_str_and_repr_of_empty_variables(rec, err):
    for shape in ((0, 3), (0,), (2, 0, 1)):
        v = Variable(np.empty(shape))
        rec(str(shape), [str(v), repr(v)])
    rec('empty name', repr(Variable(np.ones(1), name='')))
    rec('named empty', [str(Variable(np.empty((0, 2)), name='v')),
                        repr(Variable(np.empty((0, 2)), name='v'))])
    rec('uninitialized', [str(Variable()), repr(Variable(name='u'))])


def prog_issue18_12_numerical_grad_scalars_and_eps(rec, err):
    gc = importlib.import_module(chainer.__name__ + '.gradient_check')
    x = np.array([1.0, 2.0])
    # central differences (eps 1e-3) of f = 1 + 4 = 5 (+ 4e-3 at most) in float64
    central = dict(kind='finite_difference', step=1e-3, points=2)
    rec('python float', gc.numerical_grad(lambda: (float((x * x).sum()),), (x,), (1.0,)),
        **central, f_scale=5.01)
    rec('numpy scalar', gc.numerical_grad(lambda: ((x * x).sum(),), (x,), (1.0,)),
        **central, f_scale=5.01)
    err('eps 0', lambda: gc.numerical_grad(lambda: (x,), (x,), (np.ones(2),), eps=0))
    err('eps negative', lambda: gc.numerical_grad(lambda: (x,), (x,), (np.ones(2),),
                                                  eps=-1.0))
    rec('two outputs', gc.numerical_grad(lambda: (float(x.sum()), x * x), (x,),
                                         (2.0, np.ones(2))),
        **central, f_scale=2 * 3.01 + 4.01)  # |2 * sum(x)| + |x * x| at x <= 2 + eps
    rec('None output', gc.numerical_grad(lambda: (None, x ** 3), (x,), (None, np.ones(2))),
        **central, f_scale=8.02)  # x ** 3 at x <= 2 + eps


def prog_issue18_13_grad_retain_grad(rec, err):
    def var(v):
        return chainer.Variable(np.array(v, f32))

    for before in ([None] * 8, [-1.0] * 8):
        vs = []
        v = var(0.5)
        for _ in range(4):
            vs.append(v)
            v += v
            vs.append(v)
            v *= 1.
        _, x1, _, x2, _, y1, _, y2 = vs
        for v, g in zip(vs, before):
            if g is not None:
                v.grad_var = var(g)
        grads = chainer.grad([y1, y2], [x1, x2], [var(10.), var(1.)], [var(1000.), var(100.)],
                             retain_grad=True)
        rec('grads %s' % before[0], [g.array for g in grads])
        rec('retained %s' % before[0], [v.grad for v in vs])
    a = chainer.Variable(np.array(0.5, f32))
    x = a * 2
    h = x * 3
    y = h * h
    gx, = chainer.grad([y], [x], retain_grad=True)
    rec('non-leaf input', [gx.array, x.grad, h.grad, y.grad, a.grad])
    leaf = chainer.Variable(np.array([1.0, 2.0], f32))
    gl, = chainer.grad([F.sum(leaf * leaf)], [leaf], retain_grad=True)
    rec('leaf input', [gl.array, leaf.grad])
    gx, = chainer.grad([y], [x])
    rec('without retain_grad', [gx.array, h.grad])


def prog_issue18_14_data_assignment_updates_the_node(rec, err):
    x = chainer.Variable(np.ones((3, 2), f32))
    F.sin(x)
    x.data = np.ones((2, 4), f64)
    rec('node', [x.node.shape, x.node.dtype.name, x.node.data.shape, x.node.data is x.array])
    rec('variable', [x.shape, x.dtype.name, x.label])
    z = chainer.Variable(np.ones(2))
    z.data = np.zeros(3)
    rec('not retained', [z.node.data, z.node.shape])
    z.array = np.zeros((1, 1), f32)
    rec('via array', [z.node.shape, z.node.dtype.name])
    rec('grad kept', [x.grad])


def prog_issue18_15_add_broadcast_and_bare_link(rec, err):
    x = chainer.Variable(np.array([1.0, 2.0]))
    y = F.add(x)
    rec('add one', [y.array, y.array is x.array, y.creator.label, y is x])
    F.sum(y * y).backward()
    rec('add one grad', x.grad)
    err('add none', lambda: F.add())
    say(rec, 'broadcast none', lambda: F.broadcast())
    say(rec, 'bare link', lambda: chainer.Link()(0))


def prog_issue18_old_style_function(rec, err):
    class Square(chainer.Function):
        def forward(self, inputs):
            return inputs[0] * inputs[0],

        def backward(self, inputs, grad_outputs):
            return 2 * inputs[0] * grad_outputs[0],

    class ExpOut(chainer.Function):
        def forward(self, inputs):
            self.retain_inputs(())
            self.retain_outputs((0,))
            return np.exp(inputs[0]),

        def backward(self, inputs, grad_outputs):
            rec('backward inputs', list(inputs))
            return grad_outputs[0] * self.output_data[0],

    class Two(chainer.Function):
        def forward(self, inputs):
            return inputs[0] * 2, inputs[0] * 3

        def backward(self, inputs, grad_outputs):
            rec('two grad_outputs', list(grad_outputs))
            g0, g1 = grad_outputs
            return (0 if g0 is None else g0 * 2) + (0 if g1 is None else g1 * 3),

    x = Variable(np.array([1.0, 2.0]))
    f = Square()
    y = f(x)
    rec('graph', [type(y.creator).__name__, type(y.creator_node).__name__, y.creator is f,
                  y.creator_node is f.node, f.label, f.rank, y.rank, f.node.label])
    y.grad = np.ones(2)
    y.backward()
    rec('grad', x.grad)
    x.cleargrad()
    e = ExpOut()(x)
    F.sum(e).backward()
    rec('retained outputs grad', x.grad)
    x.cleargrad()
    a, b = Two()(x)
    F.sum(a).backward()
    rec('two outputs', [x.grad, b.creator.label])
    for double in (False, True):
        x = Variable(np.array([1.0, 2.0]))
        F.sum(Square()(x)).backward(enable_double_backprop=double)
        say(rec, 'twice %s' % double, lambda: x.grad_var.backward())
    x = Variable(np.array([1.0, 2.0]))
    F.sum(Square()(x)).backward(enable_double_backprop=True)
    say(rec, 'twice via grad', lambda: chainer.grad([F.sum(x.grad_var * 2)], [x]))
    say(rec, 'bad grad shape', lambda: F.sum(type('Bad', (Square,), {
        'backward': lambda self, i, g: (np.ones(5),)})()(Variable(np.ones(2)))).backward(),
        last_line=True)  # (the first line names the class: Chainer 7.8.1 garbles it)
    g = Square()
    z = g(x)
    g.unchain()
    rec('unchained', [g.inputs, g.outputs, z.creator])


def prog_issue18_device_api(rec, err):
    backend = importlib.import_module(chainer.__name__ + '.backend')
    cuda = importlib.import_module(chainer.__name__ + '.backends.cuda')
    intel64 = importlib.import_module(chainer.__name__ + '.backends.intel64')
    with chainer.using_device('@numpy'):
        rec('inside using_device', (Variable(np.ones(1)) * 2).array)
    for spec in ('@foo', '@numpy:0', '@cupy', 1.5, None, 'native:0', '-1'):
        say(rec, 'get_device %r' % (spec,), lambda: str(chainer.get_device(spec)))
    say(rec, 'with device', lambda: backend.CpuDevice().__enter__())
    a = np.ones(2)
    sent = backend.CpuDevice().send((a, None, np.float32(1), 2))
    rec('send tuple', [type(sent).__name__, sent[0] is a, sent[1], sent[2], sent[3]])
    rec('supported', [t.__name__ for t in backend.CpuDevice().supported_array_types])
    rec('cuda', [cuda.available, cuda.get_array_module(a).__name__, cuda.to_cpu(a) is a,
                 cuda.to_cpu([a, None])[1], cuda.get_device_from_array(a) is cuda.DummyDevice,
                 cuda.fuse(len) is len, int(cuda.DummyDevice)])
    say(rec, 'to_gpu', lambda: cuda.to_gpu(a), first_line=True)
    rec('intel64', [intel64.is_ideep_available(), intel64.should_use_ideep('>=auto')])
    say(rec, 'chx_array', lambda: Variable(a).chx_array)
    say(rec, 'to_chx', lambda: Variable(a).to_chx())


def prog_issue18_config_and_namespace(rec, err):
    configuration = importlib.import_module(chainer.__name__ + '.configuration')
    g = configuration.GlobalConfig()
    c = configuration.LocalConfig(g)
    g.x, c.abc = 'gx', 1
    out = io.StringIO()
    c.show(out)
    rec('show', out.getvalue())
    rec('defaults', [getattr(chainer.config, k) for k in (
        'autotune', 'use_ideep', 'cudnn_deterministic', 'use_static_graph', 'compute_mode')])
    bm = chainer.functions.math.basic_math
    rec('labels', [bm.AddConstant(-2.0).label, bm.PowConstVar(2).label,
                   bm._convert_value_to_string(np.ones(2))])
    opts = chainer.optimizers
    rec('optimizers', sorted(n for n in dir(opts) if isinstance(getattr(opts, n), type)
                             and issubclass(getattr(opts, n), chainer.Optimizer)))
    rec('hook alias', warned(lambda: chainer.optimizer.GradientClipping(1.0)))
    rec('dtype', [str(chainer.get_dtype()), repr(chainer.mixed16)])


def prog_issue18_optimizers(rec, err):
    grads = [np.array([0.5, -1.0, 2.0, 0.0]), np.array([0.25, 0.5, -1.0, 0.0]),
             np.array([1.0, 1.0, 1.0, 0.0])]
    for name, kwargs in [('AdaDelta', {}), ('CorrectedMomentumSGD', {'lr': 0.5}),
                         ('MSVAG', {}), ('MSVAG', {'beta': 0.5, 'weight_decay_rate': 0.1}),
                         ('RMSpropGraves', {'lr': 0.1}), ('SMORMS3', {'lr': 0.5})]:
        link = chainer.Link()
        with link.init_scope():
            link.w = chainer.Parameter(np.array([1.0, 2.0, -1.0, 0.5]))
        opt = getattr(chainer.optimizers, name)(**kwargs).setup(link)
        for g in grads:
            link.w.grad = g.copy()
            opt.update()
        rec('%s %s' % (name, sorted(kwargs.items())), [link.w.array, sorted(
            (k, v) for k, v in link.w.update_rule.state.items())])


def prog_issue18_sampling_initializers(rec, err):
    initializers = importlib.import_module(chainer.__name__ + '.initializers')
    for cls in ('UpsamplingDeconvFilter', 'DownsamplingConvFilter'):
        for shape in ((2, 2, 3, 3), (2, 1, 4, 4), (2, 2, 5)):
            w = np.empty(shape)
            getattr(initializers, cls)()(w)
            rec('%s %s' % (cls, shape), w)
        say(rec, cls + ' ksize', lambda: getattr(initializers, cls)()(np.empty((2, 2, 2, 3))))
        say(rec, cls + ' method', lambda: getattr(initializers, cls)('cubic'))


def prog_issue18_retained_output_relinked(rec, err):
    class ExpAndExpm1(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((0,))
            return np.exp(inputs[0]), np.expm1(inputs[0])

        def backward(self, indexes, grad_outputs):
            g0, g1 = grad_outputs
            y0, = self.get_retained_outputs()
            gx = []
            if g0 is not None:
                gx.append(g0 * y0)
            if g1 is not None:
                gx.append(g1 * y0)
            return F.add(*gx),

    x = Variable(np.array([0.1, -0.5, 1.0]))
    y0, y1 = ExpAndExpm1().apply((x,))
    del y0
    gx, = chainer.grad([y1], [x], [np.ones(3)], enable_double_backprop=True)
    ggx, = chainer.grad([gx], [x], [np.ones(3)])
    rec('grads', [gx.array, ggx.array])
    node = y1.creator
    rec('relinked output', [node.outputs[0]() is not None, node.outputs[0]().creator is node,
                            node.outputs[0]().rank, node.outputs[0]().requires_grad])
    y0, y1 = ExpAndExpm1().apply((x,))
    gx, = chainer.grad([y0 + y1], [x], enable_double_backprop=True)
    rec('both outputs', gx.array)
    rec('retained kept', [y1.creator.get_retained_outputs()[0].array, y1.creator.output_data[0]])
    x.cleargrad()
    F.sum(y1).backward()
    rec('backward', x.grad)


def prog_issue28_private_names_chainer_code_reads(rec, err):
    type_check = importlib.import_module(chainer.__name__ + '.utils.type_check')
    gradient_check = importlib.import_module(chainer.__name__ + '.gradient_check')
    x = Variable(np.ones(3, np.float32))
    x.node._rank = 3
    y = F.exp(x)
    rec('ranks', [x.rank, x.node._rank, y.rank, y.node._rank, y.creator_node.rank])
    creator = y.creator_node
    y.creator = None
    rec('rank kept without a creator', [y.rank, y.creator is None])
    y.node._rank = -1
    rec('rank set', y.rank)
    y.creator_node = creator
    rec('rank from the relinked creator', y.rank)

    class Double(chainer.FunctionNode):
        def forward(self, inputs):
            return inputs[0] * 2,

    seen = []
    f = Double()
    f.check_type_forward = seen.append
    f.apply((np.ones((2, 3), np.float32), np.zeros(2, np.int32)))
    types = seen[0]
    rec('check_type_forward sees', [len(seen), isinstance(types, type_check.LightTypeInfoTuple),
                                    len(types), bool(types[0].shape == (2, 3)),
                                    bool(types[1].dtype == np.int32),
                                    bool(types[0].shape == (3, 2))])
    for size in (0, 1, 5, 64):
        v = gradient_check._CheckBackward._sample_unit_vector(size, np)
        rec('unit vector of %d' % size, [
            type(v).__name__, v.shape, v.dtype.name,
            size == 0 or bool(abs(np.square(v).sum() - 1) < 1e-12),
            size == 0 or bool(abs(v).min() >= 0.1 / np.sqrt(size)),
            size < 64 or bool(v.min() < 0 < v.max())])


def prog_issue28_timer_nested_by_hand(rec, err):
    import time
    hooks = importlib.import_module(chainer.__name__ + '.function_hooks')
    exponential = importlib.import_module(chainer.__name__ + '.functions.math.exponential')
    identity = importlib.import_module(chainer.__name__ + '.functions.math.identity')
    a = np.ones(3, np.float32)
    for sleep_in in ('inner', 'outer'):
        hook = hooks.TimerHook()
        outer, inner = exponential.Exp(), identity.Identity()
        hook.backward_preprocess(outer, (a,), (a,))
        if sleep_in == 'outer':
            time.sleep(0.002)
        hook.forward_preprocess(inner, (a,))
        if sleep_in == 'inner':
            time.sleep(0.002)
        hook.forward_postprocess(inner, (a,))
        hook.backward_postprocess(outer, (a,), (a,))
        times = dict(hook.call_history)
        rec('names, sleeping in the ' + sleep_in, [name for name, _ in hook.call_history])
        rec('outer covers inner, sleeping in the ' + sleep_in,
            times['Exp'] >= times['Identity'] and times['Exp'] >= 0.002)
        rec('total is the outer call, sleeping in the ' + sleep_in,
            hook.total_time() == times['Exp'])
        rec('summary keys, sleeping in the ' + sleep_in, sorted(hook.summary()))


def prog_issue28_several_ellipses(rec, err):
    z = Variable(np.zeros((4, 3, 2)))
    for index in [(Ellipsis, Ellipsis), (Ellipsis, 0, Ellipsis), [0, Ellipsis, Ellipsis]]:
        say(rec, 'x[%r]' % (index,), lambda: z[index])
        say(rec, 'get_item %r' % (index,), lambda: F.get_item(z.array, index))
        with chainer.using_config('debug', True):
            say(rec, 'x[%r] in debug mode' % (index,), lambda: z[index])
            say(rec, 'get_item %r in debug mode' % (index,), lambda: F.get_item(z, index))
    with chainer.using_config('debug', True):
        rec('one ellipsis in debug mode', z[Ellipsis, 0].shape)
'''
