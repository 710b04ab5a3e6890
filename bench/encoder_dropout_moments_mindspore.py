"""MindSpore 2.10's TransformerEncoderLayer against ours on the same weights, eval and training.

    $MINDSPORE_PYTHON bench/encoder_dropout_moments_mindspore.py OURS.npz

``OURS.npz`` comes from ``PYTHONPATH=. python bench/encoder_dropout_moments_mindspore.py
--ours OURS.npz`` (our layer of tests/framework/test_transformer_dropout.py: its weights,
input, padding mask, eval output and the mean/std of 400 training-mode outputs). Prints the
eval difference and how the training-mode distributions compare (mean |z| ~ 0.80 and a std
ratio ~ 1 when they are the same).
"""

from __future__ import annotations

import sys

import numpy as np

DRAWS = 400


def write_ours(path: str) -> None:
    from framework import Tensor
    from tests.framework import test_transformer_dropout as t
    layer, x, pad = t._layer_and_inputs()
    draws = t._our_draws(layer, x, pad)
    layer.set_train(False)
    ev = layer(Tensor(x), src_key_padding_mask=Tensor(pad)).asnumpy()
    np.savez(path, x=x, pad=pad, mean=draws.mean(0), std=draws.std(0), ev=ev,
             **{"p:" + p.name: p.asnumpy() for p in layer.trainable_params()})


def compare_mindspore(path: str) -> None:
    import mindspore as ms
    from mindspore import Tensor, nn
    ms.set_seed(0)
    d = np.load(path)
    layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True)
    params = {p.name: p for p in layer.get_parameters()}
    for key in d.files:
        if key.startswith("p:"):
            params[key[2:]].set_data(Tensor(d[key]))
    x, pad = Tensor(d["x"]), Tensor(d["pad"])
    layer.set_train(False)
    evaluated = layer(x, src_key_padding_mask=pad).asnumpy()
    print("eval: max |mindspore - ours|", np.abs(evaluated - d["ev"]).max())
    layer.set_train(True)
    outs = np.stack([layer(x, src_key_padding_mask=pad).asnumpy() for _ in range(DRAWS)])
    m, s = outs.mean(0), outs.std(0)
    z = (m - d["mean"]) / np.maximum(np.sqrt(s ** 2 / DRAWS + d["std"] ** 2 / DRAWS), 1e-6)
    print(f"training: NaN {int(np.isnan(outs).sum())}, mean |z| {np.abs(z).mean():.2f}, "
          f"std ratio ours/mindspore (median) {np.median(d['std'] / s):.3f}")


if __name__ == "__main__":
    if sys.argv[1] == "--ours":
        write_ours(sys.argv[2])
    else:
        compare_mindspore(sys.argv[1])
