"""An exported ONNX file is usable without the YAML: its input and output are named
(``image``/``tokens``, ``logits``) and its ``metadata_props`` hold the preprocessing and the
class names (a classifier) or the tokenizer (a language model). Checked by following the
metadata alone: raw dataset images preprocessed with PIL and NumPy from the stored steps,
text encoded by the stored tokenizer, then run in ONNX Runtime against the network."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import framework as ms  # noqa: E402
from trainer.config import load_config  # noqa: E402
from trainer.export import export_checkpoint  # noqa: E402

from .cli_env import ROOT, needs_data  # noqa: E402
from .test_export import trained_checkpoint  # noqa: E402
from .test_language_model import YAML as LM_YAML  # noqa: E402


def session_and_meta(path):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session, session.get_modelmeta().custom_metadata_map


def preprocess(images: np.ndarray, steps: list[dict]) -> np.ndarray:
    """The stored steps, done with PIL (resize) and NumPy: what a user of the file writes."""
    from PIL import Image

    x = images[:, None] if images.ndim == 3 else images.transpose(0, 3, 1, 2)  # NHWC -> NCHW
    for step in steps:
        if "resize" in step:
            h, w = step["resize"]
            assert step["interpolation"] == "bilinear"
            x = np.stack([np.stack([np.asarray(Image.fromarray(c).resize((w, h), Image.BILINEAR))
                                    for c in image]) for image in x])
        elif "rescale" in step:
            x = x.astype(np.float32) * np.float32(step["rescale"]) + np.float32(step["offset"])
        elif "normalize" in step:
            mean = np.asarray(step["normalize"]["mean"], np.float32).reshape(1, -1, 1, 1)
            std = np.asarray(step["normalize"]["std"], np.float32).reshape(1, -1, 1, 1)
            x = (x - mean) / std
        elif "dtype" in step:
            x = x.astype(step["dtype"])
    return x


@needs_data
@pytest.mark.slow
def test_classifier_onnx_names_its_io_and_carries_preprocessing_and_classes(tmp_path):
    import datasets

    path = ROOT / "experiments" / "lenet.yaml"
    config = load_config(path, ["dataset.limit=64", "dataset.test_limit=64"])
    net = trained_checkpoint(config, tmp_path / "net.ckpt")
    out = export_checkpoint(path, tmp_path / "net.ckpt", tmp_path / "lenet", log=False)
    session, meta = session_and_meta(out)
    assert [i.name for i in session.get_inputs()] == ["image"]
    assert [o.name for o in session.get_outputs()] == ["logits"]
    assert json.loads(meta["twinmode.class_names"]) == [str(i) for i in range(10)]
    assert meta["twinmode.task"] == "classification" and meta["twinmode.input_layout"] == "NCHW"
    steps = json.loads(meta["twinmode.preprocessing"])
    assert [k for s in steps for k in s if k in ("resize", "rescale", "normalize")] == \
        ["resize", "rescale", "normalize"]
    raw = datasets.load("mnist", "test", None, download=False)[0][:8]  # as the files hold them
    x = preprocess(np.asarray(raw), steps)
    assert x.shape == (8, 1, 32, 32) and x.dtype == np.float32
    net.set_train(False)
    ours = net(ms.Tensor(x)).asnumpy()
    theirs = session.run(["logits"], {"image": x})[0]
    np.testing.assert_allclose(theirs, ours, rtol=1e-4, atol=1e-4 * np.abs(ours).max())
    # the metadata's steps give the training pipeline's input (PIL's rounding aside)
    from datasets.transforms import build_transforms
    from trainer.data import transforms_for

    pipeline = build_transforms(transforms_for(config))(np.asarray(raw))
    assert np.abs(pipeline - x).max() <= 1.01 / 255 / 0.3081


@pytest.mark.slow
def test_language_model_onnx_names_tokens_and_carries_the_tokenizer(workdir):
    from datasets.tokenizer import tokenizer_from_dict

    rng = np.random.default_rng(0)
    words = ["to be", "or not", "that is", "the question"]
    (workdir / "corpus.txt").write_text("\n".join(" ".join(rng.choice(words, 6)) for _ in range(200)))
    (workdir / "lm.yaml").write_text(LM_YAML)
    config = load_config(workdir / "lm.yaml")
    from trainer.build import build_model_for
    from trainer.distributed import Rank
    from trainer.tasks import task_of

    data = task_of(config).data(config, Rank())
    _, net = build_model_for(config, data)
    ms.save_checkpoint(net, str(workdir / "lm.ckpt"))
    out = export_checkpoint(config, workdir / "lm.ckpt", workdir / "lm", log=False)
    session, meta = session_and_meta(out)
    assert [i.name for i in session.get_inputs()] == ["tokens"]
    assert [o.name for o in session.get_outputs()] == ["logits"]
    assert meta["twinmode.task"] == "language_model" and meta["twinmode.block_size"] == "8"
    tokenizer = tokenizer_from_dict(meta["twinmode.tokenizer"])
    assert tokenizer.vocab_size == int(meta["twinmode.vocab_size"])
    ids = np.asarray([tokenizer.encode("to be or")[:8]], dtype=session.get_inputs()[0].type == "tensor(int64)"
                     and np.int64 or np.int32)
    net.set_train(False)
    ours = net(ms.Tensor(ids)).asnumpy()
    theirs = session.run(["logits"], {"tokens": ids})[0]
    np.testing.assert_allclose(theirs, ours, rtol=1e-4, atol=1e-4 * np.abs(ours).max())
