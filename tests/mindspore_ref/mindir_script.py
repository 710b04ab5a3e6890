"""Run by MindSpore's own Python (``$MINDSPORE_PYTHON``) for tests/mindspore_ref/test_mindir_interop.py:
``python mindir_script.py FOLDER``. It loads each of twinmode's files ``ours_<name>.mindir``
with ``mindspore.load`` + ``nn.GraphCell``, runs it on each input ``ours_<name>_in<j>.npy`` and
records the outputs (``ms_on_ours_<name>_in<j>_<k>.npy``, or the error in
``ms_on_ours_<name>.err``); then, for each network of ``mindir_nets``, it builds the network
in MindSpore with the same weights, exports ``ms_<name>.mindir`` at batch 2 and records the
network's own outputs at batch 2 (``ms_<name>_<k>.npy``). Independent of twinmode.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, str(Path(__file__).parent))
import mindir_nets as N  # noqa: E402


def _save(folder: Path, stem: str, out) -> None:
    for k, o in enumerate(out if isinstance(out, tuple | list) else (out,)):
        np.save(folder / f"{stem}_{k}.npy", o.asnumpy())


def run_ours(folder: Path) -> None:
    for path in sorted(folder.glob("ours_*.mindir")):
        name = path.stem
        try:
            cell = nn.GraphCell(ms.load(str(path)))
            for x in sorted(folder.glob(f"{name}_in*.npy")):
                _save(folder, f"ms_on_{x.stem}", cell(Tensor(np.load(x))))
        except Exception as error:  # noqa: BLE001  (recorded for the test to show)
            (folder / f"ms_on_{name}.err").write_text(str(error)[:2000])


def main(folder: Path) -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    run_ours(folder)
    for name, (build, _) in N.NETWORKS.items():
        net = N.set_weights(build(ms), Tensor)
        net.set_train(False)
        x = Tensor(N.sample(name, 2))
        ms.export(net, x, file_name=str(folder / f"ms_{name}"), file_format="MINDIR")
        _save(folder, f"ms_{name}", net(x))

if __name__ == "__main__":
    main(Path(sys.argv[1]))
