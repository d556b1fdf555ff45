#!/usr/bin/python3
"""Holds `dnnperf predict` against published scaling efficiencies of data-parallel training
(data/published/scaling_studies.json: Horovod's 128- and 512-GPU runs, Goyal et al.'s 256 GPUs,
NVIDIA DeepLearningExamples' BERT pre-training on 1-32 DGX A100 nodes and one DGX-1, SQuAD
fine-tuning and ResNet-50 on one node) and prints one Markdown
table row per case: the published and predicted efficiency, the error in points, what bounds the
predicted step, and per cluster whether the networks' order by efficiency is right. Exit 1 if a
prediction fails.

  scripts/compare_scaling.py [--dnnperf build/bin/dnnperf] [--studies FILE]
"""
import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dnnperf_py.published import dnnperf_json, load_rows, run_flags  # noqa: E402


def predict(dnnperf, study, network, gpus, accumulate=1):
    per_node = min(gpus, study["gpus_per_node"])
    if gpus % per_node:
        raise SystemExit(f"{network}: {gpus} GPUs do not fill nodes of {per_node}")
    run = study.get("run", {})
    cmd = [dnnperf, "predict", "-n", network, "--hardware", study["hardware"], "-b", str(study["batch"]), "--dtype", study["dtype"],
           "--gpus-per-node", str(per_node), "--nodes", str(gpus // per_node), "--json"]
    return dnnperf_json(cmd + run_flags({"seq": study.get("seq"), **run}, accumulate))


def accumulation(study):
    """Micro-batches per optimizer step at the baseline and at the study's GPU count (1 and 1 for weak scaling)."""
    a = study.get("run", {}).get("accumulate", {})
    return a.get("baseline", 1), a.get("at", 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dnnperf", default=str(ROOT / "build" / "bin" / "dnnperf"))
    parser.add_argument("--studies", default=str(ROOT / "data" / "published" / "scaling_studies.json"))
    args = parser.parse_args()
    table, studies = load_rows(args.studies, "studies", ("hardware", "gpus", "gpus_per_node", "baseline_gpus", "batch", "dtype", "source", "results"))
    print("| network | cluster | GPUs (from) | batch | published | predicted | error (points) | bound | exposed comm. / overlap cost (ms) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    errors, orders = [], []
    for study in studies:
        pairs = []
        base_steps, steps = accumulation(study)
        for result in study["results"]:
            base = predict(args.dnnperf, study, result["network"], study["baseline_gpus"], base_steps)
            at = predict(args.dnnperf, study, result["network"], study["gpus"], steps)
            efficiency = (at["samples_per_s"] / at["devices"]) / (base["samples_per_s"] / base["devices"])
            error = 100 * (efficiency - result["efficiency"])
            errors.append(error)
            pairs.append((result["efficiency"], efficiency))
            name = result["network"] + (f" (seq {study['seq']}, {study['dtype']})" if "seq" in study else f" ({study['dtype']})")
            batch = f"{study['batch']}" + (f" x {steps} (x {base_steps})" if base_steps > 1 else "")
            print(f"| {name} | {study['hardware']} ({study['source']}) | {study['gpus']} ({study['baseline_gpus']}) | {batch} "
                  f"| {result['efficiency']:.1%} | {efficiency:.1%} | {error:+.1f} | {at.get('bound', '?')} "
                  f"| {1e3 * at['comm_exposed_s']:.1f} / {1e3 * at.get('overlap_cost_s', 0):.1f} |")
        # The order by efficiency: every pair the study tells apart must come out the same way round.
        if len(pairs) > 1:
            right = all((a[0] - b[0]) * (a[1] - b[1]) > 0 for a in pairs for b in pairs if a[0] != b[0])
            orders.append((f"{study['hardware']} at {study['gpus']} GPUs", right))
    absolute = [abs(e) for e in errors]
    print(f"\n{len(errors)} cases: median |error| {statistics.median(absolute):.1f} points, mean {statistics.mean(absolute):.1f}, "
          f"largest {max(absolute):.1f}; within 5 points: {sum(a <= 5 for a in absolute)}, within 3: {sum(a <= 3 for a in absolute)}")
    print("order of networks by efficiency: " + "; ".join(f"{name} {'right' if ok else 'WRONG'}" for name, ok in orders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
