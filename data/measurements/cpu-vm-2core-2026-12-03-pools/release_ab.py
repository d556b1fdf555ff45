#!/usr/bin/python3
"""Inference of ONNX networks through scripts/dnnperf_py/onnx_torch.py with each intermediate freed
after its last reader (as the runner now does) and with every one held to the end of the pass (as
it did before 2026-12-03), interleaved A/B in one process: six rounds of five timed passes each way.

    /usr/bin/python3 release_ab.py NETWORKS_DIR resnet34,mnasnet1_0 4
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import torch_train  # noqa: E402,F401  (the ground truth's allocator policy)
import torch  # noqa: E402
from dnnperf_py import onnx_torch as ot  # noqa: E402
from interleaved import interleaved_medians  # noqa: E402

folder, nets, batch = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
torch.set_num_threads(1)
for net in nets:
    d = ot.load_onnx(os.path.join(folder, f"{net}_train_op13.onnx"))
    m = ot.OnnxModule(d).eval()
    x = ot.example_input(d, batch)
    release, hold = m.released, [[] for _ in m.nodes]

    def run(released):
        def once():
            m.released = released
            with torch.no_grad():
                m(x)
        return once

    with torch.no_grad():
        for _ in range(3):
            m(x)
    t = interleaved_medians({"release": run(release), "hold": run(hold)})
    r, h = t["release"], t["hold"]
    print(f"{net:20s} b{batch} release {r * 1e3:.2f} ms hold {h * 1e3:.2f} ms  hold/release {h / r:.3f}", flush=True)
