"""MindSpore programs for the names the model zoo's networks needed (issue 25,
:mod:`tests.mindspore_ref.zoo_names`): ``P.StridedSlice`` with its masks, ``GatherNd``,
``P.Flatten``, ``assign_add``, ``F.identity``/``F.make_range``, ``nn.ClipByNorm``,
``C.clip_by_value``/``C.clip_by_global_norm``/``C.add_flags``, ``ops.HyperMap`` and
``ops.MultitypeFuncGraph``, ``mstype.dtype_to_nptype``, ``ms.numpy``'s creation functions,
``Cell.add_flags`` and the float-status primitives (refused on CPU), gradients included.
MindSpore 2.10's CPU kernels go wrong on ``StridedSlice``'s ``ellipsis_mask`` and
``new_axis_mask`` (right shape, wrong values), on ``StridedSliceGrad`` with masks (wrong values), fewer
entries than axes, a shrink mask or a negative stride ("input memory out of bounds"), and on
``ClipByNorm`` with an axis over several rows: those cases are checked against NumPy in
:mod:`tests.mindspore_ref.test_ms_zoo_gaps` instead.

``EXPECTED`` (``ms_zoo_gaps_expected.json``) holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_zoo_gaps_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = '''
P = ms.ops.operations
C = ms.ops.composite
F = ms.ops.functional
mstype = ms.common.dtype


X = (np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) % 7 - 3) / 4
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + ERROR_KIND + body


_program("strided_slice", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = P.StridedSlice()
        self.masked = P.StridedSlice(begin_mask=0b1, end_mask=0b100)
        self.shrink = P.StridedSlice(shrink_axis_mask=0b10)

    def construct(self, x):
        return (self.plain(x, (0, 1, 0), (2, 3, 4), (1, 1, 2)),
                self.plain(x, (0, 1, 0, 1), (2, 3, 4, 5), (1, 1, 2, 2)),
                self.masked(x, (1, 0, 3, 0), (2, 2, 0, 5), (1, 1, 1, 1)),
                self.shrink(x, (0, 2, 1, 0), (2, 3, 5, 5), (1, 1, 2, 1)),
                self.plain(x, (1, 2, 3, 4), (-3, 0, 0, 0), (-1, -1, -2, -1)),
                ops.strided_slice(x, (0, 0), (1, 3), (1, 1)))


def main():
    return Net()(Tensor(X))
''')

_program("strided_slice_gradient", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = P.StridedSlice()

    def construct(self, x):
        y = self.plain(x, (0, 1, 0, 1), (2, 3, 4, 5), (1, 1, 2, 2))
        return (y * y).sum()


def main():
    return ops.grad(Net())(Tensor(X))
''')

_program("gather_nd", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.gather_nd = P.GatherNd()

    def construct(self, x, i1, i2, i3):
        return self.gather_nd(x, i1), ops.gather_nd(x, i2), self.gather_nd(x, i3)


def main():
    i1 = Tensor(np.array([[0, 1], [1, 2], [1, 0]], np.int32))
    i2 = Tensor(np.array([[[1, 2, 3]], [[0, 0, 2]]], np.int32))
    i3 = Tensor(np.array([1], np.int32))
    return Net()(Tensor(X), i1, i2, i3)
''')

_program("gather_nd_gradient", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.gather_nd = P.GatherNd()

    def construct(self, x, i):
        y = self.gather_nd(x, i)
        return (y * y).sum()


def main():
    i = Tensor(np.array([[0, 1], [1, 2], [0, 1]], np.int32))
    return ops.grad(Net())(Tensor(X), i)
''')

_program("flatten_identity_make_range", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = P.Flatten()
        self.flatten_ops = ops.Flatten()

    def construct(self, x):
        rows = F.tuple_to_array(F.make_range(3))
        odd = F.tuple_to_array(F.make_range(1, 7, 2))
        return self.flatten(x), self.flatten_ops(x[0]), F.identity(x[1, 2]), rows, odd


def main():
    return Net()(Tensor(X)), F.make_range(4), F.make_range(2, 9, 3)
''')

_program("assign_add", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(Tensor(np.ones((2, 3), np.float32)), name="total")
        self.add = P.AssignAdd()

    def construct(self, x):
        self.add(self.total, x)
        ops.assign_add(self.total, x * 2)
        return self.total + 0


def main():
    net = Net()
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    first = net(x)
    return first, net(x), net.total.value()
''')

_program("clip_by_norm", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.clip = nn.ClipByNorm()
        self.rows = nn.ClipByNorm(axis=1)

    def construct(self, x, limit):
        return self.clip(x, limit), self.rows(x, limit)


class Loss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rows = nn.ClipByNorm(axis=1)

    def construct(self, x, limit):
        return (self.rows(x, limit) * ops.arange(4, dtype=ms.float32)).sum()


def main():
    # MindSpore 2.10's CPU kernel mixes rows up with an axis and several rows: one row here
    x = Tensor(np.array([[3.0, 4.0, 0.0, 0.0], [0.1, 0.2, 0.0, 0.1], [0.0, 0.0, 0.0, 0.0]], np.float32))
    row, small = x[0:1], x[1:2]
    limit = Tensor(np.array([1.0], np.float32))
    return (Net()(x, limit)[0], Net()(row, limit), Net()(small, limit), ops.grad(Loss())(row, limit),
            Net()(row.astype(ms.float16), limit))
''')

_program("composite_helpers", '''
scale = ops.MultitypeFuncGraph("scale")


@scale.register("Number", "Tensor")
def _scale_tensor(factor, grad):
    return grad * factor


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.map = ops.HyperMap()

    def construct(self, a, b):
        scaled = self.map(ops.partial(scale, 2.0), (a, b))
        clipped = C.clip_by_global_norm(scaled, 1.0)
        return scaled, clipped, C.clip_by_value(a, -0.5, 0.5)


def main():
    a = Tensor(np.array([1.0, -2.0, 0.25], np.float32))
    b = Tensor(np.array([[0.5, 0.5]], np.float32))
    flagged = C.add_flags(lambda v: v + 1, has_effect=True)
    cell = nn.Dense(2, 2)
    return Net()(a, b), flagged(3), cell.add_flags(loop_can_unroll=True) is cell
''')

_program("dtype_to_nptype", '''
def main():
    types = [ms.float16, ms.float32, ms.int32, ms.int64, ms.bool_, ms.uint8]
    return [str(np.dtype(mstype.dtype_to_nptype(t))) for t in types]
''')

_program("numpy_creation", '''
def main():
    mnp = ms.numpy
    return (mnp.zeros((2, 3)), mnp.zeros(3, dtype="int32"), mnp.zeros((2,), ms.float16),
            mnp.ones((2, 2)), mnp.full((2,), 3), mnp.full((2,), 1.5), mnp.full((2,), True),
            mnp.arange(5), mnp.arange(1.0, 3.0, 0.5), mnp.arange(0, 5, 2, dtype="float32"),
            mnp.array([1, 2]), mnp.array([1.0, 2]), mnp.asarray((1, 0)),
            mnp.zeros_like(Tensor(np.ones(2, np.int64))), mnp.ones_like(Tensor(np.ones(2, np.float16))),
            kind(lambda: mnp.asarray(np.ones(2))))
''')

_program("float_status_on_cpu", '''
def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    built = [type(c()).__name__ for c in (P.FloatStatus, P.NPUAllocFloatStatus,
                                           P.NPUGetFloatStatus, P.NPUClearFloatStatus)]
    return built, kind(lambda: P.FloatStatus()(x)), kind(lambda: P.NPUAllocFloatStatus()())
''')


if __name__ == "__main__":  # re-record ms_zoo_gaps_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_zoo_gaps_expected.json"))
