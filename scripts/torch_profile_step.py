#!/usr/bin/python3
"""Where a real training step's time goes: torch.profiler over a few steps of a zoo network,
built and trained (or, with --inference, run forward under no_grad in eval mode) as
scripts/torch_train.py does, written as tables (framework ops by host time, kernels by device time), each op per input shape as it ran in the step (ops_by_shape.json:
calls per step, self and total host time per call) and a JSON summary (calls per step, host and
device totals).

    /usr/bin/python3 scripts/torch_profile_step.py --network transformer_encoder --batch 32 --seq 128 --device cuda -o prof/

A prediction that misses a network by more than its kernels' errors can explain is placed here:
a step whose host time per step is near the step's own time is bound by the framework's calls,
one whose device time is is bound by kernels, and the kernel table names the ones that matter.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch_train  # noqa: E402  (its allocator policy applies before torch allocates)
import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--network", required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--input", default="224,224", help="H,W for CNNs")
    p.add_argument("--seq", type=int, default=128, help="tokens per sample for transformers")
    p.add_argument("--steps", type=int, default=3, help="profiled steps (after 3 of warm-up)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--inference", action="store_true", help="profile forward passes under no_grad in eval mode, as the ground truth's inference")
    p.add_argument("-o", "--output", required=True, help="directory for the tables and summary.json")
    args = p.parse_args()
    args.input = [int(v) for v in args.input.split(",")] * (1 if "," in args.input else 2)
    if args.batch <= 0 or args.steps <= 0:
        raise SystemExit("torch_profile_step: --batch and --steps must be positive")
    cuda = args.device == "cuda"
    if cuda and not torch.cuda.is_available():
        print("torch_profile_step: no CUDA device available to PyTorch; nothing profiled", file=sys.stderr)
        return 77
    torch.set_num_threads(args.threads)
    device = torch.device("cuda" if cuda else "cpu")
    model, x, y = torch_train.build(args)
    model, x, y = model.to(device).train(not args.inference), x.to(device), y.to(device)
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        torch_train.iteration(model, x, y, loss_fn, opt, args.inference)

    sync = torch.cuda.synchronize if cuda else (lambda: None)
    for _ in range(3):
        step()
    sync()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    hosts, walls = [], []
    with profile(activities=activities, record_shapes=True) as prof:
        for _ in range(args.steps):
            t0 = time.perf_counter()
            step()
            hosts.append(time.perf_counter() - t0)
            sync()
            walls.append(time.perf_counter() - t0)
    os.makedirs(args.output, exist_ok=True)
    events = prof.key_averages()
    with open(os.path.join(args.output, "ops_by_host_time.txt"), "w") as f:
        f.write(events.table(sort_by="self_cpu_time_total", row_limit=60))
    # PyTorch 2.4 renamed the CUDA totals to device totals (the old names warn, then go)
    device_key = "self_device_time_total" if events and hasattr(events[0], "self_device_time_total") else "self_cuda_time_total"
    if cuda:
        with open(os.path.join(args.output, "kernels_by_device_time.txt"), "w") as f:
            f.write(events.table(sort_by=device_key, row_limit=60))
    # Each op per input shape, as it ran inside the step: the in-step time of every kernel, to set
    # beside its calibrated (cold or warm, timed alone) and its predicted time.
    by_shape = []
    for e in prof.key_averages(group_by_input_shape=True):
        if not e.key.startswith("aten::"):
            continue
        by_shape.append({"op": e.key, "input_shapes": e.input_shapes, "calls_per_step": e.count / args.steps,
                         "self_cpu_s_per_call": e.self_cpu_time_total * 1e-6 / e.count,
                         "cpu_total_s_per_call": e.cpu_time_total * 1e-6 / e.count})
    by_shape.sort(key=lambda r: -r["self_cpu_s_per_call"] * r["calls_per_step"])
    with open(os.path.join(args.output, "ops_by_shape.json"), "w") as f:
        json.dump(by_shape, f, indent=1)
    top_level = [e for e in prof.events() if e.cpu_parent is None and e.name.startswith("aten::")]
    summary = {
        "network": args.network, "batch": args.batch, "input": args.input if args.network in torch_train.VISION else [args.seq],
        "device": args.device, "inference": args.inference, "gpu": torch.cuda.get_device_name(device) if cuda else None, "torch": torch.__version__,
        "steps": args.steps,
        "host_s_per_step": sorted(hosts)[len(hosts) // 2], "wall_s_per_step": sorted(walls)[len(walls) // 2],
        "framework_calls_per_step": sum(e.count for e in events if e.key.startswith("aten::")) / args.steps,
        "top_level_calls_per_step": len(top_level) / args.steps,
        "device_time_s_per_step": sum(getattr(e, device_key, 0) for e in events) * 1e-6 / args.steps if cuda else None,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    with open(os.path.join(args.output, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
