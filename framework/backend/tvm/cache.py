"""Where compiled libraries and tuning records live on disk (a leaf module)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$TWINMODE_CACHE_DIR``, else ``$XDG_CACHE_HOME`` or ``~/.cache``, then
    ``twinmode/compiled``."""
    root = os.environ.get("TWINMODE_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "twinmode" / "compiled"
