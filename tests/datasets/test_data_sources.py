"""Root resolution of named datasets: dataset.root, $TRAIN_DATA_DIR, /usr/share, cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import datasets
from datasets import DatasetError, DatasetNotFoundError, sources, write_idx

FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def make_split(folder: Path, split: str, n: int, fill: int = 0, gz: bool = True) -> None:
    """Write n 28x28 images (all pixels = fill) and labels 0..n-1 mod 10."""
    images, labels = FILES[split]
    suffix = ".gz" if gz else ""
    write_idx(folder / f"{images}{suffix}", np.full((n, 28, 28), fill, dtype=np.uint8))
    write_idx(folder / f"{labels}{suffix}", (np.arange(n) % 10).astype(np.uint8))


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Isolated TRAIN_DATA_DIR, system folder and cache, all empty."""
    dirs = {k: tmp_path / k for k in ("env", "system", "cache", "root")}
    for d in dirs.values():
        d.mkdir()
    monkeypatch.setenv("TRAIN_DATA_DIR", str(dirs["env"]))
    monkeypatch.setenv("XDG_CACHE_HOME", str(dirs["cache"]))
    monkeypatch.setattr(sources, "SYSTEM_DIR", dirs["system"])
    return dirs


def test_known_names() -> None:
    assert {"mnist", "fashion-mnist", "mnist-10k"} <= set(datasets.names())
    assert sources.get_spec("Fashion_MNIST").name == "fashion-mnist"
    with pytest.raises(DatasetError, match="unknown dataset 'imagenet'; known datasets: .*mnist"):
        datasets.load("imagenet")


def test_search_order(places: dict[str, Path]) -> None:
    got = [(str(p), label) for p, label, _ in sources.search_paths("fashion-mnist", "/data/x")]
    assert got == [
        ("/data/x", "root"),
        ("/data/x/fashion-mnist", "root"),
        (str(places["env"] / "fashion-mnist"), "$TRAIN_DATA_DIR"),
        (str(places["system"] / "fashion-mnist"), "system"),
        (str(places["cache"] / "twinmode" / "datasets" / "fashion-mnist"), "cache"),
    ]
    assert datasets.cache_dir() == places["cache"] / "twinmode" / "datasets"


def test_cache_default_is_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert datasets.cache_dir() == tmp_path / ".cache" / "twinmode" / "datasets"


@pytest.mark.parametrize(
    ("where", "fill"), [("root", 1), ("env", 2), ("system", 3), ("cache", 4)]
)
def test_each_place_and_precedence(places: dict[str, Path], where: str, fill: int) -> None:
    # Fill this place and every later one; the earliest must win.
    order = ["root", "env", "system", "cache"]
    for i, name in enumerate(order[order.index(where) :]):
        base = places[name] / "twinmode" / "datasets" if name == "cache" else places[name]
        make_split(base / "fashion-mnist", "test", 5, fill=fill + i)
    root = places["root"] if where == "root" else None
    x, y = datasets.load("fashion-mnist", "test", root=root)
    assert x.shape == (5, 28, 28) and x.dtype == np.uint8 and y.dtype == np.int32
    assert int(x[0, 0, 0]) == fill


def test_root_may_be_the_files_folder_and_raw_files(places: dict[str, Path]) -> None:
    make_split(places["root"], "train", 4, fill=9, gz=False)
    x, y = datasets.load("mnist-10k", "train", root=places["root"])
    assert x.shape == (4, 28, 28) and int(x.max()) == 9
    np.testing.assert_array_equal(y, [0, 1, 2, 3])


def test_dotted_file_names(places: dict[str, Path]) -> None:
    folder = places["env"] / "mnist-10k"
    write_idx(folder / "t10k-images.idx3-ubyte", np.zeros((2, 28, 28), np.uint8))
    write_idx(folder / "t10k-labels.idx1-ubyte", np.array([1, 2], np.uint8))
    assert datasets.load("mnist-10k", "test")[1].tolist() == [1, 2]


def test_explicit_root_without_files_is_an_error(places: dict[str, Path]) -> None:
    make_split(places["env"] / "fashion-mnist", "test", 3)  # elsewhere: not used
    with pytest.raises(DatasetNotFoundError, match="dataset.root .* holds no fashion-mnist test files"):
        datasets.load("fashion-mnist", "test", root=places["root"])


def test_mnist_falls_back_to_mnist_10k(places: dict[str, Path]) -> None:
    make_split(places["env"] / "mnist-10k", "train", 6, fill=5)
    with pytest.warns(UserWarning, match="no full mnist files found, using .*mnist-10k"):
        x, _ = datasets.load("mnist", "train")
    assert x.shape == (6, 28, 28)
    make_split(places["system"] / "mnist", "train", 7)  # a real mnist folder wins
    assert datasets.load("mnist", "train")[0].shape == (7, 28, 28)


def test_the_fallback_is_announced_once_per_process(places: dict[str, Path]) -> None:
    import warnings

    make_split(places["env"] / "mnist-10k", "train", 4)
    make_split(places["env"] / "mnist-10k", "test", 2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        datasets.load("mnist", "train")
        datasets.load("mnist", "test")
        datasets.load("mnist", "train")
    assert [str(w.message) for w in seen if "no full mnist" in str(w.message)] == [
        f"mnist: no full mnist files found, using {places['env'] / 'mnist-10k'} instead"]


def test_half_present_folder_is_skipped(places: dict[str, Path]) -> None:
    make_split(places["env"] / "mnist-10k", "test", 3)
    (places["env"] / "mnist-10k" / "t10k-labels-idx1-ubyte.gz").unlink()
    with pytest.raises(DatasetNotFoundError, match=r"missing t10k-labels-idx1-ubyte\[\.gz\]"):
        datasets.load("mnist-10k", "test")


def test_local_only_dataset_error(places: dict[str, Path]) -> None:
    with pytest.raises(DatasetNotFoundError) as info:
        datasets.load("mnist-10k", "train")
    message = str(info.value)
    assert "\n" not in message
    assert "train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz not found" in message
    for folder in (
        places["env"] / "mnist-10k",
        places["system"] / "mnist-10k",
        places["cache"] / "twinmode" / "datasets" / "mnist-10k",
    ):
        assert str(folder) in message
    assert "local-only (no download)" in message
    assert "$TRAIN_DATA_DIR (not set)" not in message
    assert "set TRAIN_DATA_DIR" in message and "dataset.root" in message


def test_unknown_split(places: dict[str, Path]) -> None:
    with pytest.raises(DatasetError, match="unknown split 'valid'"):
        datasets.load("fashion-mnist", "valid")


def test_download_disabled(places: dict[str, Path]) -> None:
    with pytest.raises(DatasetNotFoundError, match="download disabled"):
        datasets.load("fashion-mnist", "test", download=False)


def test_count_mismatch_via_load(places: dict[str, Path]) -> None:
    folder = places["env"] / "fashion-mnist"
    make_split(folder, "test", 4)
    write_idx(folder / "t10k-labels-idx1-ubyte.gz", np.zeros(3, np.uint8))
    with pytest.raises(DatasetError, match="has 4 images but .* has 3 labels"):
        datasets.load("fashion-mnist", "test")
