"""What a sweep searches: the experiment file, fixed overrides and the search space.

A search space comes from three places, later ones winning for the same key:

1. values in the experiment file written as a space: ``learning_rate: loguniform(1e-4, 1e-1)``;
2. the file's ``sweep:`` section (``train run`` skips it, so the file still runs as is)::

       sweep:
         params:
           optimizer.learning_rate: loguniform(1e-4, 1e-1)
           dataset.batch_size: [32, 64]        # a YAML list is a grid of values
         trials: 20                             # defaults for the CLI flags below
         sampler: tpe
         metric: eval/accuracy
         direction: maximize
         pruner: median

3. command-line overrides: ``optimizer.learning_rate=0.01,0.05`` (a grid) or
   ``dataset.batch_size=choice(32,64)``; a plain ``KEY=VALUE`` fixes a key.

Every dimension is checked against the experiment schema at its bounds (each value of a
choice, low and high of a range) before any trial runs; errors name ``file:line`` or the
override. A trial's config is ``load_config(file, fixed + trial values)``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import ConfigError, ExperimentConfig, load_config, read_yaml
from . import space
from .space import Choice, Dimension, SpaceError

SECTION_KEYS = ("params", "trials", "sampler", "metric", "direction", "pruner", "study", "storage")


@dataclass
class SweepSpec:
    file: Path
    fixed: list[str] = field(default_factory=list)
    dims: dict[str, Dimension] = field(default_factory=dict)
    where: dict[str, str] = field(default_factory=dict)  # key -> "file:line" or "override '...'"
    settings: dict[str, Any] = field(default_factory=dict)  # the sweep: section's defaults

    @property
    def is_grid(self) -> bool:
        return bool(self.dims) and all(isinstance(d, Choice) for d in self.dims.values())

    def grid(self) -> list[dict[str, Any]]:
        """Every point of the grid, in Hydra's order (the last key varies fastest)."""
        keys = list(self.dims)
        values = [list(self.dims[k].values) for k in keys]  # type: ignore[union-attr]
        return [dict(zip(keys, combo)) for combo in itertools.product(*values)]

    def overrides(self, params: dict[str, Any]) -> list[str]:
        return self.fixed + [f"{key}={json.dumps(value)}" for key, value in params.items()]

    def config_for(self, params: dict[str, Any]) -> ExperimentConfig:
        """The experiment config of one trial."""
        return load_config(self.file, self.overrides(params))

    def space_texts(self) -> dict[str, str]:
        return {key: dim.text() for key, dim in self.dims.items()}

    def fingerprint(self, *extra: Any) -> str:
        """Short hash naming the default study: same file, overrides, space (and ``extra``)."""
        record = [str(self.file.resolve()), sorted(self.fixed), self.space_texts(), *extra]
        return hashlib.sha256(json.dumps(record, default=str).encode()).hexdigest()[:8]


def _dotted(data: Any, prefix: tuple = ()) -> list[tuple[tuple, Any]]:
    out = []
    if isinstance(data, dict):
        for key, value in data.items():
            out += _dotted(value, prefix + (key,))
    else:
        out.append((prefix, data))
    return out


def _strip_location(message: str) -> str:
    head, sep, rest = message.partition(": ")
    return rest if sep and (head.startswith("override '") or head.endswith((".yaml", ".yml"))
                            or ":" in head) else message


def _parse_at(text: str, where: str, key: str) -> Dimension:
    try:
        return space.parse(text)
    except SpaceError as error:
        raise ConfigError(f"{where}: '{key}': {error}") from None


def _read_section(section: Any, file: Path, lines: dict[tuple, int], spec: SweepSpec) -> None:
    def at(*path: str) -> str:
        line = lines.get(("sweep",) + path)
        return f"{file}:{line}" if line else str(file)

    if not isinstance(section, dict):
        raise ConfigError(f"{at()}: 'sweep' must be a mapping (params, trials, sampler, metric, ...)")
    for key, value in section.items():
        if key not in SECTION_KEYS:
            raise ConfigError(f"{at(key)}: unknown key 'sweep.{key}'; valid keys: {', '.join(SECTION_KEYS)}")
        if key != "params":
            spec.settings[key] = value
    params = section.get("params") or {}
    if not isinstance(params, dict):
        raise ConfigError(f"{at('params')}: 'sweep.params' must map dotted keys to search spaces, e.g. "
                          "optimizer.learning_rate: loguniform(1e-4, 1e-1)")
    for key, value in params.items():
        where = at("params", key)
        if isinstance(value, list):
            if not value:
                raise ConfigError(f"{where}: 'sweep.params.{key}' is an empty list")
            spec.dims[key] = Choice(tuple(value), grid=True)
        elif isinstance(value, str):
            spec.dims[key] = _parse_at(value, where, key)
        else:
            raise ConfigError(f"{where}: 'sweep.params.{key}' must be a search space such as "
                              f"choice(a, b), loguniform(1e-4, 1e-1) or a list, got {value!r}")
        spec.where[key] = where


def build_spec(file: str | Path, overrides: list[str] = ()) -> SweepSpec:
    """The sweep over ``file`` with command-line ``overrides``, checked against the schema."""
    from ..config import parse_override

    file = Path(file)
    data, lines = read_yaml(file)
    spec = SweepSpec(file)
    if isinstance(data, dict):
        for path, value in _dotted({k: v for k, v in data.items() if k != "sweep"}):
            if isinstance(value, str) and space.is_call(value):
                key = ".".join(map(str, path))
                where = f"{file}:{lines.get(path, '?')}"
                spec.dims[key], spec.where[key] = _parse_at(value, where, key), where
        if "sweep" in data:
            _read_section(data["sweep"], file, lines, spec)
    for text in overrides:
        parse_override(text)  # KEY=VALUE shape
        key, raw = (part.strip() for part in text.split("=", 1))
        if space.is_space_text(raw):
            spec.dims[key] = _parse_at(raw, f"override '{text}'", key)
            spec.where[key] = f"override '{text}'"
        else:
            spec.dims.pop(key, None)
            spec.fixed.append(text)
    check(spec)
    return spec


def _culprit(spec: SweepSpec, params: dict[str, Any], error: ConfigError, default: str) -> str:
    """The swept key whose value the error is about: the config names the override it refused
    (``override 'KEY=VALUE': ...``), else ``default`` (the key being checked)."""
    for key in params:
        if str(error).startswith(f"override '{key}="):
            return key
    return default


def check(spec: SweepSpec) -> None:
    """Load the config at each bound of each dimension (the others at their first value);
    errors name where the space of the value refused was written."""
    base = {key: space.bounds(dim)[0] for key, dim in spec.dims.items()}
    try:
        load_config(spec.file, spec.overrides(base))
    except ConfigError as error:
        if not any(f"override '{k}=" in str(error) for k in base):
            raise
    for key, dim in spec.dims.items():
        for value in space.bounds(dim):
            params = {**base, key: value}
            try:
                load_config(spec.file, spec.overrides(params))
            except ConfigError as error:
                bad = _culprit(spec, params, error, key)
                raise ConfigError(f"{spec.where[bad]}: search space {bad}={spec.dims[bad].text()}: value "
                                  f"{json.dumps(params[bad])} is not valid: {_strip_location(str(error))}"
                                  ) from None
