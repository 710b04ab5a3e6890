"""The interface every interpreter implements (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Interpreter:
    tracing: bool = False
    mode: str = ""

    def __init__(self) -> None:
        self.phase = "forward"

    def apply(self, prim: Any, args: tuple) -> Any:
        raise NotImplementedError

    def assign(self, param: Any, value: Any) -> None:
        raise NotImplementedError

    def enter_cell(self, cell: Any) -> None:
        """A cell's construct is about to run; nothing to do unless tracing."""

    @contextmanager
    def in_cell(self, cell: Any) -> Iterator[None]:
        """While ``cell``'s construct runs (a tracing interpreter credits the nodes made
        meanwhile to the cell's path)."""
        self.enter_cell(cell)
        yield
