"""A character/token LSTM language model: ``LSTMLM(vocab_size, embedding=128, hidden=512,
num_layers=2, dropout=0.0)`` takes token ids ``(B, T)`` and returns logits ``(B, T,
vocab)``: an embedding, ``nn.LSTM`` (batch first; ``dropout`` between layers, as
MindSpore's and PyTorch's), dropout, and a Dense head. Causal by construction, so a
position's logits depend on the tokens up to it only (sampling reads the last one)."""

from __future__ import annotations

import numpy as np

from framework import Tensor, nn


class LSTMLM(nn.Cell):
    def __init__(self, vocab_size: int, block_size: int = 0, embedding: int = 128, hidden: int = 512,
                 num_layers: int = 2, dropout: float = 0.0) -> None:
        super().__init__()
        self.vocab_size, self.block_size = vocab_size, block_size  # block_size: the data's window
        self.context_limit = None  # generation: the recurrent state carries any length
        self.num_layers, self.hidden = num_layers, hidden
        self.embedding = nn.Embedding(vocab_size, embedding)
        self.rnn = nn.LSTM(embedding, hidden, num_layers, batch_first=True,
                           dropout=dropout if num_layers > 1 else 0.0)
        self.drop = nn.Dropout(p=dropout)
        self.head = nn.Dense(hidden, vocab_size)

    def construct(self, idx):
        out, _ = self.rnn(self.embedding(idx))
        return self.head(self.drop(out))

    # -- generation with the recurrent state (trainer/tasks/sampling.py) ----------------------
    def init_state(self) -> tuple:
        zeros = np.zeros((self.num_layers, 1, self.hidden), np.float32)
        return Tensor(zeros), Tensor(zeros.copy())

    def decode(self, idx, pos, h, c):
        """The logits ``(1, vocab)`` after token ``idx`` ``(1, 1)`` and the next state."""
        out, (h, c) = self.rnn(self.embedding(idx), (h, c))
        return self.head(out.reshape(1, -1)), h, c
