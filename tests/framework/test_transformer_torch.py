"""nn.MultiheadAttention and the Transformer layers against PyTorch 2.13, both modes.

Each case builds our cell (fixed seed), copies its parameters into PyTorch's twin (run by
``torch_transformer.py`` in one subprocess with ``PYTHONPATH=$TORCH_PATH``; skipped without
it), and compares the outputs, the attention weights (when returned) and the gradients of
every parameter and every input of ``sum(out * dout) [+ sum(weights * dw)]``, in PyNative
and in graph mode (the forward and backward compiled as one function). Masks are inputs of
the compiled function. Dropout is 0. Sizes are small: E = 16, 2-4 heads, L, S <= 7.

A fully masked attention row: ours gives weights 0 and ``out_proj.bias`` at that position,
with finite gradients; PyTorch's ``need_weights=False`` path gives the same (its
``need_weights=True`` path gives NaN), so that case compares with it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops
from tests.torch_ref import needs_torch, reference

SCRIPT = Path(__file__).with_name("torch_transformer.py")
E, N = 16, 3
NEG = -np.inf


def _causal(length, dtype=bool):
    upper = np.triu(np.ones((length, length), bool), 1)
    return upper if dtype is bool else np.where(upper, NEG, 0.0).astype(np.float32)


def _padding(rng, n, s):
    """(n, s) bool, True at a random tail of each row (never the whole row)."""
    keep = rng.integers(1, s + 1, n)
    return np.arange(s)[None, :] >= keep[:, None]


def _float_mask(rng, shape, holes=0.2):
    mask = rng.uniform(-1, 1, shape).astype(np.float32)
    mask[rng.uniform(size=shape) < holes] = NEG
    mask[..., 0] = 0.0  # every row attends somewhere
    return mask


def _seq(rng, length, width, batch_first, n=N):
    shape = (n, length, width) if batch_first else (length, n, width)
    return rng.standard_normal(shape).astype(np.float32)


def _cases():
    """name -> (spec, arrays, ours): spec goes to PyTorch; ours = (cfg overrides, our
    keyword -> array name, our flags, compare weights)."""
    r = np.random.default_rng(7)
    c = {}
    # -- MultiheadAttention ----------------------------------------------------------------
    c["mha_self_causal_bool"] = (
        {"kind": "mha", "cfg": {"embed_dim": E, "num_heads": 4}, "args": ["x", "x", "x"],
         "kwargs": {"attn_mask": "m"}, "flags": {}},
        {"x": _seq(r, 5, E, False), "m": _causal(5)}, ({}, {"attn_mask": "m"}, {}, True))
    c["mha_cross_float3d_batch_first_per_head"] = (
        {"kind": "mha", "cfg": {"embed_dim": E, "num_heads": 2, "batch_first": True},
         "args": ["q", "k", "v"], "kwargs": {"attn_mask": "m", "key_padding_mask": "p"},
         "flags": {"average_attn_weights": False}},
        {"q": _seq(r, 4, E, True), "k": _seq(r, 6, E, True), "v": _seq(r, 6, E, True),
         "m": _float_mask(r, (N * 2, 4, 6)),
         "p": np.where(_padding(r, N, 6), NEG, 0.0).astype(np.float32)},
        ({}, {"attn_mask": "m", "key_padding_mask": "p"}, {"average_attn_weights": False}, True))
    c["mha_kdim_vdim_no_bias_padding_no_weights"] = (
        {"kind": "mha", "cfg": {"embed_dim": E, "num_heads": 4, "kdim": 12, "vdim": 10,
                                "has_bias": False},
         "args": ["q", "k", "v"], "kwargs": {"key_padding_mask": "p"}, "flags": {"need_weights": False}},
        {"q": _seq(r, 5, E, False), "k": _seq(r, 7, 12, False), "v": _seq(r, 7, 10, False),
         "p": _padding(r, N, 7)}, ({}, {"key_padding_mask": "p"}, {"need_weights": False}, False))
    c["mha_bias_kv_zero_attn_masks"] = (
        {"kind": "mha", "cfg": {"embed_dim": E, "num_heads": 2, "add_bias_kv": True,
                                "add_zero_attn": True},
         "args": ["q", "k", "v"], "kwargs": {"attn_mask": "m", "key_padding_mask": "p"}, "flags": {}},
        {"q": _seq(r, 4, E, False), "k": _seq(r, 5, E, False), "v": _seq(r, 5, E, False),
         "m": r.uniform(size=(4, 5)) < 0.3, "p": _padding(r, N, 5)},
        ({}, {"attn_mask": "m", "key_padding_mask": "p"}, {}, True))
    c["mha_unbatched_3d_bool"] = (
        {"kind": "mha", "cfg": {"embed_dim": E, "num_heads": 2}, "args": ["q", "k", "v"],
         "kwargs": {"attn_mask": "m", "key_padding_mask": "p"}, "flags": {}},
        {"q": r.standard_normal((4, E)).astype(np.float32),
         "k": r.standard_normal((6, E)).astype(np.float32),
         "v": r.standard_normal((6, E)).astype(np.float32),
         "m": np.concatenate([r.uniform(size=(2, 4, 5)) < 0.4, np.zeros((2, 4, 1), bool)], -1),
         "p": np.array([False, False, False, False, False, True])},
        ({}, {"attn_mask": "m", "key_padding_mask": "p"}, {}, True))
    dead = np.zeros((5, 5), bool)
    dead[2] = True  # query 2 may attend to nothing
    c["mha_fully_masked_row"] = (
        {"kind": "mha", "cfg": {"embed_dim": E, "num_heads": 4, "batch_first": True},
         "args": ["x", "x", "x"], "kwargs": {"attn_mask": "m", "key_padding_mask": "p"},
         "flags": {"need_weights": False}},
        {"x": _seq(r, 5, E, True), "m": dead, "p": _padding(r, N, 5)},
        ({}, {"attn_mask": "m", "key_padding_mask": "p"}, {"need_weights": True}, False))
    # -- layers ----------------------------------------------------------------------------
    layer = {"d_model": E, "nhead": 4, "dim_feedforward": 24, "dropout": 0.0}
    c["encoder_layer_post_relu_seq_first"] = (
        {"kind": "encoder_layer", "cfg": layer, "args": ["src"],
         "kwargs": {"src_mask": "m", "src_key_padding_mask": "p"}, "flags": {}},
        {"src": _seq(r, 6, E, False), "m": _causal(6, float), "p": _padding(r, N, 6)},
        ({}, {"src_mask": "m", "src_key_padding_mask": "p"}, {}, False))
    c["encoder_layer_norm_first_gelu_batch_first"] = (
        {"kind": "encoder_layer", "cfg": {**layer, "nhead": 2, "activation": "gelu",
                                          "batch_first": True, "norm_first": True},
         "args": ["src"], "kwargs": {"src_mask": "m"}, "flags": {}},
        {"src": _seq(r, 5, E, True), "m": np.concatenate(
            [r.uniform(size=(N * 2, 5, 4)) < 0.5, np.zeros((N * 2, 5, 1), bool)], -1)},
        ({}, {"src_mask": "m"}, {}, False))
    c["decoder_layer_post_batch_first_all_masks"] = (
        {"kind": "decoder_layer", "cfg": {**layer, "batch_first": True}, "args": ["tgt", "mem"],
         "kwargs": {"tgt_mask": "tm", "memory_mask": "mm", "tgt_key_padding_mask": "tp",
                    "memory_key_padding_mask": "mp"}, "flags": {}},
        {"tgt": _seq(r, 5, E, True), "mem": _seq(r, 7, E, True), "tm": _causal(5),
         "mm": r.uniform(size=(5, 7)) < 0.3, "tp": _padding(r, N, 5), "mp": _padding(r, N, 7)},
        ({}, {"tgt_mask": "tm", "memory_mask": "mm", "tgt_key_padding_mask": "tp",
              "memory_key_padding_mask": "mp"}, {}, False))
    c["decoder_layer_norm_first_gelu_cell"] = (
        {"kind": "decoder_layer", "cfg": {**layer, "activation": "gelu", "norm_first": True},
         "args": ["tgt", "mem"], "kwargs": {"tgt_mask": "tm"}, "flags": {}},
        {"tgt": _seq(r, 4, E, False), "mem": _seq(r, 6, E, False), "tm": _causal(4, float)},
        ({"activation": nn.GELU(approximate=False)}, {"tgt_mask": "tm"}, {}, False))
    stack = {"layers": 2, "norm": True}
    c["encoder_two_layers_norm"] = (
        {"kind": "encoder", "cfg": layer, **stack, "args": ["src"],
         "kwargs": {"mask": "m", "src_key_padding_mask": "p"}, "flags": {}},
        {"src": _seq(r, 6, E, False), "m": _causal(6), "p": _padding(r, N, 6)},
        ({}, {"src_mask": "m", "src_key_padding_mask": "p"}, {}, False))
    c["decoder_two_layers_no_norm_relu_callable"] = (
        {"kind": "decoder", "cfg": {**layer, "batch_first": True}, "layers": 2, "norm": False,
         "args": ["tgt", "mem"], "kwargs": {"tgt_mask": "tm", "memory_key_padding_mask": "mp"},
         "flags": {}},
        {"tgt": _seq(r, 5, E, True), "mem": _seq(r, 6, E, True), "tm": _causal(5),
         "mp": _padding(r, N, 6)},
        ({"activation": ops.relu}, {"tgt_mask": "tm", "memory_key_padding_mask": "mp"}, {}, False))
    tcfg = {"d_model": E, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 1,
            "dim_feedforward": 20, "dropout": 0.0}
    masks = {"src_key_padding_mask": "sp", "tgt_mask": "tm", "memory_key_padding_mask": "sp"}
    c["transformer_batch_first"] = (
        {"kind": "transformer", "cfg": {**tcfg, "batch_first": True}, "args": ["src", "tgt"],
         "kwargs": masks, "flags": {}},
        {"src": _seq(r, 6, E, True), "tgt": _seq(r, 5, E, True), "sp": _padding(r, N, 6),
         "tm": _causal(5)}, ({}, masks, {}, False))
    c["transformer_norm_first_gelu_seq_first"] = (
        {"kind": "transformer", "cfg": {**tcfg, "norm_first": True, "activation": "gelu"},
         "args": ["src", "tgt"], "kwargs": {"src_mask": "sm", "memory_mask": "mm"}, "flags": {}},
        {"src": _seq(r, 5, E, False), "tgt": _seq(r, 4, E, False), "sm": _causal(5, float),
         "mm": _float_mask(r, (4, 5))}, ({}, {"src_mask": "sm", "memory_mask": "mm"}, {}, False))
    return c


CASES = _cases()


def _build(spec, overrides):
    ms.set_seed(11)
    cfg = {**spec["cfg"], **overrides}
    kind = spec["kind"]
    if kind == "mha":
        return nn.MultiheadAttention(**cfg)
    if kind == "encoder_layer":
        return nn.TransformerEncoderLayer(**cfg)
    if kind == "decoder_layer":
        return nn.TransformerDecoderLayer(**cfg)
    norm = nn.LayerNorm((E,), epsilon=1e-5) if spec.get("norm") else None
    if kind == "encoder":
        return nn.TransformerEncoder(nn.TransformerEncoderLayer(**cfg), spec["layers"], norm)
    if kind == "decoder":
        return nn.TransformerDecoder(nn.TransformerDecoderLayer(**cfg), spec["layers"], norm)
    return nn.Transformer(**cfg)


def _perturb(net, seed):
    """Shift every parameter (zero biases, unit gammas ...) so that a wrong slice or
    broadcast shows in the outputs, not only in the gradients."""
    rng = np.random.default_rng(seed)
    for p in net.trainable_params():
        p.set_data(Tensor((p.asnumpy() + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    return net


def _torch_name(name):
    name = f".{name}".replace(".dense1.", ".linear1.").replace(".dense2.", ".linear2.")[1:]
    return name.replace(".gamma", ".weight").replace(".beta", ".bias")


def _douts(rng, out_shape, weights_shape):
    dout = rng.standard_normal(out_shape).astype(np.float32)
    dw = None if weights_shape is None else rng.standard_normal(weights_shape).astype(np.float32)
    return dout, dw


class _Setup:
    """Our net, the cotangents and PyTorch's results of every case (one subprocess)."""

    def __init__(self, folder):
        self.nets, self.douts, payload = {}, {}, {"count": len(CASES)}
        for i, (name, (spec, arrays, ours)) in enumerate(CASES.items()):
            net = _perturb(_build(spec, ours[0]), i)
            self.nets[name] = net
            out, weights = _forward(net, spec, arrays, ours)
            rng = np.random.default_rng(i)
            self.douts[name] = _douts(rng, out.shape, weights.shape if ours[3] else None)
            payload[f"{i}.spec"] = json.dumps(spec)
            payload.update({f"{i}.a:{k}": v for k, v in arrays.items()})
            payload.update({f"{i}.p:{_torch_name(p.name)}": p.asnumpy() for p in net.trainable_params()})
            payload[f"{i}.dout"] = self.douts[name][0]
            if ours[3]:
                payload[f"{i}.dw"] = self.douts[name][1]
        self.folder, self.payload = folder, payload
        self._ref = None

    def ref(self, name):
        if self._ref is None:
            self._ref = reference(SCRIPT, self.folder, **self.payload)
        i = list(CASES).index(name)
        return {k.split(".", 1)[1]: v for k, v in self._ref.items() if k.split(".", 1)[0] == str(i)}


def _call(net, spec, data, masks, ours):
    inputs = [data[n] for n in spec["args"]]
    kwargs = {key: masks[arr] for key, arr in ours[1].items()}
    result = net(*inputs, **kwargs, **ours[2])
    return result if isinstance(result, tuple) else (result, None)


def _forward(net, spec, arrays, ours):
    data = {n: Tensor(arrays[n]) for n in spec["args"]}
    masks = {a: Tensor(arrays[a]) for a in ours[1].values()}
    out, weights = _call(net, spec, data, masks, ours)
    return out.asnumpy(), None if weights is None else weights.asnumpy()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    return _Setup(tmp_path_factory.mktemp("transformer_torch"))


def _close(got, want, what, rtol=1e-4):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    scale = max(float(np.abs(want).max()), 1e-6)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


def run_case(setup, name, mode):
    """Our outputs and gradients for case ``name`` in ``mode``."""
    spec, arrays, ours = CASES[name]
    net = setup.nets[name]
    dout, dw = (Tensor(a) if a is not None else None for a in setup.douts[name])
    names = list(dict.fromkeys(spec["args"]))
    mask_names = list(dict.fromkeys(ours[1].values()))
    params = net.trainable_params()

    def loss_fn(*args):
        data = dict(zip(names, args[:len(names)], strict=True))
        masks = dict(zip(mask_names, args[len(names):], strict=True))
        out, weights = _call(net, spec, data, masks, ours)
        loss = ops.reduce_sum(out * dout)
        if dw is not None:
            loss = loss + ops.reduce_sum(weights * dw)
        return loss, out, weights if weights is not None else out

    grad_fn = ms.value_and_grad(loss_fn, tuple(range(len(names))), params, has_aux=True)
    run = ms.jit(grad_fn) if mode == "graph" else grad_fn
    tensors = [Tensor(arrays[n]) for n in names] + [Tensor(arrays[m]) for m in mask_names]
    (_, out, weights), (input_grads, param_grads) = run(*tensors)
    input_grads = input_grads if len(names) > 1 else (input_grads,)  # (one position: the gradient itself)
    return names, out, weights, input_grads, param_grads


@needs_torch
@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_pytorch(setup, name, mode):
    spec, arrays, ours = CASES[name]
    ref = setup.ref(name)
    names, out, weights, input_grads, param_grads = run_case(setup, name, mode)
    _close(out.asnumpy(), ref["out"], "output")
    if ours[3]:
        _close(weights.asnumpy(), ref["weights"], "attention weights")
    for n, g in zip(names, input_grads, strict=True):
        _close(g.asnumpy(), ref[f"gi:{n}"], f"gradient of input {n}")
    for p, g in zip(setup.nets[name].trainable_params(), param_grads, strict=True):
        _close(g.asnumpy(), ref[f"g:{_torch_name(p.name)}"], f"gradient of {p.name}")
    # nothing PyTorch's reference lacks: every gradient is finite
    assert all(np.isfinite(g.asnumpy()).all() for g in (*input_grads, *param_grads))


@needs_torch
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_fully_masked_row_gives_bias_zero_weights_and_finite_gradients(setup, mode):
    name = "mha_fully_masked_row"
    net = setup.nets[name]
    _, out, weights, input_grads, param_grads = run_case(setup, name, mode)
    out, weights = out.asnumpy(), weights.asnumpy()
    np.testing.assert_array_equal(weights[:, 2], 0.0)
    np.testing.assert_allclose(out[:, 2], np.broadcast_to(net.out_proj.bias.asnumpy(), (N, E)),
                               rtol=1e-6)
    rows = np.delete(weights, 2, axis=1).sum(-1)
    np.testing.assert_allclose(rows, 1.0, rtol=1e-5)
    assert np.isfinite(out).all() and np.isfinite(weights).all()
    assert all(np.isfinite(g.asnumpy()).all() for g in (*input_grads, *param_grads))
