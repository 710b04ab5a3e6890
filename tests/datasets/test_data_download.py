"""Downloads through file:// and local http:// mirrors: checksums, atomic writes, errors."""

from __future__ import annotations

import functools
import gzip
import hashlib
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import datasets
from datasets import ChecksumError, DatasetNotFoundError, DatasetSpec, DownloadError, sources
from datasets.idx import encode_idx

NAMES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
RNG = np.random.default_rng(0)
ARRAYS = {
    "train-images-idx3-ubyte.gz": RNG.integers(0, 256, (6, 28, 28), dtype=np.uint8),
    "train-labels-idx1-ubyte.gz": np.array([3, 1, 4, 1, 5, 9], dtype=np.uint8),
    "t10k-images-idx3-ubyte.gz": RNG.integers(0, 256, (2, 28, 28), dtype=np.uint8),
    "t10k-labels-idx1-ubyte.gz": np.array([2, 6], dtype=np.uint8),
}


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def serve_files(folder: Path, level: int = 9) -> dict[str, bytes]:
    """Write the tiny dataset as .gz files into folder; return their bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, array in ARRAYS.items():
        out[name] = gzip.compress(encode_idx(array), compresslevel=level, mtime=0)
        (folder / name).write_bytes(out[name])
    return out


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    dirs = {k: tmp_path / k for k in ("data", "system", "cache", "mirror", "bad")}
    monkeypatch.setenv("TRAIN_DATA_DIR", str(dirs["data"]))
    monkeypatch.setenv("XDG_CACHE_HOME", str(dirs["cache"]))
    monkeypatch.setattr(sources, "SYSTEM_DIR", dirs["system"])
    dirs["target"] = dirs["cache"] / "twinmode" / "datasets" / "tiny"
    return dirs


def register_tiny(monkeypatch: pytest.MonkeyPatch, mirrors: list[str], sums: dict) -> None:
    spec = DatasetSpec(name="tiny", checksums=sums, mirrors=tuple(mirrors))
    monkeypatch.setitem(sources._REGISTRY, "tiny", spec)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_download_from_second_mirror(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve_files(env["mirror"])
    sums = {name: (md5(data),) for name, data in served.items()}
    register_tiny(monkeypatch, [(env["bad"] / "none").as_uri(), env["mirror"].as_uri()], sums)
    x, y = datasets.load("tiny", "train")
    np.testing.assert_array_equal(x, ARRAYS["train-images-idx3-ubyte.gz"])
    assert y.tolist() == [3, 1, 4, 1, 5, 9]
    assert leftovers(env["target"]) == sorted(NAMES["train"])  # only the split asked for
    for name in NAMES["train"]:
        assert (env["target"] / name).read_bytes() == served[name]
    # Cached now: works with the mirrors gone.
    for name in served:
        (env["mirror"] / name).unlink()
    assert datasets.load("tiny", "train")[1].tolist() == [3, 1, 4, 1, 5, 9]


def test_checksum_mismatch(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve_files(env["mirror"])
    sums = {name: (md5(data),) for name, data in served.items()}
    sums["t10k-images-idx3-ubyte.gz"] = ("0" * 32,)
    register_tiny(monkeypatch, [env["mirror"].as_uri()], sums)
    with pytest.raises(ChecksumError) as info:
        datasets.load("tiny", "test")
    message = str(info.value)
    assert "\n" not in message
    assert "t10k-images-idx3-ubyte.gz: checksum mismatch after download, file discarded" in message
    assert f"md5 {md5(served['t10k-images-idx3-ubyte.gz'])}, expected {'0' * 32}" in message
    assert "t10k-images-idx3-ubyte.gz" not in leftovers(env["target"])
    assert not [n for n in leftovers(env["target"]) if n.endswith(".part")]


def test_bad_mirror_then_good_mirror(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve_files(env["mirror"])
    serve_files(env["bad"])
    (env["bad"] / "t10k-labels-idx1-ubyte.gz").write_bytes(b"tampered")
    sums = {name: (md5(data),) for name, data in served.items()}
    register_tiny(monkeypatch, [env["bad"].as_uri(), env["mirror"].as_uri()], sums)
    assert datasets.load("tiny", "test")[1].tolist() == [2, 6]


def test_recompressed_file_verifies_by_content(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve_files(env["mirror"], level=1)  # different bytes, same IDX content
    sums = {name: ("f" * 32, md5(encode_idx(ARRAYS[name]))) for name in served}
    assert all(md5(served[name]) not in sums[name] for name in served)
    register_tiny(monkeypatch, [env["mirror"].as_uri()], sums)
    assert datasets.load("tiny", "test")[0].shape == (2, 28, 28)


def test_offline_error_lists_everything(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    mirrors = [(env["bad"] / "a").as_uri(), (env["bad"] / "b").as_uri()]
    register_tiny(monkeypatch, mirrors, {name: ("0" * 32,) for name in ARRAYS})
    with pytest.raises(DatasetNotFoundError) as info:
        datasets.load("tiny", "train")
    message = str(info.value)
    assert "\n" not in message
    assert "train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz not found" in message
    for place in (env["data"] / "tiny", env["system"] / "tiny", env["target"]):
        assert str(place) in message
    for mirror in mirrors:
        assert f"{mirror}/train-images-idx3-ubyte.gz" in message
    assert "set TRAIN_DATA_DIR" in message and "dataset.root" in message
    monkeypatch.delenv("TRAIN_DATA_DIR")
    with pytest.raises(DatasetNotFoundError, match=r"\$TRAIN_DATA_DIR \(not set\)"):
        datasets.load("tiny", "train")
    assert not [n for n in leftovers(env["target"]) if n.endswith(".part")]


def test_failed_download_keeps_existing_file(tmp_path: Path) -> None:
    mirror, dest = tmp_path / "mirror", tmp_path / "dest"
    mirror.mkdir()
    dest.mkdir()
    (mirror / "f.bin").write_bytes(b"new content")
    (dest / "f.bin").write_bytes(b"old content")
    with pytest.raises(ChecksumError, match=r"f\.bin: checksum mismatch"):
        datasets.download_file("f.bin", dest, [mirror.as_uri()], ["0" * 32], progress=False)
    assert (dest / "f.bin").read_bytes() == b"old content"
    assert leftovers(dest) == ["f.bin"]
    path = datasets.download_file("f.bin", dest, [mirror.as_uri()], [md5(b"new content")])
    assert path.read_bytes() == b"new content" and leftovers(dest) == ["f.bin"]


def test_download_needs_checksum_and_mirror(tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match="without a known MD5"):
        datasets.download_file("f", tmp_path, ["file:///x"], [])
    with pytest.raises(DownloadError, match="no download mirrors"):
        datasets.download_file("f", tmp_path, [], ["0" * 32])


@pytest.fixture
def http_mirror(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    (root / "mnist").mkdir(parents=True)
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()


def test_http_mirror_after_404(http_mirror: tuple[str, Path], tmp_path: Path) -> None:
    url, root = http_mirror
    data = gzip.compress(encode_idx(ARRAYS["t10k-labels-idx1-ubyte.gz"]))
    (root / "mnist" / "l.gz").write_bytes(data)
    path = datasets.download_file(
        "l.gz", tmp_path / "d", [f"{url}/missing/", f"{url}/mnist/"], [md5(data)], progress=True
    )
    assert path.read_bytes() == data
    with pytest.raises(DownloadError, match=r"missing/l\.gz: HTTP 404 File not found"):
        datasets.download_file("l.gz", tmp_path / "e", [f"{url}/missing"], [md5(data)])


def test_registered_checksums_and_mirrors() -> None:
    mnist, fashion = sources.get_spec("mnist"), sources.get_spec("fashion-mnist")
    assert mnist.checksums["train-images-idx3-ubyte.gz"][0] == "f68b3c2dcbeaaa9fbdd348bbdeb94873"
    assert mnist.checksums["t10k-labels-idx1-ubyte.gz"][0] == "ec29112dd5afa0611ce80d1b7f02629c"
    assert fashion.checksums["train-images-idx3-ubyte.gz"][0] == "8d4fb7e6c68d591d4c3dfef9ec88bf0d"
    assert fashion.checksums["t10k-labels-idx1-ubyte.gz"][0] == "bb300cfdad3c16e7a12a480ee83cd310"
    assert "https://ossci-datasets.s3.amazonaws.com/mnist/" in mnist.mirrors
    assert len(fashion.mirrors) >= 2 and not sources.get_spec("mnist-10k").mirrors
