"""twinmode's embedded deep-learning framework, with MindSpore's API.

``import framework as ms`` stands in for ``import mindspore as ms``.
"""

# _malloc first: it tunes the host allocator on import (framework/_malloc.py)
from . import _malloc, absent_names, context, dtype, mint, nn, ops, profiler, runtime  # noqa: F401
from .autograd import control as _control_bprops  # noqa: F401  (registers If/While bprops)
from .autograd.grad import GradOperation, grad, value_and_grad
from .autograd.vmap import vmap
from .common import initializer
from .common.tensor import Tensor, tensor
from .context import (
    COMPATIBLE,
    GRAPH_MODE,
    LAX,
    PYNATIVE_MODE,
    STRICT,
    get_context,
    pynative,
    set_context,
)
from .device_manager import get_current_device, set_device
from .dtype import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    float_,
    int8,
    int16,
    int32,
    int64,
    int_,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .exporter import export  # ms.export (ONNX)
from .jit_api import JitConfig, jit, jit_class, lazy_inline, ms_function, mutable
from .mindir import load  # ms.load (MindIR, for nn.GraphCell)
from .ops.sparse_tensor import COOTensor, CSRTensor
from .parallel_context import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from .parameter import Parameter, ParameterTuple
from .profiler import Profiler
from .seed import get_seed, set_seed
from .serialization import load_checkpoint, load_param_into_net, save_checkpoint

__version__ = "0.1.0"

# MindSpore's training API (``from mindspore import Model, LossMonitor``) and its dataset
# package, loaded on first use so that ``import framework`` does not load the trainer.
_LAZY_TRAIN = ("Model", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig", "Callback",
               "RunContext", "EarlyStopping", "History", "LambdaCallback", "FixedLossScaleManager",
               "DynamicLossScaleManager", "LossScaleManager")
_LAZY_MODULES = ("train", "dataset", "communication", "amp", "numpy", "device_context", "experimental")
# mindspore.common's names that MindSpore also has at top level (``ms.Symbol``), from framework.common
_LAZY_COMMON = ("Symbol", "UntypedStorage", "flops_collection", "load_mindir", "save_mindir",
                "saved_tensors_hooks", "register_saved_tensors_hooks")


def _lazy(name: str):
    import importlib

    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_TRAIN:
        return getattr(importlib.import_module(f"{__name__}.train"), name)
    if name in _LAZY_COMMON:
        return getattr(importlib.import_module(f"{__name__}.common"), name)
    raise KeyError(name)


# then an absent MindSpore name: one line naming it, the coverage table and the closest name
__getattr__ = absent_names.module_getattr("ms", __name__, lazy=_lazy,
                                          lazy_names=_LAZY_TRAIN + _LAZY_MODULES + _LAZY_COMMON)

__all__ = [
    "COMPATIBLE", "COOTensor", "CSRTensor", "GRAPH_MODE",
    "JitConfig", "LAX", "PYNATIVE_MODE", "STRICT", "ParallelMode",
    "get_auto_parallel_context",
    "reset_auto_parallel_context", "set_auto_parallel_context", "GradOperation", "Parameter",
    "ParameterTuple",
    "Tensor", "tensor", "context", "jit_class", "lazy_inline", "pynative", "ms_function", "mutable",
    "bfloat16", "bool_", "complex64", "complex128", "dtype", "export", "float16", "float32", "float64",
    "float_", "get_context",
    "get_seed",
    "grad", "initializer", "int16", "int32", "int64", "int8", "int_", "jit", "load_checkpoint",
    "load", "load_param_into_net", "nn", "ops", "save_checkpoint", "set_context", "set_seed", "uint8",
    "uint16", "uint32", "uint64",
    "value_and_grad", "vmap", "profiler", "Profiler", "runtime", "set_device",
    "get_current_device",
]
