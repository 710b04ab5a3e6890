"""A character/token GPT (decoder-only Transformer) in the shape of nanoGPT's ``model.py``.

``GPT(vocab_size, block_size=64, n_layer=4, n_head=4, n_embd=128, dropout=0.0, bias=False)``
takes token ids ``(B, T)`` (int32, ``T <= block_size``) and returns logits ``(B, T, vocab)``.
Pre-norm blocks: ``x + attn(ln_1(x))`` then ``x + mlp(ln_2(x))``; causal self-attention
with one fused ``c_attn`` projection to q, k, v, heads as batched matmuls, the scale and the
causal mask added before one softmax; MLP ``Dense(C, 4C) -> GELU (exact) -> Dense(4C, C)``;
a final LayerNorm, and the head's weight tied to the token embedding (``lm_head`` is a
matmul with ``wte.embedding_table`` transposed: one Parameter, gradients from both uses).

Initialisation as nanoGPT: normal(0, 0.02) for every weight, ``c_proj`` weights scaled by
``1/sqrt(2 * n_layer)``, zero biases, LayerNorm gamma 1 / beta 0. ``bias=False`` drops the
Dense biases and the LayerNorms' betas, as nanoGPT's ``LayerNorm(ndim, bias=False)``: the
shift is then a constant zero, not a parameter.
Parameter names follow nanoGPT's module names (``transformer.h.0.attn.c_attn.weight`` ...)
so that ``bench/seq_engines.py`` and the tests can copy weights into PyTorch by name.
"""

from __future__ import annotations

import math

import numpy as np

from framework import Parameter, Tensor, nn, ops
from framework import float32 as ms_float32
from framework.common.initializer import Normal


class LayerNorm(nn.Cell):
    """nanoGPT's LayerNorm over the last axis (epsilon 1e-5): a ``gamma``, and a ``beta``
    parameter only when ``bias`` (else a constant zero shift)."""

    def __init__(self, n_embd: int, bias: bool) -> None:
        super().__init__()
        self.gamma = Parameter(Tensor(np.ones(n_embd, np.float32)), "gamma")
        zeros = Tensor(np.zeros(n_embd, np.float32))
        self.beta = Parameter(zeros, "beta") if bias else zeros
        self.layer_norm = ops.LayerNorm(-1, -1, 1e-5)

    def construct(self, x):
        return self.layer_norm(x, self.gamma, self.beta)[0]


class CausalSelfAttention(nn.Cell):
    def __init__(self, n_embd: int, n_head: int, block_size: int, n_layer: int,
                 dropout: float = 0.0, bias: bool = False) -> None:
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must be a multiple of n_head ({n_head})")
        self.n_head, self.n_embd, self.head_size = n_head, n_embd, n_embd // n_head
        self.c_attn = nn.Dense(n_embd, 3 * n_embd, weight_init=Normal(0.02), has_bias=bias)
        self.c_proj = nn.Dense(n_embd, n_embd, weight_init=Normal(0.02 / math.sqrt(2 * n_layer)),
                               has_bias=bias)
        self.attn_dropout = nn.Dropout(p=dropout)
        self.resid_dropout = nn.Dropout(p=dropout)
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.mix = ops.BatchMatMul()
        # additive causal mask: 0 on and below the diagonal, -inf above (a constant)
        upper = np.triu(np.ones((block_size, block_size), dtype=bool), 1)
        self.causal = Tensor(np.where(upper, -np.inf, 0.0).astype(np.float32))
        self.scale = 1.0 / math.sqrt(self.head_size)

    def construct(self, x):
        return self.attend(x)[0]

    def attend(self, x):
        """``(y, k, v)``: the attention's output and its keys and values ``(B, nh, T, hs)``."""
        b, t, c = x.shape
        qkv = self.c_attn(x)  # (B, T, 3C)
        q = qkv[:, :, :c].reshape(b, t, self.n_head, self.head_size).transpose(0, 2, 1, 3)
        k = qkv[:, :, c:2 * c].reshape(b, t, self.n_head, self.head_size).transpose(0, 2, 1, 3)
        v = qkv[:, :, 2 * c:].reshape(b, t, self.n_head, self.head_size).transpose(0, 2, 1, 3)
        att = self.scores(q, k) * self.scale + self.causal[:t, :t]  # (B, nh, T, T)
        att = self.attn_dropout(ops.softmax(att, axis=-1))
        y = self.mix(att, v).transpose(0, 2, 1, 3).reshape(b, t, c)
        return self.resid_dropout(self.c_proj(y)), k, v


    def decode(self, x, pos, k_cache, v_cache, causal):
        """One new position ``x`` ``(1, 1, C)`` at ``pos``: its key and value written into the
        caches ``(1, nh, T, hs)`` (a one-hot blend, static shapes), attention over the
        positions up to ``pos`` (``causal``: 0 there, -inf after). Returns ``(y, k, v)``."""
        b, t, c = x.shape
        qkv = self.c_attn(x)
        q = qkv[:, :, :c].reshape(b, t, self.n_head, self.head_size).transpose(0, 2, 1, 3)
        k = qkv[:, :, c:2 * c].reshape(b, t, self.n_head, self.head_size).transpose(0, 2, 1, 3)
        v = qkv[:, :, 2 * c:].reshape(b, t, self.n_head, self.head_size).transpose(0, 2, 1, 3)
        k_cache = k_cache * (1.0 - pos) + k * pos  # pos: (1, 1, T, 1) one-hot
        v_cache = v_cache * (1.0 - pos) + v * pos
        att = ops.softmax(self.scores(q, k_cache) * self.scale + causal, axis=-1)  # (1, nh, 1, T)
        y = self.mix(att, v_cache).transpose(0, 2, 1, 3).reshape(b, t, c)
        return self.c_proj(y), k_cache, v_cache


class MLP(nn.Cell):
    def __init__(self, n_embd: int, n_layer: int, dropout: float = 0.0, bias: bool = False) -> None:
        super().__init__()
        self.c_fc = nn.Dense(n_embd, 4 * n_embd, weight_init=Normal(0.02), has_bias=bias)
        self.gelu = nn.GELU(approximate=False)
        self.c_proj = nn.Dense(4 * n_embd, n_embd, weight_init=Normal(0.02 / math.sqrt(2 * n_layer)),
                               has_bias=bias)
        self.dropout = nn.Dropout(p=dropout)

    def construct(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Cell):
    def __init__(self, n_embd: int, n_head: int, block_size: int, n_layer: int,
                 dropout: float = 0.0, bias: bool = False) -> None:
        super().__init__()
        self.ln_1 = LayerNorm(n_embd, bias)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size, n_layer, dropout, bias)
        self.ln_2 = LayerNorm(n_embd, bias)
        self.mlp = MLP(n_embd, n_layer, dropout, bias)

    def construct(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Cell):
    """nanoGPT's ``transformer`` ModuleDict: wte, wpe, drop, h, ln_f."""

    def __init__(self, vocab_size: int, block_size: int, n_layer: int, n_head: int, n_embd: int,
                 dropout: float, bias: bool) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd, embedding_table=Normal(0.02))
        self.wpe = nn.Embedding(block_size, n_embd, embedding_table=Normal(0.02))
        self.drop = nn.Dropout(p=dropout)
        self.h = nn.CellList([Block(n_embd, n_head, block_size, n_layer, dropout, bias)
                              for _ in range(n_layer)])
        self.ln_f = LayerNorm(n_embd, bias)


class GPT(nn.Cell):
    def __init__(self, vocab_size: int, block_size: int = 64, n_layer: int = 4, n_head: int = 4,
                 n_embd: int = 128, dropout: float = 0.0, bias: bool = False) -> None:
        super().__init__()
        self.block_size, self.vocab_size, self.n_embd = block_size, vocab_size, n_embd
        self.context_limit = block_size  # generation: the positions it knows
        self.transformer = Transformer(vocab_size, block_size, n_layer, n_head, n_embd,
                                       dropout, bias)
        self.lm_head = ops.MatMul(transpose_b=True)  # weight tied to transformer.wte
        self.positions = Tensor(np.arange(block_size, dtype=np.int32))

    def construct(self, idx):
        b, t = idx.shape
        if t > self.block_size:
            raise ValueError(f"GPT: sequence of length {t} is longer than block_size "
                             f"{self.block_size}")
        tr = self.transformer
        x = tr.drop(tr.wte(idx) + tr.wpe(self.positions[:t]))
        for block in tr.h:
            x = block(x)
        x = tr.ln_f(x).reshape(b * t, self.n_embd)
        return self.lm_head(x, tr.wte.embedding_table).reshape(b, t, self.vocab_size)

    # -- generation with a key/value cache (trainer/tasks/sampling.py) ------------------------
    def init_state(self) -> tuple:
        """Empty caches of one sequence: keys and values ``(n_layer, 1, nh, T, hs)``."""
        attn = self.transformer.h[0].attn
        shape = (len(self.transformer.h), 1, attn.n_head, self.block_size, attn.head_size)
        zeros = np.zeros(shape, np.float32)
        return Tensor(zeros), Tensor(zeros.copy())

    def prefill(self, idx):
        """The logits ``(1, T, vocab)`` of a whole window ``(1, block_size)`` and its keys and
        values as caches (positions after the real tokens hold padding's, which ``decode``
        masks until it overwrites them)."""
        tr = self.transformer
        x = tr.wte(idx) + tr.wpe(self.positions)
        keys, values = [], []
        for block in tr.h:
            y, k, v = block.attn.attend(block.ln_1(x))
            x = x + y
            x = x + block.mlp(block.ln_2(x))
            keys.append(k)
            values.append(v)
        x = tr.ln_f(x).reshape(self.block_size, self.n_embd)
        logits = self.lm_head(x, tr.wte.embedding_table).reshape(1, self.block_size, self.vocab_size)
        return logits, ops.stack(keys), ops.stack(values)

    def decode(self, idx, pos, k_cache, v_cache):
        """The logits ``(1, vocab)`` after token ``idx`` ``(1, 1)`` at position ``pos`` (an
        int32 scalar below ``block_size``) and the updated caches: one position's work, the
        earlier ones read from the caches. Static shapes: graph mode compiles it once."""
        tr = self.transformer
        t = self.block_size
        hot = ops.cast(ops.equal(self.positions, pos), ms_float32)  # (T,)
        seen = ops.select(ops.less_equal(self.positions, pos), ops.zeros_like(hot),
                          ops.fill(ms_float32, (t,), -np.inf))
        onehot, causal = hot.reshape(1, 1, t, 1), seen.reshape(1, 1, 1, t)
        x = tr.wte(idx) + ops.matmul(hot.reshape(1, t), tr.wpe.embedding_table).reshape(1, 1, self.n_embd)
        keys, values = [], []
        for i, block in enumerate(tr.h):
            y, k, v = block.attn.decode(block.ln_1(x), onehot, k_cache[i], v_cache[i], causal)
            x = x + y
            x = x + block.mlp(block.ln_2(x))
            keys.append(k)
            values.append(v)
        x = tr.ln_f(x).reshape(1, self.n_embd)
        return self.lm_head(x, tr.wte.embedding_table), ops.stack(keys), ops.stack(values)

    def flops_per_step(self, batch: int, t: int) -> float:
        """Training FLOPs of one step as nanoGPT's ``estimate_mfu`` counts them: 6 per
        parameter per token (the tied head once) plus attention's 12 * L * H * Q * T."""
        n_params = sum(int(np.prod(p.shape)) for p in self.trainable_params())
        n_params -= self.block_size * self.n_embd  # wpe: a lookup, no matmul
        blocks = len(self.transformer.h)
        heads = self.transformer.h[0].attn.n_head
        return batch * t * (6 * n_params + 12 * blocks * heads * (self.n_embd // heads) * t)
