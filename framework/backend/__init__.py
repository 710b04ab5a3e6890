"""Graph-mode backends: lowerings of the primitives to compiler IRs."""
