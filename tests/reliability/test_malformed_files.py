"""Malformed files are one line naming the file, never a raw exception: our checkpoint with
a valid digest over a header of the wrong shape (a ``KeyError``, ``TypeError``,
``ValueError``, or ``RecursionError`` for a 100,000-deep header before), MindSpore ``.ckpt``
entries of 65 dimensions or shape ``[2**62, 0]`` (NumPy's ``ValueError``), a MindIR
attribute nested 20,000 deep (``RecursionError``), MindRecord headers of the wrong types or
nested deeply, and an index with text or a page id of -1 (``TypeError``, ``ValueError`` or
``OSError``, not ``MindRecordError``), and an 8 GiB checkpoint under a 4 GiB address-space
limit (``MemoryError`` with an empty message: now refused by its size before reading)."""

from __future__ import annotations

import hashlib
import json
import resource
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from framework.checkpoint_formats import CheckpointError
from framework.mindrecord import FileReader, FileWriter, MindRecordError
from framework.protowire import put_varint
from framework.serialization import load_checkpoint, read_arrays

from .helpers import ROOT, TINY, env, experiment, one_error, train


def _ours(path: Path, header: str | bytes, data: bytes = b"") -> Path:
    """A twinmode checkpoint of ``header`` (JSON text) and ``data``, with a valid digest."""
    head = header.encode() if isinstance(header, str) else header
    body = b"TWMCKPT1" + len(head).to_bytes(8, "little") + head + data
    path.write_bytes(body + hashlib.sha256(body).digest())
    return path


def _header(tensors: object, data_bytes: int = 4, metadata: str = "{}") -> str:
    return (f'{{"format": 1, "tensors": {json.dumps(tensors)}, "data_bytes": {data_bytes}, '
            f'"metadata": {metadata}}}')


ENTRY = {"name": "w", "dtype": "float32", "shape": [1], "offset": 0, "nbytes": 4}
BAD_HEADERS = {
    "tensors-not-a-list": (_header(5), "'tensors' is not a list"),
    "entry-not-a-mapping": (_header(["w"]), "tensor entry 0 is str, not a mapping"),
    "no-dtype": (_header([{k: v for k, v in ENTRY.items() if k != "dtype"}]),
                 "tensor entry 0 ('w') has an unknown dtype None"),
    "unknown-dtype": (_header([{**ENTRY, "dtype": "float99"}]),
                      "tensor entry 0 ('w') has an unknown dtype 'float99'"),
    "shape-text": (_header([{**ENTRY, "shape": "1"}]), "tensor entry 0 ('w') has a bad shape '1'"),
    "offset-past-data": (_header([{**ENTRY, "offset": 8}]),
                         "tensor entry 0 ('w') has bytes 8..+4 outside the 4 bytes of tensor data"),
    "wrong-size": (_header([{**ENTRY, "shape": [2]}]),
                   "tensor entry 0 ('w') holds 4 bytes, but float32 [2] needs 8"),
    "impossible-shape": (_header([{**ENTRY, "shape": [2**62, 2**62, 0], "nbytes": 0}]),
                         "tensor 'w' has shape [4611686018427387904, 4611686018427387904, 0], which is "
                         "not an array"),
    "metadata-100k-deep": (_header([ENTRY], metadata="[" * 100_000 + "]" * 100_000), "corrupt header"),
    "metadata-a-list": (_header([ENTRY], metadata="[]"), "'metadata' is not a mapping"),
}


@pytest.mark.parametrize("case", list(BAD_HEADERS))
def test_our_checkpoint_with_a_valid_digest_and_a_bad_header_is_one_line(tmp_path: Path, case: str) -> None:
    header, words = BAD_HEADERS[case]
    path = _ours(tmp_path / f"{case}.ckpt", header, b"\0" * 4)
    for read in (read_arrays, load_checkpoint):
        with pytest.raises(CheckpointError) as caught:
            read(path)
        message = str(caught.value)
        assert message.startswith(f"{path} has a corrupt header") and words in message
        assert "\n" not in message


def test_a_bad_header_is_exit_2_from_the_command_line(tmp_path: Path) -> None:
    path = _ours(tmp_path / "deep.ckpt", _header([ENTRY], metadata="[" * 100_000 + "]" * 100_000),
                 b"\0" * 4)
    line = one_error(train(tmp_path, "eval", str(experiment(tmp_path, TINY)), "--checkpoint", str(path)))
    assert line == f"error: {path} has a corrupt header"


def _varint(value: int) -> bytes:
    out = bytearray()
    put_varint(out, value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _mindspore(path: Path, dims: list[int], content: bytes) -> Path:
    """A MindSpore ``.ckpt`` of one Float32 entry ``w`` (protobuf written out by hand)."""
    tensor = b"".join(_varint(1 << 3) + _varint(d) for d in dims)
    tensor += _field(2, b"Float32") + _field(3, content)
    path.write_bytes(_field(1, _field(1, b"w") + _field(2, tensor)))
    return path


@pytest.mark.parametrize("dims, content, words", [
    ([1] * 65, b"\0" * 4, "entry 'w' has 65 dimensions; an array has at most 64"),
    ([2**62, 0], b"", "entry 'w' has shape [4611686018427387904, 0], which is not an array"),
])
def test_a_mindspore_checkpoint_of_impossible_shape_is_one_line(tmp_path: Path, dims, content, words) -> None:
    path = _mindspore(tmp_path / "w.ckpt", dims, content)
    with pytest.raises(CheckpointError) as caught:
        load_checkpoint(path)
    message = str(caught.value)
    assert message.startswith(f"{path} is not a valid MindSpore checkpoint: {words}")
    assert "\n" not in message


def test_a_mindir_attribute_nested_20000_deep_is_one_line(tmp_path: Path) -> None:
    from framework.mindir import MindIRError, load

    tuple_type = _varint(16 << 3) + _varint(20)  # AttributeProto.type = TUPLE
    attribute = tuple_type
    for _ in range(20_000):
        attribute = _field(17, attribute) + tuple_type  # AttributeProto.values
    node = _field(2, b"c") + _field(4, b"Constant") + _field(5, _field(1, b"value") + attribute)
    path = tmp_path / "deep.mindir"
    path.write_bytes(_field(7, _field(1, node)))  # ModelProto.graph.node
    with pytest.raises(MindIRError) as caught:
        load(str(path))
    assert str(caught.value).startswith(f"load: {str(path)!r} is not a MindIR file (protobuf: messages "
                                        "nested more than 100 deep")


def _mindrecord(tmp_path: Path) -> str:
    path = str(tmp_path / "d.mindrecord")
    writer = FileWriter(path, overwrite=True)
    writer.set_header_size(1 << 16)
    writer.add_schema({"label": {"type": "int32"}, "data": {"type": "bytes"}}, "test")
    writer.write_raw_data([{"label": i, "data": bytes([i]) * 3} for i in range(4)])
    writer.commit()
    return path


def _rewrite_header(path: str, change) -> None:
    with open(path, "r+b") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        text = change(header)
        text = text if isinstance(text, bytes) else json.dumps(text).encode()
        f.seek(0)
        f.write(struct.pack("<Q", len(text)) + text)


@pytest.mark.parametrize("change, words", [
    (lambda h: {**h, "header_size": str(h["header_size"])}, "header_size is '65536', not a whole number"),
    (lambda h: {**h, "page_size": [h["page_size"]]}, "page_size is [33554432], not a whole number"),
    (lambda h: {**h, "schema": ["label"]}, "no schema"),
    (lambda h: {**h, "schema": [{**h["schema"][0], "blob_fields": 3}]}, "blob_fields is 3"),
    (lambda h: {**h, "shard_addresses": [7]}, "shard_addresses is [7]"),
    (lambda h: json.dumps({**h, "statistics": "X"}).replace('"X"', "[" * 20_000 + "]" * 20_000).encode(),
     "nested too deeply"),
])
def test_a_mindrecord_header_of_wrong_types_is_a_mindrecord_error(tmp_path: Path, change, words) -> None:
    path = _mindrecord(tmp_path)
    _rewrite_header(path, change)
    with pytest.raises(MindRecordError) as caught:
        FileReader(path)
    assert str(caught.value).startswith(f"{path}: damaged MindRecord header ({words}")


@pytest.mark.parametrize("column, value", [("PAGE_OFFSET_RAW", "eight"), ("PAGE_ID_RAW", -1),
                                           ("PAGE_ID_BLOB", -1), ("PAGE_OFFSET_BLOB_END", 2.5)])
def test_a_mindrecord_index_of_text_or_negative_pages_is_a_mindrecord_error(tmp_path: Path, column: str,
                                                                            value: object) -> None:
    path = _mindrecord(tmp_path)
    con = sqlite3.connect(path + ".db")
    con.execute(f"UPDATE INDEXES SET {column} = ? WHERE ROW_ID = 1", (value,))
    con.commit()
    con.close()
    with pytest.raises(MindRecordError) as caught:
        list(FileReader(path).get_next())
    assert str(caught.value) == (f"{path}.db: row 1 has a page id or offset {value!r}, not a whole number "
                                 ">= 0")


def _limited_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


@pytest.mark.slow
def test_an_8_gib_checkpoint_under_a_4_gib_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    """A sparse file (no 8 GiB are written): a twinmode header claiming 8 GiB of tensor data."""
    count = 2 << 30  # float32: 8 GiB
    head = json.dumps({"format": 1, "data_bytes": 4 * count, "metadata": {},
                       "tensors": [{"name": "w", "dtype": "float32", "shape": [count], "offset": 0,
                                    "nbytes": 4 * count}]}).encode()
    path = tmp_path / "huge.ckpt"
    with open(path, "wb") as f:
        f.write(b"TWMCKPT1" + len(head).to_bytes(8, "little") + head)
        f.truncate(16 + len(head) + 4 * count + 32)
    file = experiment(tmp_path, TINY)
    done = subprocess.run([sys.executable, "-m", "trainer.cli", "eval", str(file), "--checkpoint", str(path)],
                          cwd=tmp_path, env=env(tmp_path, PYTHONPATH=str(ROOT)), capture_output=True,
                          text=True, timeout=120, preexec_fn=_limited_memory)  # noqa: PLW1509
    line = one_error(done)
    assert line.startswith(f"error: checkpoint {path} is 8.0 GiB, more than the ")
    assert line.endswith(" GiB of memory this process can still take; load it on a machine with more "
                         "memory")
