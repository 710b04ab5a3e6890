"""``nn.MultiheadAttention`` (MindSpore 2.x names, PyTorch's semantics), both modes.

``MultiheadAttention(embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
add_zero_attn=False, kdim=None, vdim=None, batch_first=False, dtype=mstype.float32)``;
``construct(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
average_attn_weights=True) -> (attn_output, attn_output_weights or None)``.

Parameters: ``in_proj_weight`` (3E, E) when ``kdim == vdim == embed_dim``, else
``q_proj_weight`` (E, E), ``k_proj_weight`` (E, kdim), ``v_proj_weight`` (E, vdim) (the
others are None); ``in_proj_bias`` (3E,) with ``has_bias``; ``bias_k``/``bias_v`` (1, 1, E)
with ``add_bias_kv``; ``out_proj`` a Dense(E, E) (``out_proj.weight``/``out_proj.bias``).
Init: Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/``bias_v``,
``out_proj.weight`` Dense's default.

Shapes: query (L, N, E) / key, value (S, N, kdim|vdim), or (N, L, E)... with
``batch_first``, or unbatched (L, E)/(S, kdim). Heads are BatchMatMuls over (N, H, L, D).

Masks (PyTorch's meaning): ``attn_mask`` (L, S) or (N*num_heads, L, S), ``key_padding_mask``
(N, S) (or (S,) unbatched); bool True = that key is NOT attended, a float mask is added to
the scaled scores. Both are turned into one additive mask (-inf where a bool is True).

A fully masked row (a query that may attend to no key) gives attention weights 0 and an
attention value 0 before ``out_proj``, i.e. ``out_proj.bias`` at that position, and no
gradient flows through it: no NaN reaches the output, the weights or any gradient. This
is PyTorch 2.13's ``need_weights=False`` (scaled-dot-product) result; its
``need_weights=True`` path gives NaN in that row, and NaN in every projection's gradient.
"""

from __future__ import annotations

from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import XavierNormal, XavierUniform, initializer
from ..errors import user_location, with_location
from ..ops import nn_ops
from ..parameter import Parameter
from .cell import Cell
from .checks import positive_ints, tensor_shape
from .layers import Dense, Dropout

NEG_INF = float("-inf")


def _error(kind: type, message: str) -> Exception:
    return kind(with_location(f"MultiheadAttention: {message}", user_location()))


def _linear(x, weight, bias):
    """``x @ weight.T + bias`` over the last axis of an (N, T, in) tensor."""
    n, t, width = x.shape
    out = nn_ops.matmul(ops.reshape(x, (n * t, width)), weight, transpose_b=True)
    if bias is not None:
        out = ops.bias_add(out, bias)
    return ops.reshape(out, (n, t, weight.shape[0]))


def _additive(name: str, mask, dtype):
    """A bool mask as 0 / -inf of ``dtype``; a float mask cast to ``dtype``."""
    if mask.dtype == mstype.bool_:
        out = ops.where(mask, NEG_INF, 0.0)
        return out if out.dtype == dtype else ops.cast(out, dtype)
    if not mask.dtype.is_floating:
        raise _error(TypeError, f"{name} must be a bool or float tensor, got {mask.dtype}")
    return mask if mask.dtype == dtype else ops.cast(mask, dtype)


def _pad_key_axis(mask):
    """One more key column (0: attended) on the last axis of an additive mask."""
    zeros = ops.zeros(tuple(mask.shape[:-1]) + (1,), mask.dtype)
    return ops.concat((mask, zeros), -1)


class MultiheadAttention(Cell):
    """Multi-head attention (see the module docstring)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, has_bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__()
        kdim = embed_dim if kdim is None else kdim
        vdim = embed_dim if vdim is None else vdim
        positive_ints("MultiheadAttention", embed_dim=embed_dim, num_heads=num_heads, kdim=kdim,
                      vdim=vdim)
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by "
                             f"num_heads ({num_heads})")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"MultiheadAttention: dropout must be in [0, 1), got {dropout}")
        self.embed_dim, self.kdim, self.vdim = embed_dim, kdim, vdim
        self.num_heads, self.head_dim = num_heads, embed_dim // num_heads
        self.dropout, self.batch_first = float(dropout), bool(batch_first)
        self.has_bias, self.add_zero_attn = bool(has_bias), bool(add_zero_attn)
        self._qkv_same_embed_dim = kdim == embed_dim and vdim == embed_dim
        e = embed_dim
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * e, e), dtype),
                                            "in_proj_weight")
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.in_proj_weight = None
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (e, e), dtype), "q_proj_weight")
            self.k_proj_weight = Parameter(initializer(XavierUniform(), (e, kdim), dtype), "k_proj_weight")
            self.v_proj_weight = Parameter(initializer(XavierUniform(), (e, vdim), dtype), "v_proj_weight")
        self.in_proj_bias = (Parameter(initializer("zeros", (3 * e,), dtype), "in_proj_bias")
                             if has_bias else None)
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, e), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, e), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.out_proj = Dense(e, e, bias_init="zeros", has_bias=has_bias, dtype=dtype)
        self.attn_dropout = Dropout(p=self.dropout)
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.mix = ops.BatchMatMul()
        self.scale = float(self.head_dim) ** -0.5

    # -- construct ---------------------------------------------------------------------------
    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):
        batched = self._check_inputs(query, key, value)
        q_in = self._batch_first(query, batched)
        k_in = self._batch_first(key, batched)
        v_in = self._batch_first(value, batched)
        n, tgt_len, src_len = q_in.shape[0], q_in.shape[1], k_in.shape[1]
        q, k, v = self._project(query, key, value, q_in, k_in, v_in)
        mask = self._mask(attn_mask, key_padding_mask, n, tgt_len, src_len, batched, q.dtype)
        if self.bias_k is not None:
            e = self.embed_dim
            k = ops.concat((k, ops.broadcast_to(self.bias_k, (n, 1, e))), 1)
            v = ops.concat((v, ops.broadcast_to(self.bias_v, (n, 1, e))), 1)
            mask = None if mask is None else _pad_key_axis(mask)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)  # (N, H, T, D)
        if self.add_zero_attn:
            zeros = ops.zeros((n, self.num_heads, 1, self.head_dim), k.dtype)
            k, v = ops.concat((k, zeros), 2), ops.concat((v, zeros), 2)
            mask = None if mask is None else _pad_key_axis(mask)
        weights = self._softmax(self.scores(q * self.scale, k), mask)  # (N, H, L, S)
        weights = self.attn_dropout(weights)
        out = ops.transpose(self.mix(weights, v), (0, 2, 1, 3))
        out = self.out_proj(ops.reshape(out, (n, tgt_len, self.embed_dim)))
        if not batched:
            out = ops.squeeze(out, 0)
        elif not self.batch_first:
            out = ops.transpose(out, (1, 0, 2))
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = ops.reduce_mean(weights, 1)
        return out, (weights if batched else ops.squeeze(weights, 0))

    # -- pieces ------------------------------------------------------------------------------
    def _batch_first(self, x, batched):
        if not batched:
            return ops.expand_dims(x, 0)
        return x if self.batch_first else ops.transpose(x, (1, 0, 2))

    def _check_inputs(self, query, key, value) -> bool:
        """Whether the inputs are batched; one clear error for any wrong shape."""
        shapes = [tensor_shape("MultiheadAttention", t) for t in (query, key, value)]
        rank = len(shapes[0])
        layout = "(N, T, E)" if self.batch_first else "(T, N, E)"
        dims = ("query", self.embed_dim), ("key", self.kdim), ("value", self.vdim)
        for (name, width), shape in zip(dims, shapes, strict=True):
            if rank not in (2, 3) or len(shape) != rank or shape[-1] != width:
                want = f"(T, {width}) unbatched or {layout} with E = {width}"
                raise _error(ValueError, f"{name} has shape {shape}, expected {want}")
        seq, batch = (1, 0) if self.batch_first and rank == 3 else (0, 1)
        if shapes[1][seq] != shapes[2][seq] or (
                rank == 3 and len({s[batch] for s in shapes}) != 1):
            raise _error(ValueError, "query, key and value must have the same batch size and key "
                         f"and value the same length, got shapes {shapes[0]}, {shapes[1]}, "
                         f"{shapes[2]} (layout {layout if rank == 3 else '(T, E)'})")
        return rank == 3

    def _project(self, query, key, value, q, k, v):
        e, bias = self.embed_dim, self.in_proj_bias
        b_q, b_k, b_v = (None, None, None) if bias is None else (bias[:e], bias[e:2 * e], bias[2 * e:])
        if self._qkv_same_embed_dim and query is key and key is value:  # self-attention: one matmul
            qkv = _linear(q, self.in_proj_weight, bias)
            return qkv[:, :, :e], qkv[:, :, e:2 * e], qkv[:, :, 2 * e:]
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            w_q, w_k, w_v = w[:e], w[e:2 * e], w[2 * e:]
        else:
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return _linear(q, w_q, b_q), _linear(k, w_k, b_k), _linear(v, w_v, b_v)

    def _heads(self, x):
        n, t, _ = x.shape
        return ops.transpose(ops.reshape(x, (n, t, self.num_heads, self.head_dim)), (0, 2, 1, 3))

    def _mask(self, attn_mask, key_padding_mask, n, tgt_len, src_len, batched, dtype):
        """One additive mask broadcasting against (N, H, L, S), or None."""
        h, mask = self.num_heads, None
        if attn_mask is not None:
            shape = tensor_shape("MultiheadAttention", attn_mask)
            heads = (n * h,) if batched else (h,)
            if shape not in ((tgt_len, src_len), heads + (tgt_len, src_len)):
                raise _error(ValueError, f"attn_mask has shape {shape}, expected (L, S) = "
                             f"{(tgt_len, src_len)} or {'(N*num_heads' if batched else '(num_heads'}"
                             f", L, S) = {heads + (tgt_len, src_len)}")
            mask = _additive("attn_mask", attn_mask, dtype)
            if len(shape) == 3:
                mask = ops.reshape(mask, (n, h, tgt_len, src_len))
        if key_padding_mask is not None:
            shape = tensor_shape("MultiheadAttention", key_padding_mask)
            want = (n, src_len) if batched else (src_len,)
            if shape != want:
                raise _error(ValueError, f"key_padding_mask has shape {shape}, expected "
                             f"{'(N, S)' if batched else '(S,)'} = {want}")
            pad = ops.reshape(_additive("key_padding_mask", key_padding_mask, dtype), (n, 1, 1, src_len))
            mask = pad if mask is None else mask + pad
        return mask

    def _softmax(self, scores, mask):
        """Softmax over keys of ``scores + mask``; rows with every key masked give 0."""
        if mask is None:
            return ops.softmax(scores, -1)
        # (.., L, 1); not reduce_max(mask) == -inf: graph mode's ReduceMax (TVM's max, which
        # starts from the dtype's lowest finite value) gives -3.4e38 for an all -inf row
        dead = ops.reduce_all(ops.equal(mask, NEG_INF), -1, True)
        safe = ops.select(dead, 0.0, scores + mask)
        return ops.select(dead, 0.0, ops.softmax(safe, -1))

    def extend_repr(self) -> str:
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, kdim={self.kdim}, "
                f"vdim={self.vdim}, batch_first={self.batch_first}")
