"""``nn.CellDict``: named cells held as a dict (MindSpore's, after PyTorch's ModuleDict)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .cell import Cell, CellList, SequentialCell


class CellDict(Cell):
    """``CellDict(cells=None, auto_prefix=True)``: ``cells`` a mapping (its order kept) or
    pairs ``(key, cell)``. Keys are non-empty strings without '.' and not a Cell attribute;
    values are cells (not containers). Each cell is registered as a child under its key, so
    its parameters are named ``<key>.<name>`` below the dict. A CellDict is not callable
    (as MindSpore's); a ``construct`` indexes it: ``self.cells["conv"](x)``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        unknown = set(kwargs) - {"auto_prefix"}
        if unknown or len(args) > 1:
            raise TypeError(f"CellDict: takes one mapping or iterable of (key, cell) pairs and "
                            f"auto_prefix, got {len(args)} positional and {sorted(unknown)}")
        super().__init__(auto_prefix=kwargs.get("auto_prefix", True))
        if args:
            self.update(args[0])

    def _check(self, key: Any, cell: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"CellDict: a key must be a str, got {type(key).__name__} {key!r}")
        if key == "" or "." in key:
            raise KeyError(f"CellDict: a key can be neither empty nor contain '.', got {key!r}")
        if key not in self._cells and hasattr(self, key):
            raise KeyError(f"CellDict: the key {key!r} is an attribute of Cell; choose another")
        if cell is None or not isinstance(cell, Cell):
            raise TypeError(f"CellDict: {key!r} must map to a Cell, got {type(cell).__name__}")
        if isinstance(cell, CellDict | CellList | SequentialCell):
            raise TypeError(f"CellDict: {key!r} maps to a {type(cell).__name__}; containers "
                            "cannot be items")

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        self._check(key, cell)
        if key in self._cells:  # replaced where it stands, as a dict does
            self._cells[key] = cell
            object.__setattr__(self, key, cell)
        else:
            setattr(self, key, cell)

    def __delitem__(self, key: str) -> None:
        if key not in self._cells:
            raise KeyError(key)
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[str]:
        return iter(self._cells)

    def __contains__(self, key: object) -> bool:
        return key in self._cells

    def clear(self) -> None:
        for key in list(self._cells):
            delattr(self, key)

    def pop(self, key: str) -> Cell:
        cell = self[key]
        del self[key]
        return cell

    def keys(self) -> Any:
        return self._cells.keys()

    def values(self) -> Any:
        return self._cells.values()

    def items(self) -> Any:
        return self._cells.items()

    def update(self, cells: Any) -> None:
        """Add (or replace) the cells of a mapping or of ``(key, cell)`` pairs."""
        if isinstance(cells, Mapping | CellDict):
            pairs = list(cells.items())
        elif isinstance(cells, Iterable) and not isinstance(cells, str):
            pairs = []
            for i, item in enumerate(cells):
                if not isinstance(item, Iterable) or isinstance(item, str):
                    raise TypeError(f"CellDict.update: element {i} must be a (key, cell) pair, "
                                    f"got {type(item).__name__}")
                item = tuple(item)
                if len(item) != 2:
                    raise ValueError(f"CellDict.update: element {i} has length {len(item)}; "
                                     "2 is required")
                pairs.append(item)
        else:
            raise TypeError(f"CellDict.update: expected a mapping or an iterable of (key, cell) "
                            f"pairs, got {type(cells).__name__}")
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs: Any) -> Any:
        raise NotImplementedError("CellDict is not callable: call one of its cells, "
                                  "cells[key](x)")
