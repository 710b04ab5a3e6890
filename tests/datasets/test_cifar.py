"""CIFAR-10/100 loaders on small files written here in the official layouts (pickled dicts
inside a tar.gz, unpacked python batches, binary records): pixels come back in the layout
the format documents (1024 R, 1024 G, 1024 B per row -> H x W x C), the search path is the
MNIST family's, downloads are MD5-checked and atomic, and broken files give one line."""

from __future__ import annotations

import hashlib
import io
import pickle
import tarfile
from pathlib import Path

import numpy as np
import pytest

import datasets
from datasets import cifar


def batch_rows(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, 3072), dtype=np.uint8)


def python_batch(rows: np.ndarray, labels: list[int], key: bytes = b"labels") -> bytes:
    """A batch as the official archive pickles it: a dict with bytes keys."""
    batch = {b"batch_label": b"testing batch", b"data": rows, key: labels,
             b"filenames": [b"x.png"] * len(rows)}
    if key == b"fine_labels":
        batch[b"coarse_labels"] = [lab // 5 for lab in labels]
    return pickle.dumps(batch, protocol=2)


def write_tar(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def cifar10_members(n: int = 4) -> tuple[dict[str, bytes], dict[str, tuple]]:
    """Five train batches and a test batch of ``n`` images each; the expected arrays."""
    members, expected = {}, {"train": ([], []), "test": ([], [])}
    for i, name in enumerate([f"data_batch_{k}" for k in range(1, 6)] + ["test_batch"]):
        rows = batch_rows(n, i)
        labels = [(i + j) % 10 for j in range(n)]
        members[f"cifar-10-batches-py/{name}"] = python_batch(rows, labels)
        split = "test" if name == "test_batch" else "train"
        expected[split][0].append(rows)
        expected[split][1].append(labels)
    members["cifar-10-batches-py/batches.meta"] = pickle.dumps({b"label_names": [b"a"] * 10})
    return members, {s: (np.concatenate(r), np.concatenate(lab)) for s, (r, lab) in expected.items()}


def as_hwc(rows: np.ndarray) -> np.ndarray:
    """The documented layout, pixel by pixel: row r, column c of channel k is byte
    ``k * 1024 + r * 32 + c``."""
    out = np.empty((len(rows), 32, 32, 3), np.uint8)
    for k in range(3):
        for r in range(32):
            out[:, r, :, k] = rows[:, k * 1024 + r * 32: k * 1024 + r * 32 + 32]
    return out


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr("datasets.sources.SYSTEM_DIR", tmp_path / "no-system")
    return tmp_path / "data"


def test_cifar10_archive_found_through_train_data_dir(data_dir):
    members, expected = cifar10_members()
    (data_dir / "cifar10").mkdir(parents=True)
    write_tar(data_dir / "cifar10" / "cifar-10-python.tar.gz", members)
    for split in ("train", "test"):
        images, labels = datasets.load("cifar10", split)
        assert images.dtype == np.uint8 and images.shape == (len(expected[split][0]), 32, 32, 3)
        np.testing.assert_array_equal(images, as_hwc(expected[split][0]))
        np.testing.assert_array_equal(labels, expected[split][1])
        assert labels.dtype == np.int32 and not images.flags.writeable
    used = datasets.files_used("cifar10", "train")
    assert used["images"].endswith("cifar-10-python.tar.gz") and len(used["sha256"]) == 64


def test_unpacked_python_and_binary_versions_give_the_same_arrays(tmp_path):
    members, expected = cifar10_members(3)
    py = tmp_path / "py"
    for name, data in members.items():
        (py / name).parent.mkdir(parents=True, exist_ok=True)
        (py / name).write_bytes(data)
    binary = tmp_path / "bin" / "cifar-10-batches-bin"
    binary.mkdir(parents=True)
    rows, labels = expected["train"]
    for k in range(5):  # records: 1 label byte + 3072 pixel bytes
        part = slice(3 * k, 3 * k + 3)
        records = np.concatenate([labels[part, None].astype(np.uint8), rows[part]], axis=1)
        (binary / f"data_batch_{k + 1}.bin").write_bytes(records.tobytes())
    got_py = datasets.load("cifar10", "train", root=py)
    got_bin = datasets.load("cifar10", "train", root=tmp_path / "bin")
    for got in (got_py, got_bin):
        np.testing.assert_array_equal(got[0], as_hwc(rows))
        np.testing.assert_array_equal(got[1], labels)


def test_cifar100_fine_labels_python_and_binary(tmp_path):
    rows = batch_rows(6, 7)
    fine = [99, 0, 42, 57, 3, 18]
    write_tar(tmp_path / "cifar-100-python.tar.gz", {
        "cifar-100-python/train": python_batch(rows, fine, b"fine_labels"),
        "cifar-100-python/test": python_batch(rows[:2], fine[:2], b"fine_labels")})
    images, labels = datasets.load("cifar100", "train", root=tmp_path)
    np.testing.assert_array_equal(images, as_hwc(rows))
    np.testing.assert_array_equal(labels, fine)
    records = np.concatenate([np.array([[f // 5, f] for f in fine], np.uint8), rows], axis=1)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "train.bin").write_bytes(records.tobytes())  # coarse, fine, pixels
    images, labels = datasets.load("cifar100", "train", root=tmp_path / "b")
    np.testing.assert_array_equal(labels, fine)
    np.testing.assert_array_equal(images, as_hwc(rows))


def test_download_checks_the_md5_and_writes_atomically(data_dir, monkeypatch, tmp_path):
    members, expected = cifar10_members(2)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    archive = write_tar(mirror / "cifar-10-python.tar.gz", members)
    good = hashlib.md5(archive.read_bytes()).hexdigest()
    spec = cifar.SPECS["cifar10"]
    monkeypatch.setitem(cifar.SPECS, "cifar10", cifar.CifarSpec(
        **{**spec.__dict__, "url": mirror.as_uri() + "/", "md5": "0" * 32}))
    with pytest.raises(datasets.DatasetError, match="checksum mismatch"):
        datasets.load("cifar10", "test", progress=False)
    cache = tmp_path / "cache" / "twinmode" / "datasets" / "cifar10"
    assert not any(cache.iterdir())  # nothing half-written is left behind
    monkeypatch.setitem(cifar.SPECS, "cifar10", cifar.CifarSpec(
        **{**spec.__dict__, "url": mirror.as_uri() + "/", "md5": good}))
    images, labels = datasets.load("cifar10", "test", progress=False)
    np.testing.assert_array_equal(labels, expected["test"][1])
    assert [p.name for p in cache.iterdir()] == ["cifar-10-python.tar.gz"]


def test_published_checksums_and_urls():
    assert cifar.SPECS["cifar10"].md5 == "c58f30108f718f92721af3b95e74349a"
    assert cifar.SPECS["cifar100"].md5 == "eb9058c3a382ffc7106e4002c42a8d85"
    assert cifar.SPECS["cifar10"].url + cifar.SPECS["cifar10"].archive == \
        "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"


def test_missing_everywhere_names_the_places(data_dir):
    with pytest.raises(datasets.DatasetNotFoundError) as info:
        datasets.load("cifar10", "train", download=False)
    text = str(info.value)
    assert "\n" not in text and str(data_dir / "cifar10") in text and "cifar-10-python.tar.gz" in text


@pytest.mark.parametrize("damage, match", [
    ("truncate", "truncated or corrupt archive"),
    ("member", "has no cifar-10-batches-py/data_batch_3"),
    ("pickle", "not a CIFAR python batch"),
    ("shape", "must be uint8 N x 3072"),
    ("labels", "10 classes"),
    ("code", "refusing to build"),
])
def test_damaged_files_give_one_line(tmp_path, damage, match):
    members, _ = cifar10_members()
    if damage == "member":
        del members["cifar-10-batches-py/data_batch_3"]
    elif damage == "pickle":
        members["cifar-10-batches-py/data_batch_2"] = members["cifar-10-batches-py/data_batch_2"][:50]
    elif damage == "shape":
        members["cifar-10-batches-py/data_batch_1"] = python_batch(batch_rows(2, 0)[:, :100], [1, 2])
    elif damage == "labels":
        members["cifar-10-batches-py/data_batch_1"] = python_batch(batch_rows(2, 0), [1, 10])
    elif damage == "code":
        class Evil:
            def __reduce__(self):
                return (print, ("pwned",))
        members["cifar-10-batches-py/data_batch_1"] = pickle.dumps(Evil())
    path = write_tar(tmp_path / "cifar-10-python.tar.gz", members)
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(datasets.DatasetError, match=match) as info:
        datasets.load("cifar10", "train", root=tmp_path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_short_binary_record(tmp_path):
    (tmp_path / "test_batch.bin").write_bytes(b"\x01" * 3000)
    with pytest.raises(datasets.DatasetError, match="3000 bytes is not a whole number of 3073"):
        datasets.load("cifar10", "test", root=tmp_path)


def test_unknown_name_suggests():
    with pytest.raises(datasets.DatasetError, match="did you mean 'cifar10'"):
        datasets.load("cifar01", "train")


def test_mindspore_cifar100_dataset_columns(tmp_path):
    from framework.dataset import Cifar100Dataset

    rows = batch_rows(5, 11)
    coarse, fine = np.array([1, 19, 0, 7, 3], np.uint8), np.array([5, 99, 0, 42, 17], np.uint8)
    records = np.concatenate([coarse[:, None], fine[:, None], rows], axis=1)
    (tmp_path / "train.bin").write_bytes(records[:3].tobytes())
    (tmp_path / "test.bin").write_bytes(records[3:].tobytes())
    ds = Cifar100Dataset(str(tmp_path), usage="all", shuffle=False)
    assert ds.get_col_names() == ["image", "coarse_label", "fine_label"]
    got = list(ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    np.testing.assert_array_equal(np.stack([r[0] for r in got]), as_hwc(rows))
    assert [int(r[1]) for r in got] == coarse.tolist() and [int(r[2]) for r in got] == fine.tolist()
    assert len(list(Cifar100Dataset(str(tmp_path), usage="test").create_tuple_iterator())) == 2
    (tmp_path / "test.bin").unlink()
    with pytest.raises(datasets.DatasetError, match="lacks test.bin"):
        Cifar100Dataset(str(tmp_path), usage="test")
