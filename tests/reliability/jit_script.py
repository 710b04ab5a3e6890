"""Compile and run one small graph-mode function; print its result (used by the cache tests)."""

import sys

import numpy as np

import framework as ms
from framework import Tensor, nn

ms.set_seed(0)
if len(sys.argv) > 1:  # kernel tuning trials
    ms.set_context(tuning=int(sys.argv[1]))
net = nn.Dense(4, 3)
x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
out = ms.jit(net)(x)
print(repr(np.asarray(out.asnumpy()).round(5).tolist()))
print("pynative", repr(np.asarray(net(x).asnumpy()).round(5).tolist()))
