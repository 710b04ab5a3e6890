"""Error messages: name the op, the shapes involved and the user's source line."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import framework as ms
from framework import Parameter, Tensor, nn, ops

THIS_FILE = __file__


def _line_of(func, needle):
    """The absolute line number of the first source line of ``func`` containing ``needle``."""
    lines, start = inspect.getsourcelines(func)
    hits = [start + i for i, line in enumerate(lines) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def _assert_location(message, func, needle):
    line = _line_of(func, needle)
    assert f"{THIS_FILE}:{line}" in message, (line, message)
    assert needle in message  # the offending code is quoted


def _f32(*shape):
    return Tensor(np.ones(shape, np.float32))


# -- the example --------------------------------------------------------------------


class BiasNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.bias_add = ops.BiasAdd()
        self.w = Parameter(Tensor(np.ones((5, 8), np.float32)), name="w")
        self.b = Parameter(Tensor(np.ones((4,), np.float32)), name="b")

    def construct(self, x):
        out = self.matmul(x, self.w)
        out = self.bias_add(out, self.b)
        return out


def test_bias_add_error_names_op_shapes_and_line():
    net = BiasNet()
    with pytest.raises(ValueError) as info:
        net(_f32(3, 5))
    message = str(info.value)
    assert message.startswith("BiasAdd")
    assert "(3, 8)" in message and "(4,)" in message
    _assert_location(message, BiasNet.construct, "self.bias_add(out, self.b)")
    assert "construct" in message
    assert "\n" not in message


def test_bias_add_error_inside_grad_transform():
    net = BiasNet()
    with pytest.raises(ValueError) as info:
        ms.grad(net)(_f32(3, 5))
    message = str(info.value)
    assert "BiasAdd" in message and "(3, 8)" in message and "(4,)" in message
    _assert_location(message, BiasNet.construct, "self.bias_add(out, self.b)")


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = BiasNet()

    def construct(self, x):
        return self.inner(x) * 2.0


def test_error_points_at_innermost_user_line():
    with pytest.raises(ValueError) as info:
        Outer()(_f32(3, 5))
    _assert_location(str(info.value), BiasNet.construct, "self.bias_add(out, self.b)")


def test_functional_bias_add_points_at_caller():
    def model(x, b):
        return ops.bias_add(x, b)

    with pytest.raises(ValueError) as info:
        model(_f32(2, 3), _f32(4))
    message = str(info.value)
    assert "BiasAdd" in message and "(2, 3)" in message and "(4,)" in message
    _assert_location(message, model, "return ops.bias_add(x, b)")


# -- other shape errors ----------------------------------------------------------------------


def test_matmul_inner_dimension_mismatch():
    def model(a, b):
        return ops.matmul(a, b)

    with pytest.raises(ValueError) as info:
        model(_f32(2, 3), _f32(4, 5))
    message = str(info.value)
    assert message.startswith("MatMul")
    assert "(2, 3)" in message and "(4, 5)" in message and "3 != 4" in message
    _assert_location(message, model, "return ops.matmul(a, b)")


def test_matmul_transposed_mismatch_mentions_transpose():
    with pytest.raises(ValueError, match=r"MatMul: .*\(4, 5\)\^T"):
        ops.MatMul(transpose_b=True)(_f32(2, 3), _f32(4, 5))


def test_broadcast_mismatch():
    def model(a, b):
        return a + b

    with pytest.raises(ValueError) as info:
        model(_f32(2, 3), _f32(4))
    message = str(info.value)
    assert message.startswith("Add")
    assert "(2, 3)" in message and "(4,)" in message and "broadcast" in message
    _assert_location(message, model, "return a + b")


def test_reshape_wrong_size_names_shapes():
    with pytest.raises(ValueError, match=r"cannot reshape \(2, 3\) \(6 elements\) to \(5,\)"):
        ops.reshape(_f32(2, 3), (5,))
    with pytest.raises(ValueError, match=r"cannot reshape \(2, 3\)"):
        _f32(2, 3).reshape(4, -1)


@pytest.mark.parametrize("case", ["reshape", "reduce_sum"])
def test_shape_errors_outside_infer_name_op_and_line(case):
    def model(x):
        if case == "reshape":
            return ops.reshape(x, (5,))
        return ops.reduce_sum(x, 5)

    with pytest.raises(ValueError) as info:
        model(_f32(2, 3))
    message = str(info.value)
    assert message.startswith({"reshape": "Reshape", "reduce_sum": "ReduceSum"}[case])
    _assert_location(message, model, f"ops.{case}(x, ")


class DenseUser(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 5)

    def construct(self, x):
        return self.fc(x)


def test_dense_wrong_feature_count():
    with pytest.raises(ValueError) as info:
        DenseUser()(_f32(2, 3))
    message = str(info.value)
    assert "Dense(4, 5)" in message and "(..., 4)" in message and "(2, 3)" in message
    _assert_location(message, DenseUser.construct, "return self.fc(x)")


class ConvUser(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 5, pad_mode="valid")

    def construct(self, x):
        return self.conv(x)


def test_conv2d_wrong_channels():
    with pytest.raises(ValueError) as info:
        ConvUser()(_f32(2, 3, 8, 8))
    message = str(info.value)
    assert message.startswith("Conv2D")
    assert "(6, 1, 5, 5)" in message and "(2, 3, 8, 8)" in message
    _assert_location(message, ConvUser.construct, "return self.conv(x)")


def test_conv2d_kernel_larger_than_input_and_bad_rank():
    with pytest.raises(ValueError, match=r"Conv2D: .*does not fit input \(1, 1, 3, 3\)"):
        nn.Conv2d(1, 2, 5, pad_mode="valid")(_f32(1, 1, 3, 3))
    with pytest.raises(ValueError, match=r"Conv2D: input must be 4-D NCHW, got \(1, 8, 8\)"):
        nn.Conv2d(1, 2, 3)(_f32(1, 8, 8))


def test_conv2d_bad_arguments():
    with pytest.raises(ValueError, match="pad_mode"):
        nn.Conv2d(1, 2, 3, pad_mode="reflect")
    with pytest.raises(ValueError, match="pad_mode='pad'"):
        nn.Conv2d(1, 2, 3, padding=1)  # padding needs pad_mode='pad'
    with pytest.raises(ValueError, match="kernel_size"):
        nn.Conv2d(1, 2, 0)


def test_dtype_error_names_op():
    def model(x):
        return ops.exp(x)

    with pytest.raises(TypeError) as info:
        model(Tensor(np.array([1, 2], np.int64)))
    message = str(info.value)
    assert message.startswith("Exp") and "int64" in message and "floating" in message
    _assert_location(message, model, "return ops.exp(x)")


# -- context -------------------------------------------------------------------------------


def test_set_context_unknown_key():
    with pytest.raises(ValueError, match=r"unknown key\(s\) foo.*valid keys are.*mode"):
        ms.set_context(foo=1)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_set_context_bad_values():
    with pytest.raises(ValueError, match=r"mode must be .*got 5"):
        ms.set_context(mode=5)
    with pytest.raises(ValueError, match=r"device_target must be 'CPU' or 'GPU', got 'TPU'"):
        ms.set_context(device_target="TPU")
    with pytest.raises(ValueError, match="unknown key 'nope'"):
        ms.get_context("nope")
    # a failed call changes nothing, even for its valid keys
    with pytest.raises(ValueError):
        ms.set_context(device_target="GPU", mode=7)
    assert ms.get_context("device_target") == "CPU"
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_set_context_valid_values():
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="cuda")
    assert ms.get_context("device_target") == "GPU"
    ms.set_context(device_target="CPU")


# -- tensors ---------------------------------------------------------------------------------


def test_tensor_unsupported_dtypes():
    with pytest.raises(TypeError, match=r"unsupported tensor dtype <U1.*float32"):
        Tensor(np.array(["a", "b"]))
    with pytest.raises(TypeError):
        Tensor(["a", "b"])
    with pytest.raises(TypeError, match="unsupported tensor dtype timedelta64"):  # complex64 is supported
        Tensor(np.ones(2, "timedelta64[s]"))
    with pytest.raises(TypeError, match="unsupported tensor dtype object"):
        Tensor(np.array([object()]))
    with pytest.raises(TypeError, match="unknown dtype 'float128x'"):
        Tensor([1.0], dtype="float128x")
    with pytest.raises(ValueError, match="input_data"):
        Tensor()


def test_tensor_python_defaults():
    assert Tensor(1.5).dtype == ms.float32
    assert Tensor([1, 2]).dtype == ms.int64
    assert Tensor([True]).dtype == ms.bool_
    assert Tensor(np.array([1, 2], np.int32)).dtype == ms.int32
    assert Tensor([1, 2], dtype=ms.float16).dtype == ms.float16


def test_tensor_indexing_errors():
    with pytest.raises(IndexError, match="out of bounds"):
        _f32(2, 3)[5]
    with pytest.raises(IndexError, match=r"getitem: unsupported index 1.5: .*test_errors.py"):
        _f32(4)[1.5]
    np.testing.assert_array_equal(_f32(4)[::2].asnumpy(), _f32(4).asnumpy()[::2])  # strided


# -- gradient transforms -----------------------------------------------------------------------


def test_grad_operation_get_by_list_without_weights():
    net = BiasNet()
    with pytest.raises(ValueError, match=re.escape("get_by_list=True) needs weights")):
        ops.GradOperation(get_by_list=True)(net)


def test_grad_argument_errors():
    def fn(x, y):
        return x * y

    x = _f32(2)
    with pytest.raises(ValueError, match="grad_position 3 is out of range for 2 inputs"):
        ms.grad(fn, grad_position=3)(x, x)
    with pytest.raises(TypeError, match="grad_position 1: input is a float"):
        ms.grad(fn, grad_position=1)(x, 2.0)
    with pytest.raises(TypeError, match="must return Tensors"):
        ms.grad(lambda t: 3.0)(x)
    with pytest.raises(TypeError, match="weights must be Parameters"):
        ms.grad(fn, grad_position=None, weights=[x])(x, x)
    with pytest.raises(ValueError, match="sens_param=True"):
        ops.GradOperation(sens_param=True)(fn)()


def test_loss_and_layer_argument_errors():
    with pytest.raises(ValueError, match="reduction must be one of"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(ValueError, match=r"class indices of shape \(4,\)"):
        nn.CrossEntropyLoss()(_f32(4, 3), Tensor(np.zeros(5, np.int32)))
    with pytest.raises(ValueError, match="unknown activation 'swishy'"):
        nn.Dense(2, 2, activation="swishy")
