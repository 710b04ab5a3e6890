"""twinmode's training application: experiments from YAML (config, user_code, data), the
``train`` command line (cli), MLflow tracking (mlflow_logger, mlflow_record, mlflow_model),
sweeps on Optuna (sweep/), the model zoo (models/) and the MPI launcher. The generic
training core it runs (``Model``, the loop, callbacks, checkpoints) is
:mod:`framework.train`.
"""

from . import tasks  # noqa: E402, F401  (registers the tasks' schema facts, trainer/config_checks.py)
