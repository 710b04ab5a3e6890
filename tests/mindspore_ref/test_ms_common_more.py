"""The rest of ``mindspore.common`` (:mod:`tests.mindspore_ref.ms_common_more_programs`:
``Symbol``, ``UntypedStorage``, ``flops_collection``, the saved-tensor hooks, ``load_mindir``
and ``save_mindir``) in both modes: against MindSpore's recorded answers
(``ms_common_more_expected.json``, CI), our modes against each other, and MindSpore itself
where ``MINDSPORE_PYTHON`` names its venv."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np

from tests.mindspore_ref.ms_common_more_programs import MODE_DEPENDENT, PROGRAMS
from tests.mindspore_ref.recorded import Recorded
from tests.mindspore_ref.reference import MINDSPORE_PYTHON, needs_mindspore

RECORDED = Recorded(PROGRAMS, Path(__file__).parent / "ms_common_more_expected.json", per_mode=True,
                    mode_dependent=MODE_DEPENDENT)
(test_recorded_answers_cover_every_program, test_matches_mindspores_answer, test_modes_agree,
 test_against_mindspore) = RECORDED.tests()


# -- load_mindir / save_mindir across the two engines' files ---------------------------------
_MS_SCRIPT = '''
import sys
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn

folder = sys.argv[1]
x = Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
md = ms.load_mindir(folder + "/ours_edited.mindir")  # ours, edited and saved by our save_mindir
np.save(folder + "/ms_on_ours.npy", nn.GraphCell(ms.load(folder + "/ours_edited.mindir"))(x).asnumpy())
with open(folder + "/ms_user_info.txt", "w") as f:
    f.write(md.user_info["edited_by"])
net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
ms.export(net, x, file_name=folder + "/theirs", file_format="MINDIR")
'''


def _export_ours(folder: Path) -> tuple[Path, np.ndarray]:
    import framework as ms
    from framework import Tensor, nn

    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    x = Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    ms.export(net, x, file_name=str(folder / "ours"), file_format="MINDIR")
    return folder / "ours.mindir", x.asnumpy()


def test_our_mindir_round_trips_byte_for_byte(tmp_path):
    from framework.common import load_mindir

    path, _ = _export_ours(tmp_path)
    assert load_mindir(str(path)).SerializeToString() == path.read_bytes()


@needs_mindspore
def test_mindir_edited_by_either_engine_runs_in_the_other(tmp_path):
    import framework as ms
    from framework import Tensor, nn
    from framework.common import load_mindir, save_mindir

    path, x = _export_ours(tmp_path)
    md = load_mindir(str(path))
    md.user_info["edited_by"] = "twinmode"
    md.graph.parameter[0].raw_data = np.arange(6, dtype=np.float32).tobytes()  # weight [[0 1 2] [3 4 5]]
    save_mindir(md, str(tmp_path / "ours_edited"))
    script = tmp_path / "ms_side.py"
    script.write_text(_MS_SCRIPT)
    done = subprocess.run([MINDSPORE_PYTHON, str(script), str(tmp_path)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "GLOG_v": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    expected = x @ np.arange(6, dtype=np.float32).reshape(2, 3).T
    np.testing.assert_allclose(np.load(tmp_path / "ms_on_ours.npy"), expected)
    assert (tmp_path / "ms_user_info.txt").read_text() == "twinmode"
    theirs = tmp_path / "theirs.mindir"
    model = load_mindir(str(theirs))
    assert model.SerializeToString() == theirs.read_bytes()  # MindSpore's file, byte for byte
    model.graph.parameter[0].raw_data = np.arange(6, dtype=np.float32).tobytes()
    save_mindir(model, str(tmp_path / "theirs_edited.mindir"))
    got = nn.GraphCell(ms.load(str(tmp_path / "theirs_edited.mindir")))(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), expected)
