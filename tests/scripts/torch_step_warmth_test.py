#!/usr/bin/python3
"""scripts/torch_step_warmth.py on real PyTorch steps, and `dnnperf fit --step-warmth` on its
records: the share of the step warmth's savings realized, fitted back from records made at a
known share.

    tests/scripts/torch_step_warmth_test.py build/bin/dnnperf
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from script_check import check, finish  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "torch_step_warmth.py")
DATA = os.path.join(ROOT, "data", "measurements")


def run(*args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, *args], capture_output=True, text=True)


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    dnnperf = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp()
    out, runs, kernels = os.path.join(tmp, "warmth.jsonl"), os.path.join(tmp, "steps"), os.path.join(tmp, "kernels.jsonl")
    nets = ["resnet18", "mobilenet_v2", "vgg11"]
    common = ["--dnnperf", dnnperf, "--batch", "2", "--input", "32", "--inference", "--steps", "2", "--iterations", "2", "--warmup", "1"]
    p = run(*common, "--runs", runs, "--kernel-records", kernels, "-o", out, *nets, "no_such_network")
    check("unknown_network_named_others_run", p.returncode == 1 and "no_such_network" in p.stderr and "failed: no_such_network" in p.stderr, p.stderr[-600:])
    rs = records(out) if os.path.exists(out) else []
    by_net = {n: [r for r in rs if r["network"] == n] for n in nets}
    check("every_network_recorded", all(by_net[n] for n in nets), str({n: len(v) for n, v in by_net.items()}))
    check("inference_forwards_only", all(r["direction"] == "forward" and r["inference"] and [k["op"] for k in r["kernels"]] == ["conv_forward"] for r in rs))
    check("times_positive_and_summed", all(r["in_step_s"] > 0 and r["cold_s"] > 0 and abs(r["cold_s"] - sum(k["cold_s"] for k in r["kernels"])) < 1e-12
                                           and min(r["in_step_before_s"], r["in_step_after_s"]) <= r["in_step_s"] <= max(r["in_step_before_s"], r["in_step_after_s"]) for r in rs))
    # ResNet-18's 20 convolutions at batch 2: 11 shapes, one call each but the repeated 3x3s of a stage.
    calls = sum(r["calls_per_step"] for r in by_net["resnet18"])
    check("resnet18_calls_per_step", abs(calls - 20) < 1e-9, f"{calls} calls in {len(by_net['resnet18'])} shapes")
    ok = all(os.path.exists(os.path.join(runs, f"{n}_b2_p1_inference_run{r}.json")) for n in nets for r in (0, 1))
    check("whole_step_runs_written", ok, str(os.listdir(runs) if os.path.isdir(runs) else "no folder"))
    if ok:
        j = json.load(open(os.path.join(runs, "resnet18_b2_p1_inference_run1.json")))
        check("runs_as_ground_truth", j["network"] == "resnet18" and j["inference"] and j["procs"] == 1 and j["median_s"] > 0 and len(j["samples_s"]) == 2, json.dumps(j)[:300])
    # The cold timings as measurement records: each kernel once, the first of its timings (a
    # kernel whose shape the second profile missed has a record and no step record).
    ks = records(kernels) if os.path.exists(kernels) else []
    timed = [r for r in ks if r.get("type") == "record"]
    ident = [json.dumps([r["op"], r["params"]], sort_keys=True) for r in timed]
    first = {}
    for r in rs:
        for k in r["kernels"]:
            first.setdefault(json.dumps([k["op"], k["params"]], sort_keys=True), k["cold_s"])
    check("kernel_records_once_each", ks and ks[0].get("type") == "context" and len(ident) == len(set(ident)) and set(first) <= set(ident),
          f"{len(ident)} records, {len(set(ident))} distinct, {len(first)} kernels in the step records")
    check("kernel_records_as_calibration_times_them",
          all(r["status"] == "ok" and r["layout"].get("caches") == "cold" and r["layout"].get("threads") == 1 and r["repetitions"] >= 5
              and r["seconds"]["median"] == first.get(i, r["seconds"]["median"]) for r, i in zip(timed, ident)), json.dumps(timed[:1])[:400])
    sc = subprocess.run([dnnperf, "score", "--hardware", "cpu", kernels], capture_output=True, text=True)
    check("kernel_records_read_by_dnnperf", sc.returncode == 0 and f"{len(timed)} measured kernels" in sc.stdout, (sc.stdout + sc.stderr)[-400:])
    p = run(*common, "--kernel-records", tmp, "-o", out, "resnet18")
    check("kernel_records_not_a_file_named", p.returncode != 0 and f"--kernel-records {tmp}: Is a directory" in p.stderr and "Traceback" not in p.stderr, p.stderr[-400:])
    p = run(*common, "--runs", runs, "--kernel-records", kernels, "-o", out, *nets)
    check("resume_measures_nothing_again", p.returncode == 0 and len(records(out)) == len(rs) and len([r for r in records(kernels) if r.get("type") == "record"]) == len(timed),
          p.stderr[-400:])

    # A profile with a step warmth to realize: a generic sample and a calibration's hot pairs.
    profile = os.path.join(tmp, "warm.json")
    fit = subprocess.run([dnnperf, "fit", os.path.join(ROOT, "tests", "data", "cpu-sample", "torch_cpu_sample.jsonl"),
                          os.path.join(DATA, "cpu-vm-2core", "torch_cpu_memory.jsonl"),
                          os.path.join(ROOT, "tests", "data", "warmth-late", "torch_cpu_hot_pairs.jsonl"), "--hardware", "cpu", "-o", profile],
                         capture_output=True, text=True)
    check("profile_with_warmth", fit.returncode == 0 and json.load(open(profile))["device"]["step_warmth"]["cache_bytes"] > 0, fit.stdout[-400:] + fit.stderr[-400:])

    # One convolution per network, so that a network's line in the fit's table is that record's
    # saving with everything realized; then records made to realize a known share of it.
    one = [max(by_net[n], key=lambda r: r["cold_s"]) for n in nets]

    def fit_with(recs, name):
        path = os.path.join(tmp, name + ".jsonl")
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in recs)
        return subprocess.run([dnnperf, "fit", os.path.join(ROOT, "tests", "data", "cpu-sample", "torch_cpu_sample.jsonl"),
                               os.path.join(DATA, "cpu-vm-2core", "torch_cpu_memory.jsonl"),
                               os.path.join(ROOT, "tests", "data", "warmth-late", "torch_cpu_hot_pairs.jsonl"), "--hardware", "cpu",
                               "--step-warmth", path, "-o", os.path.join(tmp, name + ".json")], capture_output=True, text=True)

    p = fit_with([dict(r, in_step_s=r["cold_s"]) for r in one], "none")
    full = {m.group(1): float(m.group(2)) for m in re.finditer(r"^\s+(\w+)\s+1\s+([0-9.]+)\s+0\.000\s", p.stdout, re.M)}
    check("full_savings_priced", p.returncode == 0 and sorted(full) == sorted(nets) and all(0 < v < 1 for v in full.values()), p.stdout[-1200:] + p.stderr[-300:])
    check("nothing_realized_fits_zero", "share realized 0.00" in p.stdout, p.stdout[-600:])
    if sorted(full) == sorted(nets):
        p = fit_with([dict(r, in_step_s=r["cold_s"] * (1 - 0.55 * full[r["network"]])) for r in one], "half")
        check("known_share_fitted_back", p.returncode == 0 and re.search(r"share realized 0\.55 \+- 0\.00", p.stdout) is not None, p.stdout[-800:])
        written = json.load(open(os.path.join(tmp, "half.json")))
        check("share_written_for_inference", abs(written["device"]["step_warmth"].get("realized_share_inference", -1) - 0.55) < 0.005
              and "step-warmth" in written["sources"].get("realized_share_inference", ""), json.dumps(written["device"]["step_warmth"])[:300])
        # a share above 1 (kept where in-step times stay positive)
        p = fit_with([dict(r, in_step_s=r["cold_s"] * (1 - 1.1 * full[r["network"]])) for r in one], "more")
        check("share_at_most_one", re.search(r"share realized 1\.00", p.stdout) is not None, p.stdout[-600:])
    p = fit_with(one[:2], "two")
    check("two_networks_not_fitted", p.returncode == 0 and "not fitted: 2 networks timed (3 needed)" in p.stdout, p.stdout[-600:])
    bad = dict(one[0])
    del bad["cold_s"]
    p = fit_with([one[1], bad], "bad")
    check("bad_record_named", p.returncode != 0 and re.search(r"bad\.jsonl:2: not a torch_step_warmth\.py record.*cold_s", p.stdout + p.stderr) is not None,
          (p.stdout + p.stderr)[-400:])
    p = fit_with([dict(one[0], network=os.path.join(tmp, "gone.onnx"))], "gone")
    check("missing_network_file_named", p.returncode != 0 and "gone.onnx' is not there" in p.stdout + p.stderr, (p.stdout + p.stderr)[-400:])
    finish()


if __name__ == "__main__":
    main()
