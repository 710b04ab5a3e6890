"""Open one MLflow run on the store given in argv[1], log a param and a metric, end it."""

import sys

from trainer.mlflow_logger import MLflowRun

run = MLflowRun(sys.argv[1], "race", f"run-{sys.argv[2]}", fallback=False)
run.log_params({"who": sys.argv[2]})
run.log_metric("value", float(sys.argv[2]), 0)
run.end()
print(run.run_id)
