"""The interface every interpreter implements (see the package docstring)."""

from __future__ import annotations

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
