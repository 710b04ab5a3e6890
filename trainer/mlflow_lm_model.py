"""A trained language model as an MLflow 3 ``LoggedModel`` (``task: language_model``):
prompts in, text out.

It is logged like the classifier (:func:`trainer.mlflow_model.log_pyfunc`: the Models
tab lists it, linked to the run and the metrics of its last step, ``val/loss`` ...;
``runs:/<run id>/<experiment name>`` or ``models:/<model id>``) and holds the weights (the run's
final checkpoint), ``config.yaml`` (the resolved experiment config), ``tokenizer.json``
(the run's tokenizer) and a ``model.class`` file with the modules it imports, so loading
it needs neither the training text nor the run. ``predict``
takes prompts (a list of strings, a ``prompt`` column, or ``{"prompt": ...}``) and the
params ``max_tokens`` (200), ``temperature`` (1.0), ``top_k`` (0: all tokens) and ``seed``
(0); it returns one generated text per prompt, in graph mode (one compiled function,
trainer/tasks/sampling.py)::

    model = mlflow.pyfunc.load_model(f"runs:/{run_id}/gpt-shakespeare")
    model.predict(["ROMEO:"], params={"max_tokens": 100, "top_k": 40})

``mlflow models serve -m runs:/<id>/<experiment name> --env-manager local`` answers
``POST /invocations`` with ``{"inputs": ["ROMEO:"], "params": {"max_tokens": 50}}``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import mlflow.pyfunc
import yaml

PARAMS = {"max_tokens": 200, "temperature": 1.0, "top_k": 0, "seed": 0}


class LanguageModelPyfunc(mlflow.pyfunc.PythonModel):
    _skip_type_hint_validation = True  # the signature is given explicitly

    def load_context(self, context):
        import framework as ms
        from datasets.tokenizer import tokenizer_from_dict
        from framework.serialization import read_arrays

        from .config import build_config
        from .mlflow_model import packaged_code
        from .tasks.language_model import trained_network
        from .tasks.sampling import Sampler

        data = packaged_code(yaml.safe_load(Path(context.artifacts["config"]).read_text()),
                             Path(context.artifacts["config"]).parents[1] / "code")
        config = build_config(data, lambda path: "config.yaml")
        tokenizer = tokenizer_from_dict(Path(context.artifacts["tokenizer"]).read_text())
        ms.set_context(save_graphs=False)
        arrays, _ = read_arrays(context.artifacts["weights"])
        net = trained_network(config, tokenizer, arrays)
        self.sampler = Sampler(net, tokenizer, config.dataset.block_size, "graph")

    def predict(self, context, model_input, params=None):
        p = {**PARAMS, **(params or {})}
        prompts = _prompts(model_input)
        top_k = int(p["top_k"]) or None
        return [prompt + self.sampler.text(prompt, int(p["max_tokens"]), temperature=float(p["temperature"]),
                                           top_k=top_k, seed=int(p["seed"])) for prompt in prompts]


def _prompts(model_input: Any) -> list[str]:
    if isinstance(model_input, str):
        return [model_input]
    if isinstance(model_input, dict):
        value = model_input.get("prompt", next(iter(model_input.values()), ""))
        return [value] if isinstance(value, str) else [str(v) for v in value]
    if hasattr(model_input, "columns"):  # a DataFrame: its prompt column (or the first)
        column = "prompt" if "prompt" in model_input.columns else model_input.columns[0]
        return [str(v) for v in model_input[column]]
    return [str(v) for v in model_input]


def log_language_model(run: Any, config: dict[str, Any], weights: str | Path, tokenizer: dict[str, Any],
                       register: str | None = None) -> str | None:
    """Log the pyfunc (prompts -> texts) as the LoggedModel of ``run``, named after the
    experiment."""
    from mlflow.models import ModelSignature
    from mlflow.types.schema import ColSpec, ParamSchema, ParamSpec, Schema

    from .mlflow_model import log_pyfunc, user_code_paths

    signature = ModelSignature(
        inputs=Schema([ColSpec("string")]), outputs=Schema([ColSpec("string")]),
        params=ParamSchema([ParamSpec("max_tokens", "long", PARAMS["max_tokens"]),
                            ParamSpec("temperature", "double", PARAMS["temperature"]),
                            ParamSpec("top_k", "long", PARAMS["top_k"]),
                            ParamSpec("seed", "long", PARAMS["seed"])]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokenizer.json"
        path.write_text(json.dumps(tokenizer))
        artifacts = {"weights": str(weights), "tokenizer": str(path)}
        return log_pyfunc(run, "lm_pyfunc_entry.py", config, artifacts, signature,
                          (["ROMEO:"], {"max_tokens": 4}), register, model_type="language_model",
                          code_paths=user_code_paths(config))
