"""`dataset.name: image_folder`: class-per-subfolder PNG files written by the test train
exactly like the same pixels from a .npz; bad folders and files exit 2 naming them."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from trainer.cli import app
from trainer.config import load_config
from trainer.experiment import run_experiment
from trainer.image_folder import image_folder_split

MODEL = '''\
from framework import nn


class Tiny(nn.Cell):
    def __init__(self, num_classes: int = 2, side: int = 8, channels: int = 1):
        super().__init__()
        self.net = nn.SequentialCell([nn.Flatten(), nn.Dense(channels * side * side, 8), nn.ReLU(),
                                      nn.Dense(8, num_classes)])

    def construct(self, x):
        return self.net(x)
'''

YAML = """\
name: folders
mode: pynative
model: {{class: tiny.py:Tiny}}
dataset: {{{source}, batch_size: 4, shuffle: false, resize: null, normalize: null}}
train: {{epochs: 2}}
checkpoint: {{save_steps: 0}}
"""


def write_folder(root, rgb=False):
    """train: 2 classes x 6 images, test: 2 x 2; returns the arrays in ImageFolder order."""
    rng = np.random.default_rng(0)
    out = {}
    for split, n in (("train", 6), ("test", 2)):
        xs, ys = [], []
        for label, name in enumerate(["cat", "dog"]):  # sorted names -> labels 0, 1
            (root / split / name).mkdir(parents=True)
            for i in range(n):
                shape = (8, 8, 3) if rgb else (8, 8)
                x = (rng.integers(0, 120, shape) + 100 * label).astype(np.uint8)
                Image.fromarray(x).save(root / split / name / f"{i:02d}.png")
                xs.append(x)
                ys.append(label)
        out[split] = (np.stack(xs), np.array(ys))
    return out


@pytest.fixture
def project(workdir):
    (workdir / "tiny.py").write_text(MODEL)
    return workdir


def test_folder_reads_back_the_pixels(project):
    arrays = write_folder(project / "imgs", rgb=True)
    x, y = image_folder_split(str(project / "imgs"), "train", None)
    np.testing.assert_array_equal(x, arrays["train"][0])
    np.testing.assert_array_equal(y, arrays["train"][1])
    x, _ = image_folder_split(str(project / "imgs"), "test", 4)
    assert x.shape == (4, 4, 4, 3)


def test_image_folder_trains_like_the_same_npz(project):
    arrays = write_folder(project / "imgs")
    np.savez(project / "same.npz", x_train=arrays["train"][0], y_train=arrays["train"][1],
             x_test=arrays["test"][0], y_test=arrays["test"][1])
    results = []
    for source in ("name: image_folder, root: imgs", "name: npz, root: same.npz"):
        (project / "exp.yaml").write_text(YAML.format(source=source))
        config = load_config(project / "exp.yaml")
        results.append(run_experiment(config, quiet=True, log=False,
                                      checkpoint_dir=str(project / "ck")))
    assert len(results[0].losses) == 6
    np.testing.assert_allclose(results[0].losses, results[1].losses, rtol=1e-6)


def run_cli(project, source):
    (project / "exp.yaml").write_text(YAML.format(source=source))
    result = CliRunner().invoke(app, ["run", str(project / "exp.yaml")])
    return result.exit_code, result.output


def test_bad_folders_exit_2_naming_the_file(project):
    write_folder(project / "imgs")
    Image.fromarray(np.zeros((9, 8), np.uint8)).save(project / "imgs/train/dog/99.png")
    code, output = run_cli(project, "name: image_folder, root: imgs")
    assert code == 2 and "99.png is 8x9 but" in output and "set dataset.resize" in output
    (project / "imgs/train/dog/99.png").write_bytes(b"not a png")
    code, output = run_cli(project, "name: image_folder, root: imgs")
    assert code == 2 and "99.png: not a readable image" in output
    (project / "imgs/train/dog/99.png").unlink()
    (project / "imgs/test/bird").mkdir()
    code, output = run_cli(project, "name: image_folder, root: imgs")
    assert code == 2 and "class 'bird' is not among train/'s classes (cat, dog)" in output
    code, output = run_cli(project, "name: image_folder, root: nowhere")
    assert code == 2 and "folder nowhere not found" in output


def test_rgb_images_become_n_c_h_w_before_resizing(project):
    from trainer.tasks.classification import loaders

    arrays = write_folder(project / "imgs", rgb=True)
    (project / "exp.yaml").write_text(YAML.format(source="name: image_folder, root: imgs"))
    train, _, _ = loaders(load_config(project / "exp.yaml"))
    expected = arrays["train"][0].transpose(0, 3, 1, 2).astype(np.float32) / 255
    np.testing.assert_allclose(train.images, expected, rtol=1e-6)
    train, _, _ = loaders(load_config(project / "exp.yaml", ["dataset.resize=4"]))
    assert train.images.shape == (12, 3, 4, 4)  # resized over H and W, channels kept
    # arrays resized by the experiment's transform (npz): each channel plane as if alone
    from datasets.transforms import Resize

    x, y = arrays["train"]
    np.savez(project / "rgb.npz", x_train=x, y_train=y, x_test=x, y_test=y)
    (project / "exp.yaml").write_text(YAML.format(source="name: npz, root: rgb.npz"))
    train, _, _ = loaders(load_config(project / "exp.yaml", ["dataset.resize=4"]))
    plane = Resize([4, 4])(x[:, :, :, 1])
    np.testing.assert_allclose(train.images[:, 1], plane.astype(np.float32) / 255, rtol=1e-6)
