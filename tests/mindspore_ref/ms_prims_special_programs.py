"""Special-function and linear-algebra primitive classes (``P.Lgamma()``, ``P.BesselI0()``,
``P.Cholesky(upper)``, ``P.Svd()`` ...; ``framework/ops/operations/prim_special.py``) in both
modes, values, dtypes and gradients where MindSpore differentiates them (family programs,
:mod:`tests.mindspore_ref.families`). Decompositions whose signs or order LAPACK leaves free
(SVD vectors, eigenvectors) are compared through what they determine.
``ms_prims_special_expected.json`` holds MindSpore 2.10's answers on CPU.
"""

from __future__ import annotations

from pathlib import Path

from tests.mindspore_ref.families import family_source, used_arrays

_PRELUDE = '''
P = ms.ops.operations
X = np.array([[0.3, 1.2, 2.5], [1.9, 0.4, 2.2]], np.float32)
A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
LA = np.linalg.cholesky(A.astype(np.float64)).astype(np.float32)
R = np.array([[1.0], [2.0], [0.5]], np.float32)
N1 = np.array(1, np.int64)
TAU = np.array([1.2, 0.5], np.float32)
PIV = np.array([1, 2, 3], np.int32)
'''
_ARRAYS = ("X", "A", "LA", "R", "N1", "TAU", "PIV")
PROGRAMS: dict[str, str] = {}


def _family(name: str, forward: list[str], grads: list[tuple[str, list[str]]] | None = None) -> None:
    PROGRAMS[name] = family_source(_PRELUDE, used_arrays(_ARRAYS, forward), forward, grads)


_family("special", [
    "P.BesselI0()(x)", "P.BesselI0e()(x)", "P.BesselI1()(x)", "P.BesselI1e()(x)", "P.BesselJ0()(x)",
    "P.BesselJ1()(x)", "P.BesselK0()(x)", "P.BesselK0e()(x)", "P.BesselK1()(x)", "P.BesselK1e()(x)",
    "P.BesselY0()(x)", "P.BesselY1()(x)", "P.Digamma()(x)", "P.Lgamma()(x)", "P.Igamma()(x, x + 1.0)",
    "P.Igammac()(x, x + 1.0)", "P.Polygamma()(n1, x)", "P.Zeta()(x + 1.5, x + 0.5)",
    "P.Mvlgamma(2)(x + 1.5)", "P.Mvlgamma(p=3)(x + 2.0)",
], [("P.Lgamma()({})", ["X"]), ("P.Digamma()({})", ["X"]),
    ("P.BesselI0()({}) + P.BesselJ1()({})", ["X", "X"])])

_family("linalg", [
    "P.Cholesky()(a)", "P.Cholesky(upper=True)(a)", "P.CholeskyInverse()(la)", "P.CholeskySolve()(r, la)",
    "P.MatrixDeterminant()(a)", "P.LogMatrixDeterminant()(a)[0]", "P.LogMatrixDeterminant()(a)[1]",
    "P.MatrixSolve()(a, r)", "P.MatrixSolve(True)(a, r)", "P.Svd()(a)[0]",
    "ops.matmul(P.Svd()(a)[1] * P.Svd()(a)[0], P.Svd()(a)[2].T)", "P.Svd(True, False)(a)[0]",
    "ops.sort(P.Eig()(a)[0].real())[0]", "P.LuUnpack()(a, piv)[1]", "P.LuUnpack()(a, piv)[2]",
    "P.LuSolve()(r, a, piv)", "P.Orgqr()(a, tau)",
], [("P.MatrixDeterminant()({})", ["A"]), ("P.MatrixSolve()({}, {})", ["A", "R"]),
    ("P.CholeskySolve()({}, Tensor(LA))", ["R"])])


if __name__ == "__main__":  # re-record ms_prims_special_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_prims_special_expected.json"))
