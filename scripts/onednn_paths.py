#!/usr/bin/python3
"""Which implementation PyTorch's CPU backend runs for each convolution of measurement files: the
oneDNN primitive its verbose mode names (jit:avx512_core, jit_1x1, jit_dw, gemm:jit, ...) or
`native` where PyTorch runs its own im2col and GEMM, with the time oneDNN reports for the
convolution and for the layout reorders around it. dnnperf's convolution model takes one code path
per shape (models/compute/direct_conv.h: conv_path); this is how its rules are checked on a CPU
and library they were not written on:

    /usr/bin/python3 scripts/onednn_paths.py torch_cpu_kernels.jsonl -o onednn_paths.jsonl

(tests/models/conv_path_test.cc holds conv_path to the dev VM's file under data/measurements/.)

Each shape runs three times on one thread; the third run's primitives are recorded (the first
creates them). oneDNN writes its verbose lines to the C library's stdout, so this process marks
each shape there too and reads its own output back through a pipe from a child process.
Output: JSON Lines, one per (direction, shape): op, params, implementation, conv_ms, reorder_ms.
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dnnperf_py.records import ok_records  # noqa: E402


def conv_records(paths):
    seen, out = set(), []
    for path in paths:
        for _, r in ok_records(path, "onednn_paths.py"):
            if not str(r.get("op", "")).startswith("conv"):
                continue
            k = (r["op"], tuple(sorted(r["params"].items())))
            if k not in seen:
                seen.add(k)
                out.append({"op": r["op"], "params": r["params"]})
    return out


def run_child(shapes_path):
    """In the child: run each shape with oneDNN's verbose mode on, marking shapes on C's stdout.
    The calls are torch_bench.py's own (same tensors, same allocator policy) so that the path
    recorded is the path the measurement took."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch
    import torch_bench

    torch.set_num_threads(1)
    libc = ctypes.CDLL(None)

    def mark(text):
        libc.printf(b"%s\n", text.encode())
        libc.fflush(None)

    with open(shapes_path) as f:
        shapes = [json.loads(line) for line in f]
    for s in shapes:
        fn = torch_bench.make_call(s["op"], s["params"], "cpu")
        fn()
        fn()
        mark("DNNPERF-SHAPE " + json.dumps(s))
        fn()
        mark("DNNPERF-END")


def parse(stream, out, done):
    current, prims = None, []
    for line in stream:
        line = line.rstrip("\n")
        if line.startswith("DNNPERF-SHAPE "):
            current, prims = json.loads(line[len("DNNPERF-SHAPE "):]), []
        elif line == "DNNPERF-END" and current is not None:
            convs = [p for p in prims if p[0] == "convolution"]
            current["implementation"] = convs[0][1] if convs else "native"
            current["conv_ms"] = round(sum(p[2] for p in convs), 6)
            current["reorder_ms"] = round(sum(p[2] for p in prims if p[0] == "reorder"), 6)
            out.write(json.dumps(current) + "\n")
            out.flush()
            done += 1
            current = None
        elif current is not None and line.startswith("onednn_verbose,exec,cpu,"):
            f = line.split(",")
            try:
                prims.append((f[3], f[4], float(f[-1])))
            except (IndexError, ValueError):
                sys.exit(f"unexpected oneDNN verbose line: {line}")
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("measurements", nargs="*", help="measurement files (JSON Lines) whose convolutions to look up")
    ap.add_argument("-o", "--output", help="paths file to write (JSON Lines)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        run_child(args.child)
        return
    if not args.measurements or not args.output:
        ap.error("give measurement files and -o")
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("onednn_paths.py: torch is not installed for this Python (use /usr/bin/python3 with python3-torch)")
    shapes = conv_records(args.measurements)
    if not shapes:
        sys.exit("onednn_paths.py: no convolution records in " + ", ".join(args.measurements))
    shapes_path = args.output + ".shapes"
    with open(shapes_path, "w") as f:
        for s in shapes:
            f.write(json.dumps(s) + "\n")
    env = dict(os.environ, DNNL_VERBOSE="1", ONEDNN_VERBOSE="1", OMP_NUM_THREADS="1")
    child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", shapes_path], stdout=subprocess.PIPE, env=env, text=True)
    with open(args.output, "w") as out:
        done = parse(child.stdout, out, 0)
    rc = child.wait()
    os.remove(shapes_path)
    print(f"{done} of {len(shapes)} convolutions: {args.output}", file=sys.stderr)
    if rc != 0 or done != len(shapes):
        sys.exit(f"onednn_paths.py: the child stopped (exit {rc}) after {done} of {len(shapes)} shapes")


if __name__ == "__main__":
    main()
