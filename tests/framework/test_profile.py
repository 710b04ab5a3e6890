"""Graph-mode profiling by source line (framework/profiler, backend/tvm/profile.py): the hot
line of a network whose cost is known comes first, every compiled node has a file:line and
every kernel finds its nodes, timing changes no result, the disk cache keeps the kernel
map, and the files (profile.json, SVG) are well formed."""

from __future__ import annotations

import inspect
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import framework as ms
from framework import Tensor, nn, ops, profiler


class HotLine(nn.Cell):
    """One large matmul (512 x 1024 x 1024: ~1 GFLOP) and small elementwise work on other lines."""

    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(0)
        self.w = ms.Parameter(Tensor(rng.standard_normal((1024, 1024)).astype(np.float32) * 0.01), name="w")
        self.b = ms.Parameter(Tensor(np.zeros((16,), np.float32)), name="b")

    def construct(self, x, s):
        t = ops.mul(s, 2.0)
        t = ops.add(t, self.b)
        y = ops.matmul(x, self.w)  # HOT
        t = ops.relu(t)
        return ops.reduce_sum(y) + ops.reduce_sum(t)


def _line_of(cls: type, marker: str) -> int:
    lines, start = inspect.getsourcelines(cls)
    return start + next(i for i, text in enumerate(lines) if marker in text)


@pytest.fixture
def profiling(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    profiler.reset()
    ms.set_context(profile=3)
    yield
    ms.set_context(profile=False)
    profiler.reset()


def _small_train_step() -> nn.Cell:
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Dense(4 * 8 * 8, 10)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))


def _batch() -> tuple[Tensor, Tensor]:
    rng = np.random.default_rng(2)
    return Tensor(rng.random((4, 1, 8, 8), dtype=np.float32)), Tensor(np.array([1, 2, 3, 4], np.int32))


def test_the_known_hot_line_comes_first_with_most_of_the_time(profiling):
    net = HotLine()
    f = ms.jit(net.construct)
    x = Tensor(np.random.default_rng(1).random((512, 1024), dtype=np.float32))
    s = Tensor(np.ones((16,), np.float32))
    for _ in range(4):  # one warm-up call, then the 3 timed ones
        f(x, s)
    report = profiler.report().function()
    assert report is not None and report.calls == 3
    top = report.lines[0]
    assert top.line.endswith(f"test_profile.py:{_line_of(HotLine, '# HOT')}"), report.lines
    assert top.ms > 0.8 * report.kernel_ms, [(r.line, r.ms) for r in report.lines]
    assert top.percent > 50 and report.unattributed_ms == 0.0
    assert len(report.lines) >= 3  # the small lines are there too, far below


def test_every_node_has_a_line_and_every_kernel_its_nodes(profiling):
    step = _small_train_step()
    f = ms.jit(step.construct)
    x, y = _batch()
    for _ in range(3):
        f(x, y)
    graph = f._latest.program.graph
    nodes = profiler.numbered(graph)
    missing = [n.prim.name for n in nodes if n.location is None]
    assert not missing, missing
    sites = f._latest.executable.sites()
    assert sites["kernels"] and all(site for calls in sites["kernels"].values() for site in calls), sites
    covered = {int(n) for calls in sites["kernels"].values() for site in calls for n in site}
    assert covered <= set(range(len(nodes)))
    for calls in sites["kernels"].values():
        for site in calls:
            assert sum(site.values()) == pytest.approx(1.0)
    result = profiler.report().function()
    assert result.unattributed_ms == 0.0 and result.located_nodes == result.nodes == len(nodes)
    assert sum(r.ms for r in result.lines) == pytest.approx(result.kernel_ms)


def test_timing_changes_no_result(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    x, y = _batch()
    losses = {}
    for calls in (0, 5):
        profiler.reset()
        ms.set_context(profile=calls)
        try:
            step = _small_train_step()
            f = ms.jit(step.construct)
            losses[calls] = [f(x, y).asnumpy() for _ in range(4)]
            weights = [p.asnumpy() for p in step.trainable_params()]
        finally:
            ms.set_context(profile=False)
        losses[calls].extend(weights)
    assert profiler.report().function().calls == 3  # the profiled run was timed (calls 2 to 4)
    for off, on in zip(losses[0], losses[5]):
        np.testing.assert_array_equal(off, on)  # bit for bit
    profiler.reset()


def test_a_disk_cache_hit_keeps_the_kernel_map(profiling):
    x, y = _batch()
    first = ms.jit(_small_train_step().construct)
    first(x, y)
    again = ms.jit(_small_train_step().construct)  # a new function: the library comes from disk
    for _ in range(3):
        again(x, y)
    assert again._latest.executable.cache_hit
    assert again._latest.executable.sites() == first._latest.executable.sites()
    report = profiler.report()
    assert report.function().unattributed_ms == 0.0 and report.function().kernel_ms > 0


def test_off_times_nothing_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    profiler.reset()
    f = ms.jit(_small_train_step().construct)
    x, y = _batch()
    for _ in range(3):
        f(x, y)
    report = profiler.report()
    assert report.functions == [] and report.function() is None
    assert "no graph-mode call was timed" in report.table()
    with pytest.raises(ValueError, match="profile must be True, False or a number"):
        ms.set_context(profile=-1)


def test_profiler_writes_json_and_svg(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINMODE_CACHE_DIR", str(tmp_path / "cache"))
    prof = ms.Profiler(output_path=str(tmp_path / "prof"), calls=2)
    try:
        f = ms.jit(_small_train_step().construct)
        x, y = _batch()
        for _ in range(3):
            f(x, y)
        report = prof.analyse()
    finally:
        ms.set_context(profile=False)
    assert not ms.get_context("profile")
    data = json.loads((tmp_path / "prof" / "profile.json").read_text())
    assert data["version"] == 1 and data == json.loads(json.dumps(report.to_dict()))
    function = data["functions"][0]
    assert function["calls_timed"] == 2 and function["lines"]
    assert {"line", "cells", "ms", "percent", "kernels", "phases"} <= set(function["lines"][0])
    svg = ET.parse(tmp_path / "prof" / "profile.svg").getroot()
    titles = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}title")]
    assert any(function["lines"][0]["line"] in t for t in titles), titles[:5]
    profiler.reset()


@pytest.mark.parametrize("width", [60, 80, 200])
def test_the_table_fits_the_width_and_shows_paths_from_their_package(profiling, width):
    f = ms.jit(_small_train_step().construct)
    for _ in range(4):
        f(*_batch())
    table = profiler.report().table(width=width)
    rows = table.splitlines()
    assert all(len(row) <= width for row in rows[2:]), "\n" + table
    assert ("code" in rows[2].split()) == (width == 200)  # the code column goes first when narrow
    assert all(not row.split()[0].startswith(("/", "…/")) for row in rows[3:] if not row.startswith("  ..."))


def test_the_flame_graph_labels_cells_by_their_last_name_and_the_root_whole():
    from framework.profiler.flame import flame_svg

    lines = [("net.py:3", {"backbone.conv1": 1.5}), ("net.py:4", {"backbone.fc": 1.0})]
    svg = flame_svg([("Step", 2.5, lines)])
    labels = re.findall(r"<text x=\"[\d.]+\" y=\"\d+\">([^<]*)</text>", svg)
    assert labels[:2] == ["Step (2.500 ms per call)", "backbone"]
    assert {"conv1", "fc", "net.py:3", "net.py:4"} <= set(labels)
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="\d+" width="([\d.]+)"', svg)]
    assert widths[0] == pytest.approx(1200) and sorted(widths)[-3] == pytest.approx(1200 * 1.5 / 2.5)


def test_source_paths_are_shown_from_the_cwd_or_their_top_package(tmp_path, monkeypatch):
    from framework.errors import shown_path

    sub = tmp_path / "lib" / "pkg" / "sub"
    sub.mkdir(parents=True)
    for folder in (sub.parent, sub):
        (folder / "__init__.py").write_text("")
    (sub / "m.py").write_text("")
    (tmp_path / "work").mkdir()
    (tmp_path / "loose.py").write_text("")
    monkeypatch.chdir(tmp_path / "work")
    assert shown_path(str(sub / "m.py")) == "pkg/sub/m.py"
    assert shown_path(str(tmp_path / "loose.py")) == str(tmp_path / "loose.py")
    monkeypatch.chdir(tmp_path)
    assert shown_path(str(sub / "m.py")) == "lib/pkg/sub/m.py"
