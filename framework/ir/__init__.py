"""Our graph IR: SSA values with static shapes, nodes applying primitives, passes."""

from .dot import to_dot
from .graph import Graph, GraphModeError, Node, Value, ValueKind
from .passes import cse, dce, fold_constants, optimize
from .printer import ValueNames, to_text

__all__ = ["Graph", "GraphModeError", "Node", "Value", "ValueKind", "cse", "dce", "fold_constants",
           "optimize", "to_dot", "to_text", "ValueNames"]
