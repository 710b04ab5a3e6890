"""Programs using MindSpore names and call conventions that the model zoo and MindSpore's
operator tests use: ``P.OneHot()(indices, depth, on_value, off_value)``, ``ops.one_hot``'s
dtypes, ``ops.shape(x)``, ``P.Tile``, ``ops.matmul`` on 1-D and batched operands, a Cell's
``bias = None``, ``_grad_ops`` (``G.ReluGrad`` ...) and the module paths
``ops.operations.{array_ops,nn_ops,math_ops,_grad_ops}``, ``train.serialization``,
``nn.wrap.grad_reducer``.

Module paths are imported as ``importlib.import_module(ms.__name__ + ".<path>")`` so one
source runs on both engines. ``EXPECTED`` holds MindSpore 2.10's answers on CPU (the same in
both of its modes, except where a program says otherwise).
"""

from __future__ import annotations

_PRELUDE = '''
import importlib

P = ms.ops.operations


def module(path):
    return importlib.import_module(ms.__name__ + "." + path)


IDX = np.array([0, 2, 1, 5], np.int32)
A = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + body


_program("onehot_call_form", '''
class Net(nn.Cell):
    def __init__(self, axis):
        super().__init__()
        self.onehot = P.OneHot(axis=axis)
        self.on, self.off = Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)

    def construct(self, idx):
        return self.onehot(idx, 3, self.on, self.off)


def main():
    idx = Tensor(IDX)
    ints = P.OneHot()(idx, 4, Tensor(2, ms.int32), Tensor(-1, ms.int32))
    return Net(-1)(idx), Net(0)(idx), ints
''')

_program("onehot_in_a_loss", '''
class Loss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.onehot = P.OneHot()
        self.on, self.off = Tensor(0.9, ms.float32), Tensor(0.05, ms.float32)
        self.log_softmax = nn.LogSoftmax()

    def construct(self, logits, labels):
        depth = ops.shape(logits)[-1]
        hot = self.onehot(labels, depth, self.on, self.off)
        return -(hot * self.log_softmax(logits)).sum() / ops.shape(logits)[0]


def main():
    logits = Tensor(np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32))
    labels = Tensor(np.array([1, 2], np.int32))
    loss = Loss()
    return loss(logits, labels), ops.grad(loss)(logits, labels)
''')

_program("one_hot_functional_dtypes", '''
def main():
    idx = Tensor(IDX)
    return (ops.one_hot(idx, 3), ops.one_hot(idx, 3, 1.0, 0.0),
            ops.one_hot(idx, 3, Tensor(1.0, ms.float16), Tensor(0.0, ms.float16)),
            ops.one_hot(idx, 3, Tensor(5, ms.int32), Tensor(1, ms.int32), 0))
''')

_program("shape_as_a_function", '''
class Net(nn.Cell):
    def construct(self, x):
        s = ops.shape(x)
        return ops.reshape(x, (s[1], s[0] * s[2]))


def main():
    x = Tensor(np.ones((2, 3, 4), np.float32))
    return ops.shape(x), Net()(x).shape
''')

_program("tile", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.tile = P.Tile()

    def construct(self, x):
        return self.tile(x, (2, 1, 2))


def main():
    x = Tensor(A)
    return Net()(x), ops.tile(x, (2,)), ops.grad(Net())(x)
''')

_program("matmul_vectors_and_batches", '''
def main():
    v = Tensor(np.array([1.0, 2.0, -1.0], np.float32))
    m = Tensor(A)
    b = Tensor(np.arange(24, dtype=np.float32).reshape(2, 4, 3))
    w = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
    return (ops.matmul(v, v), ops.matmul(m, v), ops.matmul(v, w), ops.matmul(b, v),
            ops.matmul(b, w), ops.matmul(Tensor(np.ones((2, 1, 3, 4), np.float32)),
                                         Tensor(np.ones((5, 4, 2), np.float32))).shape)
''')

_program("matmul_integers", '''
def main():
    a = Tensor(np.arange(6).reshape(2, 3), ms.int32)
    return ops.matmul(a, Tensor(np.array([1, -1, 2]), ms.int32)), ops.matmul(a, a.T)
''')

_program("matmul_gradients", '''
class Net(nn.Cell):
    def construct(self, a, b):
        return (ops.matmul(a, b) * ops.matmul(a, b)).sum()


def main():
    b = Tensor(np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 10)
    v = Tensor(np.array([1.0, 2.0, -1.0], np.float32))
    return (ops.grad(Net(), grad_position=(0, 1))(b, v),
            ops.grad(Net(), grad_position=(0, 1))(v, Tensor(A.T)))
''')

_program("bias_none", '''
class Layer(nn.Cell):
    def __init__(self, bias):
        super().__init__()
        self.weight = ms.Parameter(Tensor(np.ones((3, 2), np.float32)), name="weight")
        self.bias = ms.Parameter(Tensor(np.ones(2, np.float32)), name="bias")
        if not bias:
            self.bias = None

    def construct(self, x):
        y = ops.matmul(x, self.weight)
        if self.bias is not None:
            y = y + self.bias
        return y


def main():
    x = Tensor(np.ones((1, 3), np.float32))
    dense, conv = nn.Dense(3, 2, has_bias=False), nn.Conv2d(1, 2, 3)
    with_bias, without = Layer(True), Layer(False)
    return (without(x), with_bias(x), [p.name for p in without.trainable_params()],
            dense.bias is None, conv.bias is None, len(dense.trainable_params()))
''')

_program("grad_ops", '''
def main():
    G = module("ops.operations._grad_ops")
    x = Tensor(np.array([[-1.0, 0.0, 2.0], [3.0, -0.5, 7.0]], np.float32))
    dy = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
    y = Tensor(np.array([[0.5, 0.25, 2.0], [1.5, -0.5, 0.75]], np.float32))
    tie = Tensor(np.array([[-1.0, 1.0, 2.0], [0.0, -0.5, 9.0]], np.float32))
    return (G.ReluGrad()(dy, x), G.ReLU6Grad()(dy, x), G.SigmoidGrad()(y, dy),
            G.TanhGrad()(y, dy), G.SqrtGrad()(y, dy), G.RsqrtGrad()(y, dy),
            G.ReciprocalGrad()(y, dy), G.AbsGrad()(x, dy), G.SoftplusGrad()(dy, x),
            G.SiLUGrad()(dy, x), G.BiasAddGrad()(Tensor(np.ones((2, 3, 4, 5), np.float32))),
            G.MaximumGrad()(x, tie, dy), G.MinimumGrad()(x, tie, dy),
            G.MaximumGrad()(x, Tensor(np.array([0.0, 1.0, 2.0], np.float32)), dy))
''')

_program("module_paths", '''
def main():
    array_ops = module("ops.operations.array_ops")
    nn_ops = module("ops.operations.nn_ops")
    math_ops = module("ops.operations.math_ops")
    reducer = module("nn.wrap.grad_reducer")
    serialization = module("train.serialization")
    x = Tensor(A)
    pieces = array_ops.Unstack(axis=1)(x)
    hot = nn_ops.OneHot()(Tensor(IDX), 3, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32))
    prod = math_ops.MatMul(transpose_b=True)(x, x)
    names = [n for n in ("load_checkpoint", "save_checkpoint", "load_param_into_net", "export")
             if callable(getattr(serialization, n, None))]
    return (pieces[2], hot, prod, reducer.DistributedGradReducer.__name__, names,
            array_ops.Tile is P.Tile, nn_ops.Softmax is P.Softmax, math_ops.AddN is P.AddN)
''')

_program("checkpoint_through_train_serialization", '''
def main():
    import os
    import tempfile

    serialization = module("train.serialization")
    net = nn.Dense(3, 2)
    path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
    serialization.save_checkpoint(net, path)
    other = nn.Dense(3, 2)
    params = serialization.load_checkpoint(path)
    serialization.load_param_into_net(other, params)
    x = Tensor(A)
    return bool((net(x) == other(x)).all()), sorted(params)
''')

