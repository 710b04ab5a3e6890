"""Arguments MindSpore 2.10 takes as Tensors where a tuple of ints is usual, and ``bmm``'s
ranks: ``ReduceSum``/``ReduceMean``/``ReduceMax``/``ReduceProd``/``ReduceAll`` and
``ops.sum`` with ``axis`` an int Tensor (empty: every axis, as ``()``), ``StridedSlice`` /
``ops.strided_slice`` with ``begin``/``end``/``strides`` Tensors, eagerly and in a compiled
``construct`` (the Tensors are the cell's constants); ``ops.bmm``/``P.BatchMatMul`` on 4-D
operands with gradients, two matrices, and the batch axes MindSpore's CPU kernel refuses
to broadcast.

``EXPECTED`` (``ms_tensor_arguments_expected.json``) holds MindSpore's answers per mode;
``python -m tests.mindspore_ref.ms_tensor_arguments_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = '''
P = ops.operations
X = Tensor((np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 7 - 2) / 3)
EMPTY = Tensor(np.array([], np.int64))


class Summed(nn.Cell):
    """The sum of the ``index``-th output of ``net`` (or its only one): a loss to grad."""

    def __init__(self, net, index=None):
        super().__init__()
        self.net, self.index = net, index

    def construct(self, *xs):
        out = self.net(*xs)
        if self.index is not None:
            out = out[self.index]
        return out.sum()
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + ERROR_KIND + body


_program("reductions_tensor_axis_eager", '''
def main():
    out = []
    for axis in (EMPTY, Tensor(np.array([], np.int32)), Tensor(np.array([1], np.int64)), Tensor(2),
                 Tensor(np.array([0, 2], np.int32))):
        out += [P.ReduceSum()(X, axis), P.ReduceSum(keep_dims=True)(X, axis), P.ReduceMean()(X, axis),
                P.ReduceMax()(X, axis), P.ReduceProd()(X, axis), P.ReduceAll()(X > -0.5, axis),
                ops.sum(X, axis)]
    return out
''')

_program("reductions_tensor_axis_in_construct", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.all_axes = Tensor(np.array([], np.int64))
        self.middle = Tensor(np.array([1], np.int32))
        self.sum = P.ReduceSum(keep_dims=True)
        self.mean = P.ReduceMean()

    def construct(self, x):
        return self.sum(x * x, self.all_axes), self.mean(x, self.middle), self.sum(x, self.middle)


def main():
    net = Net()
    return net(X), ops.grad(Summed(net, 0))(X)
''')

_program("strided_slice_tensor_arguments", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.begin = Tensor(np.array([0, 1, 0], np.int64))
        self.end = Tensor(np.array([2, 3, 4], np.int64))
        self.strides = Tensor(np.array([1, 1, 2], np.int64))
        self.slice = P.StridedSlice()

    def construct(self, x):
        return self.slice(x, self.begin, self.end, self.strides) * 2


def main():
    b, e = Tensor(np.array([1, 0, 3], np.int32)), Tensor(np.array([2, 3, 0], np.int32))
    s = Tensor(np.array([1, 2, -1], np.int32))
    net = Net()
    return (P.StridedSlice()(X, b, e, s), P.StridedSlice()(X, b, (2, 3, 0), (1, 2, -1)),
            ops.strided_slice(X, b, e, s), P.StridedSlice(shrink_axis_mask=1)(X, b, e, s), net(X),
            ops.grad(Summed(net))(X))
''')

_program("bmm_batch_axes", '''
A = Tensor((np.arange(2 * 3 * 2 * 4, dtype=np.float32).reshape(2, 3, 2, 4) % 5 - 2) / 4)
B = Tensor((np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) % 3 - 1) / 2)


class Net(nn.Cell):
    def construct(self, a, b):
        return ops.bmm(a, b), P.BatchMatMul(transpose_b=True)(a, a)


def main():
    net = Net()
    ints = ops.bmm(Tensor(np.arange(12, dtype=np.int32).reshape(3, 2, 2)),
                   Tensor(np.arange(12, dtype=np.int32).reshape(3, 2, 2)))
    return (net(A, B), ops.grad(Summed(net, 0), grad_position=(0, 1))(A, B),
            ops.bmm(A[0, 0], B[0, 0]), ints,
            kind(lambda: ops.bmm(A, B[0])), kind(lambda: ops.bmm(A[:1], B)),
            kind(lambda: ops.bmm(A[0], B[0, :2])))
''')


if __name__ == "__main__":  # re-record ms_tensor_arguments_expected.json (needs MINDSPORE_PYTHON)
    from pathlib import Path

    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_tensor_arguments_expected.json"))
