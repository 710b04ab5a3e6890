"""``python full_disk_script.py FOLDER ARGS...``: the ``train`` CLI (``train ARGS...``) with the
disk under ``FOLDER`` full, as the operating system reports it: creating a folder there, or
opening a file there for writing, fails with ``OSError(ENOSPC)``. Only Python's own entry
points to the OS are replaced (``open``, ``os.open``, ``os.mkdir``), nothing of the project's
code; a program the process starts (the linker) still writes (the tmpfs test covers that)."""

import builtins
import errno
import io
import os
import runpy
import sys

FULL = os.path.realpath(sys.argv[1])
sys.argv = ["train", *sys.argv[2:]]


def _on_full_disk(path: object) -> bool:
    if not isinstance(path, str | bytes | os.PathLike):
        return False  # a file descriptor
    resolved = os.path.realpath(os.fsdecode(path))
    return resolved == FULL or resolved.startswith(FULL + os.sep)


def _no_space(path: object) -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), os.fsdecode(path))


_open, _os_open, _mkdir = builtins.open, os.open, os.mkdir


def _full_open(file, mode="r", *args, **kwargs):
    if any(c in mode for c in "wax+") and _on_full_disk(file):
        raise _no_space(file)
    return _open(file, mode, *args, **kwargs)


def _full_os_open(path, flags, *args, **kwargs):
    if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and _on_full_disk(path):
        raise _no_space(path)
    return _os_open(path, flags, *args, **kwargs)


def _full_mkdir(path, *args, **kwargs):
    if _on_full_disk(path) and not os.path.isdir(path):
        raise _no_space(path)
    return _mkdir(path, *args, **kwargs)


builtins.open = io.open = _full_open
os.open, os.mkdir = _full_os_open, _full_mkdir
runpy.run_module("trainer.cli", run_name="__main__")
