"""graph.dot clustered by cell (framework/ir/dot.py): nodes carry the path of the cell that
made them (backward nodes the forward one's), one cluster per path, repeated blocks
collapsed into a box naming the block they repeat."""

from __future__ import annotations

import re

import numpy as np

import framework as ms
from framework import Tensor, nn


class Block(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(8, 8)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.fc(x)) + x


class Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Dense(4, 8)
        self.blocks = nn.SequentialCell([Block(), Block(), Block()])
        self.head = nn.Dense(8, 2)

    def construct(self, x):
        return self.head(self.blocks(self.stem(x)))


def _dump(tmp_path):
    ms.set_seed(0)
    net = Net()
    loss = nn.WithLossCell(net, nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(net.trainable_params(), 0.1))
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        compiled = ms.jit(step.construct)
        compiled(Tensor(np.ones((3, 4), np.float32)), Tensor(np.zeros((3, 2), np.float32)))
    finally:
        ms.set_context(save_graphs=False)
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    return (folder / "graph.dot").read_text(), (folder / "01_grad.ir").read_text()


def test_clusters_follow_the_cells_and_repeats_collapse(tmp_path):
    dot, _ = _dump(tmp_path)
    clusters = re.findall(r'subgraph "cluster_([^"]+)_\d+"', dot)
    for path in ("forward", "backward", "stem", "blocks.0", "blocks.0.fc", "head"):
        assert path in clusters, (path, clusters)
    # in each phase one block is drawn (the first met: block 0 forward, block 2 backward) and
    # the two others, which repeat it op for op and shape for shape, are one box each
    box = r'label="(blocks\.\d)\\nrepeats (blocks\.\d) \(\d+ nodes\)"'
    boxes = re.findall(box, dot)
    assert sorted(boxes) == [("blocks.0", "blocks.2"), ("blocks.1", "blocks.0"),
                             ("blocks.1", "blocks.2"), ("blocks.2", "blocks.0")]
    assert clusters.count("blocks.0") == 1 and clusters.count("blocks.2") == 1
    assert "repeats stem" not in dot  # the head is a Dense too, of other shapes
    # every edge joins defined dot nodes, none a collapsed block to itself
    defined = set(re.findall(r"^\s*(\w+) \[", dot, re.M))
    for a, b in re.findall(r"^\s*(\w+) -> (\w+);", dot, re.M):
        assert a in defined and b in defined and a != b
