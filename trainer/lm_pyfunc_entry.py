"""The models-from-code entry of a logged language model: MLflow runs this file when it
loads ``runs:/<id>/<experiment name>`` (see :mod:`trainer.mlflow_lm_model`)."""

import mlflow.models

from trainer.mlflow_lm_model import LanguageModelPyfunc

mlflow.models.set_model(LanguageModelPyfunc())
