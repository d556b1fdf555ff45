#!/usr/bin/python3
"""Exports networks to ONNX as torch.onnx.export makes them, with a JSON sidecar that records what
PyTorch itself counts (trainable parameters), for tests and for users who want ONNX files.

    /usr/bin/python3 scripts/export_onnx.py [--skip-existing] OUT_DIR [CASE ...]

Each case writes OUT_DIR/CASE.onnx and OUT_DIR/CASE.json. Without cases, every case is exported.
--skip-existing leaves cases whose two files are already there. The case `composition` stands for
the networks whose real steps measure a step's error beyond its kernels (COMPOSITION below).
"""
import json
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torchvision  # noqa: E402

from dnnperf_py.models import TransformerEncoderClassifier, trainable_parameters  # noqa: E402

TRAIN = torch.onnx.TrainingMode.TRAINING
EVAL = torch.onnx.TrainingMode.EVAL


def image(batch, size):
    return torch.randn(batch, 3, size, size)


def tokens(batch, seq, vocab=10000):
    return torch.randint(0, vocab, (batch, seq))


# name: (constructor, example input, opset, training mode, zoo equivalent)
CASES = {
    "resnet18_train_op13": (lambda: torchvision.models.resnet18(), lambda: image(2, 64), 13, TRAIN, "resnet18"),
    "resnet18_eval_op17": (lambda: torchvision.models.resnet18(), lambda: image(2, 64), 17, EVAL, "resnet18"),
    "mobilenet_v2_train_op13": (lambda: torchvision.models.mobilenet_v2(), lambda: image(2, 64), 13, TRAIN, "mobilenet_v2"),
    "densenet121_train_op14": (lambda: torchvision.models.densenet121(), lambda: image(1, 64), 14, TRAIN, "densenet121"),
    "inception_v3_noaux_train_op13": (
        lambda: torchvision.models.inception_v3(aux_logits=False, init_weights=False),
        lambda: image(1, 299), 13, TRAIN, "inception_v3_noaux"),
    # Inference exports for executing schedules for real (scripts/run_schedule_torch.py).
    "resnet50_eval_op13": (lambda: torchvision.models.resnet50(), lambda: image(8, 224), 13, EVAL, "resnet50"),
    "inception_v3_eval_op13": (
        lambda: torchvision.models.inception_v3(aux_logits=False, init_weights=False),
        lambda: image(8, 299), 13, EVAL, "inception_v3_noaux"),
    "alexnet_eval_op13": (lambda: torchvision.models.alexnet(), lambda: image(1, 224), 13, EVAL, "alexnet"),
    "transformer_encoder_train_op13": (lambda: TransformerEncoderClassifier(), lambda: tokens(2, 64), 13, TRAIN,
                                       "transformer_encoder"),
    "transformer_encoder_eval_op17": (lambda: TransformerEncoderClassifier(), lambda: tokens(2, 64), 17, EVAL,
                                      "transformer_encoder"),
    "transformer_encoder_gelu_train_op17": (lambda: TransformerEncoderClassifier(activation="gelu"),
                                            lambda: tokens(2, 32), 17, TRAIN, "transformer_encoder"),
}

# Networks for measuring what whole steps cost beyond their kernels (`dnnperf fit --steps`): real
# architectures that dnnperf is not validated on (squeeze-and-expand, channel shuffles, grouped
# and depthwise convolutions, inception branches, deep bottlenecks), trained at 64x64.
COMPOSITION = {
    "squeezenet1_1": lambda: torchvision.models.squeezenet1_1(),
    "shufflenet_v2_x1_0": lambda: torchvision.models.shufflenet_v2_x1_0(),
    "mnasnet1_0": lambda: torchvision.models.mnasnet1_0(),
    "regnet_x_400mf": lambda: torchvision.models.regnet_x_400mf(),
    "googlenet": lambda: torchvision.models.googlenet(aux_logits=False, init_weights=False),
    "resnext50_32x4d": lambda: torchvision.models.resnext50_32x4d(),
    "resnet34": lambda: torchvision.models.resnet34(),
}
for _name, _make in COMPOSITION.items():
    CASES[_name + "_train_op13"] = (_make, lambda: image(2, 64), 13, TRAIN, None)


def export(name, out_dir):
    make, example, opset, mode, zoo = CASES[name]
    torch.manual_seed(0)
    model = make()
    model.train(mode == TRAIN)
    x = example()
    path = os.path.join(out_dir, name + ".onnx")
    start = time.time()
    warnings.filterwarnings("ignore")  # the exporter warns about every in-place op it rewrites
    torch.onnx.export(model, (x,), path, opset_version=opset, training=mode,
                      do_constant_folding=mode == EVAL, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    sidecar = {
        "case": name,
        "zoo": zoo,
        "opset": opset,
        "training": mode == TRAIN,
        "input_shape": list(x.shape),
        "trainable_params": trainable_parameters(model),
        # An eval export folds each BatchNorm into the convolution before it: its 2C parameters
        # become the convolution's C bias values.
        "batchnorm_channels": sum(m.num_features for m in model.modules()
                                  if isinstance(m, torch.nn.BatchNorm2d)),
        "torch_version": torch.__version__,
        "export_seconds": round(time.time() - start, 2),
    }
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(sidecar, f, indent=2)
    print(f"exported {name}: {sidecar['trainable_params']} trainable parameters, {sidecar['export_seconds']} s")


def main():
    args = sys.argv[1:]
    skip_existing = "--skip-existing" in args
    args = [a for a in args if a != "--skip-existing"]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = args[0]
    os.makedirs(out_dir, exist_ok=True)
    names = args[1:] or list(CASES)
    if names == ["composition"]:
        names = [n + "_train_op13" for n in COMPOSITION]
    for name in names:
        if name not in CASES:
            print(f"unknown case '{name}'; known: {', '.join(CASES)}", file=sys.stderr)
            return 2
        done = all(os.path.exists(os.path.join(out_dir, name + ext)) for ext in (".onnx", ".json"))
        if skip_existing and done:
            print(f"kept {name}")
            continue
        export(name, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
