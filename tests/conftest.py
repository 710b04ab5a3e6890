"""Shared test fixtures: PyNative mode and a fixed seed for every test."""

import pytest

import framework as ms


@pytest.fixture(autouse=True)
def _fresh_context():
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(0)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
