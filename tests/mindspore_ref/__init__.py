"""MindSpore itself as the reference: differential tests (``reference.py`` runs a program
in MindSpore's venv, found through ``MINDSPORE_PYTHON``, and here, and compares them) and
the recorded answers that stand in for MindSpore where it is absent (CI)."""
