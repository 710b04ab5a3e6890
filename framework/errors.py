"""Locating the user's source line for error messages."""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


@dataclass(frozen=True)
class SourceLocation:
    filename: str
    lineno: int
    function: str

    @property
    def code(self) -> str:
        return linecache.getline(self.filename, self.lineno).strip()

    @property
    def shown(self) -> str:
        """``file:line`` with the path as people read it (:func:`shown_path`)."""
        return f"{shown_path(self.filename)}:{self.lineno}"

    def __str__(self) -> str:
        text = f"{self.filename}:{self.lineno} in {self.function}"
        code = self.code
        return f"{text}: `{code}`" if code else text


def shown_path(filename: str) -> str:
    """A source path as people read it: relative to the working directory when inside it,
    else from its top package's folder (``trainer/models/lenet.py``, ``framework/optim/
    momentum.py``), else from the ``sys.path`` entry holding it; else as given."""
    path = os.path.abspath(filename)
    here = os.getcwd().rstrip(os.sep) + os.sep
    if path.startswith(here):
        return path[len(here):]
    folder = os.path.dirname(path)
    top = folder
    while os.path.isfile(os.path.join(top, "__init__.py")):
        top = os.path.dirname(top)
    if top != folder:
        return os.path.relpath(path, top)
    roots = [os.path.abspath(p).rstrip(os.sep) + os.sep for p in sys.path if p]
    inside = [r for r in roots if r != os.sep and path.startswith(r)]
    return os.path.relpath(path, max(inside, key=len)) if inside else filename


def user_location(skip: int = 1) -> SourceLocation | None:
    """The innermost stack frame outside the framework package (the user's code)."""
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR):
            return SourceLocation(filename, frame.f_lineno, _function_name(frame.f_code))
        frame = frame.f_back
    return None


_LIBRARY_DIRS = tuple(os.path.join(_PACKAGE_DIR, d) + os.sep for d in ("nn", "optim"))
_TRACE_BOUNDARY = tuple(os.path.join(_PACKAGE_DIR, f) for f in ("graph_mode.py", "staging.py"))


def graph_location(skip: int = 1) -> SourceLocation | None:
    """The source line an IR node is credited to: the innermost frame of the user's code
    inside the traced function; for a node only library code made (a loss or optimizer
    that a wrapper cell calls), the innermost frame in ``framework/nn`` or
    ``framework/optim`` (``loss.py:.. construct``, ``momentum.py:.. apply``). Frames
    outside the traced function (the caller of the compiled function) are never chosen."""
    frame = sys._getframe(skip)
    library = None
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if path in _TRACE_BOUNDARY:
            break
        if not path.startswith(_PACKAGE_DIR):
            return SourceLocation(frame.f_code.co_filename, frame.f_lineno, _function_name(frame.f_code))
        if library is None and path.startswith(_LIBRARY_DIRS):
            library = SourceLocation(frame.f_code.co_filename, frame.f_lineno, _function_name(frame.f_code))
        frame = frame.f_back
    return library


def _function_name(code: object) -> str:
    """The user's function, also inside the branch/loop functions graph mode's source
    frontend generates (``construct.<locals>._cf_then_1`` is ``construct``)."""
    name = code.co_name
    if not name.startswith("_cf_"):
        return name
    parts = [p for p in code.co_qualname.split(".") if p != "<locals>" and not p.startswith("_cf_")]
    return parts[-1] if parts else name


def with_location(message: str, location: SourceLocation | None) -> str:
    return f"{message} (at {location})" if location is not None else message


class LabelError(ValueError):
    """A class label outside ``[0, classes)`` reached a loss: bad data rather than a bad
    program (the CLI exits 2 on it). Raised alike in both modes (``ops/range_check.py``)."""
