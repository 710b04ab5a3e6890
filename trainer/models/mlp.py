"""The MindSpore quick-start network: Flatten, Dense 512, ReLU, Dense 512, ReLU, Dense
(input N x C x image_size x image_size; the quick start feeds 28 x 28 Fashion-MNIST)."""

from __future__ import annotations

from framework import nn


class MLP(nn.Cell):
    def __init__(self, num_classes: int = 10, num_channel: int = 1, image_size: int = 28,
                 hidden: int = 512) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(num_channel * image_size * image_size, hidden), nn.ReLU(),
            nn.Dense(hidden, hidden), nn.ReLU(),
            nn.Dense(hidden, num_classes))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))
