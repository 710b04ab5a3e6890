"""Values emitted in the open dataflow segment that lowerings share instead of building
twice: an unrolled time loop transposes (or panels) the same weight at every step
(lowerings/nn.py), and an RNN's gate gradients are stacked for two weight gradients
(concat_copies.py). Relax's EliminateCommonSubexpr would share them too, but it also merges
allocations that loops then write in place.

Contract: keys start with the kind of value and ``id(bb)``; a value is valid only inside
the dataflow block it was emitted in, so relax_builder calls :func:`forget` whenever a
segment starts.
"""

from __future__ import annotations

SHARED: dict = {}


def forget() -> None:
    SHARED.clear()
