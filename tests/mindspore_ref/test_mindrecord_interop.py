"""MindRecord files across engines: MindSpore 2.10 writes -> we read, we write -> MindSpore reads.

MindSpore (``$MINDSPORE_PYTHON``, skipped without it) writes every case of
:mod:`tests.mindspore_ref.mindrecord_script` and dumps the rows it wrote; we write the same
rows with the same options; then MindSpore's ``MindDataset``/``FileReader`` and ours read all
the files. Every reading must give the written rows, with MindSpore's dtypes and shapes.
Single-shard files must be the very bytes MindSpore writes (the data file, and the rows of
its SQLite index); with pages that overflow, all but one page size in the header agree.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest

from framework.dataset import MindDataset, NumpySlicesDataset
from framework.mindrecord import FileReader, FileWriter, save_dataset
from tests.mindspore_ref import mindrecord_script
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore

pytestmark = needs_mindspore
IDENTICAL = ("tutorial", "all_types", "scalars_only", "indexed")


def _decode(value):
    if isinstance(value, dict) and "bytes" in value:
        return bytes.fromhex(value["bytes"])
    if isinstance(value, dict):
        return np.frombuffer(bytes.fromhex(value["hex"]), np.dtype(value["dtype"])).reshape(value["shape"])
    return value


def _ms(*args, cwd):
    env = {**os.environ, "GLOG_v": "3"}
    done = subprocess.run([MINDSPORE_PYTHON, mindrecord_script.__file__, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def _write_ours(path, case):
    writer = FileWriter(path, shard_num=case.get("shard_num", 1), overwrite=True)
    if "header_size" in case:
        writer.set_header_size(case["header_size"])
        writer.set_page_size(case["page_size"])
    writer.add_schema(case["schema"], case.get("desc"))
    if "index" in case:
        writer.add_index(case["index"])
    for rows in case["calls"]:
        writer.write_raw_data([{k: _decode(v) for k, v in r.items()} for r in rows])
    writer.commit()


def _read_ours(path):
    data = MindDataset(path, shuffle=False)
    rows = [{k: mindrecord_script.encode(v) for k, v in r.items()}
            for r in data.create_dict_iterator(output_numpy=True)]
    reader = FileReader(path)
    plain = [{k: mindrecord_script.encode(v) for k, v in r.items()} for r in reader.get_next()]
    reader.close()
    return {"columns": data.get_col_names(), "dataset": rows, "reader": plain}


def _key(row):
    return json.dumps(row, sort_keys=True)


def _written(case):
    """The rows as FileReader gives them back: arrays in the schema's shape, the rest as written."""
    out = []
    for rows in case["calls"]:
        for row in rows:
            got = {}
            for name, spec in case["schema"].items():
                value = _decode(row[name])
                if "shape" in spec:
                    value = value.reshape(spec["shape"])
                if isinstance(value, float) and value.is_integer():
                    value = int(value)  # FileReader gives whole floats as ints
                got[name] = mindrecord_script.encode(value)
            out.append(got)
    return out


@pytest.fixture(scope="module")
def readings(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mindrecord")
    _ms("write", str(folder), cwd=folder)
    cases = json.loads((folder / "cases.json").read_text())
    (folder / "ours").mkdir()
    files = {}
    for name, case in cases.items():
        suffix = "0" if case.get("shard_num", 1) > 1 else ""
        _write_ours(str(folder / "ours" / f"{name}.mindrecord"), case)
        files[name] = {who: str(folder / who / f"{name}.mindrecord{suffix}") for who in ("ms", "ours")}
    paths = [p for f in files.values() for p in f.values()]
    _ms("read", str(folder / "read.json"), *paths, cwd=folder)
    by_ms = json.loads((folder / "read.json").read_text())
    return cases, files, by_ms, folder


@pytest.mark.parametrize("name", list(mindrecord_script.cases()))
def test_every_reader_gives_the_written_rows(readings, name):
    cases, files, by_ms, _ = readings
    case = cases[name]
    want = sorted(_key(r) for r in _written(case))
    results = {f"{reader} reads {writer}": result
               for writer, path in files[name].items()
               for reader, result in (("MindSpore", by_ms[path]), ("we", _read_ours(path)))}
    for label, result in results.items():
        assert sorted(_key(r) for r in result["reader"]) == want, f"{name}: FileReader: {label}"
        assert result["columns"] == sorted(case["schema"]), label
    ms_on_ms = results["MindSpore reads ms"]["dataset"]
    for label, result in results.items():  # MindDataset: same values, dtypes and shapes, same order
        if case.get("shard_num", 1) == 1 or label.endswith(" ms"):
            assert result["dataset"] == ms_on_ms, f"{name}: MindDataset: {label}"
        else:  # our shard split differs (MindSpore gives the extra rows to random shards)
            assert sorted(map(_key, result["dataset"])) == sorted(map(_key, ms_on_ms)), label


@pytest.mark.parametrize("name", IDENTICAL + ("pages",))
def test_single_shard_files_are_mindspores_bytes(readings, name):
    _, files, _, _ = readings
    ms, ours = (Path(files[name][who]) for who in ("ms", "ours"))
    tables = []
    for path in (ms, ours):
        con = sqlite3.connect(f"{path}.db")
        tables.append([con.execute("SELECT sql FROM sqlite_master").fetchall(),
                       con.execute("SELECT * FROM INDEXES").fetchall(),
                       con.execute("SELECT * FROM SHARD_NAME").fetchall()])
        con.close()
    assert tables[0] == tables[1]
    if name in IDENTICAL:
        assert ms.read_bytes() == ours.read_bytes()
    else:
        header = 1 << 14
        assert ms.read_bytes()[header:] == ours.read_bytes()[header:]


def _schema(path):
    data = Path(path).read_bytes()[:1 << 14]
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + n])["schema"]


def test_dataset_save_files_read_alike_in_both_engines(tmp_path):
    _ms("save", str(tmp_path), cwd=tmp_path)
    (tmp_path / "ours").mkdir()
    save_dataset(NumpySlicesDataset(mindrecord_script.save_data(), shuffle=False),
                 str(tmp_path / "ours" / "saved.mindrecord"))
    batched = NumpySlicesDataset({"x": np.arange(10, dtype=np.int32)}, shuffle=False).batch(3)
    save_dataset(batched, str(tmp_path / "ours" / "saved2.mindrecord"), num_files=2)
    paths = [str(tmp_path / who / name) for who in ("ms", "ours")
             for name in ("saved.mindrecord", "saved2.mindrecord0")]
    _ms("read", str(tmp_path / "read.json"), *paths, cwd=tmp_path)
    by_ms = json.loads((tmp_path / "read.json").read_text())
    for name in ("saved.mindrecord", "saved2.mindrecord0"):
        ms, ours = (str(tmp_path / who / name) for who in ("ms", "ours"))
        assert _schema(ms) == _schema(ours)
        want = by_ms[ms]["dataset"]
        assert len(want) == (7 if name == "saved.mindrecord" else 4)
        for label, got in (("MindSpore reads ours", by_ms[ours]), ("we read ms", _read_ours(ms)),
                           ("we read ours", _read_ours(ours))):
            if name == "saved.mindrecord":
                assert got["dataset"] == want, f"{name}: {label}"
            else:  # MindSpore spreads the rows over the files its own way (here and there)
                assert sorted(map(_key, got["dataset"])) == sorted(map(_key, want)), f"{name}: {label}"
