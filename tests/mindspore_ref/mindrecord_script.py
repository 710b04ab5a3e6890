"""Run by MindSpore's own Python (``$MINDSPORE_PYTHON``) for tests/mindspore_ref/test_mindrecord_interop.py;
it imports nothing from this project.

    python mindrecord_script.py write FOLDER        # MindSpore writes every case to FOLDER/ms/,
                                                    # the cases (schemas, options, rows) to FOLDER/cases.json
    python mindrecord_script.py read OUT.json FILE...  # MindDataset and FileReader read each file
    python mindrecord_script.py save FOLDER         # Dataset.save of save_data() (and of a
                                                    # batched set, to 2 files) to FOLDER/ms/

Values travel as JSON: numbers and str as they are, ``{"bytes": hex}``, and arrays as
``{"dtype", "shape", "hex"}`` (0-d arrays too).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

ALL_TYPES = {"s": {"type": "string"}, "i32": {"type": "int32"}, "i64": {"type": "int64"},
             "f32": {"type": "float32"}, "f64": {"type": "float64"}, "b": {"type": "bytes"},
             "a32": {"type": "int32", "shape": [-1]}, "a64": {"type": "int64", "shape": [2, -1]},
             "af32": {"type": "float32", "shape": [2]}, "af64": {"type": "float64", "shape": [-1, 3]}}


def encode(value):
    if isinstance(value, np.ndarray):
        return {"dtype": value.dtype.str, "shape": list(value.shape), "hex": value.tobytes().hex()}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, np.generic):
        return encode(np.asarray(value))
    return value


def all_type_rows(n, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        k = int(rng.integers(1, 6))
        rows.append({"s": "héllo" * (i % 3) + str(i), "i32": int(rng.integers(-2**31, 2**31)),
                     "i64": int(rng.integers(-2**62, 2**62)), "f32": float(np.float32(rng.normal())),
                     "f64": float(rng.normal()), "b": rng.integers(0, 256, k).astype(np.uint8).tobytes(),
                     "a32": (rng.integers(-2**31, 2**31, k) >> rng.integers(0, 31, k)).astype(np.int32),
                     "a64": (rng.integers(-2**62, 2**62, 2 * k) >> rng.integers(0, 62, 2 * k)).reshape(2, k),
                     "af32": rng.normal(size=2).astype(np.float32), "af64": rng.normal(size=(k, 3))})
    return rows


def paged_rows(n, seed):
    rng = np.random.default_rng(seed)
    return [{"s": "x" * int(rng.integers(1, 3000)), "n": i,
             "img": rng.integers(0, 256, int(rng.integers(1, 5000))).astype(np.uint8).tobytes(),
             "v": rng.random((3, 2)).astype(np.float32)} for i in range(n)]


def cases():
    paged = {"s": {"type": "string"}, "n": {"type": "int64"}, "img": {"type": "bytes"},
             "v": {"type": "float32", "shape": [-1, 2]}}
    tutorial = [{"file_name": f"{i}.jpg", "label": i, "data": np.array([i] * (i + 1), np.int32)}
                for i in range(4)]
    return {
        "tutorial": dict(schema={"file_name": {"type": "string"}, "label": {"type": "int32"},
                                 "data": {"type": "int32", "shape": [-1]}},
                         desc="test_schema", calls=[[r] for r in tutorial]),
        "all_types": dict(schema=ALL_TYPES, desc="all", calls=[all_type_rows(15, 1), all_type_rows(10, 2)]),
        "scalars_only": dict(schema={"n": {"type": "int64"}, "s": {"type": "string"},
                                     "x": {"type": "float64"}, "y": {"type": "float32"}},
                             calls=[[{"n": i * 7919 - 3, "s": "s" * i, "x": i / 3, "y": i / 2 - 3}
                                     for i in range(20)]]),
        "indexed": dict(schema={"label": {"type": "int32"}, "name": {"type": "string"},
                                "img": {"type": "bytes"}},
                        desc="idx", index=["label"],
                        calls=[[{"label": i, "name": f"n{i}", "img": bytes([i]) * 50} for i in range(12)]]),
        "pages": dict(schema=paged, desc="d", page_size=1 << 15, header_size=1 << 14,
                      calls=[paged_rows(30, s) for s in range(4)]),
        "blob_only_sparse": dict(schema={"x": {"type": "int32", "shape": [-1]}}, shard_num=3,
                                 calls=[[{"x": np.arange(i + 1, dtype=np.int32) * 1000} for i in range(2)]]),
        "shards": dict(schema=paged, desc="d", page_size=1 << 15, header_size=1 << 14, shard_num=3,
                       calls=[paged_rows(30, 10 + s) for s in range(3)]),
    }


def save_data():
    rng = np.random.default_rng(5)
    return {"u8": rng.integers(0, 256, (7, 2, 3)).astype(np.uint8), "flag": rng.random(7) > 0.5,
            "f16": rng.normal(size=(7, 4)).astype(np.float16), "i64": rng.integers(-2**40, 2**40, 7),
            "u32": rng.integers(0, 2**32, 7).astype(np.uint32), "f32": rng.normal(size=7).astype(np.float32),
            "f64": rng.normal(size=(7, 2)), "name": np.array([f"row{i}" * i for i in range(7)])}


def save(folder):
    import mindspore.dataset as ds

    os.makedirs(os.path.join(folder, "ms"), exist_ok=True)
    ds.NumpySlicesDataset(save_data(), shuffle=False).save(os.path.join(folder, "ms", "saved.mindrecord"))
    batched = ds.NumpySlicesDataset({"x": np.arange(10, dtype=np.int32)}, shuffle=False).batch(3)
    batched.save(os.path.join(folder, "ms", "saved2.mindrecord"), num_files=2)


def write(folder):
    from mindspore.mindrecord import FileWriter

    os.makedirs(os.path.join(folder, "ms"), exist_ok=True)
    dumped = {}
    for name, case in cases().items():
        writer = FileWriter(os.path.join(folder, "ms", f"{name}.mindrecord"),
                            shard_num=case.get("shard_num", 1), overwrite=True)
        if "header_size" in case:
            writer.set_header_size(case["header_size"])
            writer.set_page_size(case["page_size"])
        writer.add_schema(case["schema"], case.get("desc"))
        if "index" in case:
            writer.add_index(case["index"])
        for rows in case["calls"]:
            writer.write_raw_data(rows)
        writer.commit()
        dumped[name] = {**case, "calls": [[{k: encode(v) for k, v in r.items()} for r in rows]
                                          for rows in case["calls"]]}
    with open(os.path.join(folder, "cases.json"), "w") as f:
        json.dump(dumped, f)


def read(out, files):
    import mindspore.dataset as ds
    from mindspore.mindrecord import FileReader

    result = {}
    for path in files:
        data = ds.MindDataset(path, shuffle=False)
        rows = [{k: encode(v) for k, v in r.items()} for r in data.create_dict_iterator(output_numpy=True)]
        reader = FileReader(path)
        plain = [{k: encode(v) for k, v in r.items()} for r in reader.get_next()]
        reader.close()
        result[path] = {"columns": data.get_col_names(), "dataset": rows, "reader": plain}
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "save":
        save(sys.argv[2])
    else:
        read(sys.argv[2], sys.argv[3:])
