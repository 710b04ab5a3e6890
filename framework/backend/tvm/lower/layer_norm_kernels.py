"""TE kernels of LayerNorm and LayerNormGrad on a row view of the input.

The lowering (:mod:`.lowerings.seq`) reshapes ``x`` to ``rows + (length,)``: ``rows`` the
axes before ``begin_norm_axis`` (``(1,)`` if none), ``length`` the product of the normalized
ones (reshapes are views; with the last axis normalized the view is ``x`` itself, so that
elementwise consumers of ``dx`` fuse into its kernel). ``gamma``/``beta`` come flat,
``(params,)``; their entry for element ``(*r, k)`` is :func:`param_index` (``params``
divides ``length`` or the reverse, as their shape is a suffix of ``x``'s). Statistics have
the shape ``rows``.

- :func:`layer_norm_rows`: one row kernel (:mod:`..schedule.row_fusion`): mean, biased variance (two
  passes over a row that stays in L1, like ``np.var``), then ``y``; ``1/sqrt(var + eps)``
  once per row. Outputs ``(y, mean, variance)``.
- :func:`layer_norm_input_grad`: ``dx = rstd (g - mean(g) - xhat mean(g xhat))`` with
  ``g = dy gamma``, ``xhat = (x - mean) rstd``: one row kernel.
- :func:`layer_norm_param_grads`: ``dgamma = sum(dy xhat)``, ``dbeta = sum(dy)`` over the
  axes before ``begin_params_axis``, on the view ``(lead, params)``: column sums.
"""

from __future__ import annotations

from tvm import te, tirx


def param_index(rows, r, k, length: int, params: int):
    """Index into the flat ``(params,)`` gamma of element ``(*r, k)`` of the row view."""
    if params == length:
        return k
    if params < length:  # gamma spans the trailing part of each row
        return tirx.indexmod(k, params)
    flat = r[0]
    for extent, index in zip(rows[1:], r[1:]):
        flat = flat * extent + index
    return tirx.indexmod(flat, params // length) * length + k  # gamma spans rows too


def _rstd(variance, eps: float, name: str):
    dtype = variance.dtype
    return te.compute(variance.shape, lambda *r: tirx.const(1.0, dtype) / te.sqrt(
        variance(*r) + tirx.const(eps, dtype)), name=name)


def _split(x):
    """(rows, length): the row extents as they are (one may be symbolic, a batch), the
    normalized length an int."""
    *rows, length = x.shape
    return tuple(rows), int(length)


def layer_norm_rows(x, gamma, beta, eps: float):
    """``(y, mean, variance)`` of the row view ``x`` (``rows + (length,)``)."""
    rows, length = _split(x)
    params, dtype = int(gamma.shape[0]), x.dtype
    scale = tirx.const(1.0 / length, dtype)
    k1, k2 = te.reduce_axis((0, length), "k1"), te.reduce_axis((0, length), "k2")
    total = te.compute(rows, lambda *r: te.sum(x(*r, k1), axis=k1), name="ln_sum")
    mean = te.compute(rows, lambda *r: total(*r) * scale, name="ln_mean")

    def square(*i):
        c = x(*i) - mean(*i[:-1])
        return c * c

    # the products as their own (inlined) blocks: a reduction reading one buffer is no
    # contraction for the CPU rules, and the PrimFunc stays a row kernel
    square = te.compute(x.shape, square, name="ln_square")
    squares = te.compute(rows, lambda *r: te.sum(square(*r, k2), axis=k2), name="ln_squares")
    variance = te.compute(rows, lambda *r: squares(*r) * scale, name="ln_var")
    rstd = _rstd(variance, eps, "ln_rstd")

    def out(*i):
        r, k = i[:-1], i[-1]
        p = param_index(rows, r, k, length, params)
        return (x(*i) - mean(*r)) * rstd(*r) * gamma[p] + beta[p]

    # the statistics' outputs are copies: an output block read by others cannot be
    # computed inside the row loop (row_fusion), a copy with no reader can
    return (te.compute(x.shape, out, name="ln_y"),
            te.compute(rows, lambda *r: mean(*r), name="ln_mean_out"),
            te.compute(rows, lambda *r: variance(*r), name="ln_var_out"))


def layer_norm_input_grad(dy, x, gamma, mean, variance, eps: float):
    """``dx`` of the row view (the statistics' own cotangents not included)."""
    rows, length = _split(x)
    params, dtype = int(gamma.shape[0]), x.dtype
    scale = tirx.const(1.0 / length, dtype)
    rstd = _rstd(variance, eps, "ln_rstd")

    def g(*i):
        return dy(*i) * gamma[param_index(rows, i[:-1], i[-1], length, params)]

    def xhat(*i):
        return (x(*i) - mean(*i[:-1])) * rstd(*i[:-1])

    k1, k2 = te.reduce_axis((0, length), "k1"), te.reduce_axis((0, length), "k2")
    g = te.compute(x.shape, g, name="ln_g")  # inlined; see layer_norm_rows
    gx = te.compute(x.shape, lambda *i: g(*i) * xhat(*i), name="ln_gx")
    sum_g = te.compute(rows, lambda *r: te.sum(g(*r, k1), axis=k1), name="ln_sum_g")
    sum_gx = te.compute(rows, lambda *r: te.sum(gx(*r, k2), axis=k2), name="ln_sum_gx")
    return te.compute(x.shape, lambda *i: rstd(*i[:-1]) * (
        g(*i) - sum_g(*i[:-1]) * scale - xhat(*i) * (sum_gx(*i[:-1]) * scale)), name="ln_dx")


def stat_index(a, p, length: int, params: int):
    """Row of the statistics holding element ``(a, p)`` of the view ``(lead, params)``."""
    if params == length:
        return a
    if params < length:
        return tirx.indexdiv(a, length // params)
    return a * (params // length) + tirx.indexdiv(p, length)


def layer_norm_param_grads(dy, x, mean, variance, eps: float, length: int):
    """``(dgamma, dbeta)`` ``(params,)`` of the view ``(lead, params)``; the statistics
    come flat, ``(rows,)``, ``length`` is their rows' length."""
    lead, params = x.shape[0], int(x.shape[1])  # lead may be symbolic (a batch)
    rstd = _rstd(variance, eps, "ln_rstd")  # (rows,)
    a1, a2 = te.reduce_axis((0, lead), "a1"), te.reduce_axis((0, lead), "a2")

    def dy_xhat(a, p):
        s = stat_index(a, p, length, params)
        return dy[a, p] * ((x[a, p] - mean[s]) * rstd[s])

    dgamma = te.compute((params,), lambda p: te.sum(dy_xhat(a1, p), axis=a1), name="ln_dgamma")
    dbeta = te.compute((params,), lambda p: te.sum(dy[a2, p], axis=a2), name="ln_dbeta")
    return dgamma, dbeta
