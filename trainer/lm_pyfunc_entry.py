"""The models-from-code entry of a logged language model: MLflow runs this file when it
loads ``runs:/<id>/model`` (see :mod:`trainer.mlflow_lm_model`)."""

import mlflow.models

from trainer.mlflow_lm_model import LanguageModelPyfunc

mlflow.models.set_model(LanguageModelPyfunc())
