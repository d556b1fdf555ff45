#!/usr/bin/python3
"""Executes dnnperf schedules for real: runs an ONNX model node by node in PyTorch, each node on the
device its task was scheduled on, and compares the measured latency with the predicted one.

    run_schedule_torch.py --onnx M.onnx --schedule S.json --devices cpu=cpu,a100=cuda:0 \\
        [--methods split,heft,single] [--repeats 20] [--warmup 3] [-o OUT.json]

Machines without the onnx package (GPU machines lent for measurement) take a bundle made here:
`run_schedule_torch.py --bundle M.onnx M.pt` stores the nodes with torch.save, and --onnx accepts
the .pt file. A bundle keeps small tensors (shapes, constants) exactly and only the shapes of large
weights, which are drawn again, seeded, where it runs: timing does not depend on their values,
and the output check compares against a CPU run with the same weights.

S.json comes from `dnnperf schedule -n M.onnx ... -o S.json` (its tasks list the ONNX node names
they hold). --devices maps the platform's device names to torch devices (the same torch device
may serve several names, e.g. on a machine without a GPU). Kernels on CUDA devices are launched
asynchronously, so a CPU node and a GPU node scheduled side by side overlap as the schedule says;
a tensor moves when its consumer sits on another device. Every method's output is checked against
a plain CPU run of the same model before any timing. Latency: wall clock of one inference from the
input on its first device to the output, CUDA devices synchronised; median and minimum of the
repetitions, and their spread.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dnnperf_py.onnx_torch import Node, bundle, constant, load_graph, run_node, unsupported  # noqa: E402


class Model:
    def __init__(self, path):
        data = load_graph(path)
        nodes = [Node(n["name"], n["op_type"], n["input"], n["output"], n["attrs"]) for n in data["nodes"]]
        self.weights = dict(data["weights"])
        for n in nodes:
            if n.op_type == "Constant":
                self.weights[n.output[0]] = constant(n)
        self.nodes = [n for n in nodes if n.op_type != "Constant"]
        problem = unsupported(self.nodes, path)
        if problem:
            sys.exit(f"run_schedule_torch: {problem}")
        self.input, self.input_shape, self.output = data["input"], data["input_shape"], data["output"]

    def run(self, x, device_of_node, first_device):
        """One inference; returns the output. device_of_node: node index -> torch.device."""
        env = {self.input: x}
        where = {}  # (tensor name, device) -> tensor moved there
        for i in self.order:
            n = self.nodes[i]
            dev = device_of_node[i]
            args = []
            for name in n.input:
                if not name:
                    args.append(None)
                    continue
                if name in self.weights:
                    args.append(self.placed_weights[(name, dev)])
                    continue
                t = env[name]
                if t.device != dev:
                    key = (name, dev)
                    if key not in where:
                        where[key] = t.to(dev, non_blocking=True)
                    t = where[key]
                args.append(t)
            for name, value in zip(n.output, run_node(n, args)):
                env[name] = value
        return env[self.output]

    def place(self, device_of_node):
        """Copies each node's weights to its device once, before timing."""
        self.placed_weights = {}
        for i, n in enumerate(self.nodes):
            for name in n.input:
                if name in self.weights and (name, device_of_node[i]) not in self.placed_weights:
                    self.placed_weights[(name, device_of_node[i])] = self.weights[name].to(device_of_node[i])


def plan(model, schedule, method, torch_devices):
    """Per ONNX node its torch device, and the execution order (scheduled start, then graph order)."""
    m = next((x for x in schedule["methods"] if x["method"] == method), None)
    if m is None or not m.get("found"):
        raise ValueError(f"the schedule has no '{method}' result")
    task_of = {}
    for t_index, task in enumerate(schedule["tasks"]):
        for name in task.get("op_names", []):
            task_of[name] = t_index
    if not task_of:
        raise ValueError("the schedule lists no op names per task (made by an older dnnperf?)")
    placement = {p["task"]: p for p in m["placements"]}
    produced_on = {}
    device_of_node, start = [], []
    for i, n in enumerate(model.nodes):
        t = task_of.get(n.name)
        if t is not None:
            name = placement[t]["device"]
            if name not in torch_devices:
                raise ValueError(f"schedule device '{name}' has no torch device in --devices")
            dev, s = torch_devices[name], placement[t]["start_s"]
        else:  # folded away by dnnperf's importer (shape arithmetic): run where its input is
            src = next((produced_on[x] for x in n.input if x in produced_on), None)
            dev, s = (src if src is not None else next(iter(torch_devices.values()))), (start[-1] if start else 0.0)
        device_of_node.append(dev)
        start.append(s)
        for o in n.output:
            produced_on[o] = dev
    by_start = sorted(range(len(model.nodes)), key=lambda i: (start[i], i))
    # Nodes dnnperf folded away have no start of their own: run every node once its inputs exist,
    # taking the earliest-scheduled such node first.
    available = {model.input} | set(model.weights)
    order, pending = [], by_start
    while pending:
        k = next((k for k, i in enumerate(pending) if all(not x or x in available for x in model.nodes[i].input)), None)
        if k is None:
            raise ValueError(f"node '{model.nodes[pending[0]].name}' reads a tensor nothing produces")
        i = pending.pop(k)
        order.append(i)
        available.update(model.nodes[i].output)
    return device_of_node, order, m


def sync(devices):
    for d in devices:
        if d.type == "cuda":
            torch.cuda.synchronize(d)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--bundle":
        bundle(sys.argv[2], sys.argv[3])
        print(f"wrote {sys.argv[3]}")
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--schedule", required=True)
    ap.add_argument("--devices", required=True, help="platform device = torch device, comma separated")
    ap.add_argument("--methods", default="split,heft,single")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    try:
        torch_devices = {k: torch.device(v) for k, v in (p.split("=", 1) for p in args.devices.split(","))}
    except ValueError:
        sys.exit(f"run_schedule_torch: --devices: expected name=device pairs, got '{args.devices}'")
    for d in torch_devices.values():
        if d.type == "cuda" and not torch.cuda.is_available():
            sys.exit("run_schedule_torch: --devices names CUDA but this PyTorch sees no GPU")
    with open(args.schedule) as f:
        schedule = json.load(f)
    model = Model(args.onnx)
    shape = [d or schedule.get("batch", 1) for d in model.input_shape]
    torch.manual_seed(0)
    x_cpu = torch.randn(*shape)
    cpu = torch.device("cpu")
    model.order = list(range(len(model.nodes)))
    model.place([cpu] * len(model.nodes))
    with torch.no_grad():
        reference = model.run(x_cpu, [cpu] * len(model.nodes), cpu)

    results = []
    torch.set_grad_enabled(False)
    for method in args.methods.split(","):
        try:
            device_of_node, order, m = plan(model, schedule, method, torch_devices)
        except ValueError as e:
            print(f"run_schedule_torch: {method}: {e}", file=sys.stderr)
            results.append({"method": method, "error": str(e)})
            continue
        model.order = order
        model.place(device_of_node)
        used = set(device_of_node)
        first = device_of_node[order[0]]
        x = x_cpu.to(first)
        out = model.run(x, device_of_node, first).to(cpu)
        err = (out - reference).abs().max().item() / max(reference.abs().max().item(), 1e-12)
        if err > 1e-3:
            results.append({"method": method, "error": f"output differs from the CPU reference by {err:.2e} (relative)"})
            print(f"run_schedule_torch: {method}: wrong output ({err:.2e})", file=sys.stderr)
            continue
        times = []
        for r in range(args.warmup + args.repeats):
            sync(used)
            t0 = time.perf_counter()
            model.run(x, device_of_node, first)
            sync(used)
            if r >= args.warmup:
                times.append(time.perf_counter() - t0)
        med, low = statistics.median(times), min(times)
        predicted = m["makespan_s"]
        results.append({"method": method, "devices_used": sorted(str(d) for d in used), "predicted_s": predicted, "median_s": med, "min_s": low,
                        "spread_pct": 100 * (max(times) - low) / low, "error_pct": 100 * (predicted - med) / med, "max_relative_output_error": err,
                        "repeats": args.repeats})
        print(f"{method:8s} predicted {predicted * 1e3:9.3f} ms  measured median {med * 1e3:9.3f} ms (min {low * 1e3:.3f}, "
              f"spread {results[-1]['spread_pct']:.1f}%)  error {results[-1]['error_pct']:+.1f}%", flush=True)
    doc = {"onnx": os.path.basename(args.onnx), "schedule": os.path.basename(args.schedule), "platform": schedule.get("platform"),
           "torch": torch.__version__, "cuda_device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
           "date": time.strftime("%Y-%m-%d %H:%M:%S"), "results": results}
    if args.output:
        with open(args.output, "w") as f:
            json.dump(doc, f, indent=1)
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
