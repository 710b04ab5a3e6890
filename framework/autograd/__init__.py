"""Automatic differentiation: the eager tape and the user-facing grad transforms."""
