"""Graph-mode control flow nested three levels and more, structures carried through
regions, `.all()`/`.any()` conditions, augmented assignment and user functions, methods and
sub-cells called from a compiled construct (issue 9): graph == PyNative == NumPy."""

from __future__ import annotations

import numpy as np

import framework as ms
from framework import Tensor, nn

from .control_flow_cases import assert_same, check_forward, f32, i32, run_in, to_np


# -- nesting ---------------------------------------------------------------------------------------
def three_levels(x, n):
    i = 0
    while i < n:                      # while
        for k in range(2):            # for (Python bound: unrolled) in while
            if x.sum() > 4:           # if in for in while
                x = x - 1
            elif x[k] < 0:
                x = x + 2
            else:
                x = x * 1.5
        i += 1
    if x.sum() > 2:                   # if after while
        j = 0
        while j < 2:                  # while in if
            while x.sum() < 3:        # while in while in if
                x = x + 0.5
            x = x * 0.9
            j += 1
    return x


def np_three_levels(x, n):
    x = x.copy()
    for _ in range(n):
        for k in range(2):
            if x.sum() > 4:
                x = x - np.float32(1)
            elif x[k] < 0:
                x = x + np.float32(2)
            else:
                x = x * np.float32(1.5)
    if x.sum() > 2:
        for _ in range(2):
            while x.sum() < 3:
                x = x + np.float32(0.5)
            x = x * np.float32(0.9)
    return x


def test_three_levels_of_nesting():
    small, big = np.array([0.5, -1.0], np.float32), np.array([3.0, 2.0], np.float32)
    cases = [(small, 0), (small, 1), (small, 3), (big, 2)]
    check_forward(three_levels, [(Tensor(x), i32(n)) for x, n in cases],
                  [np_three_levels(x, n) for x, n in cases], rtol=1e-5)


# -- structures carried through branches and loops ---------------------------------------------------
def carry_tuple_and_list(x, n):
    state = (x, x * 0)
    acc = [x[0], x[1]]
    i = 0
    while i < n:
        a, b = state
        state = (a * 0.5, b + a)
        if a.sum() > 1:
            acc = [acc[0] + 1, acc[1] * 2]
        i += 1
    return state, acc


def test_tuples_and_lists_carried_through_branches_and_loops():
    x = np.array([4.0, 2.0], np.float32)
    expected = []
    for n in (0, 1, 3):
        a, b, acc = x.copy(), np.zeros(2, np.float32), [x[0], x[1]]
        for _ in range(n):
            if a.sum() > 1:
                acc = [acc[0] + 1, acc[1] * 2]
            a, b = a * np.float32(0.5), b + a
        expected.append(((a, b), [np.float32(acc[0]), np.float32(acc[1])]))
    check_forward(carry_tuple_and_list, [(Tensor(x), i32(n)) for n in (0, 1, 3)], expected)


def item_assignment_in_loop(x, n):
    i = Tensor(np.array(0), ms.int32)
    while i < n:
        x[i] = x[i] * 2 + 1
        i += 1
    return x


def test_item_assignment_with_a_tensor_index_inside_a_loop():
    x = np.arange(4, dtype=np.float32)
    expected = []
    for n in (0, 2, 4):
        y = x.copy()
        y[:n] = y[:n] * 2 + 1
        expected.append(y)
    check_forward(item_assignment_in_loop, [(Tensor(x.copy()), i32(n)) for n in (0, 2, 4)], expected)


def while_in_while_tensor_bounds(x, n, m):
    i = Tensor(np.array(0), ms.int32)
    total = Tensor(np.array(0), ms.int32)
    while i < n:
        j = Tensor(np.array(0), ms.int32)
        while j < m:
            if (i + j) > 2:
                total = total + i * j
            else:
                total = total - 1
            j = j + 1
        for _ in range(i):  # for over a tensor range inside the outer while
            x = x * 0.5
        i = i + 1
    return total, x


def test_while_in_while_and_for_range_in_while_int32_and_float32():
    x = np.array([8.0, 4.0], np.float32)
    cases, expected = [], []
    for n, m in ((0, 3), (1, 0), (3, 2), (4, 4)):
        total, y = 0, x.copy()
        for i in range(n):
            for j in range(m):
                total = total + i * j if i + j > 2 else total - 1
            for _ in range(i):
                y = y * np.float32(0.5)
        cases.append((Tensor(x), i32(n), i32(m)))
        expected.append((np.array(total, np.int32), y))
    check_forward(while_in_while_tensor_bounds, cases, expected)


def while_in_if_in_for(xs_a, xs_b, limit):
    out = []
    for x in (xs_a, xs_b):
        if x.sum() < limit:
            while x.sum() < limit:
                x = x * 2
        else:
            x = -x
        out.append(x)
    return out[0] + out[1]


def test_while_in_if_in_for_over_a_tuple():
    a, b = np.array([0.5, 0.25], np.float32), np.array([3.0, 4.0], np.float32)

    def ref(a, b, limit):
        res = []
        for x in (a, b):
            if x.sum() < limit:
                while x.sum() < limit:
                    x = x * np.float32(2)
            else:
                x = -x
            res.append(x)
        return res[0] + res[1]

    cases = [(a, b, 5.0), (b, a, 1.0), (a, a, 0.1)]
    check_forward(while_in_if_in_for, [(Tensor(p), Tensor(q), f32(lim)) for p, q, lim in cases],
                  [ref(p, q, np.float32(lim)) for p, q, lim in cases])


def augassign(x, y):
    if -x.max() < 0 and (-x).max() < 0:  # every element positive
        x += y
        x *= 2
    elif x.max() > 0:
        x -= y
        x /= 4
    else:
        x = x * 0
    while x.max() < 10 or -((-x).max()) < 10:
        x += 3
    return x


def all_any(x, y):
    if (x > 0).all():
        x = x + y
    elif (x > 0).any():
        x = x - y
    while (x < 10).any():
        x = x + 3
    return x


XS = [np.array(v, np.float32) for v in ([1.0, 2.0], [-1.0, 2.0], [-1.0, -2.0], [20.0, 30.0])]
Y = np.array([1.0, 2.0], np.float32)


def test_augmented_assignment_in_branches_and_loops():
    def ref(x):
        x = (x + Y) * 2 if (x > 0).all() else (x - Y) / 4 if (x > 0).any() else x * 0
        while (x < 10).any():
            x = x + np.float32(3)
        return x

    check_forward(augassign, [(Tensor(x), Tensor(Y)) for x in XS], [ref(x) for x in XS])


def test_all_and_any_as_conditions():
    def ref(x):
        x = x + Y if (x > 0).all() else x - Y if (x > 0).any() else x
        while (x < 10).any():
            x = x + np.float32(3)
        return x

    check_forward(all_any, [(Tensor(x), Tensor(Y)) for x in XS], [ref(x) for x in XS])


# -- calls: user functions, methods, sub-cells ----------------------------------------------------------
def damp(x, limit):
    if x.sum() > limit:
        return x * 0.5
    return x


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = ms.Parameter(Tensor(np.array([1.5, -0.5], np.float32)), name="scale")

    def construct(self, x):
        if (x * self.scale).sum() > 0:
            x = x * self.scale
        else:
            x = x - self.scale
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def step(self, x, n):
        for _ in range(n):
            x = damp(self.inner(x), 4.0)
        return x

    def construct(self, x, n):
        i = 0
        while i < 2:  # a Python loop around tensor control flow in calls
            x = self.step(x, n)
            i += 1
        return x


def test_functions_methods_and_subcells_called_from_construct():
    scale = np.array([1.5, -0.5], np.float32)

    def ref(x, n):
        for _ in range(2 * n):
            x = x * scale if (x * scale).sum() > 0 else x - scale
            x = x * np.float32(0.5) if x.sum() > 4 else x
        return x

    net = Outer()
    for x, n in (([3.0, 1.0], 2), ([-1.0, 2.0], 1), ([3.0, 1.0], 0)):
        eager, graph = (to_np(run_in(mode, lambda x=x, n=n: net(f32(x), i32(n))))
                        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE))
        assert_same(graph, eager, msg=f"{x}, {n}")
        assert_same(graph, ref(np.array(x, np.float32), n), msg=f"numpy {x}, {n}")
