"""Cell: the base class of every network building block (MindSpore's ``nn.Cell``)."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..autograd.vmap import ENSEMBLES as _vmap_ensembles
from ..common.tensor import Tensor
from ..context import GRAPH_MODE, get_context
from ..frontend import convert
from ..graph_mode import JitFunction
from ..interpreters import current, is_tracing
from ..parameter import Parameter, ParameterTuple
from .cell_hooks import CellHooks, HookHandle, call_with_hooks, has_hooks  # noqa: F401
from .inputs import check_inputs


class Cell(CellHooks):
    """Define ``construct``; calling the cell runs it.

    Parameters and sub-cells assigned as attributes are registered in order. With
    ``auto_prefix`` (the default) a sub-cell's parameters are renamed with its
    attribute path (``fc1.weight``), as in MindSpore. Hooks (``register_forward_hook``
    ...) run around every call, in both modes: :mod:`framework.nn.cell_hooks`.
    """

    def __init__(self, auto_prefix: bool = True, flags: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_param_tuples", OrderedDict())
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "training", False)
        if flags:
            self.add_flags(**flags)

    # -- registration --------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}: call super().__init__() before assigning {name!r}"
            )
        held = self._params.get(name)
        if held is not None and isinstance(value, Tensor) and not isinstance(value, Parameter):
            held.set_data(value)  # MindSpore: assigning a Tensor updates the Parameter's value
            return
        self._params.pop(name, None)
        self._cells.pop(name, None)
        self._param_tuples.pop(name, None)
        if isinstance(value, ParameterTuple):
            self._param_tuples[name] = value
        elif isinstance(value, Parameter):
            if value.name is None or value._auto_named:
                value.name = name
            self._params[name] = value
        elif isinstance(value, Cell):
            if self._auto_prefix:
                _name_after_paths(value, name)
            self._cells[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._params.pop(name, None)
        self._cells.pop(name, None)
        self._param_tuples.pop(name, None)
        object.__delattr__(self, name)

    def insert_child_to_cell(self, name: str, cell: Cell) -> None:
        setattr(self, name, cell)

    def insert_param_to_cell(self, name: str, param: Parameter) -> None:
        setattr(self, name, param)

    # -- running ---------------------------------------------------------------------------
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        low = self.__dict__.get("_float_dtype")
        if low is not None:  # to_float: the inputs cast first, the parameters at use
            args, kwargs = _cast_floats(args, low), _cast_floats(kwargs, low)
        if is_tracing():  # graph mode, inside a traced function: trace through, remember self
            with current().in_cell(self):
                if low is None:
                    return call_with_hooks(self, convert(self.construct), args, kwargs)
                with _params_cast(self, low):
                    return call_with_hooks(self, convert(self.construct), args, kwargs)
        if get_context("mode") == GRAPH_MODE:
            signature = self.__dict__.get("_input_signature")
            if signature is not None:
                check_inputs(signature, args, type(self).__name__)
            runner = self.__dict__.get("_graph_runner")
            if runner is None:
                fn = self.construct if low is None else self._construct_cast
                if has_hooks(self):  # compiled with the hooks it has now, as MindSpore's
                    fn = self._hooked(fn)
                runner = JitFunction(fn, name=type(self).__name__, cell=self)
                runner.signature_of = self.get_inputs  # its dynamic axes compile symbolically
                object.__setattr__(self, "_graph_runner", runner)
            return runner(*args, **kwargs)
        if low is None:
            if has_hooks(self):
                return call_with_hooks(self, self.construct, args, kwargs)
            return self.construct(*args, **kwargs)
        with _params_cast(self, low):
            return call_with_hooks(self, self.construct, args, kwargs)

    def _hooked(self, construct: Any) -> Any:
        """``construct`` with this cell's hooks around it (what a top-level graph-mode call
        of a cell with hooks compiles); it keeps construct's signature."""
        @functools.wraps(construct)
        def entry(*args: Any, **kwargs: Any) -> Any:
            return call_with_hooks(self, convert(construct), args, kwargs)

        return entry

    def set_inputs(self, *inputs: Any) -> None:
        """MindSpore's input signature (``Tensor(shape=[None, 3], dtype=...)`` placeholders):
        graph-mode calls are checked against it (:func:`framework.nn.inputs.check_inputs`)
        and compiled once for every size of its dynamic axes where the function allows it
        (:mod:`framework.dynamic_shapes`); PyNative calls ignore it, as MindSpore's do."""
        object.__setattr__(self, "_input_signature", tuple(inputs))

    def get_inputs(self) -> tuple[Any, ...] | None:
        return self.__dict__.get("_input_signature")

    # MindSpore's names of the graphs compiled for this cell (``flops_collection(phase)``
    # reads them, :mod:`framework.flops`): ``phase`` prefixes each, ``compile_cache`` holds
    # them all, ``current_phase`` the latest.
    @property
    def phase(self) -> str:
        return self.__dict__.get("_phase", "train")

    @phase.setter
    def phase(self, value: str) -> None:
        object.__setattr__(self, "_phase", value)

    @property
    def compile_cache(self) -> set[str]:
        return self.__dict__.setdefault("_compile_cache", set())

    @property
    def current_phase(self) -> str:
        return self.__dict__.get("_current_phase", "")

    def _construct_cast(self, *args: Any, **kwargs: Any) -> Any:
        """``construct`` with this cell's parameters cast to its ``to_float`` dtype (what a
        compiled top-level call traces)."""
        with _params_cast(self, self._float_dtype):
            return convert(self.construct)(*args, **kwargs)

    def set_train(self, mode: bool = True) -> Cell:
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", mode)
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:  # MindSpore compatibility
        return self

    def add_flags(self, **flags: Any) -> Cell:
        """MindSpore's compiler hints (``loop_can_unroll=True`` ...): recorded in
        ``_func_graph_flags``, changing nothing here. Returns the cell."""
        object.__setattr__(self, "_func_graph_flags", {**getattr(self, "_func_graph_flags", {}), **flags})
        return self

    def to_float(self, dst_type: Any) -> Cell:
        """MindSpore's ``to_float(dst_type)``: from now on this cell and every cell inside it
        compute in ``dst_type`` (``ms.float16``, ``ms.bfloat16`` or ``ms.float32``): their
        floating-point Tensor inputs are cast before ``construct`` (integers are left alone)
        and their trainable floating-point parameters are cast where ``construct`` reads them;
        the parameters themselves keep their dtype (float32 master weights: gradients flow
        back through the cast). A cell inside may be set apart afterwards (``bn.to_float(
        ms.float32)``). Returns the cell."""
        from .. import dtype as mstype

        if dst_type not in (mstype.float16, mstype.bfloat16, mstype.float32):
            raise ValueError(f"{type(self).__name__}.to_float: dst_type must be ms.float16, "
                             f"ms.bfloat16 or ms.float32, got {dst_type!r}")
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_float_dtype", dst_type)
            cell.__dict__.pop("_graph_runner", None)  # compiled with the former dtype
        return self

    # -- traversal ---------------------------------------------------------------------------
    def cells_and_names(self, prefix: str = "") -> Iterator[tuple[str, Cell]]:
        seen: set[int] = set()
        stack = [(prefix, self)]
        while stack:
            name, cell = stack.pop()
            if id(cell) in seen:
                continue
            seen.add(id(cell))
            yield name, cell
            children = [(f"{name}.{n}" if name else n, c) for n, c in cell._cells.items()]
            stack.extend(reversed(children))

    def name_cells(self) -> OrderedDict[str, Cell]:
        return OrderedDict(self._cells)

    def cells(self) -> list[Cell]:
        return list(self._cells.values())

    def parameters_and_names(self, name_prefix: str = "",
                             expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """(dotted attribute path, parameter) for every parameter, each once.

        Parameters held in ParameterTuple attributes (an optimizer's moments) are
        listed under their own names.
        """
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix) if expand else [(name_prefix, self)]
        for cell_name, cell in cells:
            for pname, param in cell._params.items():
                if id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{cell_name}.{pname}" if cell_name else pname), param
            for group in cell._param_tuples.values():
                for param in group:
                    if id(param) not in seen:
                        seen.add(id(param))
                        yield param.name, param

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self) -> OrderedDict[str, Parameter]:
        return OrderedDict((p.name, p) for p in self.get_parameters())

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict[Parameter, Parameter]:
        """MindSpore's ``{original: initialized}`` map; parameters here are initialized when
        they are made, so each maps to itself."""
        return {p: p for p in self.get_parameters()}

    def extend_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        """MindSpore 2.10's form: ``Name(extra)`` for a leaf with a one-line
        ``extend_repr``, else ``Name(`` then the extra lines and ``(name): child`` lines
        indented by two, then ``)``."""
        extra = self.extend_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): " + repr(cell).replace("\n", "\n  ")
                    for name, cell in self._cells.items()]
        if not children and len(lines) <= 1:
            return f"{type(self).__name__}({extra})"
        body = "".join(f"\n  {line}" for line in lines + children)
        return f"{type(self).__name__}({body}\n)"


def _name_after_paths(cell: Cell, prefix: str) -> None:
    """MindSpore's naming of a Cell's parameters when the Cell is assigned as ``prefix``: each
    becomes ``prefix.`` + its attribute path in the Cell (``features.1.moving_mean`` for the
    BatchNorm parameter created as ``"mean"``, ``block.cell_list.0.weight`` for a layer
    appended to a CellList before the block was assigned). A parameter reached twice keeps
    its first path; those of ParameterTuple attributes keep their names."""
    seen: set[int] = set()
    for path, held in cell.cells_and_names(prefix):
        for attribute, param in held._params.items():
            if id(param) not in seen:
                seen.add(id(param))
                param.name = f"{path}.{attribute}"


def _list_prefix(cells: OrderedDict[str, Cell]) -> str:
    """The path prefix a CellList/SequentialCell's items carry, read as MindSpore reads it
    from the name of the first item that has a parameter (``extra.cell_list.0.weight`` under
    key ``0``: ``extra.cell_list.``); empty when no item has one."""
    for key, cell in cells.items():
        first = next(iter(cell.parameters_and_names()), None)
        if first is not None:
            parts = first[1].name.split(".")
            if key in parts:
                at = len(parts) - 1 - parts[::-1].index(key)
                return "".join(part + "." for part in parts[:at])
            return ""
    return ""


def _append(container: Cell, cell: Cell) -> None:
    """``container.append(cell)``: the next index; with ``auto_prefix``, the new item's
    parameters are named as its siblings are (:func:`_list_prefix` + index + path)."""
    prefix = _list_prefix(container._cells) if container._auto_prefix else ""
    setattr(container, str(len(container._cells)), cell)
    if prefix:
        seen: set[int] = set()
        for _, param in cell.parameters_and_names():
            if id(param) not in seen:
                seen.add(id(param))
                param.name = prefix + param.name


class SequentialCell(Cell):
    """Cells run in order: ``SequentialCell([a, b])``, ``SequentialCell(a, b)`` or an
    OrderedDict of named cells."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict | dict):
            items = list(args[0].items())
        elif len(args) == 1 and isinstance(args[0], list | tuple):
            items = [(str(i), c) for i, c in enumerate(args[0])]
        else:
            items = [(str(i), c) for i, c in enumerate(args)]
        for name, cell in items:
            if not isinstance(cell, Cell):
                raise TypeError(f"SequentialCell: item {name!r} is a {type(cell).__name__}, not a Cell")
            setattr(self, name, cell)

    def __getitem__(self, index: int) -> Cell:
        return list(self._cells.values())[index]

    def __len__(self) -> int:
        return len(self._cells)

    def append(self, cell: Cell) -> SequentialCell:
        _append(self, cell)
        return self

    def construct(self, x: Any) -> Any:
        for cell in self._cells.values():
            x = cell(x)
        return x


class CellList(Cell):
    def __init__(self, cells: Any = ()) -> None:
        super().__init__()
        for i, cell in enumerate(cells):
            setattr(self, str(i), cell)

    def __getitem__(self, index: int) -> Cell:
        return list(self._cells.values())[index]

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._cells.values())

    def __len__(self) -> int:
        return len(self._cells)

    def append(self, cell: Cell) -> None:
        _append(self, cell)


_vmap_ensembles.append(CellList)  # ops.vmap(CellList([...])): one cell per example


def _cast_floats(values: Any, dtype: Any) -> Any:
    """``values`` (args tuple, kwargs dict, nested lists/tuples) with every floating-point
    Tensor cast to ``dtype``."""
    from .. import ops

    if isinstance(values, Tensor):
        return ops.cast(values, dtype) if values.dtype.is_floating and values.dtype != dtype \
            else values
    if isinstance(values, dict):
        return {k: _cast_floats(v, dtype) for k, v in values.items()}
    if type(values) in (tuple, list):
        return type(values)(_cast_floats(v, dtype) for v in values)
    return values


@contextmanager
def _params_cast(cell: Cell, dtype: Any) -> Iterator[None]:
    """While ``construct`` runs: the cell's trainable floating-point parameters read as their
    casts to ``dtype`` (one cast per call, recorded: the gradient reaches the parameter)."""
    from .. import ops

    swapped = [(name, p) for name, p in cell._params.items()
               if p.requires_grad and p.dtype.is_floating and p.dtype != dtype
               and cell.__dict__.get(name) is p]
    for name, param in swapped:
        object.__setattr__(cell, name, ops.cast(param, dtype))
    try:
        yield
    finally:
        for name, param in swapped:
            object.__setattr__(cell, name, param)


class StatelessCell(Cell):
    """A cell built with no arguments (``nn.ReLU()``), as MindSpore's activation cells are."""

    def __init__(self) -> None:
        super().__init__()
