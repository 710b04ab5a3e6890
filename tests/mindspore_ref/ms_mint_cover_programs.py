"""``mindspore.mint`` functions no other differential test spelled (issue 25, listed by
:mod:`tests.mindspore_ref.api_tested`), against MindSpore 2.10 on CPU in both modes.

MindSpore 2.10's CPU build runs few of these: most of mint's ``*Ext`` kernels are
unregistered for PyNative and unsupported by the CPU kernel selection of graph mode alike
(``UNTESTABLE`` records MindSpore's two errors per name: PyNative's, then graph mode's). Of
the names it runs:

- ``bitwise_and`` / ``floor_divide`` (tensor operands), ``empty`` / ``empty_like``,
  ``polar`` and ``item`` run in both: each program calls them inside ``@ms.jit`` (compiled
  in either context mode) and eagerly;
- ``diff``, ``fmod``, ``nansum``, ``t`` and ``index_add`` run in PyNative only (their graph
  kernels ``Narrow``, ``FmodScalar``/``FmodTensor``, ``Nansum``, ``TExt``, ``IndexAddExt``
  are unsupported on CPU): the programs call them outside any Cell or jit, so both context
  modes run them eagerly. Their gradients: ``ms.grad`` compiles in graph mode, which
  MindSpore manages for ``diff``/``fmod``/``nansum`` (the program ``eager_grads``) but not
  for ``t``/``index_add`` (``pynative_grads``: computed in PyNative only, its answer depends
  on the mode).

``empty``/``empty_like`` return uninitialised memory: their programs return dtypes and
shapes only. ``ms_mint_cover_expected.json`` holds MindSpore 2.10's answers on CPU by mode;
``python -m tests.mindspore_ref.ms_mint_cover_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}

# Programs whose answer depends on the context mode (MindSpore cannot compile them).
MODE_DEPENDENT = ("pynative_grads",)


def _unsupported(pynative: str, graph: str | None = None) -> str:
    """MindSpore's errors for a mint name: its PyNative kernel, then graph mode's."""
    return (f"RuntimeError: The kernel {pynative} unregistered. "
            f"(graph: Unsupported op [{graph or pynative}] on CPU)")


UNTESTABLE: dict[str, str] = {
    **{f"mint:{name}": _unsupported(kernel) for name, kernel in {
        "acos": "AcosExt", "acosh": "AcoshExt", "addbmm": "Addbmm", "addcdiv": "AddcdivExt",
        "addcmul": "AddcmulExt", "addmm": "Addmm", "addmv": "Addmv", "arccos": "AcosExt",
        "arccosh": "AcoshExt", "arcsin": "AsinExt", "arcsinh": "AsinhExt", "arctan": "AtanExt",
        "arctan2": "Atan2Ext", "argmin": "ArgMinExt", "argsort": "ArgSort", "asin": "AsinExt",
        "asinh": "AsinhExt", "atan": "AtanExt", "atan2": "Atan2Ext", "bernoulli": "BernoulliExt",
        "bincount": "BincountExt", "bitwise_not": "BitwiseNot", "bitwise_or": "BitwiseOrTensor",
        "bitwise_xor": "BitwiseXorTensor", "clone": "Clone", "conv2d": "Conv2DExt",
        "count_nonzero": "CountNonZero", "cummin": "CumminExt", "cumsum": "CumsumExt",
        "diag": "DiagExt", "dot": "Dot", "equal": "EqualExt", "exp2": "Exp2", "frac": "Frac",
        "full_like": "FullLike", "histc": "HistcExt", "index_select": "IndexSelect",
        "inverse": "MatrixInverseExt", "isneginf": "IsNegInf", "linspace": "LinSpaceExt",
        "log10": "Log10", "log2": "Log2", "logaddexp": "LogAddExp", "logaddexp2": "LogAddExp2",
        "logsumexp": "LogSumExp", "median": "MedianExt", "mm": "Mm", "multinomial": "MultinomialExt",
        "mv": "Mv", "norm": "LinalgVectorNorm", "normal": "NormalFloatFloat", "outer": "Outer",
        "randperm": "RandpermExt", "repeat_interleave": "RepeatInterleaveInt", "roll": "Roll",
        "scatter_add": "ScatterAddExt", "sort": "SortExt", "stack": "StackExt", "std": "Std",
        "std_mean": "StdMean", "take": "Take", "topk": "TopkExt", "trace": "TraceExt",
        "tril": "TrilExt", "unique": "Unique2", "var": "Var", "var_mean": "VarMean"}.items()},
    **{f"mint:{name}": f"RuntimeError: Create kernelmod for op {kernel} failed (graph: Unsupported op "
                       f"[{graph}] on CPU)"
       for name, kernel, graph in (
           ("rand", "InplaceUniform", "RandExt"), ("rand_like", "InplaceUniform", "RandLikeExt"),
           ("randint", "InplaceRandom", "RandInt"), ("randint_like", "InplaceRandom", "RandIntLike"),
           ("randn", "InplaceNormal", "Randn"), ("randn_like", "InplaceNormal", "RandnLike"))},
    "mint:kthvalue": "ValueError: should not come here for kthvalue py_method. (graph: Unsupported op "
                     "[Kthvalue] on CPU)",
    "mint:vdot": "RuntimeError: Not implement exception (graph: the same)",
}

_HELPERS = '''
mint = ms.mint


def out(t):
    return [str(t.dtype), list(t.shape), t]


def parts(t):
    """A complex tensor as (dtype name, real part, imaginary part), which encode as JSON."""
    a = t.asnumpy()
    return str(t.dtype), np.ascontiguousarray(a.real), np.ascontiguousarray(a.imag)


X = np.array([[0.5, -1.25, 2.0, 3.5], [-0.75, 1.5, -2.5, 0.25], [1.0, 0.0, -3.0, 2.25]], np.float32)
P = np.abs(X) + np.array([0.25, 0.5, 0.75, 1.0], np.float32)
I = (np.arange(12, dtype=np.int32).reshape(3, 4) - 5)
'''


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _HELPERS + body


_program("bitwise_and_floor_divide", '''
@ms.jit
def compiled(x, p, i, j):
    return (mint.bitwise_and(i, i + 3), mint.bitwise_and(i > 0, i < 3), mint.bitwise_and(i, ms.tensor(6)),
            mint.floor_divide(x, p), mint.floor_divide(-x, p * 0.5), mint.floor_divide(i, j))


def eager(x, p, i, j):
    return (mint.bitwise_and(i, i + 3), mint.bitwise_and(i > 0, i < 3), mint.bitwise_and(i, ms.tensor(6)),
            mint.floor_divide(x, p), mint.floor_divide(-x, p * 0.5), mint.floor_divide(i, j))


def loss(x, p):
    return (mint.floor_divide(x, p) * x).sum()


def main():
    args = (ms.tensor(X), ms.tensor(P), ms.tensor(I), ms.tensor(np.array([3, -2, 4, 5], np.int32)))
    grads = ms.grad(loss, (0, 1))(args[0], args[1])
    return ([out(t) for t in compiled(*args)], [out(t) for t in eager(*args)], [out(g) for g in grads])
''')

_program("empty_creation", '''
@ms.jit
def compiled(x, i):
    return (mint.empty((2, 3)), mint.empty(2, 3, dtype=ms.int32), mint.empty_like(x),
            mint.empty_like(i, dtype=ms.float16))


def main():
    x, i = ms.tensor(X), ms.tensor(I)
    eager = (mint.empty((2, 3)), mint.empty(2, 3, dtype=ms.int32), mint.empty_like(x),
             mint.empty_like(i, dtype=ms.float16), mint.empty((0, 2), dtype=ms.float64))
    return [[str(t.dtype), list(t.shape)] for t in compiled(x, i) + eager]
''')

_program("polar", '''
@ms.jit
def compiled(a, b):
    return mint.polar(a, b), mint.polar(a.astype(ms.float64), b.astype(ms.float64))


def loss(a, b):
    z = mint.polar(a, b)
    return ops.real(z).sum() + 2 * ops.imag(z).sum()


def main():
    a, b = ms.tensor(P), ms.tensor(X)
    eager = (mint.polar(a, b), mint.polar(a[0], b[1]))
    grads = ms.grad(loss, (0, 1))(a, b)
    return [parts(z) for z in compiled(a, b) + eager] + [out(g) for g in grads]
''')

_program("item", '''
@ms.jit
def compiled(x, i, flag):
    return mint.item(x[0, 2]) * 2, mint.item(i[1, 1]) + 1, mint.item(flag)


def main():
    x, i, flag = ms.tensor(X), ms.tensor(I), ms.tensor(True)
    eager = (mint.item(x[1, 3]), mint.item(i[2, 3]), mint.item(flag), mint.item(ms.tensor(np.array([2.5]))))
    return [[type(v).__name__, v] for v in compiled(x, i, flag) + eager]
''')

_program("pynative_only_forward", '''
def main():
    x, p, i = ms.tensor(X), ms.tensor(P), ms.tensor(I)
    xn = ms.tensor(np.where(X > 2, np.nan, X))
    diffs = (mint.diff(x, dim=1), mint.diff(i), mint.diff(x, 2, 0, x[:1], x[:1]), mint.diff(x > 0),
             mint.diff(x, 1, -1, None, x[:, :1]))
    fmods = (mint.fmod(x, 1.5), mint.fmod(x, -1.5), mint.fmod(x, p), mint.fmod(-x, p), mint.fmod(i, 3))
    nansums = (mint.nansum(xn), mint.nansum(xn, 1), mint.nansum(xn, (0, 1), dtype=ms.float64), mint.nansum(i),
               mint.nansum(x, 0), mint.nansum(ms.tensor(I.astype(np.int8))), mint.nansum(x > 0),
               mint.nansum(i, dtype=ms.float32))
    ts = (mint.t(x), mint.t(x[0]), mint.t(i))
    index = ms.tensor(np.array([0, 2], np.int32))
    adds = (mint.index_add(x * 1, 1, index, x[:, :2] * 1),
            mint.index_add(x * 1, 1, index, p[:, 1:3], alpha=2),
            mint.index_add(i * 1, 0, ms.tensor(np.array([2, 0], np.int32)), i[:2] * 1, alpha=3))
    return [out(t) for t in diffs + fmods + nansums + ts + adds]
''')

_program("eager_grads", '''
W = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0], [2.0, 1.0, -0.5]], np.float32)


def diff_loss(x):
    return (mint.diff(x, dim=1) * ms.tensor(W)).sum()


def fmod_loss(x):
    return mint.fmod(x, 1.5).sum()


def nansum_loss(x):
    return mint.nansum(x * 3)


def main():
    x = ms.tensor(X)
    return [out(ms.grad(f)(x)) for f in (diff_loss, fmod_loss, nansum_loss)]
''')

_program("pynative_grads", '''
def t_loss(x, w):
    return (mint.t(x) * w).sum()


def index_add_loss(x, source):
    index = ms.tensor(np.array([0, 2], np.int32))
    return (mint.index_add(x, 1, index, source, alpha=2) * ms.tensor(X)).sum()


def main():
    if ms.get_context("mode") != ms.PYNATIVE_MODE:  # MindSpore compiles neither TExt nor IndexAddExt on CPU
        return "graph mode: not run"
    x, p = ms.tensor(X), ms.tensor(P)
    return ([out(g) for g in ms.grad(t_loss, (0, 1))(x, p.T)]
            + [out(g) for g in ms.grad(index_add_loss, (0, 1))(x * 1, p[:, :2] * 1)])
''')


if __name__ == "__main__":  # re-record ms_mint_cover_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_mint_cover_expected.json"))
