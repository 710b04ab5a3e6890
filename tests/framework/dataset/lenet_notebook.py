"""A MindSpore-style LeNet notebook, as users write it; only the imports name ``framework``.

``run(data_dir, ckpt_dir, mode, epochs_train, epochs_fit)`` builds the pipeline with
``MnistDataset`` + Resize + Rescale + Normalize (as Rescale) + HWC2CHW + TypeCast, trains
with ``Model.train`` and continues with ``Model.fit``; returns the test accuracy and the
TimeMonitor records (fit validates on the test set after its last epoch).
"""

from __future__ import annotations

import framework as ms
import framework.dataset as ds
import framework.dataset.transforms.c_transforms as C
import framework.dataset.vision.c_transforms as CV
from framework import Model, nn
from framework.common.initializer import Normal
from framework.dataset.vision import Inter
from framework.train.callback import CheckpointConfig, LossMonitor, ModelCheckpoint, TimeMonitor


def create_dataset(data_path, batch_size=32, repeat_size=1, num_parallel_workers=1):
    mnist_ds = ds.MnistDataset(data_path)
    resize_height, resize_width = 32, 32
    rescale = 1.0 / 255.0
    shift = 0.0
    rescale_nml = 1 / 0.3081
    shift_nml = -1 * 0.1307 / 0.3081

    resize_op = CV.Resize((resize_height, resize_width), interpolation=Inter.LINEAR)
    rescale_nml_op = CV.Rescale(rescale_nml, shift_nml)
    rescale_op = CV.Rescale(rescale, shift)
    hwc2chw_op = CV.HWC2CHW()
    type_cast_op = C.TypeCast(ms.int32)

    mnist_ds = mnist_ds.map(operations=type_cast_op, input_columns="label",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=resize_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=rescale_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=rescale_nml_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)
    mnist_ds = mnist_ds.map(operations=hwc2chw_op, input_columns="image",
                            num_parallel_workers=num_parallel_workers)

    buffer_size = 10000
    mnist_ds = mnist_ds.shuffle(buffer_size=buffer_size)
    mnist_ds = mnist_ds.batch(batch_size, drop_remainder=True)
    mnist_ds = mnist_ds.repeat(repeat_size)
    return mnist_ds


class LeNet5(nn.Cell):
    def __init__(self, num_class=10, num_channel=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode='valid')
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')
        self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
        self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
        self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def run(data_dir, ckpt_dir, mode, epochs_train=3, epochs_fit=2, file=None):
    ms.set_context(mode=mode)
    ms.set_seed(1)
    ds_train = create_dataset(f"{data_dir}/train")
    ds_eval = create_dataset(f"{data_dir}/test")
    net = LeNet5()
    net_loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    net_opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    config_ck = CheckpointConfig(save_checkpoint_steps=1875, keep_checkpoint_max=10)
    ckpoint = ModelCheckpoint(prefix="checkpoint_lenet", directory=ckpt_dir, config=config_ck)
    model = Model(net, net_loss, net_opt, metrics={"Accuracy": nn.Accuracy()})
    time_monitor = TimeMonitor(file=file)
    model.train(epochs_train, ds_train, callbacks=[ckpoint, LossMonitor(125, file=file), time_monitor],
                dataset_sink_mode=False)
    fit_monitor = TimeMonitor(file=file)
    ctx = model.fit(epochs_fit, ds_train, ds_eval, valid_frequency=epochs_fit,
                    callbacks=[LossMonitor(125, file=file), fit_monitor], dataset_sink_mode=False)
    acc = {"Accuracy": ctx.metrics["eval_Accuracy"]}  # the test set, after the last epoch
    return acc, time_monitor.records + fit_monitor.records
