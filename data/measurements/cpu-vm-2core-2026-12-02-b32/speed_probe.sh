#!/usr/bin/env bash
# VM speed vs the 11-30 calibration day: median ratio of anchor kernel medians.
cd /work/main
out=/tmp/s23/speed_$(date +%H%M%S).jsonl
/usr/bin/python3 scripts/torch_bench.py --shapes anchors:2 --cold --threads 1 --device cpu -o $out >/dev/null 2>&1
/usr/bin/python3 - "$out" <<'PY'
import json,sys,statistics
def load(p):
    d={}
    for l in open(p):
        r=json.loads(l)
        if r.get('type')!='record' or r.get('status')!='ok': continue
        key=json.dumps([r['op'],r['params'],r.get('layout',{}).get('threads')],sort_keys=True)
        d[key]=r['seconds']['median']
    return d
ref={}
for p in ['data/measurements/cpu-vm-2core-2026-11-30-sample1600/torch_cpu_kernels.jsonl','data/measurements/cpu-vm-2core-2026-11-30-sample1600/torch_cpu_kernels_s2.jsonl']:
    ref.update(load(p))
now=load(sys.argv[1])
r=[now[k]/ref[k] for k in now if k in ref and ref[k]]
print(f"speed ratio median {statistics.median(r):.2f}x over {len(r)} kernels (p25 {statistics.quantiles(r,n=4)[0]:.2f}, p75 {statistics.quantiles(r,n=4)[2]:.2f})")
PY
