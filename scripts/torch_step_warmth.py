#!/usr/bin/python3
"""How much of a convolution's cold time a real step saves: each convolution of a network's
training step (or inference) timed inside the step and alone from evicted caches, in one process.

    /usr/bin/python3 scripts/torch_step_warmth.py --dnnperf build/bin/dnnperf --batch 4 --inference \\
        -o step_warmth.jsonl networks/resnet34.onnx networks/googlenet.onnx

Calibration prices a convolution at its cold time less what dnnperf's step warmth says the step
saves it (models/compute/step_warmth.h), all of that times a share the step realizes. That share
is what this measures, convolution by convolution, where whole steps carry every other error of
their networks too. For each network: warm-up, a few steps under torch.profiler (each
convolution's time per call, by shape), each of the step's convolutions timed alone as
calibration times them (scripts/torch_bench.py --cold), then the steps profiled again; the
in-step time is the mean of the two profiles, so that the machine's drift over the minute is
the same on both sides. `dnnperf fit --step-warmth FILE` prices the same kernels and fits the
share (docs/models/fitting-notes.md).

The profiler knows a convolution by its sizes only: the network's kernels come from dnnperf
(`bench --list-shapes`) and a step's convolution is kept where exactly one of them has its sizes.
One record per convolution shape and direction ("type": "step_warmth"), appended and flushed as
each network finishes; a network already in the output (same batch and kind) is skipped, so an
interrupted run resumes. CPU only: the profiler's times there are the kernels'.

With --kernel-records FILE the cold timings are also written as the measurement records
scripts/torch_bench.py writes (each kernel once): real networks' convolutions, which calibration
adds to its generic sample for the compute fit at no extra cost.

With --runs DIR it also times each network's whole steps with the ground truth's own loop
(scripts/torch_train.py), once before its convolutions and once after: the two runs
`dnnperf fit --steps DIR` prices, without a process (and PyTorch's import) per run.
"""
import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch_train  # noqa: E402  (its allocator policy applies before torch allocates)
import torch  # noqa: E402
import torch_bench  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from dnnperf_py import allocator, machine, step_convs  # noqa: E402
from dnnperf_py.records import RecordWriter, utc_now, whole_lines  # noqa: E402
from dnnperf_py.records import key as record_key  # noqa: E402

WARMUP = 2
LAYOUT = {"device": "cpu", "threads": 1}  # main() sets the threads


def fail(message):
    raise SystemExit(f"torch_step_warmth: {message}")


def listed_kernels(dnnperf, network, batch, hw):
    """The GEMM and convolution kernels dnnperf lowers `network` to at `batch` (every phase); a
    zoo CNN at images of `hw`, a file at its own."""
    spec = network if network.endswith((".onnx", ".pt", ".json")) else f"{network}@{hw[0]}x{hw[1]}"
    try:
        listed = subprocess.run([dnnperf, "bench", "gemm", "--shapes", "zoo:" + spec, "--batch", str(batch), "--list-shapes"],
                                capture_output=True, text=True, check=True).stdout
        return json.loads(listed)
    except OSError as e:
        fail(f"cannot run dnnperf ({dnnperf}): {e.strerror}")
    except subprocess.CalledProcessError as e:
        fail(f"{network}: dnnperf cannot list its kernels: {e.stderr.strip()}")
    except json.JSONDecodeError as e:
        fail(f"{network}: dnnperf's kernel list is not JSON ({e})")


def profiled(step, steps):
    """Each convolution's calls per step and seconds per call over `steps` profiled steps."""
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(steps):
            step()
    return step_convs.step_convolutions(prof.key_averages(group_by_input_shape=True), steps)


# As calibration times a kernel from evicted caches, with the fewest repetitions (torch_bench.measure).
COLD = argparse.Namespace(device="cpu", dtype="f32", target=0.0, max_flops=float("inf"))


def cold_seconds(kernel, flush, records):
    """A kernel's median time alone from evicted caches, as calibration times it; its record
    (torch_bench's) also written to `records` (a RecordWriter, or None), once per kernel."""
    record = torch_bench.timed_record(COLD, kernel, torch_bench.blank_record(COLD, kernel, LAYOUT, "cold"), flush)
    if record["status"] != "ok":
        raise RuntimeError(f"{kernel['op']} {json.dumps(kernel['params'], sort_keys=True)}: {record['reason']}")
    if records is not None and record_key(record) not in records.done:
        records.write(record)
    return record["seconds"]["median"]


def run_file(args, network, run):
    """Where --runs keeps a whole-step run, named as `dnnperf validate --save-measured` names it."""
    name = os.path.basename(network) if network.endswith((".onnx", ".json", ".pt")) else network
    return os.path.join(args.runs, f"{name}_b{args.batch}_p1_{'inference' if args.inference else 'train'}_run{run}.json")


def time_whole_steps(args, network, run):
    """With --runs: whole steps of `network` timed by the ground truth's own loop (torch_train.run)."""
    if not args.runs:
        return
    os.makedirs(args.runs, exist_ok=True)
    ground_truth = argparse.Namespace(**vars(args))
    ground_truth.network = network
    ground_truth.__dict__.pop("network_name", None)
    ground_truth.procs, ground_truth.device, ground_truth.reference_kernels = 1, "cpu", None
    ground_truth.accumulate, ground_truth.dtype = 1, "fp32"  # one micro-batch a step, PyTorch's defaults: validate's
    torch_train.run(0, ground_truth, run_file(args, network, run))


def measure_network(args, network, out, flush, records):
    """Measures one network (its convolutions timed alone after `flush`, torch_bench.CacheFlush,
    and written to `records` where that is a RecordWriter); returns the number of records written."""
    time_whole_steps(args, network, 0)
    args.network = network
    args.__dict__.pop("network_name", None)  # set by build() for a .pt bundle only
    model, x, y = torch_train.build(args)
    model.train(not args.inference)
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        torch_train.iteration(model, x, y, loss_fn, opt, args.inference)

    table = step_convs.kernel_table(listed_kernels(args.dnnperf, network, args.batch, args.input))
    for _ in range(WARMUP):
        step()
    before = profiled(step, args.steps)
    rows, missing, ambiguous = [], 0, 0
    for (direction, key), (calls, _) in sorted(before.items(), key=lambda e: (e[0][0], e[0][1])):
        kernels = step_convs.match(table, direction, key)
        if kernels is None:
            missing += 1
            continue
        if kernels == "ambiguous":
            ambiguous += 1
            continue
        rows.append((direction, key, calls, [dict(k, cold_s=cold_seconds(k, flush, records)) for k in kernels]))
    after = profiled(step, args.steps)
    name = getattr(args, "network_name", network)
    written = 0
    for direction, key, calls, kernels in rows:
        if (direction, key) not in after:
            continue  # a shape the second profile missed is left out, not judged on one side
        first, second = before[(direction, key)][1], after[(direction, key)][1]
        record = {"type": "step_warmth", "network": name, "batch": args.batch, "input": torch_train.input_dims(args, x), "inference": args.inference,
                  "direction": direction, "kernels": [{"op": k["op"], "params": k["params"], "cold_s": k["cold_s"]} for k in kernels],
                  "calls_per_step": calls, "in_step_s": 0.5 * (first + second), "in_step_before_s": first, "in_step_after_s": second,
                  "cold_s": sum(k["cold_s"] for k in kernels), "steps_profiled": args.steps,
                  "threads": torch.get_num_threads(), "torch": torch.__version__, "cpu": machine.cpu(), "date": utc_now()}
        out.write(json.dumps(record) + "\n")
        written += 1
    out.flush()
    time_whole_steps(args, network, 1)
    print(f"torch_step_warmth: {name}: {written} convolution shapes ({'inference' if args.inference else 'training'}; "
          f"{missing} not listed by dnnperf, {ambiguous} matching several listed kernels, left out)", file=sys.stderr)
    return written


def done_networks(path, batch, inference):
    """Networks the output already holds at this batch and kind (a torn last line is dropped)."""
    if not os.path.exists(path):
        return set()
    return {r.get("network") for r in whole_lines(path)
            if r.get("type") == "step_warmth" and r.get("batch") == batch and r.get("inference") == inference}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("networks", nargs="+", help="zoo names or ONNX files")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--input", default="64,64", help="H,W for zoo CNNs (an ONNX file has its own)")
    p.add_argument("--seq", type=int, default=128, help="tokens per sample for transformers")
    p.add_argument("--inference", action="store_true", help="forward passes under no_grad in eval mode, as the ground truth's inference")
    p.add_argument("--steps", type=int, default=3, help="profiled steps on each side of the cold timings")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", help="also time whole steps as scripts/torch_train.py does (--iterations, --warmup), before and after the "
                   "convolutions, into this folder (NAME_bB_p1_KIND_run0.json and _run1.json, as dnnperf fit --steps reads them)")
    p.add_argument("--iterations", type=int, default=3, help="with --runs: timed steps per run")
    p.add_argument("--warmup", type=int, default=2, help="with --runs: steps before the timed ones")
    p.add_argument("--dnnperf", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "dnnperf"))
    p.add_argument("--time-budget", type=float, default=0, help="seconds; networks not begun by then are left for a rerun (0: none)")
    p.add_argument("--kernel-records", help="also write each convolution's cold timing as a measurement record (scripts/torch_bench.py's) "
                   "to this file, resumed: real networks' kernels for dnnperf fit's compute models")
    p.add_argument("-o", "--output", required=True, help="JSON lines, appended")
    args = p.parse_args()
    args.input = [int(v) for v in args.input.split(",")] * (1 if "," in args.input else 2)
    if args.batch <= 0 or args.steps <= 0 or args.iterations <= 0 or args.warmup < 0:
        fail("--batch, --steps and --iterations must be positive, --warmup not negative")
    torch.set_num_threads(args.threads)
    LAYOUT["threads"] = torch.get_num_threads()
    start = time.time()
    try:
        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        done = done_networks(args.output, args.batch, args.inference)
    except OSError as e:
        fail(f"{args.output}: {e.strerror}")
    try:
        records = RecordWriter(args.kernel_records, True, {"torch": torch.__version__, "allocator": allocator.describe()}) if args.kernel_records else None
    except OSError as e:
        fail(f"--kernel-records {args.kernel_records}: {e.strerror}")
    failed = []
    flush = torch_bench.CacheFlush("cpu")
    with open(args.output, "a") as out:
        for network in args.networks:
            if args.time_budget and time.time() - start > args.time_budget:
                print(f"torch_step_warmth: time budget spent; {network} and after left for a rerun", file=sys.stderr)
                break
            try:
                if network in done:  # its convolutions measured; whole steps, if asked, where missing
                    for r in (0, 1):
                        if args.runs and not os.path.exists(run_file(args, network, r)):
                            time_whole_steps(args, network, r)
                    continue
                measure_network(args, network, out, flush, records)
            except SystemExit as e:  # one network that cannot be built or listed; the others still run
                print(f"torch_step_warmth: {network}: {e}", file=sys.stderr)
                failed.append(network)
            except (RuntimeError, ValueError) as e:  # PyTorch refusing the network's ops
                print(f"torch_step_warmth: {network}: PyTorch failed running it: {e}", file=sys.stderr)
                failed.append(network)
    if failed:
        print(f"torch_step_warmth: failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
