"""The models-from-code entry of a logged twinmode model: MLflow runs this file when it
loads ``runs:/<id>/<experiment name>`` (see :mod:`trainer.mlflow_model`)."""

import mlflow.models

from trainer.mlflow_model import TwinmodePyfunc

mlflow.models.set_model(TwinmodePyfunc())
