"""nn.RNN / GRU / LSTM and the cells against PyTorch 2.13 with the same weights copied in:
outputs, h_n / c_n and the gradients of a weighted-sum loss with respect to every parameter,
the input and hx, in PyNative and in graph mode (float32 tolerances).

Cases: both non-linearities, batch_first, bidirectional, two layers, a given hx, no bias,
``seq_length`` (compared with PyTorch's ``pack_padded_sequence`` + ``pad_packed_sequence``
(total_length = seq_len): outputs zero past each row's length, h_n at each row's last valid
step), and the cells run over a sequence. PyTorch runs in a subprocess
(``tests/framework/torch_rnn.py``, ``PYTHONPATH=$TORCH_PATH``, default ``/tmp/torchlib``);
skipped when absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn
from tests.torch_ref import needs_torch, run_script

SCRIPT = Path(__file__).with_name("torch_rnn.py")

T, N, I, H = 5, 4, 3, 6
LENGTHS = np.array([5, 2, 1, 4], np.int32)  # unsorted, one full, one of length 1
CASES = {
    "rnn_tanh": ("RNN", {}, {}),
    "rnn_relu_bf_2l": ("RNN", {"nonlinearity": "relu", "batch_first": True, "num_layers": 2}, {}),
    "rnn_seq_2l": ("RNN", {"num_layers": 2}, {"seq_length": True}),
    "gru": ("GRU", {}, {}),
    "gru_bi_2l_hx": ("GRU", {"num_layers": 2, "bidirectional": True}, {"hx": True}),
    "gru_nobias_bf": ("GRU", {"has_bias": False, "batch_first": True}, {}),
    "gru_bi_seq_bf": ("GRU", {"bidirectional": True, "batch_first": True}, {"seq_length": True}),
    "lstm": ("LSTM", {}, {}),
    "lstm_2l_hx": ("LSTM", {"num_layers": 2}, {"hx": True}),
    "lstm_bi_2l_bf": ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}, {}),
    "lstm_bi_2l_seq_hx": ("LSTM", {"num_layers": 2, "bidirectional": True},
                          {"seq_length": True, "hx": True}),
    "rnncell_relu_hx": ("RNNCell", {"nonlinearity": "relu"}, {"hx": True}),
    "rnncell": ("RNNCell", {}, {}),
    "grucell_hx": ("GRUCell", {}, {"hx": True}),
    "lstmcell_hx": ("LSTMCell", {}, {"hx": True}),
    "lstmcell_nobias": ("LSTMCell", {"has_bias": False}, {}),
}


def _build(tag: str):
    kind, kwargs, opts = CASES[tag]
    ms.set_seed(sum(map(ord, tag)))
    net = getattr(nn, kind)(I, H, **kwargs)
    rng = np.random.default_rng(sum(map(ord, tag)))
    is_cell, lstm = kind.endswith("Cell"), kind.startswith("LSTM")
    bf = kwargs.get("batch_first", False)
    x = rng.standard_normal((N, T, I) if bf else (T, N, I)).astype(np.float32)
    dirs = 2 if kwargs.get("bidirectional") else 1
    h_shape = (N, H) if is_cell else (kwargs.get("num_layers", 1) * dirs, N, H)
    hx = [rng.standard_normal(h_shape).astype(np.float32) for _ in range(2 if lstm else 1)] \
        if opts.get("hx") else None
    out_shape = (T, N, H) if is_cell else ((N, T, dirs * H) if bf else (T, N, dirs * H))
    w = {"w_out": rng.standard_normal(out_shape).astype(np.float32),
         "w_h": rng.standard_normal(h_shape).astype(np.float32)}
    if lstm:
        w["w_c"] = rng.standard_normal(h_shape).astype(np.float32)
    seq = LENGTHS if opts.get("seq_length") else None
    return net, x, hx, seq, w


def _loss_fn(tag: str, net, has_hx: bool, has_seq: bool):
    kind = CASES[tag][0]
    is_cell, lstm = kind.endswith("Cell"), kind.startswith("LSTM")

    def loss(x, h, c, seq, w_out, w_h, w_c):
        hx = ((h, c) if lstm else h) if has_hx else None
        if is_cell:
            outs = []
            state = hx
            for t in range(x.shape[0]):
                state = net(x[t], state)
                outs.append(state[0] if lstm else state)
            out = ms.ops.concat([ms.ops.expand_dims(o, 0) for o in outs], 0)
        else:
            out, state = net(x, hx, seq if has_seq else None)
        h_n, c_n = state if lstm else (state, None)
        total = (out * w_out).sum() + (h_n * w_h).sum()
        if lstm:
            total = total + (c_n * w_c).sum()
        return total, out, h_n, (c_n if lstm else h_n)

    return loss


@pytest.fixture(scope="module")
def torch_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("torch_rnn")
    spec = {}
    for tag, (kind, kwargs, _) in CASES.items():
        net, x, hx, seq, w = _build(tag)
        names = [name for name, _ in net.parameters_and_names()]
        for name, p in net.parameters_and_names():
            np.save(folder / f"{tag}_{name}.npy", p.asnumpy())
        np.save(folder / f"{tag}_x.npy", x)
        for i, h in enumerate(hx or []):
            np.save(folder / f"{tag}_hx{i}.npy", h)
        if seq is not None:
            np.save(folder / f"{tag}_seq_length.npy", seq)
        for k, v in w.items():
            np.save(folder / f"{tag}_{k}.npy", v)
        spec[tag] = {"kind": kind, "kwargs": {"input_size": I, "hidden_size": H, **kwargs},
                     "params": names, "hx": hx is not None, "seq_length": seq is not None}
    (folder / "in.json").write_text(json.dumps(spec))
    run_script(SCRIPT, folder / "in.json", folder / "out.npz")
    return dict(np.load(folder / "out.npz"))


def _close(got, want, what, rtol=1e-4):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    scale = max(float(np.abs(want).max()), 1e-12)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, err_msg=what)


@needs_torch
@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("tag", list(CASES))
def test_matches_pytorch(tag, mode, torch_results):
    ref = {k[len(tag) + 1:]: v for k, v in torch_results.items() if k.startswith(tag + "_")}
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        net, x, hx, seq, w = _build(tag)
        names = [name for name, _ in net.parameters_and_names()]
        params = [p for _, p in net.parameters_and_names()]
        lstm = CASES[tag][0].startswith("LSTM")
        fn = _loss_fn(tag, net, hx is not None, seq is not None)
        h = Tensor(hx[0]) if hx else Tensor(np.zeros(1, np.float32))
        c = Tensor(hx[1]) if hx and lstm else Tensor(np.zeros(1, np.float32))
        positions = (0, 1, 2) if hx and lstm else (0, 1) if hx else (0,)
        args = (Tensor(x), h, c, Tensor(seq if seq is not None else np.zeros(N, np.int32)),
                Tensor(w["w_out"]), Tensor(w["w_h"]), Tensor(w.get("w_c", np.zeros(1, np.float32))))
        (loss, out, h_n, c_n), (in_grads, p_grads) = ms.value_and_grad(
            fn, positions, params, has_aux=True)(*args)
        in_grads = in_grads if len(positions) > 1 else (in_grads,)  # (one position: the gradient itself)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _close(loss.asnumpy(), ref["loss"], "loss")
    _close(out.asnumpy(), ref["out"], "output")
    _close(h_n.asnumpy(), ref["h_n"], "h_n")
    if lstm:
        _close(c_n.asnumpy(), ref["c_n"], "c_n")
    for name, g in zip(names, p_grads, strict=True):
        _close(g.asnumpy(), ref[f"g_{name}"], f"gradient of {name}")
    _close(in_grads[0].asnumpy(), ref["g_x"], "gradient of x")
    for i, g in enumerate(in_grads[1:]):
        _close(g.asnumpy(), ref[f"g_hx{i}"], f"gradient of hx[{i}]")
