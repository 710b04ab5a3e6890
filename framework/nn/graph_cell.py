"""``nn.GraphCell``: a loaded MindIR graph (``framework.load``) as a Cell.

``GraphCell(graph)`` takes what :func:`framework.load` returns (a
:class:`framework.mindir.MindIRGraph`); calling it runs the graph on the call's tensors with
twinmode's ops (:mod:`framework.mindir.runner`), in PyNative mode eagerly and in graph mode
traced and compiled as any Cell. The graph's weights become Parameters named as in the
exported network (``conv1.weight``), readable with ``parameters_dict()``; MindSpore's
``params_init`` (new values by name) is honoured. Inference only: the cell is not trained.
"""

from __future__ import annotations

from typing import Any

from ..parameter import Parameter, ParameterTuple
from .cell import Cell


class GraphCell(Cell):
    def __init__(self, graph: Any, params_init: dict[str, Any] | None = None,
                 obf_random_seed: int | None = None) -> None:
        super().__init__()
        if obf_random_seed is not None:
            raise ValueError("GraphCell: obf_random_seed is for models obfuscated by MindSpore's "
                             "obfuscate_model, which framework.load does not read; leave it None")
        from ..mindir import MindIRGraph

        if not isinstance(graph, MindIRGraph):
            raise TypeError(f"GraphCell: graph must be what framework.load returns, got "
                            f"{type(graph).__name__}")
        params = {}
        init = dict(params_init or {})
        for key, (name, array) in graph.model.params.items():
            value = init.pop(name, array)
            params[key] = Parameter(value, name=name, requires_grad=False)
        if init:
            raise ValueError(f"GraphCell: params_init names {sorted(init)[0]!r}, which the graph "
                             "has no parameter of")
        object.__setattr__(self, "_graph", graph)
        object.__setattr__(self, "_graph_params", params)
        self.graph_params = ParameterTuple(params.values())  # listed by get_parameters()
        self.set_train(False)

    def construct(self, *inputs: Any) -> Any:
        from ..mindir.runner import run

        return run(self._graph.model, self._graph_params, inputs)
