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

    def __str__(self) -> str:
        text = f"{self.filename}:{self.lineno} in {self.function}"
        code = self.code
        return f"{text}: `{code}`" if code else text


def user_location(skip: int = 1) -> SourceLocation | None:
    """The innermost stack frame outside the framework package (the user's code)."""
    frame = sys._getframe(skip)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR):
            return SourceLocation(filename, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return None


def with_location(message: str, location: SourceLocation | None) -> str:
    return f"{message} (at {location})" if location is not None else message
