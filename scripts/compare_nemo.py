#!/usr/bin/python3
"""Holds `dnnperf predict` against published FP8 pre-training runs of Llama 3 with NVIDIA's
Megatron-Bridge on DGX-H100 (data/published/nemo_runs.json): each run predicted with the plan it
ran (GPUs, batches, sequence, FSDP, tensor, pipeline and virtual-pipeline degrees) and the
framework's defaults the table leaves out (the file's "about"), tokens per second per GPU compared. Prints a Markdown table and the median and largest |error|; nothing here
was fitted to these runs.

  scripts/compare_nemo.py [--dnnperf build/bin/dnnperf] [--runs FILE]
"""
import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dnnperf_py.published import dnnperf_json, load_rows  # noqa: E402


def command(dnnperf, hardware, run):
    if run["cp"] != 1:
        raise SystemExit(f"{run['model']}: context parallelism ({run['cp']}) is not planned by dnnperf")
    cmd = [dnnperf, "predict", "-n", run["model"], "--hardware", hardware, "--nodes", str(run["gpus"] // 8), "--gpus-per-node", "8",
           "--tp", str(run["tp"]), "--pp", str(run["pp"]), "--interleave", str(run["vp"]), "--micro-batch", str(run["micro_batch"]),
           "--global-batch", str(run["global_batch"]), "--seq", str(run["sequence"]), "--dtype", run["precision"], "--json"]
    # FSDP shards weights, gradients and optimizer state; without it Megatron-Bridge's recipes shard
    # the optimizer state alone (its distributed optimizer, on by default).
    cmd += ["--zero", "3" if run["fsdp"] > 1 else "1"]
    if run["tp"] > 1:
        cmd += ["--sequence-parallel"]
    if run["vp"] > 1:
        cmd += ["--overlap-p2p"]
    return cmd


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dnnperf", default=str(ROOT / "build" / "bin" / "dnnperf"))
    parser.add_argument("--runs", default=str(ROOT / "data" / "published" / "nemo_runs.json"))
    args = parser.parse_args()
    table, runs = load_rows(args.runs, "runs", ("model", "gpus", "precision", "global_batch", "micro_batch", "sequence", "fsdp", "tp", "pp", "cp", "vp",
                                                "tokens_per_s_per_gpu"))
    print("| model | GPUs | plan | published tokens/s/GPU | predicted | error | bound by | memory GiB (fits) |")
    print("| --- | ---: | --- | ---: | ---: | ---: | --- | ---: |")
    errors = []
    for run in runs:
        p = dnnperf_json(command(args.dnnperf, table["hardware"], run))
        predicted = p["tokens_per_s"] / run["gpus"]
        error = predicted / run["tokens_per_s_per_gpu"] - 1
        errors.append(error)
        b = p["breakdown"]
        # The critical GPU's step, in parts that add up to it (dp_comm_s is the whole sync, of which
        # only the exposed part adds).
        parts = {k.removesuffix("_s"): v for k, v in b.items() if k.endswith("_s") and k != "dp_comm_s"}
        largest = sorted(parts.items(), key=lambda kv: -kv[1])[:3]
        plan = f"TP {run['tp']} x PP {run['pp']} (VP {run['vp']}), FSDP {run['fsdp']}, mb {run['micro_batch']} x gbs {run['global_batch']}, seq {run['sequence']}, {run['precision']}"
        print(f"| {run['model']} | {run['gpus']} | {plan} | {run['tokens_per_s_per_gpu']} | {predicted:.0f} | {100 * error:+.1f}% | "
              f"{', '.join(f'{k} {v:.2f} s' for k, v in largest)} | {p['memory_bytes'] / 2**30:.1f} ({'yes' if p['memory']['fits'] else 'no'}) |")
    absolute = [abs(e) for e in errors]
    print(f"\n{len(errors)} runs: median |error| {100 * statistics.median(absolute):.1f}%, largest {100 * max(absolute):.1f}%; "
          f"median signed {100 * statistics.median(errors):+.1f}%")


if __name__ == "__main__":
    main()
