"""Programs for ``mindspore.common``'s type classes and generic types (``mstype.Type``,
``Float``, ``Int``, ``TensorType``, ``float_``, ``number`` ..., the low-precision dtypes, the
``QuantDtype`` enum) and its random-number generators (``Generator``, ``manual_seed``,
``seed``, ``initial_seed``, ``default_generator``) and the structured initializers
(``Identity``, ``Dirac``, ``Orthogonal``, ``Sparse``, ``VarianceScaling``: exact values where
they are deterministic, the defining properties where they draw, and a convolution whose Dirac
weights pass its input through, in both modes).

Module paths are imported as ``importlib.import_module(ms.__name__ + ".<path>")`` so one
source runs on both engines. ``EXPECTED`` (``ms_common_names_expected.json``) holds MindSpore
2.10's answers on CPU per mode; ``python -m tests.mindspore_ref.ms_common_names_programs``
re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
import importlib


def module(path):
    return importlib.import_module(ms.__name__ + "." + path)


common = module("common")
mstype = module("common.dtype")
init = module("common.initializer")
common_tensor = module("common.tensor")
common_api = module("common.api")


def values(initializer, shape, dtype=ms.float32):
    return init.initializer(initializer, shape, dtype).asnumpy()
'''

PROGRAMS: dict[str, str] = {}

PROGRAMS["type_classes"] = _PRELUDE + '''

def main():
    generic = [mstype.float_, mstype.int_, mstype.uint, mstype.number, mstype.list_, mstype.tuple_,
               mstype.string, mstype.type_none, mstype.tensor_type]
    names = [str(t) for t in generic]
    is_type = [isinstance(t, mstype.Type) for t in generic + [mstype.float32, mstype.bool_]]
    floats = [isinstance(t, mstype.Float) for t in (mstype.float16, mstype.float32, mstype.float64,
                                                    mstype.float_, mstype.int32, mstype.number)]
    ints = [isinstance(t, mstype.Int) for t in (mstype.int8, mstype.int64, mstype.int_, mstype.uint8,
                                                mstype.float32, mstype.bool_)]
    tensors = [isinstance(mstype.tensor_type, mstype.TensorType),
               isinstance(mstype.float32, mstype.TensorType)]
    made = [mstype.Float(32) == mstype.float32, mstype.Float(16) == mstype.float16,
            mstype.Int(8) == mstype.int8,
            mstype.Int(64) == mstype.int64, mstype.Float() == mstype.float_, mstype.Int() == mstype.int_,
            mstype.float_ == mstype.float32, mstype.int_ == mstype.int64, mstype.number == mstype.float32]
    made_names = [str(mstype.Float(64)), str(mstype.Int(16)), str(mstype.Float()), str(mstype.Int())]
    tensor_of = mstype.TensorType(mstype.float32)
    tensor_info = [str(tensor_of), str(tensor_of.element_type()),
                   tensor_of == mstype.TensorType(mstype.float32),
                   isinstance(tensor_of, mstype.Type)]
    common_same = [common.float_ == mstype.float_, common.int_ == mstype.int_, common.Type == mstype.Type,
                   common.number == mstype.number]
    return names, is_type, floats, ints, tensors, made, made_names, tensor_info, common_same
'''

PROGRAMS["low_precision_dtypes"] = _PRELUDE + '''

def main():
    types = [mstype.float8_e4m3fn, mstype.float8_e5m2, mstype.hifloat8, mstype.qint4x2]
    return ([str(t) for t in types], [isinstance(t, mstype.Float) for t in types],
            [isinstance(t, mstype.Int) for t in types], [t.itemsize for t in types[:2] + types[3:]],
            [t.is_floating_point for t in types], [common.float8_e4m3fn == mstype.float8_e4m3fn])
'''

PROGRAMS["dtype_properties"] = _PRELUDE + '''

def main():
    types = [mstype.float16, mstype.float32, mstype.int8, mstype.uint8, mstype.bool_, mstype.complex64]
    return ([t.itemsize for t in types], [t.is_floating_point for t in types], [t.is_signed for t in types],
            [t.is_complex for t in types], str(mstype.float32.to_complex()), str(mstype.float64.to_complex()),
            str(mstype.complex64.to_real()), str(mstype.complex128.to_real()))
'''

PROGRAMS["quant_dtype"] = _PRELUDE + '''

def main():
    q = mstype.QuantDtype
    return ([m.name for m in q], [m.value() for m in q], q(3).name, q(107).name, q["INT8"] == q.INT8,
            isinstance(q.INT4, q))
'''

PROGRAMS["generators"] = _PRELUDE + '''

def main():
    fresh = common.Generator()
    first = fresh.initial_seed()
    same = fresh.manual_seed(5) is fresh
    after = fresh.initial_seed()
    drawn = fresh.seed()
    drawn_ok = [isinstance(drawn, int), drawn == fresh.initial_seed(), 0 <= drawn < 2 ** 64]
    returned = common.manual_seed(3)
    default = [returned is common.default_generator, common.initial_seed(),
               isinstance(returned, common.Generator)]
    new_seed = common.seed()
    seeded = [isinstance(new_seed, int), new_seed == common.initial_seed()]
    common.manual_seed(9)
    common.set_seed(11)
    kept = [common.initial_seed(), common.get_seed()]
    return first, same, after, drawn_ok, default, seeded, kept
'''

PROGRAMS["generator_bad_seed"] = _PRELUDE + '''

def main():
    g = common.Generator()
    out = [g.manual_seed(-1).initial_seed()]
    for bad in (1.5, "3"):
        try:
            common.Generator().manual_seed(bad)
            out.append("no error")
        except Exception as error:  # noqa: BLE001
            kinds = (TypeError, ValueError, RuntimeError)
            out.append(next((k.__name__ for k in kinds if isinstance(error, k)), type(error).__name__))
    return out
'''

PROGRAMS["init_identity_dirac"] = _PRELUDE + '''

def main():
    conv = nn.Conv2d(3, 3, 3, pad_mode="same", has_bias=False, weight_init=init.Dirac())
    x = Tensor(np.arange(48, dtype=np.float32).reshape(1, 3, 4, 4))
    grouped = nn.Conv2d(4, 4, 3, pad_mode="same", has_bias=False, group=2, weight_init=init.Dirac(groups=2))
    x4 = Tensor(np.arange(64, dtype=np.float32).reshape(1, 4, 4, 4) - 20.0)
    return (values(init.Identity(), [3, 4]), values(init.Identity(), [4, 2]),
            str(init.initializer(init.Identity(), [2, 2], ms.int32).dtype),
            values(init.Dirac(groups=2), [4, 3, 3]), values(init.Dirac(), [2, 3, 3, 3]),
            values(init.Dirac(), [2, 2, 1, 3, 2]), conv(x), grouped(x4))
'''

PROGRAMS["init_orthogonal"] = _PRELUDE + '''

def main():
    w = values(init.Orthogonal(gain=2.0), [3, 2, 2]).reshape(3, 4)
    wide = values(init.Orthogonal(), [2, 5])
    tall = values(init.Orthogonal(gain=0.5), [5, 2])
    return (np.round(w @ w.T, 4) + 0.0, np.round(wide @ wide.T, 4) + 0.0, np.round(tall.T @ tall, 4) + 0.0,
            values(init.Orthogonal(), [4, 3, 2]).shape)
'''

PROGRAMS["init_sparse"] = _PRELUDE + '''

def main():
    a = values(init.Sparse(sparsity=0.4, sigma=0.01), [5, 8])
    b = values(init.Sparse(sparsity=0.5, sigma=2.0), [6, 3])
    c = values(init.Sparse(sparsity=0.0), [3, 4])
    return ((a == 0).sum(0), (b == 0).sum(0), int((c == 0).sum()), bool(np.abs(a).max() < 0.08),
            bool(np.abs(b).max() > 0.01))
'''

PROGRAMS["init_variance_scaling"] = _PRELUDE + '''

def ratio(v, std):
    return round(float(v.std() / std), 1)


def main():
    out = []
    for scale, mode, dist, shape, n in [(2.0, "fan_in", "truncated_normal", [400, 100], 100),
                                        (2.0, "fan_out", "untruncated_normal", [400, 100], 400),
                                        (3.0, "fan_avg", "uniform", [80, 120], 100),
                                        (1.0, "fan_in", "truncated_normal", [50, 20, 3, 3], 180)]:
        v = values(init.VarianceScaling(scale=scale, mode=mode, distribution=dist), shape)
        out.append([ratio(v, np.sqrt(scale / n)), bool(np.abs(v).max() <= 2.3 * np.sqrt(scale / n))])
    u = values(init.VarianceScaling(scale=3.0, mode="fan_avg", distribution="uniform"), [80, 120])
    out.append(bool(np.abs(u).max() <= np.sqrt(9.0 / 100)))
    bad = []
    for kwargs in ({"scale": 0.0}, {"scale": -1.0}, {"mode": "fan"}, {"distribution": "normal"}):
        try:
            init.VarianceScaling(**kwargs)
            bad.append("no error")
        except ValueError:
            bad.append("ValueError")
    return out, bad
'''

PROGRAMS["swap_tensors"] = _PRELUDE + '''

def main():
    a = Tensor(np.array([1.0, 2.0], np.float32))
    b = Tensor(np.array([[3]], np.int32))
    alias = a
    returned = common.swap_tensors(a, b)
    c, d = Tensor(np.array([7.0], np.float32)), Tensor(np.array([8.0, 9.0], np.float64))
    back = common_tensor.swap_tensors(c, d)
    return returned, a, b, alias, str(a.dtype), b.shape, a + 1, back, c, d
'''

PROGRAMS["recompute_block"] = _PRELUDE + '''

class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)), name="w")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w)) * 3.0


def main():
    block = Block()
    x = Tensor(np.array([[1.0, -2.0], [0.5, 0.3]], np.float32))

    def loss(x):
        return (common.recompute(block, x) ** 2).sum()

    def plain_loss(x):
        return (block(x) ** 2).sum()

    # MindSpore's graph mode cannot compile recompute's body ("Unsupported statement 'Try'"):
    # there the block runs itself, whose value and gradient recompute's must equal
    pynative = ms.get_context("mode") == ms.PYNATIVE_MODE
    value, grad = ms.value_and_grad(loss if pynative else plain_loss)(x)
    return common.recompute(block, x) if pynative else block(x), value, grad, block(x)
'''

PROGRAMS["graph_hints"] = _PRELUDE + '''

@common.no_inline
def helper(x):
    return x * 2.0 + 1.0


def depth(x, n):
    if n == 0:
        return x
    return depth(x + 1.0, n - 1)


def main():
    common.set_recursion_limit(1200)

    @ms.jit
    def outer(x):
        return helper(x) - helper(x * 0.5)

    @ms.jit
    def deep(x):
        return depth(x, 12)

    x = Tensor(np.array([1.0, -3.0, 4.5], np.float32))

    @common.enable_dynamic(y=Tensor(shape=[None], dtype=ms.float32))
    @ms.jit
    def scaled(y):
        return y * 3.0

    return (outer(x), helper(x), scaled(x), scaled(Tensor(np.array([2.0, 5.0], np.float32))), deep(x),
            common.ms_memory_recycle(), common_api.ms_memory_recycle())
'''

PROGRAMS["set_dump_cpu"] = _PRELUDE + '''

def main():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        returned = common.set_dump(nn.Dense(2, 2), True)
    return returned, any("not supported by set_dump" in str(w.message) for w in caught)
'''

PROGRAMS["row_and_sparse_tensors"] = _PRELUDE + '''

def main():
    values = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
    rt = common.RowTensor(Tensor(np.array([0, 2], np.int32)), values, (4, 3))
    copy = common.RowTensor(row_tensor=rt)
    st = common.SparseTensor(Tensor(np.array([[0, 1], [1, 0]], np.int64)),
                             Tensor(np.array([1.5, -2.0], np.float32)), (2, 2))
    return (rt.indices, rt.values, rt.dense_shape, copy.values, copy.dense_shape, st.indices, st.values,
            st.shape, isinstance(st, common.COOTensor), repr(rt).split(",")[0], repr(st).split(",")[0])
'''

PROGRAMS["mindio_without_server"] = _PRELUDE + '''

def main():
    out = [common.set_mindio_server_info(), common.set_mindio_server_info(8),
           common.mindio_preload("/nonexistent/model.ckpt"), common.mindio_preload("")]
    for bad in (lambda: common.set_mindio_server_info("x"), lambda: common.set_mindio_server_info(-1),
                lambda: common.mindio_preload(123)):
        try:
            bad()
            out.append("no error")
        except (TypeError, ValueError) as error:
            out.append(type(error).__name__)
    return out
'''

PROGRAMS["device_ctx"] = _PRELUDE + '''

def main():
    ctx = common.DeviceCtx("CPU", 0)
    with ctx:
        x = Tensor(np.array([1.0, 2.0], np.float32)) * 3.0
    out = [ctx.name, ctx.device_id, common.DeviceCtx("foo").name, x]
    for bad in (common.DeviceCtx("foo"), common.DeviceCtx("CPU", -1), common.DeviceCtx("cpu")):
        try:
            with bad:
                pass
            out.append("no error")
        except ValueError:
            out.append("ValueError")
    return out
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_common_names_expected.json"))
