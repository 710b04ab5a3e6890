"""``mindspore.mindrecord`` for twinmode: write and read MindRecord files, the on-disk format
of MindSpore 2.10 (files written here read in MindSpore and the reverse).

    from framework.mindrecord import FileWriter, FileReader
    from framework.dataset import MindDataset

Modules: :mod:`.schema` (schema and row checks), :mod:`.codec` (record bytes),
:mod:`.msgpack`, :mod:`.layout` (header and pages), :mod:`.index_db` (the ``.db`` index),
:mod:`.writer` (``FileWriter``), :mod:`.reader` (``FileReader``, shard sets),
:mod:`.save` (``Dataset.save``).
"""

from .reader import FileReader
from .save import save_dataset
from .schema import MindRecordError
from .writer import FileWriter

SUCCESS, FAILED = 0, 1

__all__ = ["FAILED", "SUCCESS", "FileReader", "FileWriter", "MindRecordError", "save_dataset"]
