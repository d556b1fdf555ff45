#!/usr/bin/python3
"""Holds `dnnperf predict`'s model-parallel plans against the published Megatron-LM runs of
Narayanan et al. 2021, Table 1 (data/published/megatron_runs.json): for each run its model, GPU
count, tensor and pipeline degrees, global batch, fp16 and full recomputation, on the datasheet
A100 profile. Megatron's micro-batch and interleaving were tuned per run and are not in the table,
so each run is predicted for micro-batches 1, 2, 4, 8 and 1 to 4 chunks per GPU, and the fastest
that fits is compared (the first-listed, micro-batch 1 without interleaving, is shown beside it).
Throughput is counted as the paper counts it (eq. 3). Prints a Markdown table and the median and
largest |error|; nothing here was fitted to these runs.

  scripts/compare_megatron.py [--dnnperf build/bin/dnnperf] [--runs FILE] [--hardware a100]
"""
import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dnnperf_py.published import dnnperf_json, load_rows  # noqa: E402


def eq3_flops(run, seq, vocab):
    b, l, h = run["batch"], run["layers"], run["hidden"]
    return 96.0 * b * seq * l * h * h * (1 + seq / (6.0 * h) + vocab / (16.0 * l * h))


def predict(dnnperf, network, hardware, run, dtype, recompute, micro_batch, interleave):
    gpus = run["gpus"]
    cmd = [dnnperf, "predict", "-n", network, "--hardware", hardware, "--nodes", str(gpus // 8), "--gpus-per-node", "8",
           "--tp", str(run["tp"]), "--pp", str(run["pp"]), "--interleave", str(interleave), "--micro-batch", str(micro_batch),
           "--global-batch", str(run["batch"]), "--recompute", recompute, "--dtype", dtype, "--json"]
    p = dnnperf_json(cmd, refused_ok=True)  # refused: a combination this run's shape does not allow
    return p if p and p["memory"]["fits"] else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dnnperf", default=str(ROOT / "build" / "bin" / "dnnperf"))
    parser.add_argument("--runs", default=str(ROOT / "data" / "published" / "megatron_runs.json"))
    parser.add_argument("--hardware", default=None, help="profile (default: the file's, a100)")
    args = parser.parse_args()
    table, runs = load_rows(args.runs, "runs", ("parameters_b", "heads", "hidden", "layers", "tp", "pp", "gpus", "batch", "tflops_per_gpu"))
    seq, vocab, dtype, recompute = table["sequence"], table["vocabulary"], table["dtype"], table["recompute"]
    hardware = args.hardware or table["hardware"]
    print("| model | GPUs | TP x PP x DP | batch | published TFLOP/s | predicted (best plan) | error | micro-batch, chunks | mb 1, no interleave | MFU | memory GiB |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    errors = []
    for run in runs:
        network = f"gpt:layers={run['layers']},hidden={run['hidden']},heads={run['heads']},seq={seq},vocab={vocab},dropout=0.1"
        flops = eq3_flops(run, seq, vocab)
        tried = []
        for micro_batch in (1, 2, 4, 8):
            for interleave in (1, 2, 3, 4):
                if interleave > 1 and run["pp"] == 1:
                    continue
                p = predict(args.dnnperf, network, hardware, run, dtype, recompute, micro_batch, interleave)
                if p:
                    tried.append((p["iteration_s"], micro_batch, interleave, p))
        if not tried:
            print(f"| {run['parameters_b']}B | {run['gpus']} | | | {run['tflops_per_gpu']} | no plan fits | | | | | |")
            continue
        best = min(tried)
        plain = next((t for t in tried if t[1] == 1 and t[2] == 1), None)
        predicted = flops / best[0] / run["gpus"] / 1e12
        error = predicted / run["tflops_per_gpu"] - 1
        errors.append(error)
        dp = run["gpus"] // (run["tp"] * run["pp"])
        plain_text = f"{flops / plain[0] / run['gpus'] / 1e12:.1f}" if plain else "does not fit"
        print(f"| {run['parameters_b']}B | {run['gpus']} | {run['tp']} x {run['pp']} x {dp} | {run['batch']} | {run['tflops_per_gpu']} | "
              f"{predicted:.1f} | {100 * error:+.1f}% | {best[1]}, {best[2]} | {plain_text} | {100 * best[3]['mfu']:.1f}% | "
              f"{best[3]['memory_bytes'] / 2**30:.1f} |")
    if errors:
        absolute = [abs(e) for e in errors]
        print(f"\n{len(errors)} runs: median |error| {100 * statistics.median(absolute):.1f}%, mean {100 * statistics.mean(absolute):.1f}%, "
              f"largest {100 * max(absolute):.1f}%; median signed {100 * statistics.median(errors):+.1f}%")


if __name__ == "__main__":
    main()
