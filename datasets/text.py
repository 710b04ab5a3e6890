"""Text for language models: a corpus found or downloaded (Tiny Shakespeare) or any UTF-8
file, split into training and validation text (the first ``1 - val_fraction`` and the
rest, as nanoGPT does), and encoded by a tokenizer (datasets/tokenizers.py).

``tinyshakespeare`` is searched as every dataset is (``$TRAIN_DATA_DIR``, the system and
cache folders, datasets/sources.py) as ``tinyshakespeare/input.txt``, and downloaded with
its MD5 checked when absent; an explicit ``root`` is the only place looked at. A file that
is empty, not UTF-8, or binary (a NUL byte) is refused with one line naming it.
"""

from __future__ import annotations

import os
from pathlib import Path

from .download import download_file
from .errors import ChecksumError, DatasetError, DatasetNotFoundError, DownloadError
from .sources import cache_dir, search_paths

SHAKESPEARE = "tinyshakespeare"
SHAKESPEARE_FILE = "input.txt"
SHAKESPEARE_MIRRORS = ("https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/",)
SHAKESPEARE_MD5 = ("6fb458f1232090904fb40fe944165e91",)
MAX_TEXT_BYTES = 1 << 30  # a text corpus held in memory: 1 GiB at most


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of ``path`` (one-line :class:`DatasetError` when it cannot be one)."""
    path = Path(path)
    if path.is_dir():
        raise DatasetError(f"{path} is a folder; give the path of a UTF-8 text file (dataset.root)")
    try:
        size = path.stat().st_size
    except OSError as error:
        raise DatasetNotFoundError(f"{path}: cannot read the text file ({error.strerror}); fix "
                                   "dataset.root (the path of a UTF-8 .txt file)") from None
    if size == 0:
        raise DatasetError(f"{path} is empty; a language model needs text to train on")
    if size > MAX_TEXT_BYTES:
        raise DatasetError(f"{path} is {size / 2**30:.1f} GiB; text corpora up to 1 GiB are read "
                           "into memory")
    raw = path.read_bytes()
    if b"\0" in raw[:1 << 20]:
        raise DatasetError(f"{path} is a binary file (it holds NUL bytes), not UTF-8 text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        raise DatasetError(f"{path}:{line}: not UTF-8 text (byte {error.start}: "
                           f"{raw[error.start:error.start + 1]!r}); convert it to UTF-8") from None


def find_shakespeare(root: str | os.PathLike[str] | None = None, *, download: bool = True,
                     progress: bool = True) -> Path:
    """``tinyshakespeare/input.txt`` from the search path, downloaded into the cache when
    absent and ``download`` is set. An explicit ``root`` is the only place looked at (the
    file itself, or a folder holding ``input.txt`` or ``tinyshakespeare/input.txt``): a
    root without the text must not train on another copy found elsewhere."""
    if root is not None:
        return _in_root(Path(root).expanduser())
    places = search_paths(SHAKESPEARE, root, fallback=False)
    for folder, _, _ in places:
        if (folder / SHAKESPEARE_FILE).is_file():
            return folder / SHAKESPEARE_FILE
    looked = [f"{folder / SHAKESPEARE_FILE} ({label}: "
              f"{'no such folder' if not folder.is_dir() else 'not there'})" for folder, label, _ in places]
    if not os.environ.get("TRAIN_DATA_DIR"):
        looked.append("$TRAIN_DATA_DIR (not set)")
    head = f"{SHAKESPEARE}: {SHAKESPEARE_FILE} not found; looked in: {'; '.join(looked)}"
    fix = (f"set TRAIN_DATA_DIR to a folder containing {SHAKESPEARE}/{SHAKESPEARE_FILE}, or "
           "dataset.root to the text file")
    if not download:
        raise DatasetNotFoundError(f"{head}; download disabled; {fix}")
    try:
        return download_file(SHAKESPEARE_FILE, cache_dir() / SHAKESPEARE, SHAKESPEARE_MIRRORS,
                             SHAKESPEARE_MD5, progress=progress)
    except ChecksumError:
        raise
    except DownloadError as error:
        raise DatasetNotFoundError(f"{head}; {error}; {fix}") from None


def _in_root(root: Path) -> Path:
    if root.is_file():
        return root
    candidates = (root / SHAKESPEARE_FILE, root / SHAKESPEARE / SHAKESPEARE_FILE)
    for path in candidates:
        if path.is_file():
            return path
    what = "no such folder" if not root.exists() else "not there"
    raise DatasetNotFoundError(
        f"dataset.root {root} holds no {SHAKESPEARE} text: {' and '.join(map(str, candidates))} "
        f"({what}); fix dataset.root, or remove it to search $TRAIN_DATA_DIR/{SHAKESPEARE}, the "
        "system and cache folders (downloaded when absent)")


def corpus(name: str, root: str | os.PathLike[str] | None = None, *,
           download: bool = True) -> tuple[str, Path]:
    """``(text, path)`` of ``dataset.name: tinyshakespeare`` or ``text`` (``root``: the file)."""
    if name == SHAKESPEARE:
        path = find_shakespeare(root, download=download)
    elif name == "text":
        if root is None:
            raise DatasetError("dataset.name: text needs dataset.root: the path of a UTF-8 .txt file")
        path = Path(root).expanduser()
    else:
        raise DatasetError(f"unknown text dataset {name!r}; known: {SHAKESPEARE}, text")
    return read_text(path), path


def split_text(text: str, val_fraction: float) -> tuple[str, str]:
    """The first ``1 - val_fraction`` of the characters and the rest (nanoGPT's split)."""
    if not 0.0 <= val_fraction < 1.0:
        raise DatasetError(f"dataset.val_fraction must be in [0, 1), got {val_fraction}")
    cut = int(len(text) * (1.0 - val_fraction))
    return text[:cut], text[cut:]
