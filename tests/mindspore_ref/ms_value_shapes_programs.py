"""Programs for ops whose output shape depends on values, compiled: ``masked_select``,
boolean indexing ``x[mask]`` (in a Cell with a tensor-valued ``if``), ``nonzero`` /
``argwhere``, ``unique``, ``unique_consecutive`` with inverse and counts, ``x[mask] = v``,
and the gradient of a loss over a masked selection inside ``ms.jit``, in both modes (graph
mode splits the compiled function around them here; MindSpore compiles dynamic shapes).
``ms_value_shapes_expected.json`` holds MindSpore 2.10's answers on CPU per mode;
``python -m tests.mindspore_ref.ms_value_shapes_programs`` re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
X = np.array([[0.5, -1.0, 2.0], [-0.25, 3.0, -4.0], [1.5, 0.0, -2.5]], np.float32)
A = np.array([3, 1, 3, 3, 0, 1, 1], np.int32)
W = np.array([0.7, -1.3, 0.4], np.float32)
'''

PROGRAMS: dict[str, str] = {}


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _PRELUDE + body


_program("masked_select_in_jit", '''
@ms.jit
def f(x):
    y = x * 2.0
    return ops.masked_select(y, y > 0), y.sum()


def main():
    return [f(Tensor(X)), f(Tensor(-X)), f(Tensor(X * 3.0))]
''')

_program("bool_index_in_a_cell_with_tensor_ifs", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(W), name="w")

    def construct(self, x):
        y = x * self.w
        if y.sum() > 0:
            y = y + 1.0
        else:
            y = y - 1.0
        picked = y[y > 0]
        total = picked.sum()
        if total > 3.0:
            total = total * 2.0
        return picked, total


def main():
    net = Net()
    return [net(Tensor(X)), net(Tensor(-X))]
''')

_program("nonzero_and_argwhere_in_jit", '''
@ms.jit
def f(x):
    z = ops.relu(x)
    return ops.nonzero(z), ops.argwhere(z)


def main():
    return [f(Tensor(X)), f(Tensor(-X))]
''')

_program("unique_and_unique_consecutive_in_jit", '''
@ms.jit
def f(a):
    b = a + 1
    return ops.unique(b), ops.unique_consecutive(b, True, True)


def main():
    return f(Tensor(A))
''')

_program("mask_assignment_in_jit", '''
@ms.jit
def f(x):
    y = x * 1.0
    y[y < 0] = 0.5
    return y


def main():
    return f(Tensor(X))
''')

_program("grad_of_a_loss_over_a_masked_selection", '''
def loss(w, x):
    y = x * w + 0.25 * (x * w) ** 2
    return ops.masked_select(y, y > 0).sum() + (y[x < 0] * 3.0).sum()


@ms.jit
def step(w, x):
    return ms.value_and_grad(loss)(w, x)


def main():
    return [step(Tensor(W), Tensor(X)), step(Tensor(W * 2.0), Tensor(X))]
''')


if __name__ == "__main__":  # re-record ms_value_shapes_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_value_shapes_expected.json"))
