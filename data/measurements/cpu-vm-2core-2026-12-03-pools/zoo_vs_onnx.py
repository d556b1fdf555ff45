#!/usr/bin/python3
"""A zoo network (torchvision) against its ONNX export run by scripts/dnnperf_py/onnx_torch.py, A/B
interleaved in one process (six rounds of five timed passes each): what the runner itself costs.

    /usr/bin/python3 zoo_vs_onnx.py ONNX_CASES_DIR 4 inference     # ONNX_CASES_DIR: build/onnx_cases
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import torch_train  # noqa: E402,F401  (the ground truth's allocator policy)
import torch  # noqa: E402
import torchvision  # noqa: E402
from dnnperf_py import onnx_torch as ot  # noqa: E402
from interleaved import interleaved_medians  # noqa: E402

cases_dir, batch, inference = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "inference"
torch.set_num_threads(1)
for name, ctor in (("resnet18", torchvision.models.resnet18), ("mobilenet_v2", torchvision.models.mobilenet_v2)):
    net = ctor()
    onnx = ot.OnnxModule(ot.load_onnx(os.path.join(cases_dir, f"{name}_train_op13.onnx")))
    x = torch.randn(batch, 3, 64, 64)

    def run(model):
        if inference:
            model.eval()
            with torch.no_grad():
                model(x)
        else:
            model.train()
            model.zero_grad(set_to_none=True)
            model(x).sum().backward()

    for model in (net, onnx):
        for _ in range(3):
            run(model)
    t = interleaved_medians({"zoo": lambda: run(net), "onnx": lambda: run(onnx)}, warmup=1)
    z, o = t["zoo"], t["onnx"]
    print(f"{name:14s} b{batch} {'inference' if inference else 'training'} zoo {z * 1e3:.2f} ms onnx {o * 1e3:.2f} ms onnx/zoo {o / z:.3f}", flush=True)
