"""Graph mode with a symbolic batch axis against shape-specialised compiles: the train
step (Momentum) of LeNet, the zoo's ResNet-20 or an RNN whose cell runs in a tensor-valued
``while i < T`` (``rnn_while``: time-major input, the batch on axis 1, backward through the
While), compile count and step time per batch size, measured interleaved (the machine is
shared: each round times one step of each, alternately). ``--model gpt``: the character GPT
of experiments/gpt_shakespeare.yaml (4 layers, 4 heads, 128 wide, context 64, vocabulary 65,
batch 12) with its batch *and* sequence axes symbolic (``[None, None]``, as the trainer marks
text), per sequence length (``--sizes``: lengths, default 1,2,8,16,32,63,64). ``--model
lstm_lm``: the character LSTM of experiments/lstm_shakespeare.yaml (embedding 64, 2 layers of
512, context 64, vocabulary 65) with both axes marked as the trainer marks text; its time
loop unrolls, so it is symbolic in the batch only (one compile per length: graph_symbolic's
partial symbolic compiles; ``TWINMODE_PARTIAL_SYMBOLIC=0`` turns them off), per batch size
(default 32,7,1). Measured (2 cores shared with other jobs, load ~2.5; before and after side
by side): one compile for 32, 7, 1; step time against the per-size compile 0.87-0.92x at
batch 32, 1.34-1.41x at 7, 0.83-0.94x at 1, since the per-step ``(n, 512) @ (512, 2048)``
matmuls of symbolic rows take packed panels (lowerings/nn.py ``_wants_panels``) in whole
8-row tiles without predicate (schedule/row_tails.py): 0.36 ms per call at batch 32, as the
static kernel, against 0.76 ms on the plain product; before, 0.96-0.98x, 1.54-1.75x and
2.95-3.16x (an earlier measurement on one core: 1.39x at batch 32).

    PYTHONPATH=. nice python bench/symbolic_batch.py [--model lenet|resnet20|rnn_while|gpt|lstm_lm]
        [--sizes 1,7,32,33,128,512] [--steps 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import framework as ms
from framework import Tensor, graph_mode, nn, ops

T, E = 16, 16  # rnn_while: time steps, features


class WhileRNN(nn.Cell):
    """``h = tanh(xs[i] W_x + h W_h)`` for ``i < T`` (a While region), then a Dense head."""

    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.wx, self.wh = nn.Dense(E, hidden), nn.Dense(hidden, hidden, has_bias=False)
        self.head = nn.Dense(hidden, 10)

    def construct(self, xs):
        h = self.wx(xs[0]) * 0.0
        i = ops.zeros((), ms.int32)
        while i < T:
            h = ops.tanh(self.wx(xs[i]) + self.wh(h))
            i = i + 1
        return self.head(h)


GPT_VOCAB, GPT_BATCH, GPT_CONTEXT = 65, 12, 64


def make_step(model: str) -> nn.Cell:
    ms.set_seed(0)
    if model in ("gpt", "lstm_lm"):
        from trainer.models.gpt import GPT
        from trainer.models.lstm_lm import LSTMLM
        from trainer.tasks.language_model import TokenCrossEntropy

        net = GPT(GPT_VOCAB, block_size=GPT_CONTEXT, n_layer=4, n_head=4, n_embd=128) if model == "gpt" \
            else LSTMLM(GPT_VOCAB, GPT_CONTEXT, embedding=64, hidden=512, num_layers=2)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, TokenCrossEntropy()),
                                   nn.Momentum(net.trainable_params(), 0.01, 0.9))
        step.set_train()
        return step
    if model == "resnet20":
        from trainer.models import CifarResNet

        net = CifarResNet(20)
    elif model == "rnn_while":
        net = WhileRNN()
    else:
        net = lenet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
    step.set_train()
    return step


def lenet() -> nn.Cell:
    return nn.SequentialCell(nn.Conv2d(1, 6, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5, pad_mode="valid"), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Flatten(), nn.Dense(400, 120), nn.ReLU(), nn.Dense(120, 10))


def compiles() -> int:
    return graph_mode.cache_stats["compiles"] + graph_mode.cache_stats["disk_hits"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--model", choices=("lenet", "resnet20", "rnn_while", "gpt", "lstm_lm"),
                        default="lenet")
    args = parser.parse_args()
    ms.set_context(mode=ms.GRAPH_MODE)
    gpt, lstm = args.model == "gpt", args.model == "lstm_lm"
    default = "1,2,8,16,32,63,64" if gpt else "32,7,1" if lstm else "1,7,32,33,128,512"
    sizes = [int(s) for s in (args.sizes or default).split(",")]
    image = {"resnet20": (3, 32, 32), "rnn_while": (T, E)}.get(args.model, (1, 32, 32))
    dynamic = make_step(args.model)
    if gpt or lstm:
        tokens = Tensor(shape=[None, None], dtype=ms.int32)
        dynamic.set_inputs(tokens, tokens)
    else:
        signature = [T, None, E] if args.model == "rnn_while" else [None, *image]
        dynamic.set_inputs(Tensor(shape=signature, dtype=ms.float32), Tensor(shape=[None], dtype=ms.int32))
    rng = np.random.default_rng(0)
    symbolic_compiles = 0
    print(f"{'length' if gpt else 'batch':>6} {'symbolic ms':>12} {'specialised ms':>15} {'ratio':>6}"
          f" {'cpu ratio':>10}")
    for n in sizes:
        if gpt or lstm:
            shape = (GPT_BATCH, n) if gpt else (n, GPT_CONTEXT)
            x = Tensor(rng.integers(0, GPT_VOCAB, shape).astype(np.int32))
            y = Tensor(rng.integers(0, GPT_VOCAB, shape).astype(np.int32))
        else:
            x = rng.standard_normal((n, *image)).astype(np.float32)
            x = Tensor(x.transpose(1, 0, 2).copy() if args.model == "rnn_while" else x)
            y = Tensor(rng.integers(0, 10, n).astype(np.int32))
        special = make_step(args.model)  # compiled for this size only
        before = compiles()
        dynamic(x, y)
        symbolic_compiles += compiles() - before
        special(x, y)
        times: dict[str, list[float]] = {"symbolic": [], "special": []}
        cpu: dict[str, list[float]] = {"symbolic": [], "special": []}
        for _ in range(args.steps):  # interleaved
            for name, step in (("symbolic", dynamic), ("special", special)):
                start, start_cpu = time.perf_counter(), time.process_time()
                step(x, y).asnumpy()
                times[name].append(time.perf_counter() - start)
                cpu[name].append(time.process_time() - start_cpu)  # all threads: a loaded
                # machine's waits for a core are not the step's
        sym, spec = (1e3 * float(np.median(times[k])) for k in ("symbolic", "special"))
        cpu_ratio = float(np.median(cpu["symbolic"]) / np.median(cpu["special"]))
        print(f"{n:>6} {sym:>12.2f} {spec:>15.2f} {sym / spec:>6.2f} {cpu_ratio:>10.2f}", flush=True)
    print(f"symbolic compiles for {len(sizes)} sizes: {symbolic_compiles}; report axes "
          f"{dynamic._graph_runner.last_report.symbolic_axes}, fallback "
          f"{dynamic._graph_runner.last_report.symbolic_fallback}")


if __name__ == "__main__":
    main()
