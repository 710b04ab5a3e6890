"""``mindspore.mint.nn`` Cells and ``mindspore.mint.nn.functional`` functions that no other
differential program spelled (issue 25), as far as MindSpore 2.10 runs them on CPU: clamp,
broadcast_to, nearest resizing, constant/zero padding, LogSoftmax, the logits and cross-entropy
losses, embedding lookups (weights set by parameter name; forward only: MindSpore's CPU has no
``EmbeddingDenseBackward``), SyncBatchNorm (two SGD steps from its initial weights, then
evaluation on the running statistics) and the dropouts where they draw nothing; each forward
and, where MindSpore differentiates it on CPU, its gradient.

The names MindSpore 2.10 cannot run on CPU in either mode are in ``UNTESTABLE`` with its error.

MindSpore 2.10's CPU has most of these mint kernels for graph mode only (PyNative says
``The kernel ... unregistered``), so every computation runs through ``jit`` (``ms.jit``), and
both context modes run the compiled graph in MindSpore. :mod:`tests.mindspore_ref.
test_ms_mint_nn_cover` also runs each program here with ``jit`` the identity in PyNative (our
eager path) against the same recorded answers.

The dropouts (``dropout``, ``dropout2d``, ``Dropout2d``) are checked where they draw nothing
(``training=False``, ``p=0``): MindSpore's CPU has no kernel for their draws (``DropoutExt``,
``InplaceBernoulliScalar``).

``EXPECTED`` (``ms_mint_nn_cover_expected.json``) holds MindSpore 2.10's answers on CPU by
mode; ``python -m tests.mindspore_ref.ms_mint_nn_cover_programs`` re-records them (needs
``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

PROGRAMS: dict[str, str] = {}

# Names MindSpore 2.10 cannot run on CPU in either mode: its graph-mode error (PyNative says
# ``The kernel <op> unregistered.`` for the same op unless noted).
_SEGV = "segmentation fault (graph mode); PyNative: The kernel {} unregistered."
UNTESTABLE: dict[str, str] = {
    "mint.nn:AdaptiveAvgPool1d": "RuntimeError: Unsupported op [AdaptiveAvgPool1D] on CPU",
    "mint.nn:AdaptiveAvgPool2d": "RuntimeError: Unsupported op [AdaptiveAvgPool2DExt] on CPU",
    "mint.nn:AdaptiveMaxPool1d": "RuntimeError: Unsupported op [AdaptiveMaxPool1D] on CPU",
    "mint.nn:AvgPool1d": "RuntimeError: Unsupported op [AvgPool1D] on CPU",
    "mint.nn:AvgPool2d": "RuntimeError: Unsupported op [AvgPool2D] on CPU",
    "mint.nn:BatchNorm1d": "RuntimeError: Unsupported op [BatchNormExt] on CPU",
    "mint.nn:BatchNorm2d": "RuntimeError: Unsupported op [BatchNormExt] on CPU",
    "mint.nn:BatchNorm3d": "RuntimeError: Unsupported op [BatchNormExt] on CPU",
    "mint.nn:Conv1d": "RuntimeError: Unsupported op [Conv1DExt] on CPU",
    "mint.nn:Conv2d": "RuntimeError: Unsupported op [Conv2DExt] on CPU",
    "mint.nn:CosineEmbeddingLoss": "RuntimeError: Unsupported op [ClampMin] on CPU",
    "mint.nn:ELU": "RuntimeError: Unsupported op [EluExt] on CPU",
    "mint.nn:GELU": "RuntimeError: Unsupported op [GeluExt] on CPU",
    "mint.nn:Hardtanh": "RuntimeError: Unsupported op [Hardtanh] on CPU",
    "mint.nn:KLDivLoss": "RuntimeError: Unsupported op [KLDiv] on CPU",
    "mint.nn:L1Loss": "RuntimeError: Unsupported op [L1LossExt] on CPU",
    "mint.nn:LogSigmoid": "RuntimeError: Unsupported op [LogSigmoid] on CPU",
    "mint.nn:MSELoss": "RuntimeError: Unsupported op [MSELossExt] on CPU",
    "mint.nn:MaxPool2d": "RuntimeError: Unsupported op [MaxPoolWithMask] on CPU",
    "mint.nn:Mish": "RuntimeError: Unsupported op [MishExt] on CPU",
    "mint.nn:ReLU6": "RuntimeError: Unsupported op [Hardtanh] on CPU",
    "mint.nn:ReflectionPad1d": _SEGV.format("ReflectionPad1D"),
    "mint.nn:ReflectionPad2d": _SEGV.format("ReflectionPad2D"),
    "mint.nn:ReflectionPad3d": ("ValueError: For primitive[PadV3], the input dims for reflect mode must be "
                                "less than or equal to 4, but got 5. "
                                "(PyNative: The kernel ReflectionPad3D unregistered.)"),
    "mint.nn:ReplicationPad1d": _SEGV.format("ReplicationPad1D"),
    "mint.nn:ReplicationPad2d": _SEGV.format("ReplicationPad2D"),
    "mint.nn:ReplicationPad3d": _SEGV.format("ReplicationPad3D"),
    "mint.nn:SELU": "RuntimeError: Unsupported op [SeLUExt] on CPU",
    "mint.nn:SoftMarginLoss": "RuntimeError: Unsupported op [SoftMarginLoss] on CPU",
    "mint.nn:Threshold": "RuntimeError: Unsupported op [Threshold] on CPU",
    "mint.nn:UpsamplingBilinear2d": "RuntimeError: Unsupported op [UpsampleBilinear2D] on CPU",
    "mint.nn.functional:adaptive_avg_pool1d": "RuntimeError: Unsupported op [AdaptiveAvgPool1D] on CPU",
    "mint.nn.functional:adaptive_avg_pool2d": "RuntimeError: Unsupported op [AdaptiveAvgPool2DExt] on CPU",
    "mint.nn.functional:adaptive_max_pool1d": "RuntimeError: Unsupported op [AdaptiveMaxPool1D] on CPU",
    "mint.nn.functional:avg_pool1d": "RuntimeError: Unsupported op [AvgPool1D] on CPU",
    "mint.nn.functional:avg_pool2d": "RuntimeError: Unsupported op [AvgPool2D] on CPU",
    "mint.nn.functional:batch_norm": "RuntimeError: Unsupported op [BatchNormExt] on CPU",
    "mint.nn.functional:conv1d": ("NotImplementedError: conv1d only supports Ascend. "
                                   "(graph: Unsupported op [Conv1DExt] on CPU)"),
    "mint.nn.functional:conv2d": "RuntimeError: Unsupported op [Conv2DExt] on CPU",
    "mint.nn.functional:cosine_embedding_loss": ("RuntimeError: Unsupported op [ClampMin] on CPU "
                                                  "(PyNative: Not implement exception)"),
    "mint.nn.functional:elu": "RuntimeError: Unsupported op [EluExt] on CPU",
    "mint.nn.functional:elu_": "RuntimeError: Unsupported op [InplaceElu] on CPU",
    "mint.nn.functional:gelu": "RuntimeError: Unsupported op [GeluExt] on CPU",
    "mint.nn.functional:hardtanh": "RuntimeError: Unsupported op [Hardtanh] on CPU",
    "mint.nn.functional:hardtanh_": "RuntimeError: Unsupported op [InplaceHardtanh] on CPU",
    "mint.nn.functional:kl_div": "RuntimeError: Unsupported op [KLDiv] on CPU",
    "mint.nn.functional:l1_loss": "RuntimeError: Unsupported op [L1LossExt] on CPU",
    "mint.nn.functional:layer_norm": "RuntimeError: Unsupported op [LayerNormExt] on CPU",
    "mint.nn.functional:leaky_relu": "RuntimeError: Unsupported op [LeakyReLUExt] on CPU",
    "mint.nn.functional:logsigmoid": "RuntimeError: Unsupported op [LogSigmoid] on CPU",
    "mint.nn.functional:max_pool2d": "RuntimeError: Unsupported op [MaxPoolWithMask] on CPU",
    "mint.nn.functional:mish": "RuntimeError: Unsupported op [MishExt] on CPU",
    "mint.nn.functional:mse_loss": "RuntimeError: Unsupported op [MSELossExt] on CPU",
    "mint.nn.functional:normalize": "RuntimeError: Unsupported op [LinalgVectorNorm] on CPU",
    "mint.nn.functional:relu6": "RuntimeError: Unsupported op [Hardtanh] on CPU",
    "mint.nn.functional:relu_": "RuntimeError: Unsupported op [InplaceReLU] on CPU",
    "mint.nn.functional:selu": "RuntimeError: Unsupported op [SeLUExt] on CPU",
    "mint.nn.functional:sigmoid_": "RuntimeError: Unsupported op [InplaceSigmoid] on CPU",
    "mint.nn.functional:soft_margin_loss": "RuntimeError: Unsupported op [SoftMarginLoss] on CPU",
    "mint.nn.functional:threshold": "RuntimeError: Unsupported op [Threshold] on CPU",
    "mint.nn.functional:threshold_": "RuntimeError: Unsupported op [InplaceThreshold] on CPU",
}

_HELPERS = '''
mint = ms.mint
mnn = mint.nn
mF = mint.nn.functional
jit = ms.jit


def out(t):
    return [str(t.dtype), list(t.shape), t]


def flat(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in flat(item)]
    return [value]


def outs(value):
    return [out(t) for t in flat(value)]


X = np.array([[0.5, -1.25, 2.0, 3.5], [-0.75, 1.5, -2.5, 0.25], [1.0, 0.0, -3.0, 2.25]], np.float32)
X3 = np.sin(np.arange(2 * 3 * 6, dtype=np.float32)).reshape(2, 3, 6) * 2
X4 = np.sin(np.arange(2 * 3 * 4 * 5, dtype=np.float32) * 0.7).reshape(2, 3, 4, 5) * 2
X5 = np.cos(np.arange(2 * 2 * 3 * 3 * 4, dtype=np.float32) * 0.3).reshape(2, 2, 3, 3, 4)
'''


def _program(name: str, body: str) -> None:
    PROGRAMS[name] = _HELPERS + body


# -- mint.nn.functional ---------------------------------------------------------------------
_program("functional_supported", '''
T = np.array([[0.25, 0.5, 0.125, 0.125], [0.0, 0.5, 0.25, 0.25], [0.75, 0.0, 0.25, 0.0]], np.float32)


def calls(x, x4, t, labels):
    return (mF.clamp(x, -1.0, 1.0), mF.clamp(x, min=0.0), mF.broadcast_to(x[0], (2, 3, 4)),
            mF.interpolate(x4, scale_factor=2.0, mode="nearest"), mF.interpolate(x4, size=(5, 7)),
            mF.upsample(x4, scale_factor=2.0, mode="nearest"),
            mF.binary_cross_entropy_with_logits(x, t),
            mF.binary_cross_entropy_with_logits(x, t, t + 1, "sum"),
            mF.binary_cross_entropy_with_logits(x, t, reduction="none", pos_weight=t[0] + 1),
            mF.cross_entropy(x, labels), mF.cross_entropy(x, t),
            mF.cross_entropy(x, labels, t[0] + 0.5, reduction="sum"),
            mF.cross_entropy(x, labels, ignore_index=1), mF.dropout(x, 0.5, False), mF.dropout(x, 0.0),
            mF.dropout2d(x4, 0.5, False))


def total(x, x4, t, labels):
    return sum(a.sum() * (k + 1) for k, a in enumerate(calls(x, x4, t, labels)))


def main():
    args = (ms.tensor(X), ms.tensor(X4), ms.tensor(T), ms.tensor(np.array([0, 3, 1], np.int64)))
    return outs(jit(calls)(*args)) + outs(jit(ms.grad(total, grad_position=(0, 1, 2)))(*args))
''')

# -- mint.nn Cells --------------------------------------------------------------------------
_program("cell_supported", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.on2 = nn.CellList([mnn.LogSoftmax(1), mnn.LogSoftmax(0)])
        self.on3 = nn.CellList([mnn.ConstantPad1d(2, 1.5), mnn.ConstantPad1d((1, 0), -1.0), mnn.ZeroPad1d(2),
                                mnn.ZeroPad1d((1, 2))])
        self.on4 = nn.CellList([mnn.ConstantPad2d(1, 0.5), mnn.ConstantPad2d((1, 0, 2, 1), 2.0),
                                mnn.ZeroPad2d(1), mnn.ZeroPad2d((1, 0, 2, 1)), mnn.Upsample(scale_factor=2.0),
                                mnn.Upsample(size=(5, 7)), mnn.UpsamplingNearest2d(size=(5, 7)),
                                mnn.UpsamplingNearest2d(scale_factor=(2.0, 3.0))])
        self.on5 = nn.CellList([mnn.ConstantPad3d(1, 0.25), mnn.ConstantPad3d((1, 0, 2, 1, 0, 1), -0.5),
                                mnn.ZeroPad3d(1), mnn.ZeroPad3d((1, 0, 2, 1, 0, 1))])
        self.ce, self.ce_weighted = mnn.CrossEntropyLoss(), mnn.CrossEntropyLoss(
            ms.tensor(np.array([1.0, 2.0, 0.5, 1.5], np.float32)), reduction="sum")

    def construct(self, x, x3, x4, x5, labels):
        return (tuple(c(x) for c in self.on2) + tuple(c(x3) for c in self.on3)
                + tuple(c(x4) for c in self.on4) + tuple(c(x5) for c in self.on5)
                + (self.ce(x, labels), self.ce_weighted(x, labels)))


def main():
    net = Net()
    labels = ms.tensor(np.array([0, 3, 1], np.int64))
    args = (ms.tensor(X), ms.tensor(X3), ms.tensor(X4), ms.tensor(X5), labels)

    def total(x, x3, x4, x5, labels):
        return sum(a.sum() * (k + 1) for k, a in enumerate(net(x, x3, x4, x5, labels)))

    return outs(jit(net)(*args)) + outs(jit(ms.grad(total, grad_position=(0, 1, 2, 3)))(*args))
''')

_program("cell_sync_batchnorm_train_step", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = mnn.SyncBatchNorm(3, momentum=0.3)

    def construct(self, x4):
        return (self.bn(x4) * x4).mean()


def main():
    net = Net()  # default weights (ones, zeros): our parameter names differ from MindSpore's
    opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
    step = ms.value_and_grad(net, None, opt.parameters)

    @jit
    def train(x4):
        loss, grads = step(x4)
        opt(grads)
        return loss, grads

    x4 = ms.tensor(X4)
    net.set_train(True)
    first = outs(train(x4))
    second = outs(train(x4 * 0.5 + 1))
    trained = outs(list(net.trainable_params()))
    net.set_train(False)  # normalises by the running statistics the two steps left
    return first + second + trained + outs(jit(net.bn)(x4))
''')

_program("embedding_forward", '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed, self.padded = mnn.Embedding(5, 3), mnn.Embedding(5, 3, padding_idx=0)

    def construct(self, ids, table):
        return (self.embed(ids), self.padded(ids), mF.embedding(ids, table),
                mF.embedding(ids, table, padding_idx=1))


def main():
    net = Net()
    net.embed.weight.set_data(ms.tensor(np.arange(15, dtype=np.float32).reshape(5, 3) / 4))
    ids = ms.tensor(np.array([[0, 1, 4], [1, 1, 2]], np.int64))
    table = ms.tensor(np.cos(np.arange(15, dtype=np.float32)).reshape(5, 3))
    names = [(p.name, list(p.shape)) for p in net.trainable_params()]
    padding_row = out(net.padded.weight[0])  # initialised to zeros
    net.padded.weight.set_data(ms.tensor(np.sin(np.arange(15, dtype=np.float32)).reshape(5, 3)))
    return [names, padding_row] + outs(jit(net)(ids, table))
''')

_program("cell_dropout2d_eval", '''
def main():
    drop = mnn.Dropout2d(0.5)
    drop.set_train(False)
    x4 = ms.tensor(X4)

    def total(x):
        return (drop(x) * x).sum()

    return outs(jit(drop)(x4)) + outs(jit(ms.grad(total))(x4))
''')


if __name__ == "__main__":  # re-record ms_mint_nn_cover_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_mint_nn_cover_expected.json"))
