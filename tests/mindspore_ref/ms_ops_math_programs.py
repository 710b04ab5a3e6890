"""Programs for MindSpore's math names added from the spec (special functions, integer and
bit math, linear algebra, FFTs, windows, random draws, scalar ops), one per family.

Each family program has a forward cell (the ``ops`` function and the Tensor method where
MindSpore has one) and, for the differentiable ops, a loss cell summing each op applied to
its own input, differentiated with ``ops.grad`` at every input. Both run as Cells, so graph
mode compiles them. ``ms_ops_math_expected.json`` holds MindSpore 2.10's answers on CPU;
``python -m tests.mindspore_ref.ms_ops_math_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
X = np.array([[0.3, 1.5, 4.0], [0.05, 2.5, 9.0]], np.float32)
NEG = np.array([[-0.7, -2.5, 0.6], [1.3, -4.2, 7.5]], np.float32)
U = np.array([[-0.9, -0.2, 0.0], [0.35, 0.7, 0.99]], np.float32)
A = np.array([[0.5, 1.5, 2.5], [3.0, 0.8, 6.0]], np.float32)
Z = np.array([[1.5, 2.0, 3.5], [4.0, 1.1, 6.5]], np.float32)
XH = np.array([[0.3, 1.5, 4.0], [0.05, 2.5, 9.0]], np.float16)
X64 = np.array([[0.3, 1.5, 4.0], [0.05, 2.5, 9.0]], np.float64)
I = np.array([[-7, -2, 0], [3, 5, 12]], np.int32)
'''

PROGRAMS: dict[str, str] = {}
_ARRAYS = ("X", "NEG", "U", "A", "Z", "XH", "X64", "I")


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None,
            extra: str = "") -> None:
    """A family program (:mod:`tests.mindspore_ref.families`) over the arrays above."""
    arrays = sorted(used_arrays(_ARRAYS, forward, r"[a-z0-9_]+"))
    PROGRAMS[name] = family_source(_PRELUDE, arrays, forward, grads, extra)


# -- special functions ----------------------------------------------------------------------
_family("gamma_family", [
    "ops.lgamma(neg)", "neg.lgamma()", "ops.lgamma(i)", "ops.lgamma(xh)",
    "ops.digamma(neg)", "neg.digamma()", "ops.digamma(x64)",
    "ops.polygamma(Tensor(np.array(1)), x)", "ops.polygamma(Tensor(np.array(3, np.int32)), neg)",
    "ops.mvlgamma(z, 2)", "z.mvlgamma(3)", "ops.erfinv(u)", "u.erfinv()",
    "ops.igamma(a, x)", "a.igamma(x)", "ops.igammac(a, x)", "a.igammac(x)",
    "ops.zeta(z, x)",
], [("ops.lgamma({})", ["NEG"]), ("ops.digamma({})", ["NEG"]),
    ("ops.polygamma(Tensor(np.array(1)), {})", ["X"]), ("ops.mvlgamma({}, 2)", ["Z"]),
    ("ops.erfinv({})", ["U"]), ("ops.igamma({}, {})", ["A", "X"]),
    ("ops.igammac({}, {})", ["A", "X"]), ("ops.zeta({}, {})", ["Z", "X"])])

_family("bessel", [
    "ops.i0(neg)", "neg.i0()", "ops.bessel_i0(neg)", "ops.bessel_i0e(neg)", "ops.bessel_i1(neg)",
    "ops.bessel_i1e(neg)", "ops.bessel_j0(neg)", "ops.bessel_j1(neg)", "ops.bessel_k0(neg)",
    "ops.bessel_k0e(neg)", "ops.bessel_k1(neg)", "ops.bessel_k1e(neg)", "ops.bessel_y0(neg)",
    "ops.bessel_y1(neg)", "ops.bessel_j0(xh)", "ops.bessel_k1(x64)",
], [(f"ops.{n}({{}})", ["NEG"]) for n in (
    "i0", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1")]
  + [(f"ops.{n}({{}})", ["X"]) for n in (
    "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1")])


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_ops_math_expected.json"))
