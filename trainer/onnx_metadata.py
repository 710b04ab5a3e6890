"""What an exported ONNX file says about itself, so that it is usable without the YAML.

:func:`describe` renames the graph's input and output (``framework.export`` writes
``input_0``/``output_0``): a classifier's input is ``image``, a language model's
``tokens``, the output ``logits``; and it stores in the model's ``metadata_props`` (strings;
ONNX Runtime's ``session.get_modelmeta().custom_metadata_map``, Netron's properties):

- ``twinmode.task``, ``twinmode.experiment``, ``twinmode.model``: what was trained;
- a classifier: ``twinmode.preprocessing`` (JSON: the steps that turn the images a
  dataset file holds into ``image``, in order: layout ``NHWC -> NCHW``, ``resize`` to
  ``[height, width]`` bilinear, ``rescale`` by 1/255, ``normalize`` with ``mean``/``std``
  per channel, ``float32``), ``twinmode.input_layout`` (``NCHW``) and
  ``twinmode.class_names`` (a JSON list, index = the ``logits`` column), when the dataset
  names its classes;
- a language model: ``twinmode.tokenizer`` (the tokenizer's JSON, as
  ``datasets.tokenizer.tokenizer_from_dict`` reads it), ``twinmode.block_size`` (the
  longest ``tokens`` row) and ``twinmode.vocab_size``.
"""

from __future__ import annotations

import json
from typing import Any

INPUT_NAMES = {"classification": "image", "language_model": "tokens"}
OUTPUT_NAME = "logits"
PREFIX = "twinmode."


def rename_value(graph: Any, old: str, new: str) -> None:
    """Every use of the value ``old`` in ``graph`` (inputs, outputs, node edges) as ``new``."""
    for value in list(graph.input) + list(graph.output) + list(graph.value_info):
        if value.name == old:
            value.name = new
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name == old:
                node.input[i] = new
        for i, name in enumerate(node.output):
            if name == old:
                node.output[i] = new


def preprocessing(config: Any) -> list[dict[str, Any]]:
    """The image preprocessing of ``config`` (trainer/data.py's ``transforms_for``) in
    words a user of the ONNX file can follow."""
    d = config.dataset
    steps: list[dict[str, Any]] = [{"layout": "NHWC -> NCHW (a grayscale NHW image gets C = 1)"}]
    if d.resize:
        steps.append({"resize": [d.resize, d.resize], "interpolation": "bilinear"})
    steps.append({"rescale": 1 / 255, "offset": 0.0, "note": "uint8 0..255 -> 0..1"})
    if d.normalize:
        mean, std = d.normalize
        steps.append({"normalize": {"mean": mean, "std": std}, "note": "(x - mean) / std per channel"})
    steps.append({"dtype": "float32"})
    return steps


def metadata(config: Any, info: dict[str, Any]) -> dict[str, str]:
    """The ``metadata_props`` of ``config``'s exported network (module docstring); ``info``
    is the task data's ``info`` (``classes``: the logits' width, ``tokenizer``, ``vocab_size``)."""
    model = config.model.class_ or config.model.name
    out = {"task": config.task, "experiment": config.name, "model": str(model)}
    if config.task == "language_model":
        out["tokenizer"] = json.dumps(info["tokenizer"])
        out["block_size"] = str(config.dataset.block_size)
        out["vocab_size"] = str(info.get("vocab_size", ""))
    else:
        from .mlflow_model import class_names

        out["preprocessing"] = json.dumps(preprocessing(config))
        out["input_layout"] = "NCHW"
        classes = info.get("classes")
        names = class_names(config, classes) if classes else None
        if names:
            out["class_names"] = json.dumps(names)
    return {PREFIX + k: v for k, v in out.items()}


def describe(model: Any, config: Any, info: dict[str, Any]) -> Any:
    """``model`` (an ``onnx.ModelProto`` with one input and one output) with its input and
    output named and the metadata of :func:`metadata` (replacing any of the same keys)."""
    graph = model.graph
    names = [(graph.input[0].name, INPUT_NAMES.get(config.task, "input"))] if len(graph.input) == 1 else []
    names += [(graph.output[0].name, OUTPUT_NAME)] if len(graph.output) == 1 else []
    for old, new in names:
        rename_value(graph, old, new)
    dims = graph.output[0].type.tensor_type.shape.dim if len(graph.output) == 1 else []
    width = dims[-1].dim_value if dims else 0  # a classifier's logits: one column per class
    props = metadata(config, {"classes": width or None, **info})
    kept = [p for p in model.metadata_props if p.key not in props]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    for key, value in props.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    return model
