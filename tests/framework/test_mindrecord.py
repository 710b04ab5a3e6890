"""MindRecord files (framework.mindrecord, framework.dataset.MindDataset): round trips,
the on-disk bytes MindSpore 2.10 writes for known inputs, sharding, bad input and damaged files.

The byte-level answers (header fields, index rows, compressed ints, MessagePack) were read
from files MindSpore 2.10 wrote for the same inputs; the live comparison against MindSpore
is tests/mindspore_ref/test_mindrecord_interop.py.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct

import numpy as np
import pytest

from framework.dataset import MindDataset, NumpySlicesDataset, SequentialSampler
from framework.mindrecord import FileReader, FileWriter, MindRecordError, codec, msgpack, save_dataset

ALL_TYPES = {"s": {"type": "string"}, "i32": {"type": "int32"}, "i64": {"type": "int64"},
             "f32": {"type": "float32"}, "f64": {"type": "float64"}, "b": {"type": "bytes"},
             "a32": {"type": "int32", "shape": [-1]}, "a64": {"type": "int64", "shape": [2, -1]},
             "af32": {"type": "float32", "shape": [2]}, "af64": {"type": "float64", "shape": [-1, 3]}}


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        k = int(rng.integers(1, 6))
        out.append({"s": "héllo" * (i % 3) + str(i), "i32": int(rng.integers(-2**31, 2**31)),
                    "i64": int(rng.integers(-2**62, 2**62)), "f32": float(np.float32(rng.normal())),
                    "f64": float(rng.normal()), "b": rng.integers(0, 256, k).astype(np.uint8).tobytes(),
                    "a32": (rng.integers(-2**31, 2**31, k) >> rng.integers(0, 31, k)).astype(np.int32),
                    "a64": (rng.integers(-2**62, 2**62, 2 * k) >> rng.integers(0, 62, 2 * k)).reshape(2, k),
                    "af32": rng.normal(size=2).astype(np.float32), "af64": rng.normal(size=(k, 3))})
    return out


def _write(path, rows, schema=ALL_TYPES, calls=1, **kw):
    writer = FileWriter(path, overwrite=True, **{k: v for k, v in kw.items() if k == "shard_num"})
    if "page_size" in kw:
        writer.set_page_size(kw["page_size"])
    writer.add_schema(schema, "test")
    for part in np.array_split(np.arange(len(rows)), calls):
        writer.write_raw_data([rows[i] for i in part])
    writer.commit()


def _header(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + n])


def _same(got, want, name):
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want), name
    else:
        assert type(got) is type(want) and got == want, (name, got, want)


def test_every_type_round_trips_through_filereader_and_minddataset(tmp_path):
    rows = _rows(40)
    path = str(tmp_path / "all.mindrecord")
    _write(path, rows, calls=3)
    reader = FileReader(path)
    got = list(reader.get_next())
    reader.close()
    assert len(got) == 40
    for g, want in zip(got, rows):
        for name in ALL_TYPES:  # f32 values are float32-exact, so they come back equal
            _same(g[name], want[name], name)
    ds = MindDataset(path, shuffle=False)
    assert ds.get_col_names() == sorted(ALL_TYPES) and ds.get_dataset_size() == 40
    numeric = {"i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}
    for g, want in zip(ds.create_dict_iterator(output_numpy=True), rows):
        for name, dtype in numeric.items():
            _same(g[name], np.asarray(want[name], dtype=dtype), name)
        assert g["s"].shape == () and str(g["s"]) == want["s"]
        assert g["b"].shape == (1,) and g["b"].dtype.kind == "S"
        assert g["b"].tobytes()[:len(want["b"])] == want["b"]
        for name in ("a32", "a64", "af32", "af64"):
            _same(g[name], want[name], name)


def test_the_tutorial_file_has_mindspores_header_and_index(tmp_path):
    path = str(tmp_path / "test.mindrecord")
    writer = FileWriter(file_name=path, shard_num=1, overwrite=True)
    writer.add_schema({"file_name": {"type": "string"}, "label": {"type": "int32"},
                       "data": {"type": "int32", "shape": [-1]}}, "test_schema")
    for i in range(4):
        data = np.array([i] * (i + 1), np.int32)
        writer.write_raw_data([{"file_name": f"{i}.jpg", "label": i, "data": data}])
    writer.commit()
    header = _header(path)
    assert list(header) == ["header_size", "index_fields", "page", "page_size", "compression_size", "schema",
                            "shard_addresses", "shard_id", "statistics", "version"]
    assert header["compression_size"] == 10 and header["version"] == "3.0"
    assert header["schema"][0]["blob_fields"] == ["data"]
    assert [p["page_size"] for p in header["page"]] == [62, 128]
    assert os.path.getsize(path) == (1 << 24) + (1 << 25) + 128
    con = sqlite3.connect(path + ".db")
    assert con.execute("SELECT * FROM INDEXES").fetchall() == [
        (0, 1, 0, 32, 0, 0, 0, 14, 0, "0.jpg", 0, 0), (1, 1, 32, 64, 0, 0, 14, 29, 0, "1.jpg", 0, 1),
        (2, 1, 64, 96, 0, 0, 29, 45, 0, "2.jpg", 0, 2), (3, 1, 96, 128, 0, 0, 45, 62, 0, "3.jpg", 0, 3)]
    assert con.execute("SELECT NAME FROM SHARD_NAME").fetchall() == [("test.mindrecord",)]
    con.close()
    got = [(r["data"].tolist(), str(r["file_name"]), int(r["label"]))
           for r in MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True)]
    assert got == [([i] * (i + 1), f"{i}.jpg", i) for i in range(4)]


def test_int_compression_and_msgpack_bytes():
    assert codec.compress_ints(np.array([300, -1, 70000], np.int32)).hex() == "00000003482c01ff70110100"
    edges = np.array([127, 128, -128, -129, 32767, 32768, -32768, -32769, 2**31 - 1, 2**31, -2**31,
                      -2**31 - 1, 2**63 - 1, -2**63, 0], np.int64)
    packed = codec.compress_ints(edges)
    widths = [1, 2, 1, 2, 2, 4, 2, 4, 4, 8, 4, 8, 8, 8, 1]
    assert packed[4:8].hex() == "1166bbf0" and len(packed) == 4 + 4 + sum(widths)
    assert np.array_equal(codec.uncompress_ints(packed, np.int64), edges)
    packed = msgpack.pack({"file_name": "0.jpg", "label": 0})
    assert packed.hex() == "82a966696c655f6e616d65a5302e6a7067a56c6162656c00"
    assert msgpack.pack(2.25).hex() == "ca40100000" and msgpack.pack(0.1).hex() == "cb3fb999999999999a"
    for value in (0, -1, -33, 255, -129, 2**31, -2**63, 2**64 - 1, "x" * 300, b"\x00" * 70000, {"a": None}):
        assert msgpack.unpack(msgpack.pack(value), "t") == value


def test_shards_pages_and_row_groups(tmp_path):
    rng = np.random.default_rng(1)
    schema = {"s": {"type": "string"}, "n": {"type": "int64"}, "img": {"type": "bytes"}}
    rows = [{"s": "x" * int(rng.integers(1, 3000)), "n": i,
             "img": rng.integers(0, 256, int(rng.integers(1, 5000))).astype(np.uint8).tobytes()}
            for i in range(120)]
    base = str(tmp_path / "sh.mindrecord")
    _write(base, rows, schema, calls=4, shard_num=3, page_size=1 << 15)
    files = [f"{base}{i}" for i in range(3)]
    assert all(os.path.isfile(f) and os.path.isfile(f + ".db") for f in files)
    per_file = [[int(r["n"]) for r in MindDataset([f], shuffle=False).create_dict_iterator(output_numpy=True)]
                for f in files]
    assert sorted(sum(per_file, [])) == list(range(120)) and all(p == sorted(p) for p in per_file)
    every = list(MindDataset(files[1], shuffle=False).create_dict_iterator(output_numpy=True))
    assert [int(r["n"]) for r in every] == sum(per_file, [])
    for r in every:
        want = rows[int(r["n"])]
        assert str(r["s"]) == want["s"] and r["img"].tobytes()[:len(want["img"])] == want["img"]
    header = _header(files[0])
    assert len(header["page"]) > 4 and all(p["page_size"] <= 1 << 15 for p in header["page"])
    assert header["shard_addresses"] == [os.path.basename(f) for f in files]


def test_minddataset_columns_shards_samples_and_batch(tmp_path):
    path = str(tmp_path / "m.mindrecord")
    schema = {"x": {"type": "float32", "shape": [3]}, "y": {"type": "int32"}}
    rows = [{"x": np.full(3, i, np.float32), "y": i} for i in range(11)]
    _write(path, rows, schema)
    ds = MindDataset(path, columns_list=["y", "x"], shuffle=False)
    first = next(iter(ds.create_tuple_iterator(output_numpy=True)))
    assert ds.get_col_names() == ["y", "x"] and int(first[0]) == 0 and first[1].shape == (3,)
    order = np.arange(11)
    for k in (3, 4):
        padded = np.resize(order, -(-11 // k) * k)
        for sid in range(k):
            got = [int(r["y"]) for r in MindDataset(path, shuffle=False, num_shards=k, shard_id=sid)
                   .create_dict_iterator(output_numpy=True)]
            assert got == padded[sid::k].tolist()
    shuffled = [int(r["y"]) for r in MindDataset(path, shuffle=True).create_dict_iterator(output_numpy=True)]
    assert sorted(shuffled) == list(range(11))
    assert MindDataset(path, shuffle=False, num_samples=5).get_dataset_size() == 5
    sampled = MindDataset(path, sampler=SequentialSampler(2, 3)).create_dict_iterator(output_numpy=True)
    assert [int(r["y"]) for r in sampled] == [2, 3, 4]
    batch = next(MindDataset(path, shuffle=False).batch(4).create_dict_iterator(output_numpy=True))
    assert batch["x"].shape == (4, 3) and batch["y"].tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("schema, words", [
    ({"a": {"type": "int8"}}, "type"), ({"a": {"type": "string", "shape": [2]}}, "cannot have a shape"),
    ({"a": {"type": "int32", "shape": [-1, -1]}}, "at most one -1"),
    ({"1a": {"type": "int32"}}, "field name"),
    ({}, "non-empty")])
def test_bad_schemas_are_refused(tmp_path, schema, words):
    writer = FileWriter(str(tmp_path / "bad.mindrecord"))
    with pytest.raises(MindRecordError, match=words):
        writer.add_schema(schema)


@pytest.mark.parametrize("row, words", [
    ({"n": 1}, "'v' is missing"), ({"n": np.int64(1), "v": np.zeros(2, np.int32)}, "'n' needs a int32"),
    ({"n": 2**31, "v": np.zeros(2, np.int32)}, "'n' needs a int32"),
    ({"n": 1, "v": np.zeros(2, np.int64)}, "needs a int32 ndarray, got int64"),
    ({"n": 1, "v": np.zeros(3, np.int32)}, "do not fit shape"), ({"n": 1, "v": [1, 2]}, "got list")])
def test_rows_that_do_not_fit_the_schema_are_refused_and_nothing_is_left(tmp_path, row, words):
    path = tmp_path / "rows.mindrecord"
    writer = FileWriter(str(path))
    writer.add_schema({"n": {"type": "int32"}, "v": {"type": "int32", "shape": [-1, 2]}})
    writer.write_raw_data([{"n": 0, "v": np.zeros(2, np.int32)}])
    with pytest.raises(MindRecordError, match=f"rows.mindrecord: write_raw_data row 1: .*{words}"):
        writer.write_raw_data([{"n": 1, "v": np.zeros(4, np.int32)}, row])
    assert not path.exists()  # nothing under the final name before commit
    writer.commit()
    back = MindDataset(str(path), shuffle=False).create_dict_iterator(output_numpy=True)
    assert [int(r["n"]) for r in back] == [0]
    assert sorted(os.listdir(tmp_path)) == ["rows.mindrecord", "rows.mindrecord.db"]


def test_existing_files_need_overwrite_and_failed_commits_leave_nothing(tmp_path):
    path = tmp_path / "x.mindrecord"
    _write(str(path), [{"n": 1}], {"n": {"type": "int32"}})
    with pytest.raises(MindRecordError, match="already exists; pass overwrite=True"):
        FileWriter(str(path))
    big = tmp_path / "big.mindrecord"
    writer = FileWriter(str(big))
    writer.set_header_size(1 << 14)
    writer.set_page_size(1 << 15)
    writer.add_schema({"img": {"type": "bytes"}})
    writer.write_raw_data([{"img": b"\x01" * 20000} for _ in range(120)])  # 120 pages: header > 16 KB
    with pytest.raises(MindRecordError, match="header needs .* bytes, more than the header size 16384"):
        writer.commit()
    assert sorted(os.listdir(tmp_path)) == ["x.mindrecord", "x.mindrecord.db"]
    writer = FileWriter(str(big), overwrite=True)
    writer.set_page_size(1 << 15)
    writer.add_schema({"img": {"type": "bytes"}})
    with pytest.raises(MindRecordError, match="more than the page size 32768"):
        writer.write_raw_data([{"img": b"\x01" * 40000}])


def test_damaged_or_incomplete_files_give_one_clear_line(tmp_path):
    path = str(tmp_path / "d.mindrecord")
    rows = _rows(6)
    _write(path, rows)
    os.rename(path + ".db", path + ".db.away")
    with pytest.raises(MindRecordError, match=r"d.mindrecord: its index file d.mindrecord.db is missing"):
        MindDataset(path)
    os.rename(path + ".db.away", path + ".db")
    data = bytearray(open(path, "rb").read(200))
    with open(path, "r+b") as f:
        f.write(b"\x00" * 8)
    with pytest.raises(MindRecordError, match="d.mindrecord: damaged MindRecord header"):
        FileReader(path)
    with open(path, "r+b") as f:
        f.write(bytes(data[:20]) + b"#" + bytes(data[21:]))
    with pytest.raises(MindRecordError, match="d.mindrecord: damaged MindRecord header"):
        MindDataset(path)
    with open(path, "r+b") as f:
        f.write(bytes(data))
    header = _header(path)
    raw_page = next(p for p in header["page"] if p["page_type"] == "RAW_DATA")
    raw_at = header["header_size"] + raw_page["page_id"] * header["page_size"]
    with open(path, "r+b") as f:
        f.seek(raw_at + 8)
        f.write(b"\xc1")  # a MessagePack tag that is never used
    with pytest.raises(MindRecordError, match="d.mindrecord: row 0: damaged record"):
        list(MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True))
    os.truncate(path, raw_at + 40)
    with pytest.raises(MindRecordError, match="d.mindrecord: truncated"):
        FileReader(path)


def test_missing_shards_and_mixed_schemas_are_named(tmp_path):
    base = str(tmp_path / "s.mindrecord")
    _write(base, [{"n": i} for i in range(6)], {"n": {"type": "int32"}}, shard_num=2)
    other = str(tmp_path / "o.mindrecord")
    _write(other, [{"n": 1.5}], {"n": {"type": "float64"}})
    with pytest.raises(MindRecordError, match="o.mindrecord has schema"):
        MindDataset([base + "0", other])
    os.remove(base + "1")
    missing = r"s.mindrecord0: its header lists shard files that are missing: .*s.mindrecord1"
    with pytest.raises(MindRecordError, match=missing):
        MindDataset(base + "0")
    assert MindDataset([base + "0"]).get_dataset_size() == 3
    with pytest.raises(MindRecordError, match="columns_list"):
        MindDataset([base + "0"], columns_list=["zz"])


def test_save_dataset_types_and_files(tmp_path):
    data = {"u8": np.arange(6, dtype=np.uint8).reshape(3, 2), "b": np.array([True, False, True]),
            "f16": np.ones((3, 2), np.float16) / 3, "u32": np.arange(3, dtype=np.uint32),
            "f64": np.arange(12.0).reshape(3, 2, 2), "s": np.array(["a", "bc", "d"]),
            "i16": np.arange(3, dtype=np.int16)}
    path = str(tmp_path / "sv.mindrecord")
    NumpySlicesDataset(data, shuffle=False).save(path)  # Dataset.save is save_dataset
    schema = _header(path)["schema"][0]["schema"]
    assert schema == {"b": {"type": "int32"}, "f16": {"shape": [-1], "type": "float32"},
                      "f64": {"shape": [-1, 2], "type": "float64"}, "i16": {"type": "int32"},
                      "s": {"type": "string"}, "u32": {"type": "int64"},
                      "u8": {"shape": [-1], "type": "int32"}}
    got = list(MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True))
    for i, row in enumerate(got):
        _same(row["u8"], data["u8"][i].astype(np.int32), "u8")
        _same(row["f16"], data["f16"][i].astype(np.float32), "f16")
        _same(row["f64"], data["f64"][i], "f64")
        _same(row["b"], np.asarray(data["b"][i], np.int32), "b")
        assert str(row["s"]) == data["s"][i]
    two = str(tmp_path / "two.mindrecord")
    save_dataset(NumpySlicesDataset({"x": np.arange(10)}, shuffle=False).batch(3), two, num_files=2)
    parts = [[r["x"].tolist() for r in MindDataset([f"{two}{k}"], shuffle=False)
              .create_dict_iterator(output_numpy=True)] for k in range(2)]
    assert parts == [[[0, 1, 2], [6, 7, 8]], [[3, 4, 5], [9]]]
    with pytest.raises(MindRecordError, match="already exists"):
        save_dataset(NumpySlicesDataset({"x": np.arange(3)}), path)
    with pytest.raises(MindRecordError, match="file_type must be 'mindrecord'"):
        save_dataset(NumpySlicesDataset({"x": np.arange(3)}), str(tmp_path / "t.tfrecord"),
                     file_type="tfrecord")


def test_blob_only_rows_and_shards_without_rows(tmp_path):
    base = str(tmp_path / "e.mindrecord")
    _write(base, [{"x": np.arange(3, dtype=np.int32)}, {"x": np.arange(4, dtype=np.int32)}],
           {"x": {"type": "int32", "shape": [-1]}}, shard_num=3)
    empty = _header(base + "2")
    assert empty["page"] is None and empty["index_fields"] is None
    assert os.path.getsize(base + "2") == 8 + len(json.dumps(empty, separators=(",", ":")))
    header = _header(base + "0")
    raw = next(p for p in header["page"] if p["page_type"] == "RAW_DATA")
    with open(base + "0", "rb") as f:
        f.seek(header["header_size"] + raw["page_id"] * header["page_size"])
        assert f.read(9) == b"\x01" + b"\x00" * 7 + b"\xc0"  # no scalar fields: MessagePack nil
    back = MindDataset(base + "1", shuffle=False).create_dict_iterator(output_numpy=True)
    got = [r["x"].tolist() for r in back]
    assert got == [[0, 1, 2], [0, 1, 2, 3]]
