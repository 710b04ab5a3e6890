"""The model-zoo networks :mod:`tests.mindspore_ref.zoo` trains: where each definition file
lies in mindspore-ai/models, how to build it small, and its batch.

A :class:`Spec`'s ``build(module, ms)`` gets the loaded definition module and the engine
(``framework`` or ``mindspore``) and returns ``(network, batch)``: the batch is a list of
NumPy arrays, the network's inputs then (without ``loss_cell``) the int32 labels.
``loss_cell(ms, network)``, where given, is the cell that returns the loss from the whole
batch (the zoo's own ``...WithLoss`` cells). ``stubs`` replace modules of the project by
path (its config modules, which parse ``sys.argv`` and YAML). ``mindspore_note`` says why
MindSpore 2.10 itself is not asked to run a network on CPU. Imports nothing of the project
(it runs in MindSpore's venv too).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Spec:
    name: str
    project: str  # folder of the zoo holding the network's project
    file: str  # the definition file, relative to project
    module: str  # its dotted name, importable from the project folder
    build: Callable[[Any, Any], tuple[Any, list[np.ndarray]]]
    loss_cell: Callable[[Any, Any], Any] | None = None
    stubs: dict[str, str] = field(default_factory=dict)
    mindspore_note: str = ""
    slow: bool = False


def images(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def labels(batch: int, classes: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, classes, size=batch).astype(np.int32)


def tokens(*shape: int, vocab: int, seed: int = 2) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, vocab, size=shape).astype(np.int32)


def _classifier(make: Callable[[Any, Any], Any], *shape: int, classes: int = 10):
    """A builder for an image classifier taking a batch of ``shape``: big enough that every
    BatchNorm in training mode sees 8 values or more per channel (fewer make its gradient
    ill-conditioned, and the two modes' last-bit differences grow large)."""
    def build(module, ms):
        return make(module, ms), [images(*shape), labels(shape[0], classes)]
    return build


def _aux_loss(ms, network):
    """InceptionV3's training output ``(logits, aux_logits)``: CE(logits) + 0.4 CE(aux)."""
    class WithAuxLoss(ms.nn.Cell):
        def __init__(self, net):
            super().__init__(auto_prefix=False)
            self.net = net
            self.ce = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

        def construct(self, x, label):
            logits, aux = self.net(x)
            return self.ce(logits, label) + 0.4 * self.ce(aux, label)
    return WithAuxLoss(network)


def _itself(ms, network):
    return network


CONFIG_STUB = '''"""Stand-in for the project's config module (it parses sys.argv and a YAML file)."""
from types import SimpleNamespace
config = SimpleNamespace({fields})
'''


def _stub(**fields: Any) -> str:
    return CONFIG_STUB.format(fields=", ".join(f"{k}={v!r}" for k, v in fields.items()))


def _vgg16(module, ms):
    args = SimpleNamespace(image_size=(32, 32), batch_norm=True, has_dropout=False, pad_mode="same",
                           padding=0, has_bias=False, initialize_mode="KaimingNormal")
    return module.vgg16(num_classes=10, args=args)


def _mobilenet_v2(module, ms):
    backbone = module.MobileNetV2Backbone(width_mult=0.5)
    head = module.MobileNetV2Head(input_channel=backbone.out_channels, num_classes=10)
    return module.mobilenet_v2(backbone, head)


def _lstm(module, ms):
    table = ms.Tensor(images(20, 8, seed=3))
    net = module.SentimentNet(vocab_size=20, embed_size=8, num_hiddens=8, num_layers=2,
                              bidirectional=True, num_classes=2, weight=table, batch_size=2)
    return net, [tokens(2, 500, vocab=20), labels(2, 2)]


def _fasttext(module, ms):
    net = module.FastTextNetWithLoss(vocab_size=20, embedding_dims=8, num_class=4)
    length = np.array([[6.0], [4.0]], np.float32)
    return net, [tokens(2, 6, vocab=20), length, labels(2, 4).reshape(2, 1)]


def _bert(module, ms):
    bert_model = _load_sibling(module, "bert_model")
    config = bert_model.BertConfig(seq_length=8, vocab_size=50, hidden_size=16, num_hidden_layers=2,
                                   num_attention_heads=2, intermediate_size=32,
                                   hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                   max_position_embeddings=16, type_vocab_size=2)
    net = module.BertNetworkWithLoss(config, True)
    mask = np.ones((2, 8), np.int32)
    mask[1, 6:] = 0
    batch = [tokens(2, 8, vocab=50), mask, np.zeros((2, 8), np.int32),
             labels(2, 2).reshape(2, 1), np.array([[1, 3, 5], [0, 2, 4]], np.int32),
             tokens(2, 3, vocab=50, seed=4), np.array([[1, 1, 0], [1, 1, 1]], np.float32)]
    return net, batch


def _transformer(module, ms):
    config = SimpleNamespace(batch_size=2, seq_length=8, vocab_size=40, hidden_size=16,
                             num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                             hidden_act="relu", hidden_dropout_prob=0.0,
                             attention_probs_dropout_prob=0.0, max_position_embeddings=16,
                             initializer_range=0.02, label_smoothing=0.1, beam_width=2,
                             max_decode_length=8, length_penalty_weight=1.0,
                             dtype=ms.float32, compute_type=ms.float32)
    net = module.TransformerNetworkWithLoss(config, True)
    mask = np.ones((2, 8), np.int32)
    mask[0, 5:] = 0
    batch = [tokens(2, 8, vocab=40), mask, tokens(2, 8, vocab=40, seed=5), mask.copy(),
             tokens(2, 8, vocab=40, seed=6), mask.astype(np.float32)]
    return net, batch


def _load_sibling(module, name):
    import importlib
    return importlib.import_module(module.__name__.rsplit(".", 1)[0] + "." + name)


NETWORKS: dict[str, Spec] = {s.name: s for s in [
    Spec("lenet", "research/cv/lenet", "src/lenet.py", "src.lenet",
         _classifier(lambda m, ms: m.LeNet5(num_class=10, num_channel=1), 2, 1, 32, 32)),
    Spec("alexnet", "research/cv/Alexnet", "src/alexnet.py", "src.alexnet",
         _classifier(lambda m, ms: m.AlexNet(num_classes=10, channel=3), 2, 224, 224, 3), slow=True),
    Spec("squeezenet", "research/cv/squeezenet", "src/squeezenet.py", "src.squeezenet",
         _classifier(lambda m, ms: m.SqueezeNet(num_classes=10), 2, 3, 64, 64)),
    Spec("resnet50", "official/cv/ResNet", "src/resnet.py", "src.resnet",
         _classifier(lambda m, ms: m.resnet50(class_num=10), 4, 3, 64, 64),
         stubs={"src/model_utils/config.py": _stub(net_name="resnet50", optimizer="Momentum")},
         slow=True),
    Spec("vgg16", "official/cv/VGG/vgg16", "src/vgg.py", "src.vgg",
         _classifier(_vgg16, 4, 3, 32, 32), slow=True),
    Spec("mobilenetv2", "official/cv/MobileNet/mobilenetv2", "src/mobilenetV2.py", "src.mobilenetV2",
         _classifier(_mobilenet_v2, 4, 3, 64, 64), slow=True),
    Spec("densenet121", "research/cv/densenet", "src/network/densenet.py", "src.network.densenet",
         _classifier(lambda m, ms: m.DenseNet121(num_classes=10), 4, 3, 64, 64), slow=True),
    Spec("googlenet", "research/cv/googlenet", "src/googlenet.py", "src.googlenet",
         _classifier(lambda m, ms: m.GoogleNet(num_classes=10), 4, 3, 64, 64), slow=True),
    Spec("inceptionv3", "official/cv/Inception/inceptionv3", "src/inception_v3.py", "src.inception_v3",
         _classifier(lambda m, ms: m.InceptionV3(num_classes=10), 2, 3, 299, 299),
         loss_cell=_aux_loss, slow=True),
    Spec("shufflenetv1", "official/cv/ShuffleNet/shufflenetv1", "src/shufflenetv1.py", "src.shufflenetv1",
         _classifier(lambda m, ms: m.ShuffleNetV1(n_class=10, model_size="0.5x", group=3), 2, 3, 224, 224),
         slow=True),
    Spec("shufflenetv2", "official/cv/ShuffleNet/shufflenetv2", "src/shufflenetv2.py", "src.shufflenetv2",
         _classifier(lambda m, ms: m.ShuffleNetV2(n_class=10, model_size="0.5x"), 2, 3, 224, 224),
         slow=True),
    Spec("efficientnet_b0", "official/cv/Efficientnet/efficientnet-b0", "src/efficientnet.py",
         "src.efficientnet",
         _classifier(lambda m, ms: m.efficientnet_b0(num_classes=10), 4, 3, 64, 64), slow=True),
    Spec("lstm", "official/nlp/LSTM", "src/lstm.py", "src.lstm", _lstm),
    Spec("fasttext", "research/nlp/fasttext", "src/fasttext_train.py", "src.fasttext_train", _fasttext,
         loss_cell=_itself),
    Spec("transformer", "official/nlp/Transformer", "src/transformer_for_train.py",
         "src.transformer_for_train", _transformer, loss_cell=_itself, slow=True),
    Spec("bert", "official/nlp/Bert", "src/bert_for_pre_training.py", "src.bert_for_pre_training",
         _bert, loss_cell=_itself, slow=True),
]}
