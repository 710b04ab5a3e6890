"""The Transformer layers of MindSpore 2.x (PyTorch's semantics), both modes.

- ``TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1,
  activation='relu', layer_norm_eps=1e-5, batch_first=False, norm_first=False,
  dtype=mstype.float32)``; ``construct(src, src_mask=None, src_key_padding_mask=None)``.
  Post-norm: ``x = norm1(x + sa(x)); x = norm2(x + ff(x))``; ``norm_first``:
  ``x = x + sa(norm1(x)); x = x + ff(norm2(x))``, where ``sa`` is self-attention
  (``self_attn``, a :class:`MultiheadAttention`) followed by ``dropout1`` and ``ff`` is
  ``dropout2(dense2(dropout(activation(dense1(x)))))``.
- ``TransformerDecoderLayer`` (same arguments); ``construct(tgt, memory, tgt_mask=None,
  memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None)``: self-attention
  (``self_attn``, ``norm1``, ``dropout1``), attention over ``memory`` (``multihead_attn``,
  ``norm2``, ``dropout2``), feed-forward (``norm3``, ``dropout3``).
- ``TransformerEncoder(encoder_layer, num_layers, norm=None)`` /
  ``TransformerDecoder(decoder_layer, num_layers, norm=None)``: ``num_layers`` deep copies
  of the layer (``layers.0`` ...; same initial values), then ``norm`` if given.
- ``Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
  dim_feedforward=2048, dropout=0.1, activation='relu', custom_encoder=None,
  custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
  dtype=mstype.float32)``; ``construct(src, tgt, src_mask=None, tgt_mask=None,
  memory_mask=None, src_key_padding_mask=None, tgt_key_padding_mask=None,
  memory_key_padding_mask=None)``; every parameter of rank > 1 is re-drawn Xavier-uniform.

``activation``: ``'relu'``, ``'gelu'`` (the exact, erf form), a Cell or a callable.
Masks are :class:`MultiheadAttention`'s (bool True = not attended, or additive floats);
the attention of these layers never returns weights (``need_weights=False``).
"""

from __future__ import annotations

import copy
from typing import Any

from .. import dtype as mstype
from .. import ops
from ..common.initializer import XavierUniform, initializer
from .attention import MultiheadAttention
from .cell import Cell, CellList
from .checks import positive_ints
from .layers import Dense, Dropout
from .normalization import LayerNorm


def _gelu(x):
    return ops.gelu(x, "none")


def _activation(who: str, activation: Any) -> Any:
    if isinstance(activation, str):
        table = {"relu": ops.relu, "gelu": _gelu}
        if activation.lower() not in table:
            raise ValueError(f"{who}: activation must be 'relu', 'gelu', a Cell or a callable, got "
                             f"{activation!r}")
        return table[activation.lower()]
    if isinstance(activation, Cell) or callable(activation):
        return activation
    raise ValueError(f"{who}: activation must be 'relu', 'gelu', a Cell or a callable, got "
                     f"{type(activation).__name__}")


class _Layer(Cell):
    """What the encoder and decoder layers share: sizes, feed-forward, norms, dropouts."""

    def __init__(self, who: str, d_model: int, nhead: int, dim_feedforward: int, dropout: float,
                 activation: Any, layer_norm_eps: float, batch_first: bool, norm_first: bool,
                 dtype: Any, cross: bool) -> None:
        super().__init__()
        positive_ints(who, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        self.batch_first, self.norm_first = bool(batch_first), bool(norm_first)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            dtype=dtype)
        if cross:  # the decoder's attention over the encoder's output
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                     batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        for i in range(1, 4 if cross else 3):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.activation = _activation(who, activation)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, key_padding_mask=key_padding_mask, need_weights=False,
                           attn_mask=attn_mask)[0]
        return self.dropout1(x)

    def _ff_block(self, x, last_dropout):
        return last_dropout(self.dense2(self.dropout(self.activation(self.dense1(x)))))


class TransformerEncoderLayer(_Layer):
    """Self-attention and feed-forward, each with a residual and a LayerNorm."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__("TransformerEncoderLayer", d_model, nhead, dim_feedforward, dropout,
                         activation, layer_norm_eps, batch_first, norm_first, dtype, cross=False)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_Layer):
    """Self-attention, attention over the encoder's output, feed-forward."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype: Any = mstype.float32) -> None:
        super().__init__("TransformerDecoderLayer", d_model, nhead, dim_feedforward, dropout,
                         activation, layer_norm_eps, batch_first, norm_first, dtype, cross=True)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, memory, memory, key_padding_mask=key_padding_mask,
                                need_weights=False, attn_mask=attn_mask)[0]
        return self.dropout2(x)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x


def _clones(who: str, layer: Any, kind: type, num_layers: int) -> CellList:
    if not isinstance(layer, kind):
        raise TypeError(f"{who}: expected a {kind.__name__}, got {type(layer).__name__}")
    positive_ints(who, num_layers=num_layers)
    fresh = []
    for _ in range(num_layers):
        clone = copy.deepcopy(layer)
        for _, cell in clone.cells_and_names():
            cell.__dict__.pop("_graph_runner", None)  # a copy compiles its own graph
        fresh.append(clone)
    return CellList(fresh)


class TransformerEncoder(Cell):
    """``num_layers`` copies of ``encoder_layer``, then ``norm`` (if given)."""

    def __init__(self, encoder_layer: Any, num_layers: int, norm: Any = None) -> None:
        super().__init__()
        self.layers = _clones("TransformerEncoder", encoder_layer, TransformerEncoderLayer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask, src_key_padding_mask)
        return x if self.norm is None else self.norm(x)


class TransformerDecoder(Cell):
    """``num_layers`` copies of ``decoder_layer``, then ``norm`` (if given)."""

    def __init__(self, decoder_layer: Any, num_layers: int, norm: Any = None) -> None:
        super().__init__()
        self.layers = _clones("TransformerDecoder", decoder_layer, TransformerDecoderLayer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask)
        return x if self.norm is None else self.norm(x)


class Transformer(Cell):
    """Encoder (``encoder``) and decoder (``decoder``), each ending with a LayerNorm."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Any = "relu", custom_encoder: Any = None, custom_decoder: Any = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 dtype: Any = mstype.float32) -> None:
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                norm_first, dtype)
        if custom_encoder is None:
            norm = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
            custom_encoder = TransformerEncoder(TransformerEncoderLayer(*args), num_encoder_layers, norm)
        if custom_decoder is None:
            norm = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
            custom_decoder = TransformerDecoder(TransformerDecoderLayer(*args), num_decoder_layers, norm)
        self.encoder, self.decoder = custom_encoder, custom_decoder
        self.d_model, self.nhead, self.batch_first = d_model, nhead, bool(batch_first)
        for param in self.trainable_params():
            if len(param.shape) > 1:
                param.set_data(initializer(XavierUniform(), param.shape, param.dtype))

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None):
        batch = 0 if self.batch_first else 1
        if len(src.shape) == 3 and len(tgt.shape) == 3 and src.shape[batch] != tgt.shape[batch]:
            raise ValueError(f"Transformer: src and tgt must have the same batch size, got shapes "
                             f"{tuple(src.shape)} and {tuple(tgt.shape)} (batch axis {batch})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: src and tgt must have d_model = {self.d_model} features, "
                             f"got shapes {tuple(src.shape)} and {tuple(tgt.shape)}")
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask)
