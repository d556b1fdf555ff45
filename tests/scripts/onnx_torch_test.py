#!/usr/bin/python3
"""ONNX ground truth: scripts/dnnperf_py/onnx_torch.py trains an ONNX file as PyTorch trains the
network it was exported from, and `dnnperf validate` times ONNX files through it.

    onnx_torch_test.py DNNPERF_BINARY ONNX_CASES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

import onnx  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from dnnperf_py import onnx_torch  # noqa: E402
from dnnperf_py.models import TransformerEncoderClassifier  # noqa: E402

binary, cases = sys.argv[1], sys.argv[2]
train = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "torch_train.py")
warnings.filterwarnings("ignore")  # the exporter warns about every in-place op it rewrites
tmp = tempfile.mkdtemp()
failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + (f": {detail}" if detail and not condition else ""))
    if not condition:
        failures.append(name)


def relative(a, b):
    return float((a - b).abs().max() / b.abs().max().clamp_min(1e-12))


# 1. Trained parameters: exactly those PyTorch counts for the exported network (export_onnx.py's sidecar).
for case in ["resnet18_train_op13", "mobilenet_v2_train_op13", "densenet121_train_op14", "transformer_encoder_train_op13"]:
    module = onnx_torch.OnnxModule(onnx_torch.load_onnx(f"{cases}/{case}.onnx"))
    counted = sum(p.numel() for p in module.parameters())
    expected = json.load(open(f"{cases}/{case}.json"))["trainable_params"]
    check(f"parameters_{case}", counted == expected, f"{counted} trained, PyTorch has {expected}")

# 2. Same outputs and gradients as the network it came from, at another batch than exported.
def export(model, example, path):
    torch.onnx.export(model, example, path, opset_version=13, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["input"], output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})


torch.manual_seed(0)
net = torchvision.models.resnet18()
path = f"{tmp}/resnet18.onnx"
export(net, torch.randn(2, 3, 32, 32), path)
module = onnx_torch.OnnxModule(onnx_torch.load_onnx(path)).train()
net.train()
x = torch.randn(3, 3, 32, 32)
y_net, y_onnx = net(x), module(x)  # batch statistics in both: training-mode normalisation
check("resnet18_train_output", relative(y_onnx, y_net) < 1e-4, f"relative difference {relative(y_onnx, y_net):.2e}")
y_net.square().sum().backward()
y_onnx.square().sum().backward()
first_conv = module.params[module.slots["conv1.weight"][1]]
check("resnet18_train_gradient", relative(first_conv.grad, net.conv1.weight.grad) < 1e-3,
      f"relative difference {relative(first_conv.grad, net.conv1.weight.grad):.2e}")

# ReLU6, which an exporter writes as Clip(0, 6), runs as the network's own hardtanh: same values and gradients.
torch.manual_seed(0)
net = torchvision.models.mobilenet_v2(width_mult=0.5)
net.classifier[0].p = 0.0  # no dropout: both sides draw their own masks
path = f"{tmp}/mobilenet_v2.onnx"
export(net, torch.randn(2, 3, 32, 32), path)
# In double precision: 50 layers of training-mode normalisation over 3 samples amplify float32's rounding.
module = onnx_torch.OnnxModule(onnx_torch.load_onnx(path)).train().double()
net.train().double()
x = torch.randn(3, 3, 32, 32, dtype=torch.float64)
y_net, y_onnx = net(x), module(x)
check("relu6_output", relative(y_onnx, y_net) < 1e-4, f"relative difference {relative(y_onnx, y_net):.2e}")
y_net.square().sum().backward()
y_onnx.square().sum().backward()
first_conv = module.params[module.slots["features.0.0.weight"][1]]
check("relu6_gradient", relative(first_conv.grad, net.features[0][0].weight.grad) < 1e-3,
      f"relative difference {relative(first_conv.grad, net.features[0][0].weight.grad):.2e}")
clipped = onnx_torch.clip(onnx_torch.Node("c", "Clip", [], [], {}), torch.tensor([-1.0, 3.0, 7.0]), torch.tensor(0.0), None)
check("clip_one_bound", clipped.tolist() == [0.0, 3.0, 7.0], str(clipped))

# Shape arithmetic (a channel shuffle's Shape, Gather, Div, Unsqueeze, Concat before its Reshape)
# runs once per input shape, not in every step: dnnperf's importer folds it, so must the ground truth.
torch.manual_seed(0)
net = torchvision.models.shufflenet_v2_x0_5()
path = f"{tmp}/shufflenet.onnx"
export(net, torch.randn(2, 3, 32, 32), path)
module = onnx_torch.OnnxModule(onnx_torch.load_onnx(path)).train()
shape_ops = {"Shape", "Gather", "Div", "Unsqueeze", "Concat", "Slice"}
folded_ops = {module.nodes[i].op_type for i in module.static}
check("shuffle_shapes_static", len(module.static) > 50 and "Shape" in folded_ops and folded_ops <= shape_ops | {"Add", "Mul", "Cast", "Squeeze"},
      f"{len(module.static)} static nodes: {sorted(folded_ops)}")
check("shuffle_convolutions_not_static", not any(module.nodes[i].op_type in ("Conv", "BatchNormalization", "Reshape") for i in module.static))
executed = []
plain_run_node = onnx_torch.run_node
onnx_torch.run_node = lambda node, args, training=False: executed.append(node.op_type) or plain_run_node(node, args, training)
ran = {}
for name, batch in (("first", 3), ("again", 3), ("new_batch", 5)):
    x = torch.randn(batch, 3, 32, 32)
    executed.clear()
    y_net, y_onnx = net(x), module(x)
    ran[name] = len(executed)
    check(f"shuffle_output_{name}", relative(y_onnx, y_net) < 1e-4, f"relative difference {relative(y_onnx, y_net):.2e}")
check("shuffle_shapes_run_once_per_input_shape",
      ran == {"first": len(module.nodes), "again": len(module.nodes) - len(module.static), "new_batch": len(module.nodes)} and len(module.folded) == 2,
      f"nodes run {ran} of {len(module.nodes)}, {len(module.static)} static, {len(module.folded)} input shapes folded")
onnx_torch.run_node = plain_run_node
# Intermediates go when their last reader has run, as an eager model frees them: none outlives the pass.
release = module.released
check("shuffle_every_intermediate_released", all(name in {r for names in release for r in names} for n in module.nodes for name in n.output
                                                  if name != module.output_name),
      "some outputs are never released")
check("shuffle_released_after_last_read", all(not any(name in later.input for later in module.nodes[i + 1:]) for i, names in enumerate(release) for name in names))
y_onnx.square().sum().backward()
check("shuffle_trains", all(p.grad is not None for p in module.parameters()))

transformer = TransformerEncoderClassifier(layers=2).eval()
path = f"{tmp}/transformer.onnx"
export(transformer, torch.randint(0, 10000, (2, 16)), path)
module = onnx_torch.OnnxModule(onnx_torch.load_onnx(path)).eval()
tokens = torch.randint(0, 10000, (3, 16))
with torch.no_grad():
    difference = relative(module(tokens), transformer(tokens))
check("transformer_eval_output", difference < 1e-4, f"relative difference {difference:.2e}")
data = onnx_torch.load_onnx(path)
drawn = onnx_torch.example_input(data, 5)
check("token_input", drawn.shape == (5, 16) and drawn.dtype == torch.int64 and int(drawn.max()) < 10000, str(drawn.shape))


# A bundle (for machines without the onnx package) trains the same graph: same parameters, and
# torch_train.py's result names the ONNX file, which is what dnnperf predicts.
onnx_torch.bundle(f"{cases}/resnet18_train_op13.onnx", f"{tmp}/resnet18.pt")
from_bundle = onnx_torch.OnnxModule(onnx_torch.load_graph(f"{tmp}/resnet18.pt"))
check("bundle_parameters", sum(p.numel() for p in from_bundle.parameters()) == 11689512 and os.path.getsize(f"{tmp}/resnet18.pt") < 1e6,
      f"{sum(p.numel() for p in from_bundle.parameters())} parameters, {os.path.getsize(f'{tmp}/resnet18.pt')} bytes")
run = subprocess.run(["/usr/bin/python3", train, "--network", f"{tmp}/resnet18.pt", "--batch", "2", "--iterations", "1", "--warmup", "1",
                      "-o", f"{tmp}/bundle_run.json"], capture_output=True, text=True, timeout=300)
ran = json.load(open(f"{tmp}/bundle_run.json")) if run.returncode == 0 else {}
check("bundle_trains", ran.get("network") == "resnet18_train_op13.onnx" and ran.get("median_s", 0) > 0 and ran.get("input") == [3, 64, 64],
      run.stderr[-300:] or json.dumps(ran)[:300])

# 3. What it cannot run is named: the node, its operator, and for a baked-in batch the shapes.
def tiny(path, op, extra_inputs=(), initializers=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    node = helper.make_node(op, ["x", *extra_inputs], ["y"], name="the_node")
    onnx.save(helper.make_model(helper.make_graph([node], "g", [x], [out], list(initializers))), path)


tiny(f"{tmp}/einsum.onnx", "Einsum")
try:
    onnx_torch.OnnxModule(onnx_torch.load_onnx(f"{tmp}/einsum.onnx"), "einsum.onnx")
    check("unsupported_op", False, "accepted")
except ValueError as e:
    check("unsupported_op", "'the_node' has op Einsum" in str(e), str(e))
tiny(f"{tmp}/baked.onnx", "Reshape", ["shape"], [helper.make_tensor("shape", TensorProto.INT64, [2], [2, 4])])
try:
    onnx_torch.OnnxModule(onnx_torch.load_onnx(f"{tmp}/baked.onnx"))(torch.randn(3, 4))
    check("baked_batch", False, "ran")
except RuntimeError as e:
    check("baked_batch", "node 'the_node' (Reshape, inputs 3x4, 2)" in str(e), str(e))

# 4. validate times an ONNX file for real; a file that cannot run fails its case, named, and the
#    runner alone names what it cannot execute.
run = subprocess.run([binary, "validate", "--hardware", "cpu", "--networks", f"{cases}/resnet18_train_op13.onnx,{tmp}/einsum.onnx",
                      "--batch", "2", "--iterations", "2", "--json"], capture_output=True, text=True, timeout=600)
report = json.loads(run.stdout)
ok, failed = report["cases"]
check("validate_onnx_measured", ok["status"] == "ok" and ok["measured_s"] > 0 and ok["predicted_s"] > 0, json.dumps(ok))
check("validate_onnx_failed_case", failed["status"] == "failed" and "'the_node' (Einsum)" in failed["reason"] and run.returncode == 1,
      f"{failed}, exit {run.returncode}")
run = subprocess.run(["/usr/bin/python3", train, "--network", f"{tmp}/einsum.onnx", "--batch", "2", "-o", f"{tmp}/out.json"],
                     capture_output=True, text=True, timeout=120)
check("torch_train_unsupported", run.returncode != 0 and "node 0 'the_node' has op Einsum" in run.stderr and not os.path.exists(f"{tmp}/out.json"),
      run.stderr[-300:])
run = subprocess.run(["/usr/bin/python3", train, "--network", f"{tmp}/missing.onnx", "--batch", "2", "-o", f"{tmp}/out.json"],
                     capture_output=True, text=True, timeout=120)
check("torch_train_missing_file", run.returncode != 0 and "missing.onnx: no such file" in run.stderr, run.stderr[-300:])

sys.exit(1 if failures else 0)
