"""The ``P.*`` programs of :mod:`tests.mindspore_ref.ms_primitives_programs` that run outside
a single Cell call: Parameter updates and optimizer steps (the state read back after each
step), sampling (shapes, dtypes and distribution statistics, not values), set operations
with value-dependent shapes (PyNative), constant-building classes and windows.
``stateful_programs(prelude)`` returns them by name, each source after ``prelude``.
"""

from __future__ import annotations


def stateful_programs(prelude: str) -> dict[str, str]:
    """The programs, by name (each ``prelude`` + its source)."""
    return {name: prelude + source for name, source in _SOURCES.items()}


_SOURCES: dict[str, str] = {}

_SOURCES["dropout_channels"] = '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop2, self.drop3 = P.Dropout2D(0.5), P.Dropout3D(keep_prob=0.25)

    def construct(self, x, y):
        return self.drop2(x), self.drop3(y)


def main():
    x = Tensor(np.ones((4, 64, 3, 3), np.float32) * 3)
    (out, mask), (out3, mask3) = Net()(x, Tensor(np.ones((2, 64, 2, 2, 2), np.float32)))
    m, o = mask.asnumpy(), out.asnumpy()
    per_channel = bool((m == m[:, :, :1, :1]).all())
    scaled = bool(np.allclose(o, np.where(m, 6.0, 0.0)))
    kept = m[:, :, 0, 0].mean()
    m3 = mask3.asnumpy()
    return (str(mask.dtype), list(out.shape), per_channel, scaled, bool(0.3 < kept < 0.7),
            bool(np.allclose(out3.asnumpy(), np.where(m3, 4.0, 0.0))),
            bool((m3 == m3[:, :, :1, :1, :1]).all()))
'''

_SOURCES["creation_eager"] = '''
def main():
    add = P.Partial()(ops.add, Tensor(R))
    return (P.ScalarToTensor()(3), P.ScalarToTensor()(2.5, ms.float16), P.ScalarToTensor()(7, ms.int64),
            P.TupleToArray()((1, 2, 3)), P.TupleToArray()((1.5, 2.0)), add(Tensor(S)),
            P.IdentityN()([Tensor(R), Tensor(I)]))
'''

_SOURCES["parameter_updates"] = """
class Step(nn.Cell):
    def __init__(self, which, p, v, a):
        super().__init__()
        self.which, self.p, self.v, self.a = which, p, v, a

    def construct(self, g):
        if self.which == 0:
            return P.ScatterNdUpdate()(self.p, Tensor(np.array([[0], [2]], np.int32)), g)
        if self.which == 1:
            return P.ScatterNdAdd()(self.p, Tensor(np.array([[0, 1], [0, 1], [1, 0]], np.int32)),
                                    Tensor(np.array([2.0, 3.0, -1.0], np.float32)))
        if self.which == 2:
            return P.ScatterAdd()(self.p, Tensor(np.array([1, 1], np.int32)), g)
        if self.which == 3:
            return P.ApplyMomentum()(self.v, self.a, 0.1, g, 0.9)
        if self.which == 4:
            return P.ApplyGradientDescent()(self.v, Tensor(0.5, ms.float32), g)
        return P.ApplyMomentum()(self.v, self.a, Tensor(0.1, ms.float32), g, Tensor(0.9, ms.float32))


def main():
    p = ms.Parameter(Tensor(np.zeros((3, 2), np.float32)), name='p')
    v = ms.Parameter(Tensor(np.ones((2, 2), np.float32)), name='v')
    a = ms.Parameter(Tensor(np.full((2, 2), 0.5, np.float32)), name='a')
    g = Tensor(np.array([[2.0, -1.0], [0.5, 3.0]], np.float32))
    seen = []
    for which in range(6):
        out = Step(which, p, v, a)(g)
        seen.append([Tensor(out.asnumpy().copy()), Tensor(p.asnumpy().copy()), Tensor(v.asnumpy().copy()),
                     Tensor(a.asnumpy().copy())])
    return seen
"""

_SOURCES["sets_and_counts"] = """
def main():
    x = Tensor(np.array([3, 1, 3, 2, 1, 5, 2], np.int32))
    f = Tensor(np.array([0.5, 1.5, 3.9, 4.0, -1.0, 2.0, 1.0], np.float32))
    return (P.Unique()(x), P.Unique()(f),
            P.UniqueConsecutive(return_counts=True)(ints(1, 1, 2, 2, 3, 1, 1))[::2],
            P.UniqueConsecutive(True, True, None)(ints(1, 1, 2, 2, 3, 1, 1)),
            P.NonZero()(Tensor(Z)), P.NonZero()(Tensor(I)),
            P.Bincount()(x, Tensor(4, ms.int32), Tensor(np.ones(7, np.float32))),
            P.Bincount()(x, Tensor(7, ms.int32), f),
            P.Histogram(bins=4, min=0.0, max=4.0)(f), P.Histogram(bins=3)(f),
            P.Histogram(bins=5)(Tensor(np.array([1, 2, 2, 5, 4], np.int32))),
            P.TensorShape()(Tensor(IMG)), P.InvertPermutation()((3, 4, 0, 2, 1)),
            P.FillV2()(Tensor(np.array([2, 3], np.int32)), Tensor(1.5, ms.float32)),
            P.FillV2()((2, 1), Tensor(4, ms.int32)),
            P.ComplexAbs()(ops.polar(Tensor(POS), Tensor(R))),
            P.Qr()(Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], np.float32))),
            P.Qr(full_matrices=True)(Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], np.float32))))
"""

_SOURCES["standard_normal"] = """
def main():
    x = P.StandardNormal(seed=3)((200, 50))
    a = x.asnumpy()
    return str(x.dtype), list(x.shape), bool(abs(a.mean()) < 0.05), bool(abs(a.std() - 1) < 0.05)
"""

_SOURCES["optimizer_steps"] = """
def param(value, name):
    return ms.Parameter(Tensor(np.asarray(value, np.float32)), name=name)


class Steps(nn.Cell):
    def __init__(self, which):
        super().__init__()
        self.which = which
        self.var = param(R, 'var')
        self.a = param(np.abs(S) + 0.1, 'a')
        self.b = param(POS * 0.1, 'b')
        self.c = param(LAB * 0.2, 'c')
        self.stat = param(np.ones((2, 3)), 'stat')

    def construct(self, g):
        if self.which == 0:
            return P.Adam()(self.var, self.a, self.b, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, g)
        if self.which == 1:
            return P.Adam(use_nesterov=True)(self.var, self.a, self.b, scalar(0.81),
                                             scalar(0.998), scalar(0.01),
                                             scalar(0.9), scalar(0.999),
                                             scalar(1e-8), g)
        if self.which == 2:
            return P.AdamWeightDecay()(self.var, self.a, self.b, 0.01, 0.9, 0.999, 1e-6, 0.05, g)
        if self.which == 3:
            return P.SGD(0.1, 0.01, False)(self.var, g, scalar(0.1), self.a, scalar(0.9),
                                           self.stat)
        if self.which == 4:
            return P.SGD(0.0, 0.0, True)(self.var, g, scalar(0.1), self.a, scalar(0.9),
                                         self.stat)
        if self.which == 5:
            return P.ApplyAdagrad()(self.var, self.a, 0.1, g)
        if self.which == 6:
            return P.ApplyAdagrad()(self.var, self.a, scalar(0.1), g)
        if self.which == 7:
            return P.ApplyRMSProp()(self.var, self.a, self.b, 0.01, g, 0.9, 0.5, 1e-6)
        if self.which == 8:
            return P.ApplyCenteredRMSProp()(self.var, self.c, self.a, self.b, g, scalar(0.01), 0.9, 0.5,
                                            1e-6)
        if self.which == 9:
            return P.ApplyAdaMax()(self.var, self.a, self.b, scalar(0.9), scalar(0.01),
                                   scalar(0.9), scalar(0.99), scalar(1e-7), g)
        if self.which == 10:
            return P.ApplyAdadelta()(self.var, self.a, self.b, scalar(1.0), scalar(0.9),
                                     scalar(1e-6), g)
        if self.which == 11:
            return P.InplaceIndexAdd(1)(self.var, ints(2, 0), g[:, :2])
        if self.which == 12:
            return P.ApplyAdamWithAmsgrad(0.8, 0.99, 1e-6)(self.var, self.a, self.b, self.c, scalar(0.8),
                                                           scalar(0.99), scalar(0.01), g)
        return P.ApplyAdamWithAmsgradV2()(self.var, self.a, self.b, self.c, scalar(0.64), scalar(0.98),
                                          scalar(0.02), scalar(0.8), scalar(0.99), scalar(1e-6), g)


def state(net):
    return [Tensor(p.asnumpy().copy()) for p in (net.var, net.a, net.b, net.c, net.stat)]


def main():
    # the states after each of two steps; the results too where MindSpore's CPU kernels
    # return the updated state (Adam, AdamWeightDecay and the RMSProps return scratch values)
    g = Tensor(np.array([[0.3, -1.0, 2.0], [0.0, 0.5, -0.25]], np.float32))
    seen = []
    for which in range(14):
        net = Steps(which)
        out = net(g)
        out = out if isinstance(out, tuple) else (out,)
        keep = which in (3, 4, 5, 6, 9, 10, 11, 12, 13)
        out = [Tensor(o.asnumpy().copy()) for o in out] if keep else []
        first = state(net)
        net(g * 0.5)
        seen.append([out, first, state(net)])
    return seen
"""

_SOURCES["random_samplers"] = """
def main():
    x = Tensor(np.arange(40, dtype=np.float32).reshape(20, 2))
    shuffled = P.RandomShuffle(seed=1)(x).asnumpy()
    same_rows = bool((np.sort(shuffled[:, 0]) == np.arange(0, 40, 2)).all()
                     and (shuffled[:, 1] == shuffled[:, 0] + 1).all())
    logits = Tensor(np.log(np.array([[0.7, 0.2, 0.1], [0.0001, 0.0001, 1.0]], np.float32)))
    draws = P.RandomCategorical(ms.int32)(logits, 4000, 3)
    d = draws.asnumpy()
    freq = [float((d[0] == k).mean()) for k in range(3)]
    lap = P.StandardLaplace(seed=2)((300, 100))
    a = lap.asnumpy()
    bern = P.Bernoulli()(Tensor(np.zeros((100, 50), np.float32)), 0.3)
    b = bern.asnumpy()
    probs = Tensor(np.array([[0.0], [1.0], [0.5]], np.float32).repeat(1000, 1))
    coins = P.Bernoulli()(Tensor(np.zeros((3, 1000), np.int32)), probs).asnumpy()
    return (same_rows, str(draws.dtype), list(draws.shape), bool(abs(freq[0] - 0.7) < 0.05),
            bool(abs(freq[1] - 0.2) < 0.05), bool((d[1] == 2).mean() > 0.99), str(lap.dtype), list(lap.shape),
            bool(abs(np.median(a)) < 0.05), bool(abs(np.abs(a).mean() - 1.0) < 0.05), str(bern.dtype),
            bool(set(np.unique(b)) <= {0.0, 1.0}), bool(abs(b.mean() - 0.3) < 0.03),
            str(P.Bernoulli()(Tensor(np.zeros(3, np.int32)), 0.5).dtype),
            bool((coins[0] == 0).all() and (coins[1] == 1).all() and abs(coins[2].mean() - 0.5) < 0.08),
            cauchy_stats(P.Cauchy([400, 100], 1.5, 0.5)()), lognormal_stats(P.LogNormalReverse(0.5, 0.25)(
                Tensor(np.zeros((300, 100), np.float16)))))


def cauchy_stats(x):
    a = x.asnumpy()
    q1, q2, q3 = np.quantile(a, [0.25, 0.5, 0.75])
    return str(x.dtype), list(x.shape), bool(abs(q2 - 1.5) < 0.05), bool(abs((q3 - q1) / 2 - 0.5) < 0.05)


def lognormal_stats(x):
    logs = np.log(x.asnumpy().astype(np.float64))
    return (str(x.dtype), list(x.shape), bool(abs(logs.mean() - 0.5) < 0.02),
            bool(abs(logs.std() - 0.25) < 0.02))
"""

_SOURCES["windows"] = """
def main():
    return (P.HammingWindow()(ints(5, dtype=np.int64)),
            P.HammingWindow(False, 0.5, 0.5)(ints(6, dtype=np.int64)),
            P.HammingWindow(dtype=ms.float64)(ints(1, dtype=np.int64)),
            P.BartlettWindow()(Tensor(5, ms.int32)), P.BartlettWindow(False, ms.float16)(Tensor(6, ms.int64)),
            P.BlackmanWindow(False)(Tensor(5, ms.int32)), P.BlackmanWindow()(Tensor(8, ms.int64)))
"""

_SOURCES["hook_backward"] = """
def double(grad):
    return (grad[0] * 2,)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hook = P.HookBackward(double)

    def construct(self, x):
        return (self.hook(x * 3) * x).sum()


def main():
    # PyNative: the hook doubles the cotangent; graph mode leaves the hook out (both engines)
    return ops.grad(Net())(Tensor(R))
"""
