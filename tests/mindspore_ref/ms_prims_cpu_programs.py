"""Programs for the CPU-supported ``P.*`` classes (``mindspore.ops.operations``) added last:
the loop operators (``WhileLoop``, ``ForiLoop``, ``Scan``, ``Reusing``), the operators that
run a Python function (``PyFunc``, ``Custom``, ``InsertGradientOf``), the short-time
Fourier transform (``STFT``), image and box operators and the recurrent and CTC classes.

Each program is one Cell (or ``ms.jit`` function) applying the classes with MindSpore's
argument order and attributes and, where MindSpore differentiates them, ``ops.grad`` of a
loss over them at every input; graph mode compiles both. ``ms_prims_cpu_expected.json``
holds MindSpore 2.10's answers on CPU per mode; ``python -m
tests.mindspore_ref.ms_prims_cpu_programs`` re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
P = ms.ops.operations
X = np.array([1.0, 2.0, -0.5], np.float32)
Y = np.array([0.5, -1.0, 2.0], np.float32)
'''

PROGRAMS: dict[str, str] = {}

# functions handed to the loop classes are defined at module level (MindSpore's graph mode
# parses them from their source)
PROGRAMS["loops"] = _PRELUDE + '''
def double(v):
    return v * 2.0


def small(v):
    return v.sum() < 100.0


def grow(i, v):
    return v * (i + 1.0)


def below(v):
    return v < 10


def add_three(v):
    return v + 3


def cumulate(c, x):
    return c + x, c * x


class Net(nn.Cell):
    def construct(self, x):
        a = P.WhileLoop()(small, double, x)
        b = P.ForiLoop()(0, 3, grow, x)
        c, ys = P.Scan()(cumulate, x, [x, x * 2.0, x - 1.0])
        d = P.Reusing()(double)(x)
        e = P.WhileLoop()(below, add_three, 1)
        return a, b, c, ys[0], ys[1], ys[2], d, e


def shifted_square(i, v):
    return v * v * 0.5 + i


# one differentiated ForiLoop per graph: MindSpore 2.10's graph mode mixes up the loop
# index of two ("For Operator[SumExt], input's type 'Int64' does not match expected type
# 'Tensor'")
class ForiLoss(nn.Cell):
    def construct(self, x, y):
        return (P.ForiLoop()(1, 3, shifted_square, x) * ops.sin(y)).sum()


class ScanLoss(nn.Cell):
    def construct(self, x, y):
        c, ys = P.Scan()(cumulate, x, [y, x * y])
        return (c * ys[1]).sum()


class WhileLoss(nn.Cell):
    def construct(self, x):
        return P.WhileLoop()(small, double, x).sum()


def main():
    x, y = Tensor(X), Tensor(Y)
    return (Net()(x), ops.grad(ForiLoss(), grad_position=(0, 1))(x, y),
            ops.grad(ScanLoss(), grad_position=(0, 1))(x, y), ops.grad(WhileLoss())(x))
'''

PROGRAMS["python_functions"] = _PRELUDE + '''
def add_and_dot(a, b):
    return a + b, np.array((a * b).sum(), np.float32)


def sine(a):
    return np.sin(a)


def same_shape(shape):
    return shape


def same_dtype(dtype):
    return dtype


def sine_bprop(x, out, dout):
    return (ops.cos(x) * dout,)


def triple(g):
    return g * 3.0


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.pyfunc = P.PyFunc(add_and_dot, [ms.float32, ms.float32], [(3,), (3,)], [ms.float32, ms.float32],
                               [(3,), ()])
        self.custom = P.Custom(sine, out_shape=same_shape, out_dtype=same_dtype, func_type="pyfunc")
        self.insert = P.InsertGradientOf(triple)

    def construct(self, x, y):
        s, p = self.pyfunc(x, y)  # MindSpore 2.10 refuses a tuple here (its docs show one)
        return s, p, self.custom(x), self.insert(x) * y


class Loss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.custom = P.Custom(sine, out_shape=same_shape, out_dtype=same_dtype, func_type="pyfunc",
                               bprop=sine_bprop)
        self.insert = P.InsertGradientOf(triple)

    def construct(self, x, y):
        return (self.custom(x) * y).sum() + (self.insert(x) * y).sum()


def main():
    return Net()(Tensor(X), Tensor(Y)), ops.grad(Loss(), grad_position=(0, 1))(Tensor(X), Tensor(Y))
'''

PROGRAMS["stft"] = _PRELUDE + '''
STEPS = np.arange(40, dtype=np.float32)
SIGNAL = (np.sin(STEPS * 0.7) + STEPS / 20 - 1).reshape(2, 20)
WINDOW = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(6) / 6)).astype(np.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.frames = P.STFT(8, 3, 6, False, True, False)
        self.normed = P.STFT(8, 4, 8, True, False, False)

    def construct(self, x, w, ones):
        return self.frames(x, w), self.normed(x[0], ones)


def main():
    return Net()(Tensor(SIGNAL), Tensor(WINDOW), Tensor(np.ones(8, np.float32)))
'''

PROGRAMS["image"] = _PRELUDE + '''
IMG = (np.arange(2 * 3 * 3 * 4, dtype=np.float32).reshape(2, 3, 3, 4) % 7 - 2.5) / 2
RGB = np.stack([np.linspace(0, 1, 12), np.linspace(1, 0.2, 12) ** 2, np.abs(np.sin(np.arange(12)))], -1)
RGB = np.concatenate([RGB, [[0.4, 0.4, 0.4], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]])
RGB = RGB.reshape(2, 2, 4, 3).astype(np.float32)
SIZE = Tensor(np.array([5, 6], np.int32))


class Net(nn.Cell):
    def construct(self, x, rgb):
        return (P.ResizeBicubic()(x, SIZE), P.ResizeBicubic(True, False)(x, SIZE),
                P.ResizeBicubic(False, True)(x, SIZE),
                P.ResizeBicubic(align_corners=False)(x[:, :, :, :3], (2, 2)),
                P.AdjustHue()(rgb, Tensor(0.2, ms.float32)), P.AdjustHue()(rgb, Tensor(-0.65, ms.float32)),
                P.AdjustSaturation()(rgb, Tensor(0.4, ms.float32)),
                P.AdjustSaturation()(rgb, Tensor(1.7, ms.float32)))


class Loss(nn.Cell):
    def construct(self, x, y):
        return (((P.ResizeBicubic()(x, SIZE) * y) ** 2).sum()
                + (P.ResizeBicubic(False, True)(x, SIZE) * y).sum())


def main():
    weights = Tensor(np.linspace(-1, 1, 2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6))
    return Net()(Tensor(IMG), Tensor(RGB)), ops.grad(Loss(), grad_position=(0, 1))(Tensor(IMG), weights)
'''

# NonMaxSuppressionWithOverlaps' length depends on the values: our graph mode runs the Cell
# interpreted (JIT Fallback), MindSpore's compiles a dynamic shape
PROGRAMS["boxes"] = _PRELUDE + '''
BOXES = np.array([[0, 0, 10, 10, 0.7], [1, 1, 11, 11, 0.9], [20, 20, 30, 30, 0.8], [0, 0, 10, 5, 0.95],
                  [20, 20, 30, 29, 0.1], [5, 0, 15, 10, 0.3], [2, 3, 6, 9, 0.55]], np.float32)
OVERLAPS = np.array([[1, 0.6, 0.2, 0.7], [0.6, 1, 0.1, 0.3], [0.2, 0.1, 1, 0.45], [0.7, 0.3, 0.45, 1]],
                    np.float32)
SCORES = np.array([0.9, 0.8, 0.7, 0.95], np.float32)
FEATURES = (np.arange(2 * 2 * 6 * 6, dtype=np.float32).reshape(2, 2, 6, 6) % 11) / 3
ROIS = np.array([[0, 0.5, 0.5, 4.0, 4.0], [1, 1.2, 0.3, 5.5, 3.1], [0, -1, -1, 2, 8], [1, -2.5, 3, 7.5, 6.8]],
                np.float32)


class Net(nn.Cell):
    def construct(self, boxes, features, rois):
        return (P.NMSWithMask(0.5)(boxes), P.NMSWithMask(0.3)(boxes), P.NMSWithMask(iou_threshold=0.0)(boxes),
                P.ROIAlign(2, 2, 1.0, 2, 1)(features, rois), P.ROIAlign(3, 2, 0.5, 1, 0)(features, rois),
                P.ROIAlign(2, 3, 1.0, -1, 1)(features, rois), P.ROIAlign(2, 2, 0.7, 3)(features, rois[:2]))


class Suppress(nn.Cell):
    def construct(self, overlaps, scores):
        pick, i32, f32 = P.NonMaxSuppressionWithOverlaps(), ms.int32, ms.float32
        return (pick(overlaps, scores, Tensor(4, i32), Tensor(0.5, f32), Tensor(0.0, f32)),
                pick(overlaps, scores, Tensor(2, i32), Tensor(0.4, f32), Tensor(0.0, f32)),
                pick(overlaps, scores, Tensor(4, i32), Tensor(0.9, f32), Tensor(0.75, f32)))


class Loss(nn.Cell):
    def construct(self, features, rois):
        return ((P.ROIAlign(2, 3, 1.0, 2, 1)(features, rois) ** 2).sum()
                + (P.ROIAlign(2, 2, 1.0, -1, 1)(features, rois) * rois[:, 1:2, None, None]).sum())


def main():
    f, r = Tensor(FEATURES), Tensor(ROIS)
    return (Net()(Tensor(BOXES), f, r), Suppress()(Tensor(OVERLAPS), Tensor(SCORES)),
            ops.grad(Loss(), grad_position=0)(f, r))
'''

# CTCLoss's gradient output is compared for full-length sequences only: past a shorter
# sequence's end MindSpore 2.10's CPU kernel leaves stale values there (not zeros, not the
# softmax), so for those only the loss is
PROGRAMS["ctc_sparse"] = _PRELUDE + '''
LOGITS = np.sin(np.arange(6 * 3 * 5, dtype=np.float32).reshape(6, 3, 5) * 0.9) * 2
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2], [2, 3]], np.int64)
VALUES = np.array([1, 1, 3, 2, 0, 0, 1, 1, 2], np.int32)
FULL = np.array([6, 6, 6], np.int32)
LENGTHS = np.array([6, 4, 5], np.int32)
SHORT = np.array([6, 4, 3], np.int32)


class Net(nn.Cell):
    def construct(self, x, indices, values, full, lengths, short):
        return (P.CTCLoss()(x, indices, values, full),
                P.CTCLoss(preprocess_collapse_repeated=True)(x, indices, values, full),
                P.CTCLoss()(x, indices, values, lengths)[0],
                P.CTCLoss(False, True, True)(x, indices, values, short)[0])


class Loss(nn.Cell):
    def construct(self, x, indices, values, lengths):
        loss, _ = P.CTCLoss()(x, indices, values, lengths)
        return (loss * Tensor(np.array([1.0, -0.5, 2.0], np.float32))).sum()


def main():
    x, i, v, n = Tensor(LOGITS), Tensor(INDICES), Tensor(VALUES), Tensor(FULL)
    return Net()(x, i, v, n, Tensor(LENGTHS), Tensor(SHORT)), ops.grad(Loss(), grad_position=0)(x, i, v, n)
'''

PROGRAMS["deformable_offsets"] = _PRELUDE + '''
IMAGE = np.cos(np.arange(2 * 4 * 5 * 5, dtype=np.float32).reshape(2, 4, 5, 5) * 0.7)
OFFSETS = np.sin(np.arange(2 * 12 * 4 * 4, dtype=np.float32).reshape(2, 12, 4, 4) * 1.3) * 0.8
WIDE = np.sin(np.arange(2 * 24 * 5 * 5, dtype=np.float32).reshape(2, 24, 5, 5) * 0.4) * 1.5
STRIDED = np.sin(np.arange(2 * 24 * 3 * 3, dtype=np.float32).reshape(2, 24, 3, 3) * 0.7) * 1.2


class Net(nn.Cell):
    def construct(self, x, offsets, wide, strided):
        return (P.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))(x, offsets),
                P.DeformableOffsets((1, 1, 1, 1), (1, 0, 1, 0), (2, 2), deformable_groups=2)(x, wide),
                P.DeformableOffsets((1, 1, 2, 2), (1, 1, 1, 1), (2, 2), dilations=(1, 1, 1, 1),
                                    deformable_groups=2)(x, strided))


class Loss(nn.Cell):
    def construct(self, x, offsets):
        out = P.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))(x, offsets)
        return (out * out * 0.5 + out).sum()


def main():
    x = Tensor(IMAGE)
    return (Net()(x, Tensor(OFFSETS), Tensor(WIDE), Tensor(STRIDED)),
            ops.grad(Loss(), grad_position=(0, 1))(x, Tensor(OFFSETS)))
'''

PROGRAMS["max_pool3d_argmax"] = _PRELUDE + '''
VOLUME = np.sin(np.arange(2 * 2 * 5 * 6 * 5, dtype=np.float32).reshape(2, 2, 5, 6, 5) * 1.7) * 3


class Net(nn.Cell):
    def construct(self, x):
        return (P.MaxPool3DWithArgmax(2, 2, 0)(x),
                P.MaxPool3DWithArgmax((2, 3, 2), (1, 2, 2), (1, 1, 0), argmax_type=ms.int32)(x),
                P.MaxPool3DWithArgmax(2, 2, 1, ceil_mode=True)(x),
                P.MaxPool3DWithArgmax(2, 1, 0, dilation=(2, 1, 2))(x))


class Loss(nn.Cell):
    def construct(self, x):
        out, _ = P.MaxPool3DWithArgmax((2, 3, 2), (1, 2, 2), (1, 1, 0))(x)
        return (out * out).sum()


def main():
    return Net()(Tensor(VOLUME)), ops.grad(Loss())(Tensor(VOLUME))
'''

# P.LSTM: only y, hy and cy are compared (its last two outputs are the CPU kernel's
# workspace); MindSpore 2.10's kernel refuses layers of differing input sizes ("could not
# create a primitive descriptor"), so the 2-layer program has input_size == hidden_size
PROGRAMS["lstm"] = _PRELUDE + '''
STEPS = np.sin(np.arange(4 * 2 * 3, dtype=np.float32).reshape(4, 2, 3) * 1.1)
SQUARE = np.cos(np.arange(4 * 2 * 5, dtype=np.float32).reshape(4, 2, 5) * 0.8)


def flat(size, scale, phase):
    return (np.sin(np.arange(size, dtype=np.float32) * 0.37 + phase) * scale).reshape(-1, 1, 1)


W_ONE = flat(4 * 5 * 3 + 4 * 5 * 5 + 4 * 5, 0.4, 0.0)
W_BI = flat(2 * (4 * 5 * 3 + 4 * 5 * 5 + 4 * 5), 0.4, 1.0)
W_TWO = flat(2 * (4 * 5 * 5 + 4 * 5 * 5), 0.5, 2.0)
H1 = np.cos(np.arange(1 * 2 * 5, dtype=np.float32).reshape(1, 2, 5))
H2 = np.sin(np.arange(2 * 2 * 5, dtype=np.float32).reshape(2, 2, 5))


class Net(nn.Cell):
    def construct(self, x, sq, w1, w2, w3, h1, h2):
        a = P.LSTM(3, 5, 1, True, False, 0.0)(x, h1, h1 * 0.5, w1)
        b = P.LSTM(3, 5, 1, True, True, 0.0)(x, h2, h2 * -0.5, w2)
        c = P.LSTM(5, 5, 2, False, False, 0.0)(sq, h2, h2 * 0.3, w3)
        return a[:3], b[:3], c[:3]


class Loss(nn.Cell):
    def construct(self, x, h, c, w):
        y, hy, cy, _, _ = P.LSTM(3, 5, 1, True, True, 0.0)(x, h, c, w)
        return (y * y).sum() + (hy * cy).sum()


def main():
    x, h2 = Tensor(STEPS), Tensor(H2)
    return (Net()(x, Tensor(SQUARE), Tensor(W_ONE), Tensor(W_BI), Tensor(W_TWO), Tensor(H1), h2),
            ops.grad(Loss(), grad_position=(0, 1, 2, 3))(x, h2, h2 * 0.5, Tensor(W_BI)))
'''

# FusedCastAdamWeightDecay: MindSpore 2.10's CPU kernel updates the Parameters in place and
# returns zeros, so the program compares the Parameters after two steps
PROGRAMS["fused_cast_adam"] = _PRELUDE + '''
class Step(nn.Cell):
    def __init__(self, dtype):
        super().__init__()
        self.opt = P.FusedCastAdamWeightDecay()
        self.var = ms.Parameter(Tensor(np.array([[1.0, -2.0], [0.5, 3.0]]), dtype), name="var")
        self.m = ms.Parameter(Tensor(np.array([[0.1, 0.2], [-0.3, 0.0]]), ms.float32), name="m")
        self.v = ms.Parameter(Tensor(np.array([[0.01, 0.2], [0.3, 0.05]]), ms.float32), name="v")

    def construct(self, lr, beta1, beta2, epsilon, decay, grad, norm):
        self.opt(self.var, self.m, self.v, lr, beta1, beta2, epsilon, decay, grad, norm)
        return self.var + 0, self.m + 0, self.v + 0


def main():
    out = []
    for dtype, decay in ((ms.float16, 0.1), (ms.float32, 0.1), (ms.float32, 0.0)):
        step = Step(dtype)
        for grad in ([[0.5, -1.0], [2.0, 0.25]], [[-0.75, 0.5], [1.0, 3.0]]):
            last = step(0.01, 0.9, 0.999, 1e-8, decay, Tensor(np.array(grad), ms.float16), 2.0)
        out.append(last)
    return out
'''

PROGRAMS["combined_nms"] = _PRELUDE + '''
CORNERS = np.array([[0.1, 0.1, 0.5, 0.5], [0.12, 0.08, 0.52, 0.49], [0.6, 0.6, 0.9, 1.2],
                    [0.55, 0.3, 0.2, 0.7],
                    [-0.1, 0.0, 0.3, 0.35], [0.61, 0.58, 0.88, 1.1]], np.float32)
SHARED = np.stack([CORNERS, CORNERS[::-1] * 0.9 + 0.05])[:, :, None, :]
PER_CLASS = np.stack([CORNERS, CORNERS + 0.02], 1)[None].repeat(2, 0).reshape(2, 6, 2, 4)
SCORES = np.array([[[0.9, 0.1, 0.3], [0.85, 0.2, 0.05], [0.7, 0.65, 0.4], [0.2, 0.95, 0.33], [0.5, 0.45, 0.8],
                    [0.66, 0.6, 0.01]],
                   [[0.3, 0.72, 0.9], [0.12, 0.81, 0.06], [0.64, 0.2, 0.47], [0.91, 0.34, 0.28],
                    [0.55, 0.77, 0.19], [0.43, 0.58, 0.69]]], np.float32)


# the limits are Cell inputs: MindSpore 2.10's graph mode refuses them as constants made in
# construct ("Cast failed, original value: Tensor(shape=[], dtype=Float32, value=0.5)")
class Pick(nn.Cell):
    def __init__(self, *attrs, **named):
        super().__init__()
        self.pick = P.CombinedNonMaxSuppression(*attrs, **named)

    def construct(self, boxes, scores, per_class, total, iou, least):
        return self.pick(boxes, scores, per_class, total, iou, least)


def limits(per_class, total, iou, least):
    i32, f32 = ms.int32, ms.float32
    return Tensor(per_class, i32), Tensor(total, i32), Tensor(iou, f32), Tensor(least, f32)


def main():
    shared, per_class, scores = Tensor(SHARED), Tensor(PER_CLASS), Tensor(SCORES)
    return (Pick()(shared, scores, *limits(2, 5, 0.5, 0.25)),
            Pick(True, False)(shared, scores, *limits(1, 8, 0.3, 0.0)),
            Pick(clip_boxes=False)(per_class, scores[:, :, :2], *limits(3, 4, 0.6, 0.15)))
'''

if __name__ == "__main__":  # re-record ms_prims_cpu_expected.json (needs MINDSPORE_PYTHON)
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_prims_cpu_expected.json"))
