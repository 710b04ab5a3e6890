"""Download with mirrors, MD5 verification and atomic writes (standard library ``urllib``).

Mirrors are URL prefixes tried in turn; ``file://`` prefixes work too, which is how the
tests exercise this module without a network.  A file is streamed into a temporary file
in the destination folder, its MD5 is checked, and only then is it moved into place with
``os.replace``, so a partial or corrupt download never appears under the final name.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import urllib.error
import urllib.request
import zlib
from collections.abc import Collection, Sequence
from pathlib import Path

from tqdm import tqdm

from .errors import ChecksumError, DownloadError

_CHUNK = 1 << 20
_USER_AGENT = "twinmode-datasets/0.1 (python urllib)"


def md5_of_file(path: str | os.PathLike[str]) -> str:
    """Hex MD5 of a file's bytes, read in chunks."""
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def checksum_matches(path: str | os.PathLike[str], checksums: Collection[str]) -> tuple[bool, str]:
    """Whether the file's MD5, or for a gzip file the MD5 of its content, is in ``checksums``.

    Accepting the content MD5 as well lets a re-compressed copy of an official file (e.g.
    Debian's, whose gzip headers differ) verify against the same list.  Returns the file's
    MD5 as well, for error messages.
    """
    wanted = {c.lower() for c in checksums}
    digest = md5_of_file(path)
    if digest in wanted:
        return True, digest
    with open(path, "rb") as handle:
        is_gzip = handle.read(2) == b"\x1f\x8b"
    if is_gzip:
        try:
            content = gzip.decompress(Path(path).read_bytes())
        except (OSError, EOFError, zlib.error):
            return False, digest
        if hashlib.md5(content, usedforsecurity=False).hexdigest() in wanted:
            return True, digest
    return False, digest


def _join(mirror: str, filename: str) -> str:
    return mirror if mirror.endswith(filename) else f"{mirror.rstrip('/')}/{filename}"


def _fetch(url: str, target: Path, desc: str, timeout: float, progress: bool) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    with urllib.request.urlopen(request, timeout=timeout) as response, open(target, "wb") as out:
        total = response.headers.get("Content-Length")
        with tqdm(
            total=int(total) if total and total.isdigit() else None,
            unit="B",
            unit_scale=True,
            unit_divisor=1024,
            desc=desc,
            disable=not progress,
            leave=False,
        ) as bar:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
                bar.update(len(chunk))


def download_file(
    filename: str,
    dest_dir: str | os.PathLike[str],
    mirrors: Sequence[str],
    checksums: Collection[str],
    *,
    timeout: float = 30.0,
    progress: bool = True,
) -> Path:
    """Download ``filename`` from the first mirror that serves it with a valid checksum.

    Raises :class:`ChecksumError` when a mirror served bad bytes and no other mirror served
    good ones, :class:`DownloadError` when no mirror could be reached; both are one line and
    list every URL tried.
    """
    if not mirrors:
        raise DownloadError(f"{filename}: no download mirrors configured")
    if not checksums:
        raise DownloadError(f"{filename}: refusing to download without a known MD5 checksum")
    dest = Path(dest_dir) / filename
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"{dest.parent}: cannot create folder ({exc.strerror})") from exc
    failures: list[str] = []
    bad_checksum = False
    for mirror in mirrors:
        url = _join(mirror, filename)
        fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{filename}.", suffix=".part")
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            _fetch(url, tmp, filename, timeout, progress)
            ok, digest = checksum_matches(tmp, checksums)
            if not ok:
                bad_checksum = True
                expected = " or ".join(sorted(checksums))
                failures.append(f"{url}: checksum mismatch (md5 {digest}, expected {expected})")
                continue
            os.replace(tmp, dest)
            return dest
        except urllib.error.HTTPError as exc:
            failures.append(f"{url}: HTTP {exc.code} {exc.reason}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc
            failures.append(f"{url}: {reason}")
        finally:
            tmp.unlink(missing_ok=True)
    summary = "; ".join(failures)
    if bad_checksum:
        raise ChecksumError(f"{dest}: checksum mismatch after download, file discarded ({summary})")
    raise DownloadError(f"{dest}: download failed ({summary})")
