"""Graph mode's source frontend: control flow on tensor values compiled as regions.

:func:`convert` rewrites a user function's source (:mod:`.transformer`, :mod:`.jumps`)
into calls of :mod:`.runtime`, which fold Python conditions and stage tensor
conditions as ``If``/``While`` nodes (:mod:`framework.interpreters.regions`).
"""

from .convert import convert, is_user_code

__all__ = ["convert", "is_user_code"]
