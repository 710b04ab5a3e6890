"""Programs for the rest of ``mindspore.common``: ``Symbol`` (its checks, in a placeholder
Tensor's shape and in ``Cell.set_inputs``, which graph mode enforces and PyNative ignores),
``UntypedStorage`` (``Tensor.untyped_storage()``), ``flops_collection`` (a compiled graph's
FLOPs), ``saved_tensors_hooks`` / ``register_saved_tensors_hooks`` (the pack and unpack
hooks of tensors saved for backward) and ``load_mindir`` / ``save_mindir`` (a MindIR file's
ModelProto edited and saved).

Module paths are imported as ``importlib.import_module(ms.__name__ + ".<path>")`` so one
source runs on both engines. ``EXPECTED`` (``ms_common_more_expected.json``) holds MindSpore
2.10's answers on CPU per mode; ``python -m tests.mindspore_ref.ms_common_more_programs``
re-records them (``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = ERROR_KIND + '''
import importlib


def module(path):
    return importlib.import_module(ms.__name__ + "." + path)


common = module("common")
common_api = module("common.api")


def message(fn):
    """The first words of the error ``fn()`` raises (the part both engines word alike)."""
    try:
        fn()
    except (TypeError, ValueError) as error:
        return type(error).__name__ + ": " + " ".join(str(error).split()[:6])
    return "no error"
'''

PROGRAMS: dict[str, str] = {}

# MindSpore's graph mode checks the call against the Symbols, its PyNative does not
# and compiles (so counts FLOPs) only in graph mode
# saved_tensors_hooks is refused by graph mode, register_saved_tensors_hooks ignored by PyNative
MODE_DEPENDENT = {"symbol_set_inputs", "flops_collection", "saved_tensors_hooks",
                  "register_saved_tensors_hooks"}

PROGRAMS["symbol_checks"] = _PRELUDE + '''

def main():
    Symbol = common.Symbol
    made = [Symbol().to_dict(), Symbol(max=32, divisor=8, remainder=1).to_dict(),
            Symbol(max=3, min=5).to_dict(), Symbol(foo=3).to_dict()]
    unique = Symbol(max=64, min=2, unique=True)  # its dict holds its id too
    made.append({k: v for k, v in unique.to_dict().items() if k != "id"})
    made.append(unique.to_dict()["id"] == unique.id)
    s = Symbol(max=16, min=2, divisor=4, remainder=2, unique=True)
    fields = [s.max, s.min, s.divisor, s.remainder, s.unique]
    bad = [message(lambda: Symbol(max=1.5)), message(lambda: Symbol(min=0)),
           message(lambda: Symbol(min=-1)), message(lambda: Symbol(divisor=0)),
           message(lambda: Symbol(divisor=8, remainder=8)), message(lambda: Symbol(remainder=-1)),
           message(lambda: Symbol(unique=1)), message(lambda: Symbol(min=np.int64(3))),
           message(lambda: Symbol(max="4")), kind(lambda: Symbol(max=True))]
    shapes = [Tensor(shape=[Symbol(max=8), 3], dtype=ms.float32).shape,
              Tensor(shape=(None, Symbol(divisor=2), Symbol(unique=True)), dtype=ms.int32).shape,
              str(Tensor(shape=[Symbol()], dtype=ms.float16).dtype)]
    top_level = [getattr(ms, n) is getattr(common, n) for n in (
        "Symbol", "UntypedStorage", "flops_collection", "load_mindir", "save_mindir", "saved_tensors_hooks",
        "register_saved_tensors_hooks")]
    made = [str(sorted(d.items())) if isinstance(d, dict) else d for d in made]
    return made, fields, bad, shapes, top_level
'''

PROGRAMS["symbol_set_inputs"] = _PRELUDE + '''

class Net(nn.Cell):
    def construct(self, x, y):
        return ops.abs(x) * 2, y + 1


def main():
    Symbol = common.Symbol
    s1 = Symbol(divisor=8, remainder=1)
    s2 = Symbol(max=32, min=4, unique=True)
    net = Net()
    net.set_inputs(Tensor(shape=(None, s1, s2, s2), dtype=ms.float32),
                   Tensor(shape=(s2, Symbol(max=32)), dtype=ms.float32))

    def call(xs, ys):
        return net(Tensor(np.ones(xs, np.float32)), Tensor(np.ones(ys, np.float32)))

    x, y = call((1, 9, 16, 16), (16, 5))
    out = [x.sum(), y[0]]
    for xs, ys in [((1, 10, 16, 16), (16, 5)), ((1, 1, 16, 16), (16, 5)), ((1, 9, 64, 64), (64, 5)),
                   ((1, 9, 2, 2), (2, 5)), ((1, 9, 16, 8), (16, 5)), ((1, 9, 16, 16), (16, 40)),
                   ((1, 9, 16, 16), (8, 5)), ((2, 17, 8, 8), (8, 32))]:
        try:
            got = call(xs, ys)
            out.append([list(got[0].shape), list(got[1].shape)])
        except ValueError:
            out.append("ValueError")
    return out
'''

PROGRAMS["untyped_storage"] = _PRELUDE + '''

def main():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    s = x.untyped_storage()
    facts = [isinstance(s, common.UntypedStorage), str(s.dtype), s.device, s.nbytes(), s.size(), len(s),
             s.element_size(), s.is_shared(), x.untyped_storage() is s, s.data_ptr() == x.data_ptr()]
    sizes = [(t.untyped_storage().nbytes(), str(t.untyped_storage().dtype))
             for t in (Tensor(np.arange(6, dtype=np.float64)), Tensor(np.arange(5, dtype=np.int8)),
                       Tensor(np.array([True, False])), Tensor(np.float32(3)))]
    s.copy_(Tensor(np.full((6,), 7.5, np.float32)).untyped_storage())
    small = Tensor(np.ones((2,), np.float32))
    errors = [kind(lambda: small.untyped_storage().copy_(s)), kind(lambda: common.UntypedStorage()),
              kind(lambda: s[0])]
    r = Tensor(np.arange(4, dtype=np.float32))
    rs = r.untyped_storage()
    resized = [rs.resize_(8) is rs, rs.nbytes(), r.shape, rs.resize_(0).nbytes()]
    return facts, sizes, x, small, errors, resized, r
'''

PROGRAMS["flops_collection"] = _PRELUDE + '''

class TwoDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(4, 8)
        self.e = nn.Dense(8, 2)

    def construct(self, x):
        return self.e(ops.relu(self.d(x)))


class Convs(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=True)
        self.b = nn.Conv2d(4, 6, 3, stride=2, pad_mode="same", group=2)
        self.c = nn.Conv1d(6, 2, 2, pad_mode="valid")

    def construct(self, x):
        y = self.b(ops.relu(self.a(x)))
        return self.c(y.reshape(y.shape[0], 6, -1)).sum()


class Products(nn.Cell):
    def __init__(self):
        super().__init__()
        self.mm = ops.MatMul(transpose_a=True)
        self.bmm = ops.BatchMatMul(transpose_b=True)

    def construct(self, x, y, z):
        return self.mm(x, y), self.bmm(z, z), ops.exp(x) * 2 + 1


def f32(*shape):
    return Tensor(np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape))


def counted(net, *args):
    net(*args)
    phases = sorted(net.compile_cache)
    if not phases:
        return "no graph"
    return [list(common.flops_collection(net.current_phase)), phases[-1].split(".")[0],
            net.current_phase in net.compile_cache, common_api.flops_collection is common.flops_collection]


def main():
    out = [counted(TwoDense(), f32(5, 4)), counted(Convs(), f32(2, 3, 9, 9)),
           counted(Products(), f32(3, 4), f32(3, 5), f32(2, 3, 4))]
    net = TwoDense()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    out.append(counted(step, f32(5, 4), f32(5, 2)))
    convs = Convs()
    out.append(counted(nn.TrainOneStepCell(convs, nn.SGD(convs.trainable_params(), 0.1)), f32(2, 3, 9, 9)))
    out.append(kind(lambda: common.flops_collection("no such phase")))
    return out
'''

PROGRAMS["saved_tensors_hooks"] = _PRELUDE + '''
LOG = []


def pack(t):
    LOG.append(("pack", np.round(t.asnumpy(), 4).tolist()))
    return t + 1


def unpack(t):
    LOG.append(("unpack", np.round(t.asnumpy(), 4).tolist()))
    return t


def product(x, y):
    with common.saved_tensors_hooks(pack, unpack):
        out = x * y
    return out.sum()


def chain(x, y):
    with common.saved_tensors_hooks(pack, unpack):
        e = ops.exp(x)
        z = ops.sin(e) + ops.matmul(x.reshape(1, 2), y.reshape(2, 1)).sum() + ops.relu(x).sum()
    return z.sum()


def nested(x, y):
    with common.saved_tensors_hooks(pack, unpack):
        with common.saved_tensors_hooks(lambda t: t * 10, lambda t: t):
            out = x * y
        out = out * x
    return out.sum()


def boxed(x, y):
    with common.saved_tensors_hooks(lambda t: ("box", t.asnumpy()), lambda b: Tensor(b[1] * 2)):
        out = x * y
    return out.sum()


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.d(x).sum()


def main():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    try:
        out = []
        for fn in (product, chain, nested, boxed):
            out.append([ms.grad(fn, grad_position=(0, 1))(x, y), list(LOG)])
            LOG.clear()
        net = Net()

        def through_net(v):
            with common.saved_tensors_hooks(pack, unpack):
                return net(v)

        out.append([ms.grad(through_net, None, net.trainable_params())(x.reshape(1, 2)), list(LOG)])
        LOG.clear()
        with common.saved_tensors_hooks(pack, unpack):  # no gradient: nothing saved
            out.append([x * y, list(LOG)])
        return out
    except TypeError:
        return "TypeError"
'''

PROGRAMS["register_saved_tensors_hooks"] = _PRELUDE + '''


def pack(t):
    return t + 1


def unpack(t):
    return t * 2


@common.register_saved_tensors_hooks(pack, unpack)
def hooked(x, y):
    return (ops.exp(x) * y).sum() + ops.matmul(x.reshape(1, 2), y.reshape(2, 1)).sum()


class Net(nn.Cell):
    def construct(self, x, y):
        return hooked(x, y)


def main():
    x = Tensor(np.array([0.5, -1.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    return ms.grad(Net(), grad_position=(0, 1))(x, y), ms.grad(hooked, grad_position=(0, 1))(x, y)
'''

PROGRAMS["mindir_proto"] = _PRELUDE + '''
import os
import tempfile


def main():
    folder = tempfile.mkdtemp()
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    x = Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    ms.export(net, x, file_name=os.path.join(folder, "dense"), file_format="MINDIR")
    md = common.load_mindir(os.path.join(folder, "dense.mindir"))
    read = [type(md).__name__, md.ir_version, md.little_endian, md.mind_ir_version,
            sorted(md.user_info.items()),
            [list(p.dims) for p in md.graph.parameter], [p.data_type for p in md.graph.parameter],
            [len(p.raw_data) for p in md.graph.parameter], len(md.graph.input), md.doc_string,
            md.HasField("graph"), md.HasField("preprocessor")]
    md.user_info["version"] = "pangu v100"
    weight = md.graph.parameter[0]
    weight.raw_data = np.arange(6, dtype=np.float32).reshape(2, 3).tobytes()
    common.save_mindir(md, os.path.join(folder, "edited"))  # .mindir appended
    saved = os.path.join(folder, "edited.mindir")
    again = common.load_mindir(saved)
    after = [sorted(again.user_info.items()), oct(os.stat(saved).st_mode & 0o777),
             np.frombuffer(again.graph.parameter[0].raw_data, np.float32).tolist(),
             again.graph.parameter[0].name == weight.name, len(again.graph.node) == len(md.graph.node)]
    common.save_mindir(again, saved)  # over a read-only file
    run = nn.GraphCell(ms.load(saved))(x)
    errors = [kind(lambda: common.load_mindir(os.path.join(folder, "missing.mindir"))),
              kind(lambda: common.load_mindir(3)), kind(lambda: common.save_mindir("model", saved)),
              kind(lambda: common.save_mindir(md, 3))]
    with open(os.path.join(folder, "junk.mindir"), "wb") as f:
        f.write(bytes([255, 255, 0]) + b"garbage")
    errors.append(kind(lambda: common.load_mindir(os.path.join(folder, "junk.mindir"))))
    return read, after, run, errors
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_common_more_expected.json"))
