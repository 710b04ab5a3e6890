"""Programs for the ``nn`` cells, optimizers and helpers of the nn namespace's second batch
(transposed and 3-d convolutions, CellDict, Adagrad/Adadelta/AdaMax/ASGD/Rprop, 3-d norm and
pooling, ...): each cell's output and, where it has any, the gradients of a weighted sum of
its output with respect to every input and every trainable parameter (one GradOperation
Cell, so graph mode compiles forward and backward); optimizers by a few training steps
from fixed weights.

Every program starts from ``_COMMON``: ``fill(net)`` sets each parameter, in the order of
its sorted name, to a fixed pattern of its shape; ``check(net, *inputs)`` returns
``(output, input gradients, parameter gradients, parameter names)``.
``ms_nn_cells_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_nn_cells_programs`` re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_COMMON = '''
def pattern(shape, k, scale=0.3):
    n = int(np.prod(shape)) if len(shape) else 1
    return (np.sin(np.arange(n) * 0.73 + k) * scale).reshape(shape).astype(np.float32)


def fill(net, scale=0.3):
    named = sorted(net.parameters_and_names(), key=lambda item: item[0])
    for k, (_, p) in enumerate(named):
        p.set_data(Tensor(pattern(p.shape, k, scale)))
    return [name for name, _ in named]


class Weighted(nn.Cell):
    """sum(net(*xs) * a fixed pattern): gradients that tell every output element apart."""

    def __init__(self, net, shape):
        super().__init__()
        self.net = net
        self.mask = Tensor(pattern(shape, 7, 1.0) + 1.5)

    def construct(self, *xs):
        return (self.net(*xs) * self.mask).sum()


class Grads(nn.Cell):
    def __init__(self, net, params):
        super().__init__()
        self.net = net
        self.params = ms.ParameterTuple(params)
        self.grad = ops.GradOperation(get_all=True, get_by_list=True)

    def construct(self, *xs):
        return self.grad(self.net, self.params)(*xs)


def check(net, *arrays, train=True):
    names = fill(net)
    net.set_train(train)
    xs = [Tensor(a) for a in arrays]
    out = net(*xs)
    params = [p for _, p in sorted(net.parameters_and_names(), key=lambda item: item[0])
              if p.requires_grad]
    grads = Grads(Weighted(net, out.shape), params)(*xs)
    return out, grads, names
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _COMMON + body


# -- transposed and 3-d convolutions --------------------------------------------------------
_program("conv2d_transpose", '''
def main():
    x = pattern((2, 4, 3, 5), 1, 1.0)
    return (check(nn.Conv2dTranspose(4, 6, 3, has_bias=True), x),
            check(nn.Conv2dTranspose(4, 6, (2, 3), stride=2, pad_mode="valid"), x),
            check(nn.Conv2dTranspose(4, 6, 3, stride=(2, 3), pad_mode="pad", padding=(1, 0, 2, 1),
                                     output_padding=1, dilation=(2, 1), has_bias=True), x),
            check(nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="same", group=2), x),
            check(nn.Conv2dTranspose(4, 2, 1, stride=3, pad_mode="valid"), x))
''')

_program("conv1d_transpose", '''
def main():
    x = pattern((2, 4, 7), 2, 1.0)
    return (check(nn.Conv1dTranspose(4, 3, 3, has_bias=True), x),
            check(nn.Conv1dTranspose(4, 6, 4, stride=2, pad_mode="valid", dilation=2), x),
            check(nn.Conv1dTranspose(4, 6, 3, stride=3, pad_mode="pad", padding=1, group=2,
                                     has_bias=True), x))
''')

_program("conv3d", '''
def main():
    x = pattern((2, 4, 5, 4, 6), 3, 1.0)
    return (check(nn.Conv3d(4, 3, 3, has_bias=True), x),
            check(nn.Conv3d(4, 6, (2, 3, 2), stride=(2, 1, 2), pad_mode="valid", dilation=(2, 1, 1)), x),
            check(nn.Conv3d(4, 2, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1, 0, 1),
                            has_bias=True), x),
            check(nn.Conv3d(4, 6, 2, stride=(1, 2, 3), pad_mode="same"), x))
''')

_program("conv3d_transpose", '''
def main():
    x = pattern((1, 4, 3, 4, 2), 4, 1.0)
    return (check(nn.Conv3dTranspose(4, 2, 3, has_bias=True), x),
            check(nn.Conv3dTranspose(4, 3, (2, 3, 2), stride=(2, 1, 2), pad_mode="valid",
                                     dilation=(1, 2, 1)), x),
            check(nn.Conv3dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1, 0, 1),
                                     output_padding=1, has_bias=True), x),
            check(nn.Conv3dTranspose(4, 2, 2, stride=(1, 2, 3), pad_mode="same"), x))
''')


if __name__ == "__main__":  # re-record ms_nn_cells_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_nn_cells_expected.json"))
