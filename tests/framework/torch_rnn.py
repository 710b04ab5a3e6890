"""PyTorch side of tests/framework/test_rnn_torch.py (run with PYTHONPATH=$TORCH_PATH).

``python torch_rnn.py IN.json OUT.npz``: IN.json lists cases; each names a layer (``RNN``,
``GRU``, ``LSTM``, ``RNNCell``, ``GRUCell``, ``LSTMCell``), its keyword arguments, and the
arrays (``.npy`` files next to IN.json) of its parameters, input ``x``, optional ``hx`` and
``seq_length``, and the weights ``w_*`` of the scalar loss
``sum(output * w_out) + sum(h_n * w_h) (+ sum(c_n * w_c))``. Writes, per case ``k``, the
outputs and the gradients of the loss with respect to every parameter, ``x`` and ``hx``.
A cell case runs the cell over ``x``'s first axis; its output is the stacked states.
"""

import json
import sys
from pathlib import Path

import numpy as np
import torch

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)


def arr(folder: Path, name: str) -> torch.Tensor:
    return torch.from_numpy(np.load(folder / f"{name}.npy"))


def run_layer(case: dict, folder: Path, tag: str) -> dict:
    kind, kw = case["kind"], dict(case["kwargs"])
    names = case["params"]
    cls = getattr(torch.nn, kind)
    is_cell = kind.endswith("Cell")
    kw["bias"] = kw.pop("has_bias", True)
    net = cls(**kw)
    with torch.no_grad():
        for name in names:
            getattr(net, name).copy_(arr(folder, f"{tag}_{name}"))
    x = arr(folder, f"{tag}_x").requires_grad_(True)
    lstm = kind.startswith("LSTM")
    hx = None
    leaves = [x]
    if case.get("hx"):
        hx = [arr(folder, f"{tag}_hx{i}").requires_grad_(True) for i in range(2 if lstm else 1)]
        leaves += hx
    if is_cell:
        state = (tuple(hx) if lstm else hx[0]) if hx is not None else None
        outs = []
        for t in range(x.shape[0]):
            state = net(x[t], state)
            outs.append(state[0] if lstm else state)
        out = torch.stack(outs)
        h_n = state[0] if lstm else state
        c_n = state[1] if lstm else None
    else:
        h0 = (tuple(hx) if lstm else hx[0]) if hx is not None else None
        inp = x
        if case.get("seq_length"):
            lengths = np.load(folder / f"{tag}_seq_length.npy")
            inp = torch.nn.utils.rnn.pack_padded_sequence(
                x, torch.from_numpy(lengths.astype(np.int64)), batch_first=kw.get("batch_first", False),
                enforce_sorted=False)
        out, hn = net(inp, h0)
        if case.get("seq_length"):
            total = x.shape[1] if kw.get("batch_first", False) else x.shape[0]
            out, _ = torch.nn.utils.rnn.pad_packed_sequence(
                out, batch_first=kw.get("batch_first", False), total_length=total)
        h_n, c_n = hn if lstm else (hn, None)
    loss = (out * arr(folder, f"{tag}_w_out")).sum() + (h_n * arr(folder, f"{tag}_w_h")).sum()
    if c_n is not None:
        loss = loss + (c_n * arr(folder, f"{tag}_w_c")).sum()
    params = [getattr(net, n) for n in names]
    grads = torch.autograd.grad(loss, params + leaves)
    result = {f"{tag}_out": out, f"{tag}_h_n": h_n, f"{tag}_loss": loss}
    if c_n is not None:
        result[f"{tag}_c_n"] = c_n
    for name, g in zip(names + ["x"] + [f"hx{i}" for i in range(len(leaves) - 1)], grads):
        result[f"{tag}_g_{name}"] = g
    return {k: v.detach().numpy() for k, v in result.items()}


def main() -> None:
    spec = Path(sys.argv[1])
    cases = json.loads(spec.read_text())
    results: dict = {}
    for tag, case in cases.items():
        results.update(run_layer(case, spec.parent, tag))
    np.savez(sys.argv[2], **results)


if __name__ == "__main__":
    main()
