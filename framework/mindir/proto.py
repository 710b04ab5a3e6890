"""MindSpore's ``load_mindir`` / ``save_mindir``: a MindIR file as an editable ``ModelProto``.

Contract (as MindSpore 2.10 behaves):

- ``load_mindir(file_name)`` decodes the file into a :class:`ModelProto`: every field of
  ``mind_ir.proto``'s messages (MindSpore 2.10's field numbers, :data:`MODEL`) by name, as a
  protobuf message reads: an absent scalar is its default (``""``, ``0``, ``False``, ``b""``),
  a repeated field a list, ``user_info`` (a ``map<string, string>``) a dict, a sub-message a
  message (present once set or written into). A file name that is not a str is a TypeError; a
  missing, unreadable or malformed file a ValueError naming it.
- ``save_mindir(model, file_name)`` encodes it back (fields in number order, as protobuf
  writes); ``.mindir`` is appended to a name without it, missing folders are made, and the file
  is written atomically and left read-only (as MindSpore leaves it). A model that is not a
  ModelProto, or a file name that is not a str, is a TypeError.
- Files written by MindSpore's ``export`` and by ours round-trip: ``ms.load`` + ``nn.GraphCell``
  (ours and MindSpore's) run the saved file, with the edits made (weights in ``raw_data``,
  ``user_info`` ...). Fields MindSpore 2.10 does not define are dropped, as by a protobuf
  message of its schema.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._io import atomic_write
from ..protowire import Schema, WireError, decode, encode

# mind_ir.proto's messages, as MindSpore 2.10 defines them: number -> (name, kind, repeated)
_ATTR: Schema = {}
_GRAPH: Schema = {}
_TENSOR: Schema = {}
_QUANT: Schema = {1: ("quant_algo_name", "str", False), 2: ("attribute", _ATTR, True)}
_TENSOR.update({
    1: ("dims", "int", True), 2: ("data_type", "int", False), 3: ("float_data", "float", True),
    4: ("int32_data", "int", True), 5: ("string_data", "bytes", True), 6: ("int64_data", "int", True),
    7: ("name", "str", False), 8: ("doc_string", "str", False), 9: ("raw_data", "bytes", False),
    10: ("double_data", "double", True), 11: ("uint64_data", "int", True),
    12: ("external_data", {1: ("location", "str", False), 2: ("offset", "int", False),
                           3: ("length", "int", False)}, False),
    13: ("ref_key", "str", False), 14: ("min_dims", "int", True), 15: ("max_dims", "int", True),
    16: ("compression_type", "int", False), 17: ("quant_params", _QUANT, True)})
_SCALAR_NODE: Schema = {1: ("scalar_op_type", "int", False), 2: ("in_index", "int", True),
                        3: ("value", "int", True)}
_ATTR.update({
    1: ("name", "str", False), 2: ("f", "float", False), 3: ("i", "int", False),
    4: ("d", "double", False), 5: ("s", "bytes", False), 6: ("t", _TENSOR, False),
    7: ("g", _GRAPH, False), 8: ("floats", "float", True), 9: ("doubles", "double", True),
    10: ("ints", "int", True), 11: ("strings", "bytes", True), 12: ("tensors", _TENSOR, True),
    13: ("graphs", _GRAPH, True), 14: ("doc_string", "str", False), 15: ("ref_attr_name", "str", False),
    16: ("type", "int", False), 17: ("values", _ATTR, True),
    18: ("seq_info", {1: ("is_dyn_len", "bool", False), 2: ("tuple_elem_item", _ATTR, False)}, False),
    19: ("functor", {1: ("type", "int", False), 2: ("name", "str", False),
                     3: ("values", _ATTR, True)}, False),
    20: ("graph_holder", {1: ("scalar_node", _SCALAR_NODE, True),
                          2: ("input_shape_index", "int", True)}, False)})
_NODE: Schema = {1: ("input", "str", True), 2: ("output", "str", True), 3: ("name", "str", False),
                 4: ("op_type", "str", False), 5: ("attribute", _ATTR, True), 6: ("doc_string", "str", False),
                 7: ("domain", "str", False), 8: ("node_attr", _ATTR, True), 9: ("primal_attr", _ATTR, True)}
_VALUE_INFO: Schema = {1: ("name", "str", False), 2: ("tensor", _TENSOR, True),
                       3: ("doc_string", "str", False), 4: ("denotation", "str", False),
                       5: ("attr_info", _ATTR, False)}
_MAP_TENSOR: Schema = {1: ("name", "str", False), 2: ("default_value", _ATTR, False),
                       3: ("key_tensor", _TENSOR, False), 4: ("value_tensor", _TENSOR, False),
                       5: ("status_tensor", _TENSOR, False)}
_GRAPH.update({
    1: ("node", _NODE, True), 2: ("name", "str", False), 3: ("parameter", _TENSOR, True),
    4: ("doc_string", "str", False), 5: ("input", _VALUE_INFO, True), 6: ("output", _VALUE_INFO, True),
    7: ("bprop_hash", "str", False), 8: ("attribute", _ATTR, True), 9: ("bprop_filepath", "str", False),
    10: ("map_parameter", _MAP_TENSOR, True)})
_PREPROCESS_OP: Schema = {1: ("input_columns", "str", False), 2: ("output_columns", "str", False),
                          3: ("project_columns", "str", False), 4: ("op_type", "str", False),
                          5: ("operations", "str", False), 6: ("offload", "bool", False)}
_LAYOUT: Schema = {
    1: ("name", "str", False), 2: ("device_arrangement_int", "int", True), 3: ("tensor_map_int", "int", True),
    4: ("slice_shape_int", "int", True), 5: ("field_size", "int", False), 6: ("uniform_split", "bool", False),
    7: ("opt_shard_group", "str", False), 8: ("pipeline_shared", "bool", False),
    9: ("is_send", "bool", False), 10: ("peer_rank", "int", False), 11: ("sr_tag", "int", False),
    12: ("opt_shard_slice_shape_int", "int", True)}
_PRIMITIVE: Schema = {1: ("name", "str", False), 2: ("op_type", "str", False), 3: ("attribute", _ATTR, True),
                      4: ("instance_name", "str", False), 5: ("prim_type", "int", False)}
_USER_INFO: Schema = {1: ("key", "str", False), 2: ("value", "str", False)}
MODEL: Schema = {
    1: ("ir_version", "str", False), 2: ("producer_name", "str", False),
    3: ("producer_version", "str", False), 4: ("domain", "str", False), 5: ("model_version", "str", False),
    6: ("doc_string", "str", False), 7: ("graph", _GRAPH, False), 8: ("functions", _GRAPH, True),
    9: ("preprocessor", {1: ("op", _PREPROCESS_OP, True)}, False),
    10: ("little_endian", "bool", False), 11: ("parallel", {1: ("layout", _LAYOUT, True)}, False),
    12: ("primitives", _PRIMITIVE, True), 13: ("mind_ir_version", "int", False),
    14: ("user_info", _USER_INFO, True)}
_MAPS = {id(MODEL): {"user_info"}}  # map<string, string> fields: a dict, entries on the wire
# proto defaults that are not the kind's zero (FunctorProto.type, PrimitiveProto.prim_type)
_DEFAULTS = {(id(_PRIMITIVE), "prim_type"): 1, (id(_ATTR[19][1]), "type"): 1}
_ZERO = {"str": "", "bytes": b"", "int": 0, "bool": False, "float": 0.0, "double": 0.0}


class Message:
    """A protobuf message of ``schema`` (see the module docstring): fields by attribute."""

    def __init__(self, schema: Schema, fields: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_schema", schema)
        object.__setattr__(self, "_spec", {name: (kind, rep) for name, kind, rep in schema.values()})
        object.__setattr__(self, "_fields", {})
        object.__setattr__(self, "_made", set())  # sub-messages made by reading, not written yet
        for name, value in (fields or {}).items():
            self._fields[name] = self._wrap(name, value)

    def _wrap(self, name: str, value: Any) -> Any:
        kind, repeated = self._spec[name]
        if name in _MAPS.get(id(self._schema), ()):
            return {e.get("key", ""): e.get("value", "") for e in value}
        if isinstance(kind, dict):
            return [Message(kind, v) for v in value] if repeated else Message(kind, value)
        if kind == "bytes":
            return [bytes(v) for v in value] if repeated else bytes(value)
        return list(value) if repeated else value

    def __getattr__(self, name: str) -> Any:
        spec = self._spec.get(name)
        if spec is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        if name in self._fields:
            return self._fields[name]
        kind, repeated = spec
        if repeated or isinstance(kind, dict):  # made on first use, as protobuf's are
            value = ({} if name in _MAPS.get(id(self._schema), ()) else []) if repeated else Message(kind)
            self._fields[name] = value
            self._made.add(name)
            return value
        return _DEFAULTS.get((id(self._schema), name), _ZERO[kind])

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._spec:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        self._fields[name] = value
        self._made.discard(name)

    def HasField(self, name: str) -> bool:  # noqa: N802  (protobuf's name)
        value = self._fields.get(name)
        return value is not None and not (name in self._made and isinstance(value, Message)
                                          and not value._dict())

    def _dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in self._fields.items():
            kind, repeated = self._spec[name]
            if name in _MAPS.get(id(self._schema), ()):
                out[name] = [{"key": k, "value": v} for k, v in value.items()]
            elif isinstance(kind, dict):
                if repeated:
                    out[name] = [v._dict() for v in value]
                elif name not in self._made or value._dict():  # one only read is not written
                    out[name] = value._dict()
            elif not repeated or value:
                out[name] = value
        return out

    def SerializeToString(self) -> bytes:  # noqa: N802
        return encode(self._schema, self._dict())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and self._schema is other._schema and \
            self.SerializeToString() == other.SerializeToString()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {', '.join(sorted(self._fields))}>"


class ModelProto(Message):
    """MindIR's top-level message (``mind_ir.ModelProto``)."""

    def __init__(self, fields: dict[str, Any] | None = None) -> None:
        super().__init__(MODEL, fields)

    @classmethod
    def FromString(cls, data: bytes) -> ModelProto:  # noqa: N802
        return cls(decode(memoryview(data), MODEL))


def _check_name(file_name: Any) -> str:
    if not isinstance(file_name, str):
        raise TypeError(f"The file name {file_name!r} must be string, but got {type(file_name)}.")
    return file_name


def load_mindir(file_name: str) -> ModelProto:
    """The MindIR file ``file_name`` as a :class:`ModelProto` (see the module docstring)."""
    path = os.path.abspath(_check_name(file_name))
    try:
        data = Path(path).read_bytes()
        return ModelProto.FromString(data)
    except (OSError, WireError) as error:
        raise ValueError(f"load_mindir: cannot read {path} as a MindIR file: {error}") from None


def save_mindir(model: ModelProto, file_name: str) -> None:
    """Write ``model`` to ``file_name`` (``.mindir`` appended when missing; read-only)."""
    if not isinstance(model, ModelProto):
        raise TypeError(f"For 'save_mindir', the argument 'model' must be ModelProto, but got {type(model)}.")
    name = _check_name(file_name)
    path = Path(os.path.abspath(name if name.endswith(".mindir") else name + ".mindir"))
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.chmod(0o600)  # the previous save left it read-only
    atomic_write(path, model.SerializeToString())
    path.chmod(0o400)
