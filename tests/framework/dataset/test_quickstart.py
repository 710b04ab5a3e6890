"""MindSpore 2.x's beginner quick start (functional loop) with ``framework`` imports: it trains
eagerly and with ``@ms.jit`` on the step, giving the same losses; then predicts and reloads."""

from __future__ import annotations

import numpy as np
import pytest

from datasets import write_idx


def _write_mnist_like(folder, n, seed):
    """Digits-like 28x28 images: class k lights up rows 2k..2k+5, plus noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    images = rng.integers(0, 60, (n, 28, 28)).astype(np.uint8)
    for i, k in enumerate(labels):
        images[i, 2 * k:2 * k + 6, 4:24] = 230
    folder.mkdir(parents=True)
    prefix = "train" if folder.name == "train" else "t10k"
    write_idx(folder / f"{prefix}-images-idx3-ubyte", images)
    write_idx(folder / f"{prefix}-labels-idx1-ubyte", labels)


def quick_start(data_dir, use_jit, ckpt, out):
    """The quick start's code; only the imports, sizes (epochs, widths) and the learning rate differ."""
    import framework as mindspore
    from framework import nn
    from framework.dataset import MnistDataset, transforms, vision

    mindspore.set_seed(0)
    train_dataset = MnistDataset(f"{data_dir}/train")
    test_dataset = MnistDataset(f"{data_dir}/test")
    out.append(train_dataset.get_col_names())

    def datapipe(dataset, batch_size):
        image_transforms = [
            vision.Rescale(1.0 / 255.0, 0),
            vision.Normalize(mean=(0.1307,), std=(0.3081,)),
            vision.HWC2CHW()
        ]
        label_transform = transforms.TypeCast(mindspore.int32)

        dataset = dataset.map(image_transforms, 'image')
        dataset = dataset.map(label_transform, 'label')
        dataset = dataset.batch(batch_size)
        return dataset

    train_dataset = datapipe(train_dataset, 32)
    test_dataset = datapipe(test_dataset, 32)
    for image, label in test_dataset.create_tuple_iterator():
        out.append((image.shape, image.dtype, label.shape, label.dtype))
        break

    class Network(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.dense_relu_sequential = nn.SequentialCell(
                nn.Dense(28 * 28, 64), nn.ReLU(), nn.Dense(64, 64), nn.ReLU(), nn.Dense(64, 10))

        def construct(self, x):
            x = self.flatten(x)
            logits = self.dense_relu_sequential(x)
            return logits

    model = Network()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), 1e-1)

    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    if use_jit:
        train_step = mindspore.jit(train_step)
    losses = []

    def train(model, dataset):
        model.set_train()
        for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
            loss = train_step(data, label)
            if batch % 4 == 0:
                print(f"loss: {loss.asnumpy():>7f}  [{batch:>3d}/{dataset.get_dataset_size():>3d}]")
            losses.append(float(loss.asnumpy()))

    def test(model, dataset, loss_fn):
        num_batches = dataset.get_dataset_size()
        model.set_train(False)
        total, test_loss, correct = 0, 0, 0
        for data, label in dataset.create_tuple_iterator():
            pred = model(data)
            total += len(data)
            test_loss += loss_fn(pred, label).asnumpy()
            correct += (pred.argmax(1) == label).asnumpy().sum()
        test_loss /= num_batches
        correct /= total
        return correct, test_loss

    for _ in range(3):
        train(model, train_dataset)
        out.append(test(model, test_dataset, loss_fn))

    mindspore.save_checkpoint(model, ckpt)
    model = Network()
    param_dict = mindspore.load_checkpoint(ckpt)
    param_not_load, _ = mindspore.load_param_into_net(model, param_dict)
    out.append(param_not_load)
    model.set_train(False)
    for data, label in test_dataset:
        pred = model(data)
        predicted = pred.argmax(1)
        out.append(f'Predicted: "{predicted[:10]}", Actual: "{label[:10]}"')
        out.append((predicted.asnumpy(), label.asnumpy()))
        break
    return losses


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("MNIST_Data")
    _write_mnist_like(root / "train", 256, 0)
    _write_mnist_like(root / "test", 64, 1)
    return root


def test_quick_start_eager_and_jit_give_the_same_losses(data_dir, tmp_path):
    import framework as ms

    eager_out, jit_out = [], []
    eager = quick_start(data_dir, False, tmp_path / "eager.ckpt", eager_out)
    jitted = quick_start(data_dir, True, tmp_path / "jit.ckpt", jit_out)
    assert len(eager) == 3 * 8
    np.testing.assert_allclose(jitted, eager, rtol=2e-4, atol=1e-5)
    assert np.mean(eager[-8:]) < 0.5 * np.mean(eager[:8])  # it learns
    assert eager_out[0] == ["image", "label"]
    assert eager_out[1] == ((32, 1, 28, 28), ms.float32, (32,), ms.int32)
    accuracy, _ = eager_out[-4]
    assert accuracy > 0.9 and jit_out[-4][0] == pytest.approx(accuracy)
    assert eager_out[-3] == []  # every parameter loaded
    predicted, label = eager_out[-1]
    assert eager_out[-2] == f'Predicted: "{predicted[:10]}", Actual: "{label[:10]}"'
    assert (predicted == label).mean() > 0.8
