"""MindSpore 2.10's hooks and in-place Tensor methods (issue 25: the tutorials
``custom_program/hook_program`` and ``debug/pynative`` and ``compile/static_graph``'s
in-place section) as programs answered in both modes: ``ops.HookBackward``,
``Tensor.register_hook``, the four Cell hooks, ``Tensor.add_``/``mul_``/... and
``mindspore.runtime`` / ``set_device``.

The programs return what the hooks changed (gradients, outputs), never what they printed,
and use no lambdas (MindSpore's graph mode cannot parse a lambda passed as a hook). Where
MindSpore's two modes differ (HookBackward is left out of graph mode; graph mode refuses a
second hook on a tensor, ``with_kwargs`` hooks and ``prepend``), the answers differ by
mode, and the test lists those programs as mode-dependent. The in-place programs run
their in-place code compiled (``@ms.jit``) or use only the returned value, because
MindSpore 2.10's PyNative CPU kernels return the new value without updating the tensor.

``EXPECTED`` (``ms_hooks_expected.json``) holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_hooks_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.recorded import ERROR_KIND

PROGRAMS: dict[str, str] = {}

# programs whose answer MindSpore gives differently in its two modes
MODE_DEPENDENT = ("hook_backward_replaces", "hook_backward_tensor_result", "tensor_hook_two_hooks",
                  "tensor_hook_remove_inside", "cell_hooks_prepend", "cell_hooks_with_kwargs")


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = body


_program("hook_backward_replaces", '''
def times3(grads):
    return (grads[0] * 3,)


hook = ops.HookBackward(times3)


def f(x, y):
    z = hook(x * y)
    return z * y


def main():
    x, y = Tensor(1.0, ms.float32), Tensor(2.0, ms.float32)
    return f(x, y), ms.grad(f, grad_position=(0, 1))(x, y)
''')

_program("hook_backward_tensor_result", '''
def times3(grads):
    return grads[0] * 3


hook = ops.HookBackward(times3)


def f(x):
    return hook(x * 2) * 1


def main():
    return ms.grad(f)(Tensor(np.array([1.0, -2.0], np.float32)))
''')

_program("tensor_hook_debug_page", '''
def double(grad):
    return grad * 2


def f(x, y):
    z = x * y
    z.register_hook(double)
    z = z * y
    return z


def main():
    return ms.value_and_grad(f, grad_position=(0, 1))(Tensor(1, ms.float32), Tensor(2, ms.float32))
''')

_program("tensor_hook_sees_summed_grad", '''
def times10(grad):
    return grad * 10


def f(a):
    z = a * 2
    z.register_hook(times10)
    return z * 3 + z * z


def main():
    return ms.grad(f)(Tensor(np.array([1.0, 0.5], np.float32)))
''')

_program("tensor_hook_none_keeps_grad", '''
def look(grad):
    return None


def f(a):
    z = a * 2
    z.register_hook(look)
    return z * 3


def main():
    return ms.grad(f)(Tensor(1.0, ms.float32))
''')

_program("tensor_hook_two_hooks", '''
def plus1(grad):
    return grad + 1


def times10(grad):
    return grad * 10


def f(a):
    z = a * 2
    z.register_hook(plus1)
    z.register_hook(times10)
    return z * 3


def main():
    return ms.grad(f)(Tensor(1.0, ms.float32))
''')

_program("tensor_hook_remove_inside", '''
def times10(grad):
    return grad * 10


def f(a):
    z = a * 2
    handle = z.register_hook(times10)
    handle.remove()
    return z * 3


def main():
    return ms.grad(f)(Tensor(1.0, ms.float32))
''')

_program("parameter_hook", '''
w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")


def double(grad):
    return grad * 2


w.register_hook(double)


def f(x):
    return (w * x).sum()


def main():
    return ms.grad(f, None, [w])(Tensor(np.array([3.0, 4.0], np.float32)))
''')

_program("hook_not_callable", ERROR_KIND + '''
class R(nn.Cell):
    def construct(self, x):
        return x + 1


def main():
    r = R()
    return (kind(lambda: ops.HookBackward(3)), kind(lambda: Tensor(1.0).register_hook(3)),
            kind(lambda: r.register_forward_pre_hook(3)), kind(lambda: r.register_forward_hook(3)),
            kind(lambda: r.register_backward_pre_hook(3)), kind(lambda: r.register_backward_hook(3)))
''')

_CELLS = '''
def pre(cell, inputs):
    return (inputs[0] * 2,)


def post(cell, inputs, out):
    return out + 1


def bpre(cell, grad_output):
    return (grad_output[0] * 10,)


class Net(nn.Cell):
    def __init__(self, backward=False):
        super().__init__()
        self.relu = nn.ReLU()
        self.relu.register_forward_pre_hook(pre)
        self.relu.register_forward_hook(post)
        if backward:
            self.relu.register_backward_pre_hook(bpre)

    def construct(self, x):
        return self.relu(x * 3)
'''

_program("cell_forward_hooks", _CELLS + '''
def main():
    x = Tensor(np.array([1.0, -1.0], np.float32))
    net = Net()
    return net(x), ms.grad(net)(x)
''')

_program("cell_backward_pre_hook", _CELLS + '''
def main():
    x = Tensor(np.array([1.0, -1.0], np.float32))
    net = Net(backward=True)
    return net(x), ms.grad(net)(x)
''')

_program("cell_pre_hook_new_tensor_cuts_grad", '''
def fresh(cell, inputs):
    return Tensor(np.ones([1]).astype(np.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.relu.register_forward_pre_hook(fresh)

    def construct(self, x, y):
        return self.relu(x + y)


def main():
    x, y = Tensor(np.ones([1]).astype(np.float32)), Tensor(np.ones([1]).astype(np.float32))
    return ms.grad(Net(), grad_position=(0, 1))(x, y)
''')

_program("cell_backward_hooks_two_in_two_out", '''
def bhook(cell, grad_input, grad_output):
    return (grad_input[0] * 100, grad_input[1])


def bpre(cell, grad_output):
    return None


class Two(nn.Cell):
    def construct(self, a, b):
        return a * b, a + b


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.two = Two()
        self.two.register_backward_pre_hook(bpre)
        self.two.register_backward_hook(bhook)

    def construct(self, x, y):
        p, s = self.two(x, y)
        return p * 2 + s * 3


def main():
    return ms.grad(Net(), grad_position=(0, 1))(Tensor(2.0, ms.float32), Tensor(5.0, ms.float32))
''')

_program("cell_backward_hooks_tutorial_bn", '''
def bhook(cell, grad_input, grad_output):
    return (grad_input[0] * 2,)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones",
                              pad_mode="valid")
        self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
        self.bn.register_backward_hook(bhook)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


def main():
    x = Tensor(np.arange(9).reshape(1, 1, 3, 3).astype(np.float32))
    return ms.grad(Net())(x)
''')

_program("cell_top_level_hooks", '''
def pre(cell, args):
    return args[0] + 1


def post(cell, args, out):
    return out * 10


def bpre(cell, grad_output):
    return (grad_output[0] * 3,)


class R(nn.Cell):
    def construct(self, x):
        return x * 2


def main():
    r = R()
    r.register_forward_pre_hook(pre)
    r.register_forward_hook(post)
    r2 = R()
    r2.register_backward_pre_hook(bpre)
    x = Tensor(1.0, ms.float32)
    return r(x), ms.grad(r)(x), ms.grad(r2)(x), r2(x)
''')

_program("cell_hooks_in_jit_function", '''
def post(cell, args, out):
    return out * 5


class R(nn.Cell):
    def construct(self, x):
        return x + 1


r = R()
r.register_forward_hook(post)


@ms.jit
def f(x):
    return r(x) * 2


def main():
    return f(Tensor(np.array([1.0, 2.0], np.float32)))
''')

_program("cell_hooks_prepend", '''
def double(cell, args):
    return args[0] * 2


def plus1(cell, args):
    return args[0] + 1


class R(nn.Cell):
    def construct(self, x):
        return x * 1


def main():
    r = R()
    r.register_forward_pre_hook(double)
    r.register_forward_pre_hook(plus1, prepend=True)
    return r(Tensor(1.0, ms.float32))
''')

_program("cell_hooks_with_kwargs", '''
def pre_kw(cell, args, kwargs):
    return (args[0] * 2,), kwargs


def post_kw(cell, args, kwargs, out):
    return out + kwargs["scale"]


class K(nn.Cell):
    def construct(self, x, scale=1.0):
        return x * scale


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = K()
        self.k.register_forward_pre_hook(pre_kw, with_kwargs=True)
        self.k.register_forward_hook(post_kw, with_kwargs=True)

    def construct(self, x):
        return self.k(x, scale=3.0)


def main():
    try:
        return Net()(Tensor(1.0, ms.float32))
    except TypeError:
        return "TypeError"
''')

_program("cell_hook_handle_remove", '''
def post(cell, args, out):
    return out + out


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU()
        self.handle = self.relu.register_forward_hook(post)

    def construct(self, x, y):
        return self.relu(x + y)


def main():
    x, y = Tensor(np.ones([1]).astype(np.float32)), Tensor(np.ones([1]).astype(np.float32))
    net = Net()
    first = ms.grad(net, grad_position=(0, 1))(x, y)
    net.handle.remove()
    return first, ms.grad(net, grad_position=(0, 1))(x, y)
''')

_program("inplace_in_jit", '''
@ms.jit
def f(x, y):
    z = x * 1
    z.add_(y)
    z.mul_(y)
    return z


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    return f(x, y), ms.grad(f, grad_position=(0, 1))(x, y)
''')

_program("inplace_methods_in_jit", '''
@ms.jit
def f(x, y):
    a = x * 1
    a.add_(y, alpha=2)
    b = x * 1
    b.sub_(y, alpha=3)
    c = x * 1
    c.div_(y)
    e = x * 1
    e.copy_(y)
    g = x * 1
    g.floor_divide_(y)
    h = x * 1
    h.remainder_(y)
    m = x * 1
    m.mul_(2.5)
    return a, b, c, e, g, h, m


def main():
    return f(Tensor(np.array([1.5, 3.0, -2.0], np.float32)), Tensor(np.array([2.0, 4.0, 3.0], np.float32)))
''')

_program("inplace_returned_value_grads", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param1 = ms.Parameter(Tensor(np.array([1.0], np.float32)), name="param1")
        self.param2 = ms.Parameter(Tensor(np.array([1.0], np.float32)), name="param2")

    def construct(self, x, y):
        out = self.param1 + self.param2 + x + y
        out = out * x
        return out.add_(y)


def main():
    net = Net()
    x, y = Tensor(np.array([1.0], np.float32)), Tensor(np.array([2.0], np.float32))
    grads = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(x, y)
    return net(x, y), grads
''')

_program("inplace_int_tensor_in_jit", '''
class Net(nn.Cell):
    def construct(self, x, y):
        x.add_(y)
        return x


def main():
    net = Net()
    net.construct = ms.jit(net.construct)
    x = ms.tensor(2, dtype=ms.int32)
    y = ms.tensor(3, dtype=ms.int32)
    return net(x, y), ms.grad(net)(x, y)
''')

_program("runtime_and_device", '''
def main():
    ms.runtime.launch_blocking()
    ms.runtime.synchronize()
    return (ms.get_context("device_target"), tuple(ms.get_current_device()),
            ms.runtime.memory_allocated(), ms.runtime.max_memory_allocated(),
            ms.runtime.memory_reserved())
''')


if __name__ == "__main__":  # re-record ms_hooks_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_hooks_expected.json"))
