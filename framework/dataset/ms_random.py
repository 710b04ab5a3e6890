"""MindSpore's random row orders, reproduced: with ``ds.config.set_seed(s)`` a shuffled source
reads its rows in MindSpore's order.

MindSpore's samplers draw from a 32-bit Mersenne Twister seeded with the dataset seed (the
standard ``mt19937`` with its standard seeding, which is NumPy's ``RandomState(seed)``) and
use the C++ standard library's ``shuffle`` and ``uniform_int_distribution``
(GNU libstdc++'s algorithms: uniform draws by division with rejection; a shuffle of ``n``
items swaps two positions per draw while ``n * n`` fits in 32 bits, one per draw otherwise).
Observed in MindSpore 2.10 (the tests compare against it):

- a shuffled source (``RandomSampler``): epoch ``e``'s order is epoch ``e-1``'s order
  shuffled again with the seed ``s + e`` (epoch -1 is ``0..n-1``);
- draws with replacement (``RandomSampler(replacement=True)``, or ``num_samples`` on a
  shuffled source): ``k`` uniform draws in ``[0, n)`` seeded with ``s + e``;
- ``DistributedSampler(shuffle=True)`` (or ``num_shards`` on a source): the chained order
  with the seeds ``s + 1 + e``, then sharded;
- ``SubsetRandomSampler``: the chained order of its indices, every epoch seeded with ``s``.

:func:`uniform_draws` is vectorized; :func:`shuffle` loops in Python (about ``n / 2``
steps, some 30 ms for 60,000 rows), done once per epoch.
"""

from __future__ import annotations

import numpy as np

_FULL = 1 << 32
CHUNK = 4096


class MT19937Stream:
    """The 32-bit outputs of ``mt19937(seed)``, in order."""

    def __init__(self, seed: int) -> None:
        self._rs = np.random.RandomState(int(seed) % _FULL)
        self._buf: list[int] = []
        self._pos = 0

    def take(self, count: int) -> np.ndarray:
        return self._rs.randint(0, _FULL, size=count, dtype=np.uint64)

    def next(self) -> int:
        if self._pos == len(self._buf):
            self._buf, self._pos = self.take(CHUNK).tolist(), 0
        self._pos += 1
        return self._buf[self._pos - 1]

    def uniform(self, high: int) -> int:
        """A uniform int in ``[0, high]`` (libstdc++'s division method)."""
        span = high + 1
        if span == _FULL:
            return self.next()
        scaling = _FULL // span
        past = span * scaling
        while True:
            value = self.next()
            if value < past:
                return value // scaling


def shuffle(items: np.ndarray, seed: int) -> np.ndarray:
    """``items`` shuffled as ``std::shuffle(begin, end, std::mt19937(seed))`` does (libstdc++)."""
    x = np.array(items, copy=True).tolist()
    n = len(x)
    if n < 2:
        return np.asarray(x, dtype=np.asarray(items).dtype)
    g = MT19937Stream(seed)
    if (_FULL - 1) // n >= n:  # two swap positions from one draw
        i = 1
        if n % 2 == 0:
            j = g.uniform(1)
            x[i], x[j] = x[j], x[i]
            i += 1
        while i != n:
            span = i + 1
            v = g.uniform(span * (span + 1) - 1)
            p1, p2 = divmod(v, span + 1)
            x[i], x[p1] = x[p1], x[i]
            x[i + 1], x[p2] = x[p2], x[i + 1]
            i += 2
    else:
        for i in range(1, n):
            j = g.uniform(i)
            x[i], x[j] = x[j], x[i]
    return np.asarray(x, dtype=np.asarray(items).dtype)


def uniform_draws(n: int, count: int, seed: int) -> np.ndarray:
    """``count`` uniform ints in ``[0, n)`` from ``mt19937(seed)`` (draws with replacement)."""
    if n < 1:
        return np.zeros(0, np.int64)
    g = MT19937Stream(seed)
    scaling = _FULL // n
    past = n * scaling
    out: list[np.ndarray] = []
    have = 0
    while have < count:
        raw = g.take(max(2 * (count - have), 64))
        kept = raw[raw < past][:count - have] // scaling
        out.append(kept.astype(np.int64))
        have += len(kept)
    return np.concatenate(out) if out else np.zeros(0, np.int64)


class ChainedOrder:
    """Epoch ``e``'s order: epoch ``e-1``'s shuffled with ``seed + step * e`` (see the module
    doc); keeps the last epoch computed, so consecutive epochs cost one shuffle each."""

    def __init__(self, n: int, seed: int, step: int = 1) -> None:
        self.n, self.seed, self.step = n, int(seed), int(step)
        self._epoch, self._order = -1, np.arange(n, dtype=np.int64)

    def order(self, epoch: int) -> np.ndarray:
        if epoch < self._epoch:
            self._epoch, self._order = -1, np.arange(self.n, dtype=np.int64)
        while self._epoch < epoch:
            self._epoch += 1
            self._order = shuffle(self._order, self.seed + self.step * self._epoch)
        return self._order
