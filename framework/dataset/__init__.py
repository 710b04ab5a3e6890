"""``mindspore.dataset`` for twinmode: ``from framework.dataset import MnistDataset, vision, transforms``.

    ds = MnistDataset("MNIST_Data/train")                      # image 28x28x1 uint8, label uint32
    ds = ds.map([vision.Resize((32, 32)), vision.Rescale(1 / 255, 0),
                 vision.Normalize([0.1307], [0.3081]), vision.HWC2CHW()], "image")
    ds = ds.map(transforms.TypeCast(ms.int32), "label").shuffle(10000).batch(32, drop_remainder=True)
    for image, label in ds.create_tuple_iterator(): ...       # Tensors (output_numpy=True: arrays)

Deterministic operations run once over whole source arrays, random ones per batch with a
generator seeded by (seed, epoch, batch); ``state_dict``/``load_state_dict`` save and
restore the position, so ``Model.train`` resumes mid-epoch on the same batches.
See :mod:`framework.dataset.engine` for the node contract; samplers (``sampler=`` of the
sources) are in :mod:`framework.dataset.samplers`, ``filter``/``concat``/``zip`` in
:mod:`framework.dataset.combine`, ``per_batch_map`` and Python-object (dict) columns in
:mod:`framework.dataset.batching`.
"""

from . import audio, config, text, transforms, vision
from .batching import BatchInfo
from .combine import zip_datasets as zip  # noqa: A001  (``ds.zip((ds1, ds2))``, as MindSpore names it)
from .engine import Dataset, DictIterator, TupleIterator
from .samplers import (
    DistributedSampler,
    PKSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)
from .sources import (
    Cifar10Dataset,
    Cifar100Dataset,
    FashionMnistDataset,
    GeneratorDataset,
    MnistDataset,
    NumpySlicesDataset,
)

__all__ = ["BatchInfo", "Cifar10Dataset", "Cifar100Dataset", "Dataset", "DictIterator",
           "DistributedSampler", "FashionMnistDataset", "GeneratorDataset", "MnistDataset",
           "NumpySlicesDataset", "PKSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "SubsetSampler", "TupleIterator", "WeightedRandomSampler", "config",
           "audio", "text", "transforms", "vision", "zip"]
from .mindrecord_source import MindDataset as MindDataset  # noqa: E402  (MindRecord source)
