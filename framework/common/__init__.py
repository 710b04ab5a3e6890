"""Common utilities (``framework.common.initializer``)."""
