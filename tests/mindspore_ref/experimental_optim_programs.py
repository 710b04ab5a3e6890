"""``mindspore.experimental.optim`` programs: a few steps of a small regression with each
optimizer, MindSpore's way (``value_and_grad(fn, None, opt.parameters)``, ``opt(grads)``).
``EXPECTED`` (``experimental_optim_expected.json``) holds MindSpore 2.10's answers (CPU)."""

from __future__ import annotations

_BODY = '''
import importlib

optim = importlib.import_module(ms.__name__ + ".experimental.optim")


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(Tensor(np.array([[0.5, -0.3, 0.8], [0.1, 0.2, -0.6]],
                                                   np.float32)), name="weight")
        self.gamma = ms.Parameter(Tensor(np.array([0.4, -0.2], np.float32)), name="gamma")

    def construct(self, x):
        return ops.matmul(x, self.weight.T) * self.gamma


def main():
    net = Net()
    opt = {make}
    x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0]], np.float32))
    y = Tensor(np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 0.5]], np.float32))

    def forward(a, b):
        return ((net(a) - b) ** 2).mean()

    step = ms.value_and_grad(forward, None, opt.parameters)
    losses = []
    for _ in range(3):
        loss, grads = step(x, y)
        opt(grads)
        losses.append(loss)
    return losses[0], losses[2], net.weight, net.gamma
'''

PROGRAMS = {
    name: _BODY.replace("{make}", make) for name, make in {
        "sgd": "optim.SGD(net.trainable_params(), lr=0.1)",
        "sgd_momentum_nesterov_decay": "optim.SGD(net.trainable_params(), lr=0.05, momentum=0.9, "
                                       "nesterov=True, weight_decay=0.1)",
        "sgd_dampening": "optim.SGD(net.trainable_params(), lr=0.05, momentum=0.8, dampening=0.3)",
        "adam": "optim.Adam(net.trainable_params(), lr=0.1)",
        "adam_decay": "optim.Adam(net.trainable_params(), lr=0.05, betas=(0.8, 0.99), eps=1e-3, "
                      "weight_decay=0.2)",
        "adamw": "optim.AdamW(net.trainable_params(), lr=0.1)",
        "adamw_decay": "optim.AdamW(net.trainable_params(), lr=0.05, weight_decay=0.5, eps=1e-3)",
    }.items()
}
