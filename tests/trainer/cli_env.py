"""What the CLI tests share: the repository's smoke experiment and the real-data guard."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "experiments" / "smoke.yaml"
needs_data = pytest.mark.skipif(
    not (os.environ.get("TRAIN_DATA_DIR") and
         (Path(os.environ.get("TRAIN_DATA_DIR", "")) / "mnist-10k").is_dir()),
    reason="TRAIN_DATA_DIR with mnist-10k/ is not set (point it at shared/datasets)")
