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
from tests.mindspore_ref.recorded import ERROR_KIND

_PRELUDE = '''
X = np.array([[0.3, 1.5, 4.0], [0.05, 2.5, 9.0]], np.float32)
NEG = np.array([[-0.7, -2.5, 0.6], [1.3, -4.2, 7.5]], np.float32)
U = np.array([[-0.9, -0.2, 0.0], [0.35, 0.7, 0.99]], np.float32)
A = np.array([[0.5, 1.5, 2.5], [3.0, 0.8, 6.0]], np.float32)
Z = np.array([[1.5, 2.0, 3.5], [4.0, 1.1, 6.5]], np.float32)
XH = np.array([[0.3, 1.5, 4.0], [0.05, 2.5, 9.0]], np.float16)
X64 = np.array([[0.3, 1.5, 4.0], [0.05, 2.5, 9.0]], np.float64)
I = np.array([[-7, -2, 0], [3, 5, 12]], np.int32)
IA = np.array([[-12, 18, 0], [7, 9, -4]], np.int32)
IB = np.array([8, -6, 5], np.int32)
IB64 = np.array([8, -6, 5], np.int64)
SH = np.array([1, 2, 3], np.int32)
I16 = np.array([0, 7, -1, 255, 1023], np.int16)
U8 = np.array([255, 16, 3], np.uint8)
F64A = np.array([1.0, 0.0, -2.0, 3.0], np.float64)
F64B = np.array([2.0, -1.0, -3.0, 3.0], np.float64)
Y = np.array([[2.0, -1.0, -3.0], [0.5, 4.0, -0.25]], np.float32)
H = np.array([1.0, 2.5, 2.5, 3.0, 4.0, -1.0, 6.0, 2.0], np.float32)
HI = np.array([1, 2, 2, 3, 7, 0], np.int32)
'''

PROGRAMS: dict[str, str] = {}
_ARRAYS = ("X", "NEG", "U", "A", "Z", "XH", "X64", "I", "IA", "IB", "IB64", "SH", "I16", "U8", "F64A",
           "F64B", "Y", "H", "HI")


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


# -- integer and bit math ---------------------------------------------------------------------
_family("integer_bits", [
    "ops.gcd(ia, ib)", "ia.gcd(ib)", "ops.lcm(ia, ib)", "ia.lcm(ib)", "ops.gcd(ia, ib64)",
    "ops.lcm(ib64, ia)", "ops.bitwise_left_shift(ia, sh)", "ia.bitwise_left_shift(sh)",
    "ops.bitwise_left_shift(ia, 2)", "ops.bitwise_right_shift(ia, sh)",
    "ia.bitwise_right_shift(sh)", "ops.bitwise_right_shift(u8, Tensor(np.array([1, 2, 3], np.uint8)))",
    "ops.population_count(ia)", "ops.population_count(i16)", "ops.population_count(u8)",
    "ops.nextafter(f64a, f64b)", "f64a.nextafter(f64b)", "ops.inv(y)", "y.inv()", "ops.inv(i)",
    "ops.histc(h, 4, 1.0, 4.0)", "h.histc(5)", "ops.histc(h, 3, 2.0, 2.0)", "ops.histc(hi, 3, 1, 3)",
    "ops.float_power_ext(y, x)",
], [("ops.inv({})", ["Y"]), ("ops.nextafter({}, {})", ["F64A", "F64B"])])

PROGRAMS["bincount_shifts"] = _PRELUDE + """
def main():
    c = Tensor(np.array([2, 0, 5, 2, 1], np.int32))
    w = Tensor(np.array([0.5, 1, 2, 3, 4], np.float32))
    return (ops.bincount(c), ops.bincount(c, w), ops.bincount(c, minlength=8), c.bincount(),
            ops.bincount(Tensor(np.array([-1, 2], np.int32))),
            ops.bincount(c.astype(ms.int64), Tensor(np.array([1, 1, 2, 3, 4], np.int32))),
            ops.bitwise_left_shift(Tensor(IA), Tensor(np.array([33, 40, -1], np.int32))),
            ops.bitwise_right_shift(Tensor(IA), Tensor(np.array([33, 40, -1], np.int32))),
            ops.bitwise_left_shift(3, Tensor(np.array([1, 2], np.int32))))
"""

# -- scalar ops: Python numbers (in graph mode, constants folded), 0-d Tensors in PyNative -----
_SCALAR_BINARY = ("add", "sub", "mul", "div", "floordiv", "mod", "pow", "eq", "ge", "gt", "le",
                  "lt", "max", "min")
PROGRAMS["scalar_ops"] = _PRELUDE + ERROR_KIND + f"""
_BINARY = {_SCALAR_BINARY!r}
class Scalars(nn.Cell):
    def construct(self, a, b):
        return (ops.scalar_add(a, b), ops.scalar_sub(a, b), ops.scalar_mul(a, b),
                ops.scalar_div(a, b), ops.scalar_floordiv(a, b), ops.scalar_mod(a, b),
                ops.scalar_pow(a, b), ops.scalar_eq(a, b), ops.scalar_ge(a, b), ops.scalar_gt(a, b),
                ops.scalar_le(a, b), ops.scalar_lt(a, b), ops.scalar_max(a, b), ops.scalar_min(a, b),
                ops.scalar_uadd(a), ops.scalar_usub(a), ops.augassign_add(a, b),
                ops.augassign_sub(a, b), ops.augassign_mul(a, b), ops.augassign_div(a, b),
                ops.augassign_floordiv(a, b), ops.augassign_mod(a, b))


def main():
    # float operands whose results float32 holds exactly: MindSpore's graph mode computes
    # Python floats in float32 (ours, as Python does, in float64)
    pairs = [(7, 2), (9, 0.5), (-7, 2), (-7.5, 2.0)]
    t7, t2 = Tensor(7), Tensor(2)
    f = Tensor(np.array([7.0, 3.0], np.float32))
    g = Tensor(np.array([2.0, -2.0], np.float32))
    k = Tensor(np.array([7, -3], np.int32))
    return ([Scalars()(a, b) for a, b in pairs],
            [ops.scalar_log(3), ops.scalar_log(2.5), ops.scalar_log(Tensor(2.5)),
             ops.scalar_add(True, 2), ops.scalar_min(True, 2), ops.scalar_max(7, 2.5),
             ops.scalar_div(True, 2)] + [getattr(ops, "scalar_" + n)(7, 2.5) for n in _BINARY],
            [ops.scalar_add(t7, t2), ops.scalar_div(t7, t2), ops.scalar_floordiv(t7, t2),
             ops.scalar_mod(t7, t2), ops.scalar_pow(t7, t2), ops.scalar_gt(t7, t2),
             ops.scalar_usub(Tensor(2.5))],
            [ops.augassign_add(f, g), ops.augassign_sub(f, g), ops.augassign_mul(f, g),
             ops.augassign_mod(f, g), ops.augassign_add([1, 2], [3])]
            + [getattr(ops, "augassign_" + n)(k, 2) for n in ("add", "sub", "mul", "div", "floordiv", "mod")],
            [kind(lambda: ops.scalar_div(1, 0)), kind(lambda: ops.scalar_mod(1, 0)),
             kind(lambda: ops.scalar_floordiv(1, 0)), kind(lambda: ops.scalar_log(0)),
             kind(lambda: ops.scalar_log(-1)), kind(lambda: ops.augassign_sub([1], [2]))])
"""

# -- windows -------------------------------------------------------------------------------------
PROGRAMS["windows"] = _PRELUDE + ERROR_KIND + """
class Windows(nn.Cell):
    def construct(self):
        return (ops.hamming_window(6), ops.hamming_window(5, False), ops.hann_window(6),
                ops.hann_window(5, False), ops.kaiser_window(6), ops.kaiser_window(5, False, 4.0),
                ops.hamming_window(6, True, 0.5, 0.5), ops.hann_window(4, dtype=ms.float32),
                ops.kaiser_window(4, dtype=ms.float32))


def main():
    five = Tensor(np.array(5, np.int32))
    return (Windows()(), ops.bartlett_window(five), ops.bartlett_window(five, False),
            ops.blackman_window(five), ops.blackman_window(Tensor(6), False),
            ops.bartlett_window(Tensor(4), dtype=ms.float64), ops.hann_window(1), ops.hann_window(0),
            ops.kaiser_window(1), ops.hamming_window(4, dtype=ms.float64),
            [kind(lambda: ops.hann_window(-1)), kind(lambda: ops.hann_window(4.0)),
             kind(lambda: ops.hann_window(4, dtype=ms.int32)), kind(lambda: ops.bartlett_window(5)),
             kind(lambda: ops.kaiser_window(-2))])
"""

# -- FFTs: complex results as (real, imag); graph mode runs them interpreted (no complex types
# in the compiled code) -----------------------------------------------------------------------
_FFT_PRELUDE = _PRELUDE + """
S = (np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.3).astype(np.float32)
W = np.array([[0.5, -1.0, 2.0, 0.25, 1.5], [1.0, 0.0, -0.5, 3.0, 2.0]], np.float32)


def parts(t):
    return ops.real(t), ops.imag(t)


def cplx(a):
    return ops.Complex()(a, a * 0.5 - 1.0)
"""

PROGRAMS["fft_forward"] = _FFT_PRELUDE + """
class Forward(nn.Cell):
    def construct(self, s, w):
        c = cplx(s)
        return (parts(ops.fft(s)), parts(ops.fft(s, 6, 0, "ortho")), parts(ops.ifft(s)),
                parts(ops.ifft(w, 3, -1, "forward")), parts(ops.fft(c)), parts(ops.ifft(c, 5)),
                parts(ops.rfft(s)), parts(ops.rfft(w, 4, 0)), parts(ops.ihfft(s)),
                parts(ops.ihfft(w, 7, -1, "ortho")), ops.irfft(c), ops.irfft(c, 5, 0, "forward"),
                ops.hfft(c), ops.hfft(c, 7, -1, "ortho"), ops.irfft(s),
                parts(ops.fft2(s)), parts(ops.ifft2(s, (2, 6))), parts(ops.rfft2(w)),
                parts(ops.ihfft2(w, (3, 4))), ops.irfft2(c), ops.hfft2(c, (2, 6)),
                parts(ops.fftn(w)), parts(ops.ifftn(c, (4,))), parts(ops.rfftn(s, dim=(0,))),
                parts(ops.ihfftn(w)), ops.irfftn(c, (3, 5)), ops.hfftn(c, dim=(0, 1), norm="forward"),
                ops.fftshift(s), ops.fftshift(w, 1), ops.ifftshift(w), ops.ifftshift(s, (0, 1)))


def main():
    return (Forward()(Tensor(S), Tensor(W)), parts(ops.fft(Tensor(S.astype(np.float64)))),
            parts(ops.rfft(Tensor(np.array([[1, 2, 3, 4]], np.int32)))),
            ops.fftfreq(5), ops.fftfreq(6, 0.5), ops.fftfreq(4, dtype=ms.float64), ops.rfftfreq(5),
            ops.rfftfreq(6, 0.5), ops.fftshift(Tensor(np.arange(7, dtype=np.int32))))
"""

PROGRAMS["fft_gradients"] = _FFT_PRELUDE + """
G = Tensor(np.linspace(-1.0, 2.0, 30).astype(np.float32).reshape(5, 6))


def against(y):
    # a real loss weighting every real and imaginary part differently
    if y.dtype in (ms.complex64, ms.complex128):
        re, im = parts(y)
        return (re * G[:re.shape[0], :re.shape[1]]).sum() + (im * G[:im.shape[0], :im.shape[1]] * im).sum()
    return (y * y * G[:y.shape[0], :y.shape[1]]).sum()


class Loss(nn.Cell):
    def construct(self, s, w, a, b):
        c = ops.Complex()(a, b)
        return (against(ops.fft(s)) + against(ops.ifft(w, 6, -1, "ortho")) + against(ops.rfft(s))
                + against(ops.rfft(w, 3, 0, "forward")) + against(ops.irfft(c))
                + against(ops.irfft(c, 5, -1, "ortho")) + against(ops.fft2(s, (2, 5)))
                + against(ops.rfftn(w)) + against(ops.irfft2(c)) + against(ops.ifftn(c))
                + against(ops.fftshift(s)) + against(ops.ifftshift(w, 1)))


def main():
    a = Tensor(S[:, :3] - 2.0)
    b = Tensor(S[:, 1:] * 0.3)
    return ops.grad(Loss(), grad_position=(0, 1, 2, 3))(Tensor(S), Tensor(W), a, b)
"""

# -- linear algebra -----------------------------------------------------------------------------
# singular vectors and eigenvectors are determined up to sign/phase and order, which MindSpore's
# CPU kernels choose differently from LAPACK's: the programs compare what they determine
_LINALG_PRELUDE = _PRELUDE + """
N = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0], [0.7, -1.5, 1.0]], np.float32)
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, -0.2], [0.5, -0.2, 2.0]], np.float32)
B = np.array([[1.0, 2.0], [0.0, -1.0], [3.0, 1.0]], np.float32)
R = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0], [-1.0, 0.5]], np.float32)
BA = np.stack([N, SPD, -N])
RN = np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan], [np.nan, 7.0, 1.0], [-1.0, 0.5, np.nan]], np.float32)
MED = np.array([[3.0, 1.0, 2.0, 2.0, -5.0], [0.5, 0.5, -1.0, 4.0, 9.0]], np.float32)
LU = np.array([[4.0, 1.0, -2.0], [0.5, 3.0, 1.0], [-0.25, 0.4, 2.5]], np.float32)
PIV = np.array([2, 3, 3], np.int32)
"""

PROGRAMS["linalg_forward"] = _LINALG_PRELUDE + """
class Forward(nn.Cell):
    def construct(self, n, spd, b, r, ba, rn, med):
        low = ops.cholesky(spd)
        s, u, v = ops.svd(r)
        s_full, u_full, v_full = ops.svd(r, True)
        inf = float("inf")
        return (ops.inverse(n), ops.inverse(ba), n.inverse(), ops.det(ba), ba.det(), ops.logdet(ba),
                ops.slogdet(ba), low, ops.cholesky(spd, True), spd.cholesky(),
                ops.cholesky_inverse(low), ops.cholesky_inverse(ops.transpose(low, (1, 0)), True),
                low.cholesky_inverse(), ops.cholesky_solve(b, low), b.cholesky_solve(low),
                ops.matrix_solve(n, b), ops.matrix_solve(n, b, True), ops.pinv(r),
                ops.pinv(spd, hermitian=True), ops.qr(r), ops.qr(r, "complete"), r.qr(),
                s, ops.abs(u), ops.abs(v), ops.matmul(u * s, ops.transpose(v, (1, 0))), s_full,
                ops.abs(u_full[:, :2]), ops.matmul(u_full[:, 2:], ops.transpose(u_full[:, 2:], (1, 0))),
                ops.abs(v_full), ops.svd(r, compute_uv=False), ops.geqrf(r),
                r.geqrf(), ops.adjoint(r), r.adjoint(), ops.matrix_norm(r), ops.matrix_norm(r, 1),
                ops.matrix_norm(r, "nuc"), ops.matrix_norm(r, 2), ops.matrix_norm(r, -2),
                ops.matrix_norm(r, inf, keepdims=True), ops.matrix_norm(ba, -inf),
                ops.matrix_norm(ba, -1, (0, 2)), ops.matrix_norm(ba, "fro", (2, 1), True),
                ops.cov(ops.transpose(r, (1, 0))), ops.cov(ops.transpose(r, (1, 0)), correction=0),
                ops.cov(ops.transpose(r, (1, 0)), fweights=Tensor(np.array([1, 2, 1, 3], np.int32)),
                        aweights=Tensor(np.array([0.5, 1.0, 2.0, 1.0], np.float32))),
                ops.cov(r[:, 0]), ops.renorm(r, 2, 0, 3.0), ops.renorm(r, 1, 1, 5.0), r.renorm(3, 0, 2.5),
                ops.vander(r[:, 0]), ops.vander(r[:, 1], 4), ops.median(med), ops.median(med, 0, True),
                med.median(1), ops.median(ops.cast(med, ms.int32)), ops.nanmedian(rn, 0),
                rn.nanmedian(1, True), ops.lstsq(r, ops.ones((4, 2), ms.float32)))


def main():
    h, tau = ops.geqrf(Tensor(R))
    lu_data, piv = Tensor(LU), Tensor(PIV)
    ws, vs = ops.eig(Tensor(N))
    w = ws.asnumpy()
    order = np.lexsort((np.round(w.imag, 4), np.round(w.real, 4)))  # float32 ties: MindSpore's
    w2 = ops.eigvals(Tensor(N)).asnumpy()                               # roundings differ
    order2 = np.lexsort((np.round(w2.imag, 4), np.round(w2.real, 4)))
    return (Forward()(Tensor(N), Tensor(SPD), Tensor(B), Tensor(R), Tensor(BA), Tensor(RN), Tensor(MED)),
            ops.orgqr(h, tau), h.orgqr(tau), ops.lu_unpack(lu_data, piv),
            ops.lu_solve(Tensor(B), lu_data, piv),
            Tensor(B).lu_solve(lu_data, piv), w.real[order], w.imag[order], np.abs(vs.asnumpy())[:, order],
            str(ws.dtype), np.sort_complex(ops.eigvals(Tensor(SPD)).asnumpy()).real,
            w2.real[order2], w2.imag[order2],
            ops.vander(Tensor(np.array([1, 2, 3], np.int32)), 4))
"""

PROGRAMS["linalg_gradients"] = _LINALG_PRELUDE + """
WU = Tensor(np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 1.5], [2.0, 0.25]], np.float32))
WV = Tensor(np.array([[0.3, -1.0], [2.0, 0.7]], np.float32))


class Loss(nn.Cell):
    def construct(self, n, ba, spd, low, b, r, r2, med, rn):
        s, u, v = ops.svd(r2)
        return ((ops.inverse(n) * n).sum() + ops.det(ba).sum() + ops.slogdet(ba)[1].sum()
                + ops.logdet(spd) + (ops.cholesky_inverse(ops.transpose(low, (1, 0)), True) * spd).sum()
                + (ops.cholesky_solve(b, low) ** 2).sum() + (ops.matrix_solve(n, b) * b).sum()
                + (ops.matrix_solve(n, b, True) ** 2).sum() + (ops.pinv(r) ** 2).sum()
                + (s * s).sum() + (WU * u * u).sum() + (WV * v * v).sum()
                + ops.svd(r, compute_uv=False).sum() + ops.matrix_norm(r) + ops.matrix_norm(r, 1)
                + ops.matrix_norm(r, "nuc") + ops.matrix_norm(r, 2) + ops.cov(ops.transpose(r, (1, 0))).sum()
                + (ops.renorm(r, 2, 0, 3.0) ** 2).sum() + ops.vander(r[:, 1], 3).sum()
                + (ops.median(med, 1)[0] * Tensor(np.array([2.0, -1.0], np.float32))).sum()
                + ops.nanmedian(rn, 0)[0].sum())


class Unpacked(nn.Cell):
    def construct(self, lu, piv):
        p, low, up = ops.lu_unpack(lu, piv)
        return (low * Tensor(np.arange(9, dtype=np.float32).reshape(3, 3))).sum() + (up * up).sum() + p.sum()


def main():
    low = ops.cholesky(Tensor(SPD))
    return ops.grad(Unpacked())(Tensor(LU), Tensor(PIV)), ops.grad(Loss(), grad_position=tuple(range(9)))(
        Tensor(N), Tensor(BA), Tensor(SPD), low, Tensor(B), Tensor(R), Tensor(R * 1.3 - 0.5), Tensor(MED),
        Tensor(RN))
"""

# -- random draws: MindSpore's numbers cannot be matched; what they determine can (shapes,
# dtypes, supports, permutations, the degenerate distributions) -------------------------------
PROGRAMS["random_draws"] = _PRELUDE + """
P2 = np.array([[0.5, -1.0, 2.0], [1.0, -3.0, 0.1]], np.float32)


def blank(t):
    return t * 0  # its shape and dtype


class Draws(nn.Cell):
    def construct(self, x, pos, neg):
        lo = Tensor(np.array([1.0, -2.0], np.float32))
        hi = Tensor(np.array([[3.0], [5.0]], np.float32))
        u = ops.uniform((2, 2), lo, hi)
        k = ops.uniform((3, 4), Tensor(2, ms.int32), Tensor(6, ms.int32), dtype=ms.int32)
        r = ops.rand(2, 3)
        r64 = ops.rand((4,), dtype=ms.float64)
        perm = ops.randperm(6)
        shuffled = ops.shuffle(x)
        logits = Tensor(np.array([[0.0, -1e9, -1e9], [-1e9, -1e9, 0.0]], np.float32))
        cat = ops.random_categorical(logits, 5)
        soft = ops.gumbel_softmax(x, 0.7)
        hard = ops.gumbel_softmax(x, 1.0, True, 0)
        slope = ops.rrelu(neg, 0.2, 0.4) / neg
        weights = Tensor(np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0]], np.float32))
        means = Tensor(np.array([[0.0], [10.0]], np.float32))
        return (blank(ops.standard_normal((2, 3))), blank(ops.normal((3,), means, Tensor(1.0))),
                blank(ops.normal((2, 2), Tensor(1.0), Tensor(0.5))), blank(u), (u >= lo).all(),
                (u < hi).all(),
                blank(k), (k >= 2).all(), (k < 6).all(), blank(r), ops.logical_and(r >= 0, r < 1).all(),
                blank(r64),
                blank(ops.randn(2, 3)), blank(ops.randn((3,), dtype=ms.float64)), blank(ops.randn_like(x)),
                blank(ops.randn_like(x, dtype=ms.float64)), ops.sort(perm.astype(ms.float32))[0],
                perm.dtype == ms.int64, ops.randperm(Tensor(4), dtype=ms.int32).shape,
                blank(ops.laplace((2, 3), Tensor(1.0), Tensor(2.0))), blank(ops.standard_laplace((4,))),
                ops.bernoulli(x, 0.0), ops.bernoulli(x, 1.0), blank(ops.bernoulli(x)),
                ops.bernoulli(x, Tensor(np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]], np.float32))),
                ops.sort(shuffled.reshape(-1))[0], cat,
                ops.multinomial_with_replacement(weights, 0, 0, 4, True),
                blank(soft), ops.isclose(soft.sum(-1), ops.ones((2,), ms.float32)).all(), blank(hard),
                ops.logical_or(hard == 0, hard == 1).all(), hard.sum(0),
                ops.rrelu(pos), blank(slope), (slope >= 0.2).all(), (slope <= 0.4).all())


def main():
    return Draws()(Tensor(P2), Tensor(np.abs(P2)), Tensor(-np.abs(P2) - 0.5))
"""

# -- bad input: the kind of error each engine raises ----------------------------------------------
PROGRAMS["bad_inputs"] = _PRELUDE + ERROR_KIND + """
def main():
    f = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    i = Tensor(np.array([[1, 2], [3, 4]], np.int32))
    c = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    return [kind(lambda: ops.lgamma(f[0]) + ops.bessel_j0(i)), kind(lambda: ops.digamma(i)),
            kind(lambda: ops.polygamma(Tensor(np.array([1, 2])), f)), kind(lambda: ops.igamma(f, i)),
            kind(lambda: ops.gcd(f, f)), kind(lambda: ops.lcm(i, f)), kind(lambda: ops.nextafter(i, i)),
            kind(lambda: ops.bitwise_left_shift(f, f)), kind(lambda: ops.population_count(f)),
            kind(lambda: ops.histc(c, 3, 3.0, 2.0)), kind(lambda: ops.inverse(i)),
            kind(lambda: ops.det(c)), kind(lambda: ops.matrix_solve(f, c)),
            kind(lambda: ops.qr(f, "r")), kind(lambda: ops.fft(c, norm="bad")),
            kind(lambda: ops.fft2(c)), kind(lambda: ops.fftfreq(0)),
            kind(lambda: ops.hann_window(3, dtype=ms.int32)), kind(lambda: ops.randn(2, dtype=ms.int32)),
            kind(lambda: ops.uniform((2,), 0.0, 1.0)), kind(lambda: ops.laplace((2,), 0.0, 1.0)),
            kind(lambda: ops.bernoulli(f, Tensor(np.array([0.5, 0.5, 0.5], np.float32))))]
"""


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_ops_math_expected.json"))
