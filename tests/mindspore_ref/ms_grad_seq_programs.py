"""Programs for the backward primitives of ``mindspore.ops.operations._grad_ops`` (``G``) of
the sampling ops and the LSTM: ``GridSampler2DGrad``, ``GridSampler3DGrad``, ``ROIAlignGrad``,
``ResizeBicubicGrad``, ``DeformableOffsetsGrad`` and ``LSTMGrad`` (after ``P.LSTM``'s forward,
whose outputs it takes: those are compared too).

MindSpore 2.10's CPU build registers no kernel for ``LSTMGradData`` nor ``LSTMGradWeight``, so
``UNTESTABLE`` records its error; ``test_ms_grad_seq.py`` checks ours against ``LSTMGrad`` (in
both modes) and finite differences instead.

Each program is one Cell applying the classes with MindSpore's argument order and attributes;
graph mode compiles it. Module paths are imported as ``importlib.import_module(ms.__name__ +
".ops.operations._grad_ops")`` so one source runs on both engines.
``ms_grad_seq_expected.json`` holds MindSpore 2.10's answers on CPU per mode; ``python -m
tests.mindspore_ref.ms_grad_seq_programs`` re-records them (needs ``MINDSPORE_PYTHON``).
"""

from __future__ import annotations

from pathlib import Path

_PRELUDE = '''
import importlib

G = importlib.import_module(ms.__name__ + ".ops.operations._grad_ops")
P = importlib.import_module(ms.__name__ + ".ops.operations")


def wave(shape, scale=1.0, phase=0.0):
    """Deterministic values without a random generator (both engines see the same)."""
    size = int(np.prod(shape))
    return (np.sin(np.arange(size, dtype=np.float32) * 0.73 + phase) * scale).reshape(shape)
'''

UNTESTABLE = {
    "ops.operations._grad_ops:LSTMGradData": "RuntimeError: Kernel select failed: Unsupported op "
                                             "[LSTMGradData] on CPU",
    "ops.operations._grad_ops:LSTMGradWeight": "RuntimeError: Kernel select failed: Unsupported op "
                                               "[LSTMGradWeight] on CPU",
}

PROGRAMS: dict[str, str] = {}

PROGRAMS["grid_sampler_2d"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = G.GridSampler2DGrad()
        self.nearest = G.GridSampler2DGrad("nearest")
        self.border = G.GridSampler2DGrad("bilinear", "border", True)
        self.reflect = G.GridSampler2DGrad(interpolation_mode="bilinear", padding_mode="reflection",
                                           align_corners=False, output_mask=(1, 0))

    def construct(self, d, x, grid):
        return self.plain(d, x, grid), self.nearest(d, x, grid), self.border(d, x, grid), \\
            self.reflect(d * 0.5, x, grid * 1.3)


def main():
    x = Tensor(wave((2, 2, 3, 4)))
    grid = Tensor(wave((2, 2, 3, 2), 1.15, 0.4))
    d = Tensor(wave((2, 2, 2, 3), 1.0, 1.1))
    return Net()(d, x, grid)
'''

PROGRAMS["grid_sampler_3d"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = G.GridSampler3DGrad()
        self.corners = G.GridSampler3DGrad("bilinear", "border", True)
        self.nearest = G.GridSampler3DGrad(interpolation_mode="nearest", padding_mode="zeros")

    def construct(self, d, x, grid):
        return self.plain(d, x, grid), self.corners(d, x, grid), self.nearest(d, x, grid)


def main():
    x = Tensor(wave((1, 2, 2, 3, 4)))
    grid = Tensor(wave((1, 2, 2, 2, 3), 1.1, 0.3))
    d = Tensor(wave((1, 2, 2, 2, 2), 1.0, 2.0))
    as64 = [Tensor(t.asnumpy().astype(np.float64)) for t in (d, x, grid)]
    return Net()(d, x, grid), Net()(*as64)
'''

PROGRAMS["roi_align"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.two = G.ROIAlignGrad(2, 2, 1.0)
        self.scaled = G.ROIAlignGrad(pooled_height=3, pooled_width=2, spatial_scale=0.5, sample_num=1)
        self.adaptive = G.ROIAlignGrad(2, 3, 1.0, 0)
        self.coords = Tensor(np.array([1.0, 2.0, 2.0, 2.0, 2.0], np.float32))  # batch index kept

    def construct(self, d22, d32, d23, rois):
        return (self.two(d22, rois, (2, 2, 5, 6)), self.scaled(d32, rois * self.coords, (2, 2, 5, 6)),
                self.adaptive(d23, rois, (2, 2, 5, 6)))


def main():
    rois = Tensor(np.array([[0, 0.5, 1.0, 3.5, 3.2], [1, 1.0, 0.0, 4.0, 4.0], [0, 2.2, 1.5, 4.8, 3.9]],
                           np.float32))
    return Net()(Tensor(wave((3, 2, 2, 2))), Tensor(wave((3, 2, 3, 2), 1.0, 0.5)),
                 Tensor(wave((3, 2, 2, 3), 1.0, 1.5)), rois)
'''

PROGRAMS["resize_bicubic"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.plain = G.ResizeBicubicGrad()
        self.corners = G.ResizeBicubicGrad(align_corners=True)
        self.half = G.ResizeBicubicGrad(False, half_pixel_centers=True)

    def construct(self, up, down, image):
        return (self.plain(up, image), self.corners(up, image), self.half(up, image),
                self.plain(down, image), self.half(down, image))


def main():
    image = Tensor(wave((1, 2, 3, 4)))
    up, down = Tensor(wave((1, 2, 5, 7), 1.0, 0.7)), Tensor(wave((1, 2, 2, 3), 1.0, 1.7))
    as64 = [Tensor(t.asnumpy().astype(np.float64)) for t in (up, down, image)]
    return Net()(up, down, image), Net()(*as64)
'''

PROGRAMS["deformable_offsets"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.same = G.DeformableOffsetsGrad((1, 1, 1, 1), (1, 1, 1, 1), (3, 3))
        self.strided = G.DeformableOffsetsGrad(strides=(1, 1, 2, 2), pads=(0, 1, 0, 1), kernel_size=(2, 2),
                                               dilations=(1, 1, 1, 1), data_format="NCHW",
                                               deformable_groups=2, modulated=True)

    def construct(self, d1, x, off1, d2, off2):
        return self.same(d1, x, off1), self.strided(d2, x, off2)


def main():
    x = Tensor(wave((1, 2, 4, 5)))
    off1 = Tensor(wave((1, 27, 4, 5), 0.6, 0.2))
    d1 = Tensor(wave((1, 2, 12, 15), 1.0, 0.9))
    off2 = Tensor(wave((1, 24, 2, 3), 0.7, 1.3))
    d2 = Tensor(wave((1, 2, 4, 6), 1.0, 2.1))
    return Net()(d1, x, off1, d2, off2)
'''

# float16, which MindSpore's kernels of these three take too (compared to float16's precision)
PROGRAMS["half_precision"] = _PRELUDE + '''
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.grid = G.GridSampler2DGrad()
        self.roi = G.ROIAlignGrad(2, 2, 1.0)
        self.deform = G.DeformableOffsetsGrad((1, 1, 1, 1), (1, 1, 1, 1), (3, 3))

    def construct(self, d, x, grid, droi, rois, d1, x1, off1):
        return self.grid(d, x, grid), self.roi(droi, rois, (1, 2, 5, 6)), self.deform(d1, x1, off1)


def main():
    half = [Tensor(a.astype(np.float16)) for a in (
        wave((2, 2, 2, 3), 1.0, 1.1), wave((2, 2, 3, 4)), wave((2, 2, 3, 2), 1.15, 0.4), wave((1, 2, 2, 2)),
        np.array([[0, 0.5, 1.0, 3.5, 3.2]]), wave((1, 2, 12, 15), 1.0, 0.9), wave((1, 2, 4, 5)),
        wave((1, 27, 4, 5), 0.6, 0.2))]
    return Net()(*half)
'''

# MindSpore 2.10's CPU kernel refuses stacked layers of differing input sizes ("could not
# create a primitive descriptor"), so the 2-layer cases have input_size == hidden_size
PROGRAMS["lstm"] = _PRELUDE + '''
def weights(input_size, hidden, layers, bias, directions):
    size = 0
    for layer in range(layers):
        width = input_size if layer == 0 else hidden * directions
        size += directions * (4 * hidden * width + 4 * hidden * hidden + (4 * hidden if bias else 0))
    return Tensor(wave((size, 1, 1), 0.4, 0.1 * layers + directions))


class Net(nn.Cell):
    def __init__(self, input_size, hidden, layers, bias, bidirectional):
        super().__init__()
        self.lstm = P.LSTM(input_size, hidden, layers, bias, bidirectional, 0.0)
        self.grad = G.LSTMGrad(input_size, hidden, layers, bias, bidirectional, 0.0)

    def construct(self, x, h, c, w, dy, dh, dc):
        y, hy, cy, reserve, _ = self.lstm(x, h, c, w)
        return (y, hy, cy), self.grad(x, h, c, w, y, hy, cy, dy, dh, dc, reserve)


def case(input_size, hidden, layers, bias, bidirectional):
    directions = 2 if bidirectional else 1
    cells = layers * directions
    x = Tensor(wave((3, 2, input_size), 1.0, 0.3))
    h, c = Tensor(wave((cells, 2, hidden), 0.8, 1.0)), Tensor(wave((cells, 2, hidden), 0.6, 2.0))
    dy = Tensor(wave((3, 2, hidden * directions), 1.0, 0.5))
    dh, dc = Tensor(wave((cells, 2, hidden), 0.5, 1.5)), Tensor(wave((cells, 2, hidden), 0.7, 2.5))
    w = weights(input_size, hidden, layers, bias, directions)
    forward, (dx, dhx, dcx, dw) = Net(input_size, hidden, layers, bias, bidirectional)(x, h, c, w, dy, dh, dc)
    # stacked bidirectional layers: every W_ih is (4H, input_size), packed from the start, and
    # W_hh starts after room for wider ones; MindSpore's kernel leaves the unread gap of its
    # gradient unwritten (values that change from run to run), so the gap is not compared
    read = cells * 4 * hidden * input_size if bidirectional and layers > 1 else 0
    gap_end = directions * sum(4 * hidden * (input_size if k == 0 else hidden * directions)
                               for k in range(layers))
    return forward, (dx, dhx, dcx) + ((dw[:read], dw[gap_end:]) if read else (dw,))


def main():
    return (case(3, 4, 1, True, False), case(3, 4, 1, True, True), case(4, 4, 2, True, False),
            case(4, 4, 2, False, False), case(4, 4, 2, True, True), case(3, 3, 3, False, True))
'''


if __name__ == "__main__":
    from tests.mindspore_ref.recorded import record

    record(PROGRAMS, Path(__file__).with_name("ms_grad_seq_expected.json"))
