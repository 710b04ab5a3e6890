"""A MindSpore-style text classifier, as a new user writes one: token ids padded to a fixed
length, a padding mask built with ``~`` and ``&``, an embedding, ``nn.Conv1d``, an
``nn.TransformerEncoderLayer`` told the padding by ``src_key_padding_mask``, a masked mean
and an ``ops.interpolate`` summary, a ``GeneratorDataset`` over a list split 80/20, and the
functional training loop of MindSpore's tutorials (``value_and_grad`` inside ``ms.jit``).
It runs as it is on MindSpore 2.10 when its four imports name ``mindspore`` instead.
"""

import numpy as np

import framework as ms
from framework import Tensor, nn, ops
from framework import dataset as ds

VOCAB, MAX_LEN, DIM, KEYWORDS = 24, 12, 16, (7, 11)


def make_rows(count, rng):
    """(tokens padded with 0, length, label): label 1 when a keyword occurs."""
    rows = []
    for _ in range(count):
        length = int(rng.randint(3, MAX_LEN + 1))
        tokens = np.zeros(MAX_LEN, np.int32)
        tokens[:length] = rng.randint(1, VOCAB, length)
        label = int(np.isin(tokens[:length], KEYWORDS).any())
        rows.append((tokens, np.array(length, np.int32), np.array(label, np.int32)))
    return rows


class TextClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.conv = nn.Conv1d(DIM, DIM, 3, pad_mode="same", has_bias=True)
        self.encoder = nn.TransformerEncoderLayer(DIM, 2, dim_feedforward=2 * DIM, dropout=0.0,
                                                  batch_first=True)
        self.head = nn.Dense(DIM * 5, 2)
        self.positions = Tensor(np.arange(MAX_LEN, dtype=np.int32).reshape(1, -1))

    def construct(self, tokens, lengths):
        valid = (self.positions < lengths.reshape(-1, 1)) & (tokens != 0)
        padding = ~valid
        x = self.embed(tokens)
        x = x + ops.relu(self.conv(x.transpose(0, 2, 1))).transpose(0, 2, 1)
        h = self.encoder(x, src_key_padding_mask=padding)
        keep = valid.astype(ms.float32).expand_dims(-1)
        pooled = (h * keep).sum(1) / keep.sum(1)
        coarse = ops.interpolate(h.transpose(0, 2, 1), size=4, mode="linear")
        return self.head(ops.concat((pooled, coarse.reshape(coarse.shape[0], -1)), 1))


def main():
    ms.set_seed(1)
    rng = np.random.RandomState(0)
    data = ds.GeneratorDataset(make_rows(60, rng), ["tokens", "length", "label"], shuffle=False)
    train, test = data.split([0.8, 0.2])
    train, test = train.batch(8), test.batch(12)

    net = TextClassifier()
    for name, param in sorted(net.parameters_and_names(), key=lambda item: item[0]):
        values = rng.standard_normal(param.shape).astype(np.float32) * 0.2
        param.set_data(Tensor(values + 1 if name.endswith("gamma") else values))
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)
    loss_fn = nn.CrossEntropyLoss()

    def forward(tokens, lengths, labels):
        return loss_fn(net(tokens, lengths), labels)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    @ms.jit
    def train_step(tokens, lengths, labels):
        loss, grads = grad_fn(tokens, lengths, labels)
        optimizer(grads)
        return loss

    net.set_train()
    losses = [train_step(*batch) for _ in range(3) for batch in train.create_tuple_iterator()]
    net.set_train(False)
    tokens, lengths, labels = next(test.create_tuple_iterator())
    logits = net(tokens, lengths)
    correct = (logits.argmax(1) == labels).astype(ms.int32).sum()
    return losses, logits, correct, train.get_dataset_size(), test.get_dataset_size()


if __name__ == "__main__":
    losses, logits, correct, *sizes = main()
    print("losses", [round(float(v), 5) for v in losses], "test correct", int(correct), "batches", sizes)
