"""The namespace converted code calls as ``_cf_rt``."""

from .convert import convert
from .pyobjects import builtin as _builtin
from .runtime import and_, for_stmt, get, if_stmt, ifexp, not_, or_, range_, result, while_stmt
from .statements import assert_, converted, print_, setitem

__all__ = ["and_", "assert_", "builtin", "convert", "converted", "for_stmt", "get", "if_stmt",
           "ifexp", "not_", "or_", "print_", "range_", "result", "setitem", "while_stmt"]


def builtin(fn):
    """The graph-mode form of the builtin ``fn`` (:func:`.pyobjects.builtin`)."""
    return _builtin(fn, converted)
