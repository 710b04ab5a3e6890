"""The slow tier's list: read from a pytest ``--durations`` log (calls only, at or over the
threshold, slowest first), and applied at collection (tests/conftest.py)."""

from __future__ import annotations

from tests import slow_tier

LOG = """
============================== slowest durations ===============================
44.98s call     tests/a.py::test_x[mobile net-graph]
17.44s setup    tests/b.py::test_y
1.50s call     tests/c.py::test_z
1.49s call     tests/c.py::test_w
(12 durations < 0.5s hidden.  Use -vv to show these durations.)
"""


def test_calls_over_the_threshold_slowest_first():
    assert slow_tier.THRESHOLD == 1.5  # the log below straddles it
    assert slow_tier.measured(LOG) == [(44.98, "tests/a.py::test_x[mobile net-graph]"),
                                       (1.5, "tests/c.py::test_z")]


def test_the_list_round_trips(tmp_path, monkeypatch):
    monkeypatch.setattr(slow_tier, "LIST", tmp_path / "slow_tests.txt")
    slow_tier.write(slow_tier.measured(LOG))
    assert slow_tier.read() == {"tests/a.py::test_x[mobile net-graph]", "tests/c.py::test_z"}


def test_listed_tests_are_marked_slow(request):
    listed = slow_tier.read()
    assert listed, "tests/slow_tests.txt is empty or missing"
    session_items = {item.nodeid: item for item in request.session.items}
    for node in listed & session_items.keys():
        assert session_items[node].get_closest_marker("slow") is not None, node
