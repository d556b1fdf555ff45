#!/usr/bin/env bash
# End-to-end checks of the dnnperf commands: output, JSON fields, files and exit codes on bad input.
set -u
bin=$1
src=$2
fail=0
check() {  # check NAME EXPECTED_RC PATTERN -- command...
  local name=$1 rc_expected=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$rc_expected" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: rc=$rc (expected $rc_expected), output did not match /$pattern/:"
    echo "$out" | head -20
    fail=1
  else
    echo "ok   $name"
  fi
}
check list 0 'resnet50 +ResNet-50' -- "$bin" net list
check show_table 0 'parameters +25,557,032' -- "$bin" net show resnet50
check show_json 0 '"params": 25557032' -- "$bin" net show resnet50 --json
check show_json_layers 0 '"name": "layer4.2.conv3"' -- "$bin" net show resnet50 --json
check show_file 0 'tiny_cnn' -- "$bin" net show "$src/data/networks/tiny_cnn.json" --batch 2
check help 0 'Usage' -- "$bin" net show --help
check unknown_network 1 "error: unknown network 'resnet5'" -- "$bin" net show resnet5
check missing_file 1 'no such file' -- "$bin" net show /nonexistent/model.onnx
check bad_batch 2 '--batch: must be a positive number' -- "$bin" net show resnet50 --batch -3
check malformed_json 1 'malformed.json: not valid JSON' -- "$bin" net show "$src/tests/import/data/malformed.json"
check no_subcommand 2 'subcommand' -- "$bin" net
# The JSON is one parseable object with the documented fields.
"$bin" net show gpt2 --seq 128 --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
t = j["totals"]
assert t["params"] == 124439808, t["params"]
assert t["forward_flops"] > 0 and t["backward_flops"] > t["forward_flops"]
assert len(j["layers"]) > 100 and all("backward_flops" in l for l in j["layers"])
' && echo "ok   json_fields" || { echo "FAIL json_fields"; fail=1; }
# predict and scale
check predict_table 0 'iteration +[0-9.]+ ms' -- "$bin" predict -n resnet50 --hardware a100 -b 32 --nodes 2 --summary
check predict_inference 0 'latency' -- "$bin" predict -n resnet50 --hardware h100 -b 8 --inference --summary
check predict_epoch 0 'epoch +[0-9.]+ s' -- "$bin" predict -n resnet18 --hardware v100 -b 32 --dataset-size 50000 --summary
check predict_not_fit 0 'DOES NOT FIT' -- "$bin" predict -n gpt3-175b --seq 2048 --hardware a100 -b 1 --dtype bf16 --optimizer adam --summary
check scale_table 0 '4096 +32768' -- "$bin" scale -n resnet50 --hardware a100 -b 256 --nodes 1..4096
check scale_strong 0 'strong scaling' -- "$bin" scale -n resnet50 --hardware a100 -b 8192 --nodes 1,2,4 --scaling strong
check predict_accumulate 0 'batch 256 per device x 4 micro-batches \(global 8192\), fp16, fused lamb' -- "$bin" predict -n bert-large --seq 128 --hardware a100 -b 256 --accumulate 4 --dtype fp16 --optimizer lamb --fused-optimizer --sync end --summary
check predict_accumulate_inference 1 '--accumulate applies to training, not --inference' -- "$bin" predict -n resnet50 --hardware a100 -b 8 --accumulate 2 --inference
check predict_accumulate_mp 1 '--accumulate does not apply to a model-parallel plan.*--global-batch over --micro-batch' -- "$bin" predict -n gpt2 --hardware a100 --tp 2 --global-batch 16 --accumulate 2
check predict_fused_mp 1 "--fused-optimizer does not apply to a model-parallel plan.*Megatron-LM's Adam is fused already" -- "$bin" predict -n gpt2 --hardware a100 --tp 2 --global-batch 16 --fused-optimizer
check validate_accumulate 0 'resnet18 +4 +2 +[0-9.]+ .*MAPE [0-9.]+%, .* over 1 cases' -- bash -c "'$bin' validate --hardware '$src/data/hardware/calibrated/cpu-vm-2core-family25.json' --networks resnet18 --batch 4 --input 64 --procs 2 --accumulate 4 --measured '$src/data/measurements/cpu-vm-2core-family25/accumulate/k4' | tr '\\n' ' '"
check validate_accumulate_other 1 'resnet18_b4_p2_a2_train_run0.json: no measurement for this case' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --procs 2 --accumulate 2 --measured "$src/data/measurements/cpu-vm-2core-family25/accumulate/k4"
check validate_dtype_other 1 'resnet18_b4_p2_a4_bf16_train_run0.json: no measurement for this case' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --procs 2 --accumulate 4 --dtype bf16 --measured "$src/data/measurements/cpu-vm-2core-family25/accumulate/k4"
check validate_dtype_bad 1 "--dtype: 'fp8' is not one a ground-truth run takes" -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --dtype fp8 --measured "$src/data/measurements/cpu-vm-2core-family25/accumulate/k4"
check validate_accumulate_inference 1 '--accumulate applies to training, not --inference' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --accumulate 2 --inference --measured "$src/data/measurements/cpu-vm-2core-family25/accumulate/k4"
check scale_strong_micro 0 '^ +2 +16 +256 x 16 ' -- "$bin" scale -n bert-large --seq 128 --hardware a100 --dtype fp16 --optimizer lamb --fused-optimizer -b 65536 --scaling strong --accumulate 32 --nodes 1,2 --sync end
check scale_strong_accumulate 1 'global batch 8192 does not divide over 8 devices \(1 nodes x 8\) x 3 micro-batches' -- "$bin" scale -n resnet50 --hardware a100 -b 8192 --nodes 1,2 --scaling strong --accumulate 3
# Each point says what bounds it: VGG-16 behind one shared 100 Gb/s TCP interface per 8 V100s.
check scale_bound_network 0 ' 64 +512 .* network' -- "$bin" scale -n vgg16 --hardware p3dn -b 64 --dtype fp16 --nodes 1,64
check scale_bound_compute 0 '  1 +8 .* compute' -- "$bin" scale -n vgg16 --hardware p3dn -b 64 --dtype fp16 --nodes 1,64
check predict_bound 0 'bound +network \(beyond the kernels' -- "$bin" predict -n vgg16 --hardware p3dn -b 64 --dtype fp16 --nodes 64 --summary
check predict_overlap_cost 0 'overlapping it cost the kernels [0-9.]+ ms' -- "$bin" predict -n vgg16 --hardware p3dn -b 64 --dtype fp16 --nodes 64 --summary
"$bin" scale -n vgg16 --hardware p3dn -b 64 --dtype fp16 --nodes 1,64 --json | /usr/bin/python3 -c '
import json, sys
points = json.load(sys.stdin)["points"]
assert [p["bound"] for p in points] == ["compute", "network"], [p["bound"] for p in points]
parts = points[1]["bound_parts_s"]
assert points[1]["overlap_cost_s"] > 0, points[1]["overlap_cost_s"]
assert abs(parts["network"] + parts["latency"] - points[1]["comm_exposed_s"] - points[1]["overlap_cost_s"]) < 1e-9 * max(1, points[1]["comm_exposed_s"])
' && echo "ok   scale_bound_json" || { echo "FAIL scale_bound_json"; fail=1; }
h200fit="$src/data/hardware/calibrated/h200-torch-2026-11-30.json"
check predict_phase_bound 0 'forward +(host|device)-bound: host [0-9.]+ ms, kernels [0-9.]+ ms' -- "$bin" predict -n resnet50 --hardware "$h200fit" -b 32 --summary
check predict_graph_launch 0 'graph replay: no per-kernel dispatch' -- "$bin" predict -n resnet50 --hardware "$h200fit" -b 32 --summary --launch graph
# Model-parallel plans (issue 51): the prediction, its JSON, the search, the scaling and bad plans.
check mp_predict 0 'iteration +[0-9.]+ s' -- "$bin" predict -n gpt3-175b --hardware a100 --nodes 8 --tp 8 --pp 8 --interleave 3 --micro-batch 1 --global-batch 64 --recompute selective --sequence-parallel --dtype bf16
check mp_memory 0 'memory per GPU +weights [0-9.]+ GiB' -- "$bin" predict -n llama3-70b --hardware h100 --nodes 4 --tp 8 --pp 4 --global-batch 32
check mp_moe 0 'expert all-to-all' -- "$bin" predict -n mixtral-8x7b --hardware h100 --nodes 2 --tp 2 --ep 8 --global-batch 64 --recompute full
check mp_file 0 'llama3-8b \(8,030,261,248 parameters\)' -- "$bin" predict -n "$src/data/networks/llama3-8b.json" --hardware h100 --tp 2 --global-batch 16
layout='Et*2|(t*2|)*34,t*3|(t*2|)*3,tL'  # Megatron-Bridge's Llama 3 70B recipe
check mp_layout 0 'PP 8 \(5 chunks each\) \(layout: 1-3 layers a chunk\)' -- "$bin" predict -n llama3-70b --hardware h100 --nodes 8 --tp 4 --pp 8 --pipeline-layout "$layout" --global-batch 128 --dtype fp8 --sequence-parallel
check mp_layout_interleave 1 '40 chunks, 5 per GPU over --pp 8, but --interleave is 4' -- "$bin" predict -n llama3-70b --hardware h100 --nodes 8 --tp 4 --pp 8 --interleave 4 --pipeline-layout "$layout" --global-batch 128
check mp_layout_no_pp 1 'has 2 chunks: give --pp' -- "$bin" predict -n llama3-8b --hardware h100 --pipeline-layout 'Et*16|t*16L' --global-batch 8
check mp_layout_layers 1 'places 80 transformer layers \(t\), the model has 32' -- "$bin" predict -n llama3-8b --hardware h100 --nodes 8 --tp 4 --pp 8 --pipeline-layout "$layout" --global-batch 128
"$bin" predict -n gpt3-175b --hardware a100 --nodes 8 --tp 8 --pp 8 --global-batch 64 --recompute full --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
for k in ("iteration_s", "low_s", "high_s", "memory_bytes", "mfu", "tokens_per_s"):
    assert k in j, k
assert j["low_s"] <= j["iteration_s"] <= j["high_s"]
b = j["breakdown"]
total = sum(b[k] for k in ("compute_s", "recompute_s", "tp_comm_s", "ep_comm_s", "pp_comm_s", "bubble_s", "dp_comm_exposed_s", "optimizer_s"))
assert abs(total - j["iteration_s"]) < 1e-6 * j["iteration_s"], (total, j["iteration_s"])
assert 0 < j["mfu"] < 1
' && echo "ok   mp_json_fields" || { echo "FAIL mp_json_fields"; fail=1; }
check mp_not_fit 0 'DOES NOT FIT +[0-9.]+ GiB over' -- "$bin" predict -n gpt3-175b --hardware a100 --tp 8 --global-batch 8
check mp_search 0 'P\(fastest\)' -- "$bin" search -n gpt3-175b --hardware a100 --gpus 1024 --global-batch 1536 --top 3
"$bin" search -n megatron-22b --hardware a100 --gpus 64 --global-batch 128 --top 2 --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["configs_evaluated"] > 100 and j["seconds"] > 0 and len(j["best"]) == 2
assert j["best"][0]["iteration_s"] <= j["best"][1]["iteration_s"]
' && echo "ok   mp_search_json" || { echo "FAIL mp_search_json"; fail=1; }
check mp_search_none 1 'no plan fits in memory; the closest, .* GiB more than' -- "$bin" search -n gpt3-175b --hardware a100 --gpus 8 --global-batch 8
check mp_scale 0 'best plan' -- "$bin" scale -n megatron-22b --hardware a100 --nodes 2,4 --global-batch 256
check mp_bad_tp 1 '--tp = 3 does not divide the 64 heads' -- "$bin" predict -n megatron-22b --hardware a100 --tp 3 --gpus-per-node 6 --global-batch 6
check mp_tp_beyond_node 1 '--tp = 16 exceeds the 8 GPUs of a node' -- "$bin" predict -n gpt3-175b --hardware a100 --nodes 2 --tp 16 --global-batch 8
check mp_bad_layers 1 'does not divide the 96 layers' -- "$bin" predict -n gpt3-175b --hardware a100 --nodes 5 --tp 8 --pp 5 --global-batch 8
check mp_bad_batch 1 '--global-batch = 12 is not a multiple of data-parallel 8' -- "$bin" predict -n gpt3-175b --hardware a100 --nodes 8 --tp 8 --global-batch 12
check mp_no_batch 1 '--global-batch is required' -- "$bin" predict -n gpt3-175b --hardware a100 --tp 8
check mp_not_transformer 1 'is not a decoder transformer' -- "$bin" predict -n resnet50 --hardware a100 --tp 2 --global-batch 8
check mp_batch_conflict 1 '--batch does not apply' -- "$bin" predict -n gpt3-175b --hardware a100 --tp 8 --global-batch 8 -b 4
check mp_bad_recompute 1 "--recompute: unknown value 'some'" -- "$bin" predict -n gpt3-175b --hardware a100 --tp 8 --global-batch 8 --recompute some
check mp_cpu 1 'model-parallel plans are priced on GPUs' -- "$bin" predict -n gpt2 --hardware cpu --gpus-per-node 1 --global-batch 8
check mp_bad_heads 1 "heads' does not fit: hidden 100 is not divisible by 3 heads" -- "$bin" predict -n gpt:layers=2,hidden=100,heads=3 --hardware a100 --global-batch 8
check bad_launch 1 "--launch: unknown value 'lazy' \(eager or graph\)" -- "$bin" predict -n resnet50 -b 8 --launch lazy
check cpu_graph_launch 1 'graph replay applies to GPUs' -- "$bin" predict -n resnet18 --hardware cpu -b 2 --launch graph
check bad_hardware 1 "unknown hardware 'tpu'" -- "$bin" predict -n resnet50 --hardware tpu -b 8
check bad_dtype 1 "--dtype: unknown value 'int4'" -- "$bin" predict -n resnet50 -b 8 --dtype int4
check bad_allreduce 1 "--allreduce: unknown value 'bruck'" -- "$bin" predict -n resnet50 -b 8 --allreduce bruck
check bad_gpus 1 'node has 8 devices' -- "$bin" predict -n resnet50 -b 8 --gpus-per-node 16
check bad_strong 1 'does not divide over 24 devices' -- "$bin" scale -n resnet50 -b 1000 --nodes 1,3 --scaling strong
check bad_bucket 2 "--bucket-mib: must be a positive number, is '0'" -- "$bin" predict -n resnet50 -b 8 --bucket-mib 0
check bad_nodes 1 "'x' is not a positive integer" -- "$bin" scale -n resnet50 -b 8 --nodes 1..x
check bad_profile_file 1 'no such hardware profile file' -- "$bin" predict -n resnet50 -b 8 --hardware /nonexistent/hw.json
check tf32_v100 1 'no TF32 tensor cores' -- "$bin" predict -n resnet50 -b 8 --hardware v100 --dtype tf32
# bench: GPU operations say clearly when there is no GPU; bad options are errors
tmp=$(mktemp -d)
# compare: one run on several profiles; a profile that cannot run it says why, the others stand.
check compare_table 0 '^h100 +8 .* compute' -- "$bin" compare -n resnet50 -b 256 --dtype fp16 --hardware v100,a100,h100
check compare_one_cannot 0 'v100: .*tf32' -- "$bin" compare -n resnet50 -b 64 --dtype tf32 --hardware v100,a100
check compare_none_can 1 'no profile compared gives a prediction' -- "$bin" compare -n resnet50 -b 64 --dtype fp8 --hardware v100,a100
check compare_twice 1 'a profile is named twice' -- "$bin" compare -n resnet50 -b 64 --hardware a100,a100
check compare_unknown 1 'h300' -- "$bin" compare -n resnet50 -b 64 --hardware a100,h300
check compare_bad_price 1 "the price of h100, 'abc', is not a positive number" -- "$bin" compare -n resnet50 -b 64 --hardware a100,h100 --gpu-hour-price h100=abc
check compare_infinite_price 1 "the price of h100, 'inf', is not a positive number" -- "$bin" compare -n resnet50 -b 64 --hardware a100,h100 --gpu-hour-price h100=inf
check compare_bad_network 1 "unknown network 'resnet5'" -- "$bin" compare -n resnet5 -b 64 --hardware a100,h100
check compare_price_other 1 "'v100' is not one of the profiles compared" -- "$bin" compare -n resnet50 -b 64 --hardware a100,h100 --gpu-hour-price v100=1
check compare_model_parallel 0 '^h100 +128 .*TP' -- "$bin" compare -n gpt3-175b --hardware a100,h100 --nodes 16 --global-batch 256 --dtype bf16
"$bin" compare -n resnet50 -b 256 --dtype bf16 --hardware a100,h100,h200 --nodes 2 --dataset-size 1281167 --gpu-hour-price a100=1.5,h200=4 \
  --json --csv "$tmp/compare.csv" >"$tmp/compare.json" && /usr/bin/python3 -c '
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = {r["hardware"]: r for r in j["hardware"]}
assert j["reference"] == "a100" and rows["a100"]["speedup"] == 1.0
# Newer GPUs train faster; speed-ups are throughput ratios.
assert rows["h100"]["speedup"] > 1.2 and rows["h200"]["speedup"] >= rows["h100"]["speedup"] * 0.99, rows
for name, r in rows.items():
    p = r["prediction"]
    assert abs(r["speedup"] - p["samples_per_s"] / rows["a100"]["prediction"]["samples_per_s"]) < 1e-9
# Cost: price x GPUs x time; no price, no cost.
a = rows["a100"]
assert abs(a["cost_per_million_samples"] - 1.5 * 16 / 3600 / a["prediction"]["samples_per_s"] * 1e6) < 1e-6 * a["cost_per_million_samples"]
assert abs(a["cost_per_epoch"] - 1.5 * 16 * a["prediction"]["epoch_s"] / 3600) < 1e-6 * a["cost_per_epoch"]
assert "cost_per_epoch" not in rows["h100"]
c = list(csv.DictReader(open(sys.argv[2])))
assert [r["hardware"] for r in c] == ["a100", "h100", "h200"] and c[1]["gpu_hour_price"] == "" and float(c[2]["gpu_hour_price"]) == 4
' "$tmp/compare.json" "$tmp/compare.csv" && echo "ok   compare_json_csv" || { echo "FAIL compare_json_csv"; fail=1; }
out=$("$bin" bench launch -o "$tmp/launch.jsonl" 2>&1); rc=$?
if [ $rc -eq 77 ]; then grep -q "no CUDA device\|built without CUDA" <<<"$out" && echo "ok   bench_no_gpu" || { echo "FAIL bench_no_gpu: $out"; fail=1; }
elif [ $rc -eq 0 ]; then grep -q '"op":"launch"' "$tmp/launch.jsonl" && echo "ok   bench_gpu_launch" || { echo "FAIL bench_gpu_launch"; fail=1; }
else echo "FAIL bench launch rc=$rc: $out"; fail=1; fi
check bench_cpu 1 'measures GPU kernels' -- "$bin" bench gemm --device cpu -o "$tmp/x.jsonl"
check bench_shapes 1 "unknown shape set 'bogus'" -- "$bin" bench conv --shapes bogus -o "$tmp/y.jsonl"
check bench_op 2 'fft not in' -- "$bin" bench fft -o "$tmp/z.jsonl"
# Issue 54's classes: a number beyond a double's range, a directory for a file, an output that
# cannot be written. Each is an error naming the file, never an escaping exception (exit 134).
printf '{"format":"dnnperf.network","name":"x","input":[1,3,8,8],"layers":[{"name":"c","op":"conv2d","out_channels":1e309,"kernel":3}]}' > "$tmp/huge.json"
check json_number_overflow 1 'huge.json: not valid JSON: .*number overflow' -- "$bin" net show "$tmp/huge.json"
printf '{"type":"context","schema":"dnnperf.measurements/1"}\n{"type":"record","op":"gemm","seconds":{"median":1e309}}\n{"type":"record"}\n' > "$tmp/huge.jsonl"
check records_number_overflow 1 'huge.jsonl:2: not valid JSON: .*number overflow' -- "$bin" score --hardware h200 "$tmp/huge.jsonl"
mkdir -p "$tmp/dir.json"
check network_directory 1 'dir.json: is a directory, not a JSON file' -- "$bin" net show "$tmp/dir.json"
check profile_directory 1 'dir.json: is a directory, not a JSON file' -- "$bin" predict -n resnet18 -b 8 --hardware "$tmp/dir.json"
check platform_directory 1 'dir.json: is a directory, not a JSON file' -- "$bin" schedule --network resnet18 --platform "$tmp/dir.json"
check score_kind_mismatch 1 'torch_cpu_kernels.jsonl: measured on a CPU, but profile .h200-sxm-141gb. describes a gpu' -- "$bin" score --hardware h200 "$src/data/measurements/cpu-vm-2core/torch_cpu_kernels.jsonl"
check fit_kind_mismatch 1 'measured on a GPU \(NVIDIA H200\), but profile .cpu-generic. describes a cpu' -- "$bin" fit "$src/data/measurements/h200/lease2/torch_cuda_memory.jsonl" --hardware cpu -o "$tmp/kind.json"
[ -e "$tmp/kind.json" ] && { echo "FAIL fit_kind_mismatch wrote a profile"; fail=1; }
check records_directory 1 'dir.json: is a directory, not a measurement file' -- "$bin" score --hardware h200 "$tmp/dir.json"
check bench_output_directory 1 'is a directory; name a file for the records' -- "$bin" bench allreduce -o "$tmp/dir.json"
check bench_output_full 1 '/dev/full: write failed: No space left on device' -- "$bin" bench allreduce -o /dev/full
# Counts that would overflow: refused where they are given, never a wrapped or negative figure.
printf '{"format":"dnnperf.network","name":"x","inputs":[{"name":"in","shape":[1,3,8,8]}],"layers":[{"name":"c","op":"conv2d","inputs":["in"],"out_channels":%s,"kernel":3}]}' 4000000000000000000 > "$tmp/wide.json"
check count_overflow_channels 1 "wide.json: tensor 'c.weight' of shape 4000000000000000000x3x3x3 holds more than 2\^48" -- "$bin" net show "$tmp/wide.json"
sed 's/4000000000000000000/9223372036854775808/' "$tmp/wide.json" > "$tmp/wide63.json"
check count_overflow_int64 1 "field 'out_channels' is 9223372036854775808, beyond a 64-bit integer" -- "$bin" net show "$tmp/wide63.json"
check count_overflow_gpt 1 'holds more than 2\^48' -- "$bin" predict -n gpt:layers=2,hidden=4000000000,heads=4 -b 1 --summary
check count_overflow_batch 1 "tensor 'image' of shape 1000000000000x3x224x224 holds more than 2\^48" -- "$bin" predict -n resnet50 -b 1000000000000
printf '{"format":"dnnperf.network","name":"x","name":"y","inputs":[{"name":"in","shape":[1,3,8,8]}],"layers":[]}' > "$tmp/twice.json"
check json_duplicate_key 1 "twice.json: key 'name' appears twice in one object" -- "$bin" net show "$tmp/twice.json"
# Rank counts and sweeps past what dnnperf prices: an error at once, never a hang or a wrap.
check ranks_predict 1 'beyond the 16777216 devices' -- timeout 10 "$bin" predict -n resnet50 -b 8 --nodes 134217728
check ranks_scale 1 'beyond the 16777216 devices' -- timeout 10 "$bin" scale -n resnet50 -b 8 --nodes 1..268435456
check ranks_comm 1 'procs' -- timeout 10 "$bin" comm --bytes 1024 --procs 1073741824
check sweep_points 1 'more than 10000 points' -- timeout 10 "$bin" scale -n resnet50 -b 8 --nodes 1..1000000:1
check zoo_layers 1 "setting 'layers' must be an integer in \[1, 4096\]" -- timeout 10 "$bin" net show gpt:layers=1000000
check zoo_nodes 1 "setting 'nodes' must be an integer in \[2, 1024\]" -- timeout 10 "$bin" net show randwire-er:nodes=20000
/usr/bin/python3 - "$src/data/hardware/a100-sxm4-40gb.json" "$tmp" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
def write(name, change):
    p = json.loads(json.dumps(base)); change(p); json.dump(p, open(sys.argv[2] + "/" + name, "w"))
write("devices.json", lambda p: p["node"].__setitem__("devices", 1000000000))
write("devices32.json", lambda p: p["node"].__setitem__("devices", 2**32 + 8))
write("tiny_bw.json", lambda p: p["device"].__setitem__("memory_bandwidth", 1e-320))
write("zero_bw.json", lambda p: p["node"]["intra"].__setitem__("bandwidth", 0))
PY
check profile_devices 1 "field 'devices' must be in \[1, 16777216\], is 1000000000" -- timeout 10 "$bin" predict -n resnet50 -b 8 --hardware "$tmp/devices.json"
check profile_devices_wrap 1 "field 'devices' must be in \[1, 16777216\], is 4294967304" -- "$bin" predict -n resnet50 -b 8 --hardware "$tmp/devices32.json"
check profile_tiny_bandwidth 1 "field 'memory_bandwidth' is 1e-320, below the least it may be" -- "$bin" scale -n resnet50 -b 8 --hardware "$tmp/tiny_bw.json" --nodes 1,2
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1])); p["cluster"]["transport"] = "carrier-pigeon"; json.dump(p, open(sys.argv[2], "w"))
' "$src/data/hardware/a100-sxm4-80gb.json" "$tmp/bad_transport.json"
check profile_bad_transport 1 "bad_transport.json: cluster: field 'transport' must be one of infiniband, roce, tcp, is 'carrier-pigeon'" -- "$bin" predict -n resnet18 -b 2 --hardware "$tmp/bad_transport.json"
check profile_zero_bandwidth 1 "field 'bandwidth' must be positive" -- "$bin" predict -n resnet50 -b 8 --hardware "$tmp/zero_bw.json"
check comm_bytes_inf 2 "--bytes: must be a positive number, is 'inf'" -- "$bin" comm --bytes inf --procs 4
check comm_nccl_tuner 0 'nccl:(ring|tree)/(LL|LL128|Simple), NCCL.s tuner' -- "$bin" comm --hardware a100 --bytes 1048576 --procs 64 --algorithm nccl
check comm_nccl_cpu 1 "nccl is priced unmeasured on GPU profiles only" -- "$bin" comm --hardware cpu --bytes 1048576 --procs 4 --algorithm nccl
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1])); p["cluster"].update({"oversubscription": 0.5, "switch_ports": 32}); json.dump(p, open(sys.argv[2], "w"))
' "$src/data/hardware/a100-sxm4-80gb.json" "$tmp/bad_oversubscription.json"
check profile_bad_oversubscription 1 "bad_oversubscription.json: cluster: field 'oversubscription' must be at least 1" -- "$bin" scale -n resnet18 -b 2 --hardware "$tmp/bad_oversubscription.json"
# Measurements whose sizes are negative are refused by name (fit said "converged" on them).
sed '2s/"bytes":4/"bytes":-4/' "$src/tests/data/cpu-sample/allreduce_np2.jsonl" > "$tmp/negative.jsonl"
check records_negative_size 1 "negative.jsonl:2: field 'params.bytes' must not be negative, is -4" -- "$bin" fit "$tmp/negative.jsonl" --hardware cpu -o "$tmp/negative_fit.json"
[ ! -e "$tmp/negative_fit.json" ] && echo "ok   records_negative_nothing_written" || { echo "FAIL records_negative_nothing_written"; fail=1; }
# Outputs are written beside and renamed: a write that fails (here a file-size limit standing in
# for a full disk) exits 1 and leaves the file that was there, whole; no temporary is left.
limited() { (trap '' XFSZ; ulimit -f 4; "$@"); }
cp "$src/data/hardware/a100-sxm4-40gb.json" "$tmp/kept.json"
check full_disk_fit 1 'kept.json: cannot write the profile \(File too large\); the file is unchanged' -- limited "$bin" fit "$src/tests/data/cpu-sample/allreduce_np2.jsonl" --hardware cpu -o "$tmp/kept.json"
cmp -s "$tmp/kept.json" "$src/data/hardware/a100-sxm4-40gb.json" && ! ls "$tmp"/kept.json.tmp.* >/dev/null 2>&1 \
  && echo "ok   full_disk_fit_kept" || { echo "FAIL full_disk_fit_kept"; fail=1; }
cp "$src/data/hardware/a100-sxm4-40gb.json" "$tmp/kept.csv"
check full_disk_scale_csv 1 'kept.csv: cannot write the CSV file \(File too large\)' -- limited "$bin" scale -n resnet50 -b 8 --nodes 1..1000:1 --csv "$tmp/kept.csv"
cmp -s "$tmp/kept.csv" "$src/data/hardware/a100-sxm4-40gb.json" && echo "ok   full_disk_scale_csv_kept" || { echo "FAIL full_disk_scale_csv_kept"; fail=1; }
cp "$src/data/hardware/a100-sxm4-40gb.json" "$tmp/kept_schedule.json"
check full_disk_schedule 1 'kept_schedule.json: cannot write the schedule \(File too large\)' -- limited "$bin" schedule -n resnet18 --platform "$src/data/platforms/cpu-v100-a100.json" --method heft -o "$tmp/kept_schedule.json"
cmp -s "$tmp/kept_schedule.json" "$src/data/hardware/a100-sxm4-40gb.json" && echo "ok   full_disk_schedule_kept" || { echo "FAIL full_disk_schedule_kept"; fail=1; }
check output_device_full 1 '/dev/full: cannot write the CSV file \(No space left on device\)' -- "$bin" scale -n resnet50 -b 8 --nodes 1,2 --csv /dev/full
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1])); p["servers"][0]["devices"][0]["memory_bytes"] = 1
json.dump(p, open(sys.argv[2], "w"))' "$src/data/platforms/cpu-v100-a100.json" "$tmp/small_memory.json"
check schedule_small_memory 1 "small_memory.json: device 'cpu' has 0.00 MiB of memory \(memory_bytes\), less than network 'resnet18''s largest activation needs" -- "$bin" schedule -n resnet18 --platform "$tmp/small_memory.json" -o "$tmp/kept_schedule.json"
cmp -s "$tmp/kept_schedule.json" "$src/data/hardware/a100-sxm4-40gb.json" && echo "ok   failed_schedule_kept" || { echo "FAIL failed_schedule_kept"; fail=1; }
# Values that meant "default" or were accepted silently are errors of the command line (exit 2).
check zero_gpus_per_node 2 "--gpus-per-node: must be a positive number, is '0'" -- "$bin" predict -n resnet50 -b 8 --gpus-per-node 0
check zero_seq 2 "--seq: must be a positive number, is '0'" -- "$bin" predict -n gpt2 -b 8 --seq 0
check zero_dataset 2 "--dataset-size: must be a positive number, is '0'" -- "$bin" predict -n resnet50 -b 8 --dataset-size 0
check zero_batch_message 2 "^dnnperf: error: --batch: must be a positive number, is '0'$" -- "$bin" net show resnet50 -b 0
check seq_on_cnn 1 "network 'resnet50' takes an image size \(--input\), not a sequence length" -- "$bin" predict -n resnet50 -b 8 --seq 128
check input_on_transformer 1 "network 'gpt2' is a transformer" -- "$bin" predict -n gpt2 -b 8 --input 224
check bench_sizes_empty 1 '--sizes: the list is empty' -- "$bin" bench allreduce --sizes "" -o "$tmp/sizes.jsonl"
check bench_sizes_gap 1 "--sizes: an empty item in '4,,8'" -- "$bin" bench allreduce --sizes 4,,8 -o "$tmp/sizes.jsonl"
check bench_budget_negative 2 "--time-budget: must be a positive number, is '-1'" -- "$bin" bench gemm --time-budget -1 -o "$tmp/budget.jsonl"
check bench_needs_output 1 '-o: an output file is required' -- "$bin" bench gemm
check schedule_coarsen_negative 2 "--coarsen: must be a number >= 0, is '-1'" -- "$bin" schedule -n resnet18 --platform "$src/data/platforms/cpu-v100-a100.json" --coarsen -1
check schedule_module_tasks_zero 2 "--module-tasks: must be a positive number, is '0'" -- "$bin" schedule -n resnet18 --platform "$src/data/platforms/cpu-v100-a100.json" --module-tasks 0
check schedule_module_gap_negative 2 "--module-gap: must be a number >= 0, is '-1'" -- "$bin" schedule -n resnet18 --platform "$src/data/platforms/cpu-v100-a100.json" --module-gap -1
check calibrate_threads_zero 2 "--threads: must be a positive number, is '0'" -- "$bin" calibrate --threads 0 -o "$tmp/cal.json"
check unknown_command 2 "unknown command 'frob'; the commands are net, predict, scale" -- "$bin" frob
check dtype_choices 1 "--dtype: unknown value 'fp4' \(fp32, tf32, fp16, bf16 or fp8\)" -- "$bin" predict -n resnet50 -b 8 --dtype fp4
check fp8_needs_fp8_tensor_cores 1 "hardware 'a100-sxm4-80gb' .* has no FP8 tensor cores \(device.peak_flops.fp8_tensor\)" -- "$bin" predict -n gpt2 -b 8 --hardware a100 --dtype fp8
check fp8_plan_needs_fp8_tensor_cores 1 "fp8_tensor" -- "$bin" predict -n gpt3-175b --hardware a100 --nodes 8 --tp 8 --pp 8 --micro-batch 1 --global-batch 64 --dtype fp8
check help_examples 0 'Examples:' -- "$bin" predict --help
out=$("$bin" predict --help; "$bin" scale --help; "$bin" search --help; "$bin" bench --help; "$bin" --help)
long=$(awk 'length > 100' <<<"$out" | head -3)
[ -z "$long" ] && echo "ok   help_wrapped" || { echo "FAIL help_wrapped: $long"; fail=1; }
rm -rf "$tmp"
# A kept run whose file says another precision than its name: refused, naming both.
mkdir -p "$tmp/dtype" && for r in 0 1; do cp "$src/data/measurements/cpu-vm-2core-family25/accumulate/k4/resnet18_b4_p2_a4_train_run$r.json" "$tmp/dtype/resnet18_b4_p2_a4_bf16_train_run$r.json"; done
check validate_dtype_mismatch 1 'measured in fp32, predicted in bf16 \(--dtype\)' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --procs 2 --accumulate 4 --dtype bf16 --measured "$tmp/dtype"
# DNNPERF_CLI_QUICK: the output and bad-input checks above only (ctest cli_bad_input, the fast
# tests the sanitized build runs); fits, calibrations and validations follow.
[ -n "${DNNPERF_CLI_QUICK:-}" ] && exit $fail
# fit and comm on this project's committed MPI measurements
tmp=$(mktemp -d)
meas="$src/tests/data/cpu-sample/allreduce_np2.jsonl"
check fit 0 'wrote .*fitted.json' -- "$bin" fit "$meas" --hardware cpu -o "$tmp/fitted.json" --report "$tmp/report"
[ -s "$tmp/report/fit_points.csv" ] && [ -s "$tmp/report/fit_report.json" ] && echo "ok   fit_report" || { echo "FAIL fit_report"; fail=1; }
"$bin" comm --hardware "$tmp/fitted.json" --bytes 1048576 --procs 2 --algorithm ring --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["calibrated"] and j["algorithm"] == "ring"
assert 0 < j["low"] <= j["seconds"] <= j["high"]
' && echo "ok   comm_fitted" || { echo "FAIL comm_fitted"; fail=1; }
check comm_best 0 'us' -- "$bin" comm --hardware "$tmp/fitted.json" --bytes 4096 --procs 2
# Two days' runs of the same points: medians fitted, each algorithm's run-to-run spread reported.
again="$src/tests/data/mpi-ranks/allreduce_np2.jsonl"
"$bin" fit "$meas" "$again" --hardware cpu -o "$tmp/repeated.json" --report "$tmp/repeated" >"$tmp/repeated.txt" 2>&1
/usr/bin/python3 -c '
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["model"] == "dnnperf"]
assert rows and all(r["run_to_run_noise"] and r["run_to_run_noise"]["points"] >= 30 for r in rows), rows
assert all(0 < r["run_to_run_noise"]["mean_percent"] < 100 for r in rows)
' "$tmp/repeated/fit_report.json" && grep -q "noise: mean (slowest - fastest)" "$tmp/repeated.txt" \
  && echo "ok   fit_repeated_runs" || { echo "FAIL fit_repeated_runs: $(tail -5 "$tmp/repeated.txt")"; fail=1; }
# 2 and 3 ranks: each measured count gets a model of its own, other counts the joint one; the
# library's choice keeps the map of which algorithm it runs where when that holds out better.
mpi="$src/tests/data/mpi-ranks"
"$bin" fit "$mpi/allreduce_np2.jsonl" "$mpi/allreduce_np3.jsonl" --hardware cpu --models dnnperf -o "$tmp/ranks.json" >"$tmp/ranks.txt" 2>&1
/usr/bin/python3 - "$tmp/ranks.json" "$tmp/ranks.txt" "$bin" <<'PY' && echo "ok   fit_per_rank_count" || { echo "FAIL fit_per_rank_count: $(tail -5 "$tmp/ranks.txt")"; fail=1; }
import json, subprocess, sys
models = json.load(open(sys.argv[1]))["communication"]
assert len(models) == 6, [m["algorithm"] for m in models]
assert all([l["ranks"] for l in m["at_ranks"]] == [2, 3] for m in models), [m.get("at_ranks") for m in models]
assert all(m["fast_limit_bytes"] is None or m["fast_limit_bytes"] < m["eager_limit_bytes"] for m in models)
text = open(sys.argv[2]).read()
assert "2 ranks: recursive_doubling below" in text, text  # Open MPI's own choice: recursive doubling for small messages
def comm(procs, algorithm):
    out = subprocess.run([sys.argv[3], "comm", "--hardware", sys.argv[1], "--bytes", "65536", "--procs", str(procs), "--algorithm", algorithm, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)
assert comm(3, "ring")["ranks_measured"] and not comm(4, "ring")["ranks_measured"]
# A count never measured: the held-out counts' spread widens its interval.
assert all(m["unmeasured_ranks_sigma"] > 0 for m in models)
width = lambda j: j["high"] / j["low"]
assert width(comm(4, "ring")) > 1.5 * width(comm(3, "ring")), (comm(4, "ring"), comm(3, "ring"))
assert 0 < comm(4, "ring")["seconds"] and comm(3, "default")["low"] <= comm(3, "default")["seconds"]
PY
# Isolated calls and streams of calls (bench --mode) fitted apart; comm and score take the mode;
# an independent loop's records (dnnperf-allreduce-loop) are scored by the model of their mode.
modes="$src/tests/data/mpi-modes/allreduce_np2_modes.jsonl"
loop="$src/tests/data/mpi-modes/allreduce_loop_np2.jsonl"
check fit_modes 0 'default \(stream\) +dnnperf' -- "$bin" fit "$modes" --hardware cpu -o "$tmp/modes.json"
/usr/bin/python3 - "$tmp/modes.json" <<'PY' && echo "ok   fit_modes_profile" || { echo "FAIL fit_modes_profile"; fail=1; }
import json, sys
models = json.load(open(sys.argv[1]))["communication"]
assert sorted(m["mode"] for m in models) == ["isolated", "stream"], [m["mode"] for m in models]
PY
"$bin" comm --hardware "$tmp/modes.json" --bytes 4096 --procs 2 --algorithm default --mode stream --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["mode"] == "stream" and j["algorithm"] == "default" and 0 < j["low"] <= j["seconds"] <= j["high"], j
' && echo "ok   comm_stream" || { echo "FAIL comm_stream"; fail=1; }
check comm_stream_text 0 'a call in a stream' -- "$bin" comm --hardware "$tmp/modes.json" --bytes 4096 --procs 2 --algorithm default --mode stream
check comm_stream_unmeasured 1 "no allreduce models of stream calls.*--mode stream" -- "$bin" comm --hardware "$tmp/fitted.json" --bytes 4096 --procs 2 --mode stream
check comm_bad_mode 2 'mode' -- "$bin" comm --hardware "$tmp/modes.json" --bytes 4096 --procs 2 --mode burst
check score_loop 0 'default +stream +dnnperf +2 +[0-9]+ ' -- "$bin" score --hardware "$tmp/modes.json" "$loop"
"$bin" score --hardware "$tmp/modes.json" "$loop" --json | /usr/bin/python3 -c '
import json, sys
models = json.load(sys.stdin)["communication"]["models"]
assert sorted(m["mode"] for m in models) == ["isolated", "stream"], models
assert all(m["count"] >= 5 and m["mape"] >= 0 and len(m["points"]) == m["count"] for m in models), models
' && echo "ok   score_loop_json" || { echo "FAIL score_loop_json"; fail=1; }
check score_loop_no_model 1 "no fitted communication models" -- "$bin" score --hardware cpu "$loop"
"$bin" score --hardware "$tmp/modes.json" "$loop" --points "$tmp/loop_points.csv" >/dev/null &&
  head -1 "$tmp/loop_points.csv" | grep -q '^algorithm,mode,ranks,bytes,measured_s' && [ "$(wc -l <"$tmp/loop_points.csv")" -eq 21 ] &&
  echo "ok   score_loop_points" || { echo "FAIL score_loop_points"; fail=1; }
check comm_uncalibrated 0 'uncalibrated' -- "$bin" comm --hardware a100 --bytes 1048576 --procs 64
check comm_default_needs_fit 1 'fit the profile first' -- "$bin" comm --hardware a100 --bytes 1024 --procs 8 --algorithm default
check comm_bad_bytes 2 "--bytes: must be a positive number, is '0'" -- "$bin" comm --hardware cpu --bytes 0 --procs 2
check fit_missing 1 'cannot open the measurement file' -- "$bin" fit /nonexistent/m.jsonl -o "$tmp/x.json"
check fit_no_data 1 'no usable bcast or compute measurements' -- "$bin" fit "$meas" --collective bcast -o "$tmp/y.json"
torchmeas="$src/tests/data/cpu-sample/torch_cpu_sample.jsonl"
corun="$src/data/measurements/cpu-vm-2core/torch_cpu_co_run2.jsonl"
check fit_compute 0 'co-running: kernels beside 1 other process take' -- "$bin" fit "$torchmeas" "$corun" "$meas" --hardware cpu -o "$tmp/both.json" --report "$tmp/compute_report"
grep -q "^gemm .*analytic MAPE\|^gemm  *[0-9]" "$tmp/compute_report/residual_structure.txt" && grep -q "conv_forward" "$tmp/compute_report/residual_structure.txt" \
  && echo "ok   fit_residual_structure" || { echo "FAIL fit_residual_structure"; cat "$tmp/compute_report/residual_structure.txt"; fail=1; }
# Kernels timed again in another file (here 40 convolutions, half at 1.1x and half at 1/1.1x: no
# session's speed in it): one sample each, the median of the runs, and their spread reported per
# class beside the model's error.
/usr/bin/python3 -c "
import json,sys
out=open(sys.argv[2],'w'); n=0
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r.get('type')=='record' and r['op']=='conv_forward' and r.get('status')=='ok' and n<40:
        f=1.1 if n%2==0 else 1/1.1; r['seconds']={k:v*f for k,v in r['seconds'].items()}; n+=1
    elif r.get('type')=='record': continue
    out.write(json.dumps(r)+'\n')" "$torchmeas" "$tmp/retimed.jsonl"
"$bin" fit "$torchmeas" "$tmp/retimed.jsonl" --hardware cpu -o "$tmp/retimed.json" > "$tmp/retimed.txt" 2>&1 \
  && grep -qE '^conv_forward +analytic( +[0-9.]+){4} +- +9\.5 \(40\)' "$tmp/retimed.txt" && grep -q "noise: mean (slowest - fastest) / mean over the kernels several files timed" "$tmp/retimed.txt" \
  && echo "ok   fit_compute_runs_noise" || { echo "FAIL fit_compute_runs_noise"; head -30 "$tmp/retimed.txt"; fail=1; }
# The same kernels all 1.1x slower: another session's speed, not noise. fit scales that file to
# the first's and finds no spread left.
/usr/bin/python3 -c "
import json,sys
out=open(sys.argv[2],'w'); n=0
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r.get('type')=='record' and r['op']=='conv_forward' and r.get('status')=='ok' and n<40:
        r['seconds']={k:v*1.1 for k,v in r['seconds'].items()}; n+=1
    elif r.get('type')=='record': continue
    out.write(json.dumps(r)+'\n')" "$torchmeas" "$tmp/slower.jsonl"
"$bin" fit "$torchmeas" "$tmp/slower.jsonl" --hardware cpu -o "$tmp/slower.json" > "$tmp/slower.txt" 2>&1 \
  && grep -qE "^session speed: .*slower.jsonl against .* \(40 kernels timed in both\): 1\.10x .*conv_forward 1\.10x .*: scaled to " "$tmp/slower.txt" \
  && grep -qE '^conv_forward +analytic( +[0-9.]+){4} +- +0\.0 \(40\)' "$tmp/slower.txt" \
  && /usr/bin/python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['sources']['sessions']; assert 'slower.jsonl divided by 1.100, conv_forward 1.100' in s, s" "$tmp/slower.json" \
  && echo "ok   fit_compute_session_speed" || { echo "FAIL fit_compute_session_speed"; head -30 "$tmp/slower.txt"; fail=1; }
# The report's compute points name each kernel's shape, so that a residual can be traced to it.
/usr/bin/python3 -c "
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
g=[r for r in rows if r['class']=='gemm']; c=[r for r in rows if r['class'].startswith('conv')]
assert g and all(r['shape'].startswith('batch=') and ' m=' in r['shape'] for r in g), g[:1]
assert c and all(' groups=' in r['shape'] and ' stride_h=' in r['shape'] for r in c), c[:1]" "$tmp/compute_report/compute_points.csv" \
  && echo "ok   fit_compute_points_shapes" || { echo "FAIL fit_compute_points_shapes"; fail=1; }
# Two ranks on the node: every kernel at the measured co-running factor, one rank: as measured alone.
/usr/bin/python3 -c "
import json,sys
p=json.load(open(sys.argv[1])); f=p['device']['co_run_slowdown']['2']; assert 0.8 < f < 1.5, f
del p['device']['co_run_slowdown']; json.dump(p,open(sys.argv[2],'w'))" "$tmp/both.json" "$tmp/alone.json" \
  && echo "ok   fit_co_run_section" || { echo "FAIL fit_co_run_section"; fail=1; }
/usr/bin/python3 -c "
import json,subprocess,sys
bin,both,alone=sys.argv[1:4]
def compute(hw, ranks):
    out=subprocess.run([bin,'predict','-n','resnet18','-b','2','--input','32','--hardware',hw,'--gpus-per-node',ranks,'--json'],capture_output=True,text=True,check=True).stdout
    j=json.loads(out); return j['forward_s']+j['backward_s']
f=json.load(open(both))['device']['co_run_slowdown']['2']
assert abs(compute(both,'2')/compute(alone,'2')-f)<1e-6*f, 'two ranks'
assert abs(compute(both,'1')/compute(alone,'1')-1)<1e-9, 'one rank'" "$bin" "$tmp/both.json" "$tmp/alone.json" \
  && echo "ok   predict_co_run" || { echo "FAIL predict_co_run"; fail=1; }
/usr/bin/python3 -c "import json,sys; p=json.load(open(sys.argv[1])); assert p['communication'] and 'compute_regression' in p" "$tmp/both.json" \
  && echo "ok   fit_both_sections" || { echo "FAIL fit_both_sections"; fail=1; }
check calibrated_predict 0 'iteration' -- "$bin" predict -n resnet18 -b 2 --hardware "$tmp/both.json" --summary
# Synchronised steps alone (scripts/torch_sync_steps.py) update a calibrated profile: whole steps'
# co-running replaces the kernels', the wait is added, and a two-rank prediction says so.
syncsteps="$src/tests/data/sync-steps/torch_cpu_sync_steps.jsonl"
check fit_sync_steps 0 'co-running: training steps beside 1 other rank take 1\.[0-9]*x their time alone, and the slowest of 2 ranks' -- \
  "$bin" fit "$syncsteps" --hardware "$tmp/both.json" -o "$tmp/synced.json"
/usr/bin/python3 -c "
import json,statistics,sys
d=json.load(open(sys.argv[1]))['device']
rs=[json.loads(l) for l in open(sys.argv[2])]; m=[r['metrics'] for r in rs if r.get('type')=='record']
assert abs(d['sync_wait']['2']-statistics.median_high([x['slowest_median_s']/x['own_median_s'] for x in m]))<1e-9, d['sync_wait']
assert abs(d['co_run_slowdown']['2']-statistics.median_high([x['own_median_s']/x['lone_median_s'] for x in m]))<1e-9, d['co_run_slowdown']
assert json.load(open(sys.argv[3]))['compute_regression']==json.load(open(sys.argv[1]))['compute_regression']" "$tmp/synced.json" "$syncsteps" "$tmp/both.json" \
  && echo "ok   fit_sync_steps_fields" || { echo "FAIL fit_sync_steps_fields"; fail=1; }
check predict_sync_wait 0 'waiting             the computation 1\.[0-9]*x a rank.s own: each step waits for the slowest of 2 ranks' -- \
  "$bin" predict -n resnet18 -b 2 --input 32 --hardware "$tmp/synced.json" --gpus-per-node 2
"$bin" predict -n resnet18 -b 2 --input 32 --hardware "$tmp/synced.json" --gpus-per-node 2 --inference | grep -q "waiting" \
  && { echo "FAIL predict_sync_wait_inference"; fail=1; } || echo "ok   predict_sync_wait_inference"
check validate_sync_wait 0 'data-parallel cases: every kernel at 1\.[0-9]+x .* the computation at 1\.0[0-9]+x \(waiting for the slowest rank' -- \
  "$bin" validate --hardware "$tmp/synced.json" --networks resnet18 --batch 4 --input 64 --procs 2 \
  --measured "$src/tests/data/sync-steps/ground_truth"
"$bin" scale -n resnet18 -b 2 --input 32 --hardware "$tmp/synced.json" --gpus-per-node 2 --nodes 1,4,64 --csv "$tmp/wait.csv" > "$tmp/wait.txt" \
  && grep -q "wait: the computation's factor for waiting" "$tmp/wait.txt" && /usr/bin/python3 -c "
import csv,sys
w=[float(r['sync_wait']) for r in csv.DictReader(open(sys.argv[1]))]
assert len(w)==3 and 1<w[0]<w[1]<w[2], w" "$tmp/wait.csv" \
  && echo "ok   scale_sync_wait" || { echo "FAIL scale_sync_wait"; cat "$tmp/wait.txt"; fail=1; }
# Synchronised steps with DDP steps beside them, and the all-reduce they are priced with: DDP's own
# work per step is the median excess over the networks, kept in the profile, charged by predict.
ninth="$src/tests/data/ddp-steps"
check fit_ddp_overhead 0 "DDP's own work at 2 ranks: -?[0-9.]+ ms per step \(median of 4 networks" -- \
  "$bin" fit "$ninth/torch_cpu_sync_steps.jsonl" "$ninth/torch_cpu_allreduce.jsonl" --hardware cpu -o "$tmp/ddp.json"
/usr/bin/python3 -c "
import json,re,sys
out=open(sys.argv[2]).read()
beyond=sorted(float(m) for m in re.findall(r'^\S+ +2 +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +(-?[0-9.]+)$', out, re.M))
assert len(beyond)==4, out
want=max(0.0, (beyond[1]+beyond[2])/2)
got=1e3*json.load(open(sys.argv[1]))['device']['ddp_step_overhead_s']['2']
assert abs(got-want)<0.06, (got, want)" "$tmp/ddp.json" <("$bin" fit "$ninth/torch_cpu_sync_steps.jsonl" "$ninth/torch_cpu_allreduce.jsonl" --hardware cpu -o "$tmp/ddp2.json") \
  && echo "ok   fit_ddp_overhead_value" || { echo "FAIL fit_ddp_overhead_value"; fail=1; }
check predict_ddp_overhead 0 "with DDP's own [0-9.]+ ms per step" -- "$bin" predict -n resnet18 -b 2 --input 32 --hardware "$tmp/ddp.json" --gpus-per-node 2 --summary
"$bin" predict -n resnet18 -b 2 --input 32 --hardware "$tmp/ddp.json" --gpus-per-node 1 --summary | grep -q "DDP's own" \
  && { echo "FAIL predict_ddp_overhead_one_rank"; fail=1; } || echo "ok   predict_ddp_overhead_one_rank"
check fit_ddp_without_allreduce 0 "DDP steps measured, but no all-reduce measurements" -- \
  "$bin" fit "$ninth/torch_cpu_sync_steps.jsonl" --hardware cpu -o "$tmp/ddp3.json"
# fit --steps: whole steps of other networks against their kernels. Runs made here at e^r times
# the prediction, at half the machine's calibrated speed (the reference kernels kept beside them
# at twice their time): the step spread is sqrt(mean(r^2 - s^2)), s the kernels' own spread, and
# predict's interval adds it in quadrature.
mkdir -p "$tmp/steps" "$tmp/steps_one" "$tmp/steps_missing" "$tmp/steps_biased"
/usr/bin/python3 - "$bin" "$tmp/both.json" "$tmp/steps" "$tmp/steps_one" "$tmp/steps_missing" "$torchmeas" "$tmp/steps_biased" <<'PY'
import json, math, subprocess, sys
bin, hw, steps, one, missing, samples, biased = sys.argv[1:8]
def run(folder, net, seconds, network=None):
    for r, f in ((0, 0.98), (1, 1.02)):
        json.dump({"network": network or net, "batch_per_process": 2, "procs": 1, "inference": False, "input": [32, 32],
                   "median_s": seconds * f, "min_s": seconds * f * 0.95}, open(f"{folder}/{net}_b2_p1_train_run{r}.json", "w"))
expected = []
for net, r in (("resnet18", 0.45), ("mobilenet_v2", -0.35), ("vgg11", 0.40)):
    j = json.loads(subprocess.run([bin, "predict", "-n", net, "-b", "2", "--input", "32", "--gpus-per-node", "1", "--hardware", hw, "--json"], capture_output=True, text=True, check=True).stdout)
    run(steps, net, 2 * j["iteration_s"] * math.exp(r))
    expected.append((r, math.log(j["high"] / j["iteration_s"]) / 1.96))
    # Every step 1.5-1.65x its price, as timed (no reference kernels): a shared error, not chance.
    run(biased, net, j["iteration_s"] * math.exp(0.45 + (r - 0.17) / 10))
run(one, "resnet18", 0.01)
run(missing, "gone.onnx", 0.01, "/nonexistent/gone.onnx")
references = json.load(open(hw))["reference_kernels"]
with open(f"{steps}/reference_kernels.jsonl", "w") as out:
    for k in references:
        out.write(json.dumps({"type": "record", "status": "ok", "op": k["op"], "params": k["params"], "dtype": k["dtype"], "seconds": {"median": 2 * k["seconds"]}}) + "\n")
    # A kernel the fit timed that the profile does not keep as a reference (another profile's
    # choice): compared all the same.
    chosen = {(k["op"], json.dumps(k["params"], sort_keys=True)) for k in references}
    other = next(r for r in map(json.loads, open(samples)) if r.get("type") == "record" and r.get("status") == "ok" and r["op"] == "gemm"
                 and (r["op"], json.dumps(r["params"], sort_keys=True)) not in chosen)
    out.write(json.dumps(dict(other, seconds={"median": 2 * other["seconds"]["median"]})) + "\n")
json.dump(expected, open(f"{steps}/../steps_expected.json", "w"))
PY
# One fit (--time-weight 0): the runs were made at that fit's prices.
"$bin" fit "$torchmeas" "$corun" "$meas" --hardware cpu --steps "$tmp/steps" --time-weight 0 -o "$tmp/steps.json" > "$tmp/steps.txt" 2>&1
/usr/bin/python3 - "$bin" "$tmp/steps.json" "$tmp/steps_expected.json" "$tmp/both.json" <<'PY' && grep -q "timed at 2.00x the calibration's kernel times" "$tmp/steps.txt" \
  && echo "ok   fit_steps" || { echo "FAIL fit_steps"; tail -12 "$tmp/steps.txt"; fail=1; }
import json, math, subprocess, sys
bin, hw, expected = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
sigma = json.load(open(hw))["device"]["step_sigma"]
kept = len(json.load(open(sys.argv[4]))["reference_kernels"])
assert f"({kept + 1} reference kernels" in open(sys.argv[2].replace(".json", ".txt")).read(), kept
want = math.sqrt(max(0.0, sum(r * r - s * s for r, s in expected) / len(expected)))
assert want > 0.02 and abs(sigma - want) < 1e-3 * want, (sigma, want)
j = json.loads(subprocess.run([bin, "predict", "-n", "resnet18", "-b", "2", "--input", "32", "--gpus-per-node", "1", "--hardware", hw, "--json"], capture_output=True, text=True, check=True).stdout)
spread = math.log(j["high"] / j["iteration_s"]) / 1.96
assert abs(spread - math.sqrt(expected[0][1] ** 2 + sigma ** 2)) < 1e-3 * spread, (spread, expected[0][1], sigma)
PY
grep -q "warning: the steps' kernels" "$tmp/steps.txt" && { echo "FAIL fit_steps_no_bias_warning"; fail=1; } || echo "ok   fit_steps_no_bias_warning"
check fit_steps_bias 0 "warning: the steps' kernels priced them 3[0-9]\.[0-9]% below their measured time on average, [0-9.]+ standard errors from none" -- \
  "$bin" fit "$torchmeas" "$corun" "$meas" --hardware cpu --steps "$tmp/steps_biased" --time-weight 0 -o "$tmp/biased.json"
# --time-weight auto (the default with --steps): a fit unweighted and one weighted by time, the one
# that prices the runs best kept, the figures in its sources.
"$bin" fit "$torchmeas" "$corun" "$meas" --hardware cpu --steps "$tmp/steps" -o "$tmp/weighted.json" > "$tmp/weighted.txt" 2>&1
/usr/bin/python3 - "$tmp/weighted.txt" "$tmp/weighted.json" <<'PY' && echo "ok   fit_time_weight_auto" || { echo "FAIL fit_time_weight_auto"; tail -5 "$tmp/weighted.txt"; fail=1; }
import json, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"time weight of the structural fits chosen on the --steps runs \(their RMS log error at each exponent: 0\.00: ([0-9.]+)%, 0\.50: ([0-9.]+)%\): kept ([0-9.]+)", text)
assert m, text[-600:]
unweighted, weighted, kept = map(float, m.groups())
assert unweighted != weighted, (unweighted, weighted)  # the weights reached the structural fits
assert kept == (0.5 if weighted < unweighted else 0.0), m.groups()
assert text.count("whole steps against their kernels") == 1  # the kept fit's report only
assert ("weigh each kernel by (its time" in text) == (kept > 0)
assert "(time / class median)^%.2f" % kept in json.load(open(sys.argv[2]))["sources"]["time_weight"]
PY
check fit_time_weight_bad 1 "--time-weight: 'heavy' is neither auto nor an exponent from 0 to 2" -- "$bin" fit "$meas" --time-weight heavy -o "$tmp/heavy.json"
check fit_steps_too_few 0 'step spread: not estimated \(1 single-process runs; at least 3 needed\)' -- "$bin" fit "$meas" --hardware cpu --steps "$tmp/steps_one" -o "$tmp/one.json"
check fit_steps_missing_network 1 "gone.onnx_b2_p1_train_run0.json: network file '/nonexistent/gone.onnx' is not there" -- "$bin" fit "$meas" --hardware cpu --steps "$tmp/steps_missing" -o "$tmp/gone.json"
check fit_steps_no_dir 1 'no such directory of ground-truth runs' -- "$bin" fit "$meas" --hardware cpu --steps "$tmp/nowhere" -o "$tmp/nowhere.json"
mkdir -p "$tmp/steps_bad" && echo '{"network": "resnet18", "batch_per_process": 2}' > "$tmp/steps_bad/resnet18_b2_p1_train_run0.json"
check fit_steps_bad_run 1 "resnet18_b2_p1_train_run0.json: not a torch_train.py result: .*median_s" -- "$bin" fit "$meas" --hardware cpu --steps "$tmp/steps_bad" -o "$tmp/bad.json"
# A GPU's passes measured through PyTorch (an H200, 2026-11-30): the host's dispatch times per
# class, the few-channel batch norms' times excluded in one line, and predictions on two timelines.
gpumem="$src/data/measurements/h200/lease2/torch_cuda_memory.jsonl"
check fit_gpu_exclusion 0 'excluded: .*record 8 and 17 more: training batch norm on a GPU' -- "$bin" fit "$gpumem" --hardware h200 -o "$tmp/gpu.json"
check fit_gpu_dispatch 0 'host dispatch .*pass:batch_norm 61.9 us' -- "$bin" fit "$gpumem" --hardware h200 -o "$tmp/gpu.json"
# The same lease's kernels ran under PyTorch's defaults, cuDNN's TF32 switch on (the run's
# context): fp32 convolutions fitted against the TF32 peak, and the profile says so.
{ head -n 81 "$src/data/measurements/h200/lease2/torch_cuda_kernels.jsonl"; grep -m 60 '"op": "conv_' "$src/data/measurements/h200/lease2/torch_cuda_kernels.jsonl"; } > "$tmp/gpu_kernels.jsonl"
check fit_gpu_conv_tf32 0 'fp32 convolutions ran with TF32 math .*TF32 tensor peak of 494.7 TFLOP/s' -- "$bin" fit "$gpumem" "$tmp/gpu_kernels.jsonl" --hardware h200 -o "$tmp/gpu_tf32.json"
/usr/bin/python3 -c "
import json, sys
assert json.load(open(sys.argv[1]))['device']['fp32_conv_math'] == 'tf32_tensor'
assert json.load(open(sys.argv[2]))['device'].get('fp32_conv_math', 'fp32') == 'fp32'" "$tmp/gpu_tf32.json" "$tmp/gpu.json" \
  && echo "ok   fit_gpu_conv_tf32_profile" || { echo "FAIL fit_gpu_conv_tf32_profile"; fail=1; }
# The host's time per framework op (torch_bench.py --op-host), measured for real on this CPU: a
# record per op kind with both phases' host times; an unknown kind is refused, naming it.
/usr/bin/python3 "$src/scripts/torch_bench.py" --op-host relu,attention --device cpu --threads 1 -o "$tmp/op_host.jsonl" >/dev/null 2>&1
/usr/bin/python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '\"record\"' in l]
assert [x['params']['op_kind'] for x in r] == ['relu', 'attention'], r
assert all(x['status'] == 'ok' and x['metrics']['forward_host_s'] > 0 and x['metrics']['backward_host_s'] >= 0 for x in r), r
assert r[1]['metrics']['forward_host_s'] > r[0]['metrics']['forward_host_s']  # some 20 calls against one" "$tmp/op_host.jsonl" \
  && echo "ok   torch_bench_op_host" || { echo "FAIL torch_bench_op_host"; fail=1; }
check torch_bench_op_host_bad 1 'unknown op kind\(s\) attn' -- /usr/bin/python3 "$src/scripts/torch_bench.py" --op-host relu,attn -o "$tmp/op_host2.jsonl"
# Which implementation oneDNN runs (onednn_paths.py), for real: a 3x3 convolution goes to a JIT
# kernel, a depthwise 7x7 weight gradient to oneDNN's im2col and GEMM, a small-batch 1x1 to
# PyTorch's own code; bad input is named.
/usr/bin/python3 -c "
import json
def rec(op, **p):
    base = dict(n=2, c=32, k=32, h=8, w=8, r=3, s=3, pad_h=1, pad_w=1, stride_h=1, stride_w=1, dilation_h=1, dilation_w=1, groups=1)
    base.update(p)
    return json.dumps({'type': 'record', 'status': 'ok', 'op': op, 'params': base})
print(rec('conv_forward', n=16))
print(rec('conv_backward_filter', groups=32, r=7, s=7, pad_h=3, pad_w=3))
print(rec('conv_forward', r=1, s=1, pad_h=0, pad_w=0))" > "$tmp/paths_in.jsonl"
/usr/bin/python3 "$src/scripts/onednn_paths.py" "$tmp/paths_in.jsonl" -o "$tmp/paths.jsonl" >/dev/null 2>&1
/usr/bin/python3 -c "
import json, sys
impl = [json.loads(l)['implementation'] for l in open(sys.argv[1])]
assert len(impl) == 3 and impl[0].startswith('jit') and 'gemm' in impl[1] and impl[2] == 'native', impl" "$tmp/paths.jsonl" \
  && echo "ok   onednn_paths" || { echo "FAIL onednn_paths"; fail=1; }
check onednn_paths_missing 1 'no such file' -- /usr/bin/python3 "$src/scripts/onednn_paths.py" "$tmp/nonexistent.jsonl" -o "$tmp/paths2.jsonl"
# A shape set under a time budget: GEMMs and convolutions taken in turn, so that a run the budget
# stops has every class measured alike (a set lists its GEMMs first).
/usr/bin/python3 "$src/scripts/torch_bench.py" --shapes sample:40:1:1 --time-budget 1 --dnnperf "$bin" --device cpu --threads 1 -o "$tmp/budget.jsonl" >/dev/null 2>&1
/usr/bin/python3 -c '
import json, sys
ops = [json.loads(l)["op"] for l in open(sys.argv[1]) if "\"record\"" in l]
assert 4 <= len(ops) < 80, len(ops)
assert ops[0] == "gemm" and ops[1].startswith("conv_"), ops[:4]
assert ops.count("gemm") <= len(ops) // 2 + 1, ops
' "$tmp/budget.jsonl" && echo "ok   torch_bench_budget_interleaved" || { echo "FAIL torch_bench_budget_interleaved"; fail=1; }
# --anchors: the default calibration's anchor kernels come first, each once (a shape set that lists
# one too does not time it again), so that fit can put two files on one speed.
"$bin" bench gemm --shapes anchors:2 --list-shapes > "$tmp/anchors.json"
/usr/bin/python3 "$src/scripts/torch_bench.py" --anchors --shapes anchors:2 --time-budget 2 --dnnperf "$bin" --device cpu --threads 1 -o "$tmp/anchored.jsonl" >/dev/null 2>&1
/usr/bin/python3 -c '
import json, sys
anchors = [json.dumps(k, sort_keys=True) for k in json.load(open(sys.argv[1]))]
timed = [json.dumps({"op": r["op"], "params": r["params"]}, sort_keys=True) for r in map(json.loads, open(sys.argv[2])) if r.get("type") == "record"]
assert len(anchors) == 80 and len(set(anchors)) == 80, len(anchors)
assert 2 <= len(timed) < 80 and len(set(timed)) == len(timed), len(timed)
assert all(t in anchors for t in timed), timed[:2]
' "$tmp/anchors.json" "$tmp/anchored.jsonl" && echo "ok   torch_bench_anchors" || { echo "FAIL torch_bench_anchors"; fail=1; }
# Batch norm (training, its backward, inference) over real image shapes (--bn-shapes), for the scalar rate of runs shorter than a vector.
/usr/bin/python3 "$src/scripts/torch_bench.py" --bn-shapes 4:64:2,4:64:8 --device cpu --threads 1 -o "$tmp/bn.jsonl" >/dev/null 2>&1
/usr/bin/python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])][1:]
assert len(rs) == 6 and all(r["status"] == "ok" for r in rs), rs
assert {(r["params"]["batch"], r["params"]["channels"], r["params"]["bytes"]) for r in rs} == {(4, 64, 4096), (4, 64, 65536)}
assert {r["op"] for r in rs} == {"memory_batch_norm", "memory_batch_norm_backward", "memory_batch_norm_inference"}, rs
' "$tmp/bn.jsonl" && echo "ok   torch_bench_bn_shapes" || { echo "FAIL torch_bench_bn_shapes"; fail=1; }
check torch_bench_bn_shapes_bad 1 'each shape is three positive integers' -- /usr/bin/python3 "$src/scripts/torch_bench.py" --bn-shapes 4:64 -o "$tmp/bn2.jsonl"
# Fitted beside a GPU's measurements (same host and device), they are kept per op kind; beside a
# CPU's, whose kernels' times hold the host's work already, they are not.
/usr/bin/python3 -c "
import json, sys
for path, host, device in ((sys.argv[2], 'vm', 'NVIDIA H200'), (sys.argv[3], 'vm', 'cpu')):
    with open(path, 'w') as f:
        for l in open(sys.argv[1]):
            j = json.loads(l)
            j['host'] = host
            if j.get('type') == 'record': j['layout']['device'] = device
            f.write(json.dumps(j) + '\n')" "$tmp/op_host.jsonl" "$tmp/op_host_gpu.jsonl" "$tmp/op_host_cpu.jsonl"
check fit_op_host 0 'host time per op \(median forward / backward\): attention .* us, relu' -- "$bin" fit "$gpumem" "$tmp/op_host_gpu.jsonl" --hardware h200 -o "$tmp/gpu_oh.json"
/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['device']
assert set(d['host_op_s']) == {'relu', 'attention'} and d['host_op_s']['attention']['forward'] > 0, d.get('host_op_s')" "$tmp/gpu_oh.json" \
  && echo "ok   fit_op_host_profile" || { echo "FAIL fit_op_host_profile"; fail=1; }
check predict_op_host 0 'host  .* ms queueing kernels' -- "$bin" predict -n transformer_encoder -b 8 --seq 32 --hardware "$tmp/gpu_oh.json" --gpus-per-node 1 --summary
cpusample="$src/data/measurements/cpu-vm-2core/torch_cpu_memory.jsonl"
check fit_op_host_cpu 0 'host time per op .*attention .* us, relu .*a step runs them before their ops. kernels, on the same thread' -- "$bin" fit "$cpusample" "$tmp/op_host_cpu.jsonl" --hardware cpu -o "$tmp/cpu_oh.json"
# Hot pairs (torch_bench.py --cold --hot-pairs), for real: each convolution timed cold, then back to
# back, both records marked as a pair; GEMMs and anchors are never paired; fit reads them as pairs.
/usr/bin/python3 -c "
import json
conv = dict(n=2, c=32, k=32, h=8, w=8, r=3, s=3, pad_h=1, pad_w=1, stride_h=1, stride_w=1, dilation_h=1, dilation_w=1, groups=1)
print(json.dumps([{'op': 'conv_forward', 'params': conv}, {'op': 'conv_backward_data', 'params': dict(conv, k=16)},
                  {'op': 'gemm', 'params': dict(m=64, n=64, k=64, batch=1, trans_a=False, trans_b=False)}]))" > "$tmp/pair_kernels.json"
/usr/bin/python3 "$src/scripts/torch_bench.py" --kernels "$tmp/pair_kernels.json" --cold --hot-pairs --target 0.01 --device cpu --threads 1 -o "$tmp/pairs.jsonl" >/dev/null 2>&1
/usr/bin/python3 -c '
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if "\"record\"" in l]
assert [(r["op"], r["layout"].get("caches"), r["layout"].get("hot_pair", False)) for r in rs] == [
    ("conv_forward", "cold", True), ("conv_forward", "hot", True), ("conv_backward_data", "cold", True), ("conv_backward_data", "hot", True),
    ("gemm", "cold", False)], rs
assert all(r["status"] == "ok" and r["seconds"]["median"] > 0 for r in rs), rs
' "$tmp/pairs.jsonl" && echo "ok   torch_bench_hot_pairs" || { echo "FAIL torch_bench_hot_pairs"; fail=1; }
check torch_bench_hot_pairs_warm 1 'give --cold too' -- /usr/bin/python3 "$src/scripts/torch_bench.py" --kernels "$tmp/pair_kernels.json" --hot-pairs -o "$tmp/pairs2.jsonl"
check predict_framework_cpu 0 'framework +[0-9.]+ ms of the computation is the framework.s own work per op' -- "$bin" predict -n resnet18 -b 4 --input 64 --gpus-per-node 1 --hardware "$src/data/hardware/calibrated/cpu-vm-2core.json"
# The shipped family-25 profile: pools priced by their windows (both families measured at two strides).
"$bin" predict -n inception_v3_noaux -b 4 --input 128 --gpus-per-node 1 --hardware "$src/data/hardware/calibrated/cpu-vm-2core-family25.json" --json > "$tmp/fam25.json" \
  && /usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["device"]["efficiency"]["passes"]
assert p["max_pool"]["operation_s"] > 0 and p["avg_pool"]["operation_s"] > 0, p
assert json.load(open(sys.argv[2]))["iteration_s"] > 0
' "$src/data/hardware/calibrated/cpu-vm-2core-family25.json" "$tmp/fam25.json" && echo "ok   shipped_family25_profile" || { echo "FAIL shipped_family25_profile"; fail=1; }
check fit_hot_pairs_few 0 'not fitted: fewer than 12 hot pairs in every direction' -- "$bin" fit "$cpusample" "$tmp/pairs.jsonl" --hardware cpu -o "$tmp/cpu_pairs.json"
# fit --steps with warmth: the share of the pairs' savings whole steps realize is fitted. Steps made
# here at the prices of the same profile with 0.45 of the savings realized (0.3 for a second set):
# the fit finds that share on its grid of twentieths, and the steps' spread beyond it is nil.
latepairs="$src/tests/data/warmth-late/torch_cpu_hot_pairs.jsonl"
"$bin" fit "$torchmeas" "$cpusample" "$latepairs" --hardware cpu -o "$tmp/warm.json" > /dev/null 2>&1
mkdir -p "$tmp/steps_warm45" "$tmp/steps_warm30"
/usr/bin/python3 - "$bin" "$tmp/warm.json" "$tmp" <<'PY'
import json, subprocess, sys
bin, hw, tmp = sys.argv[1:4]
for share, folder in ((0.45, "steps_warm45"), (0.3, "steps_warm30")):
    p = json.load(open(hw))
    assert p["device"]["step_warmth"]["cache_bytes"] > 0, "the pairs fitted no warmth"
    p["device"]["step_warmth"]["realized_share"] = share
    json.dump(p, open(f"{tmp}/{folder}.json", "w"))
    for net in ("resnet18", "mobilenet_v2", "vgg11"):
        j = json.loads(subprocess.run([bin, "predict", "-n", net, "-b", "2", "--input", "32", "--gpus-per-node", "1", "--hardware", f"{tmp}/{folder}.json", "--json"],
                                      capture_output=True, text=True, check=True).stdout)
        for r in (0, 1):
            json.dump({"network": net, "batch_per_process": 2, "procs": 1, "inference": False, "input": [32, 32],
                       "median_s": j["iteration_s"], "min_s": j["iteration_s"]}, open(f"{tmp}/{folder}/{net}_b2_p1_train_run{r}.json", "w"))
    if share == 0.45:  # and inferences at their own share, 0.8: fitted apart
        p["device"]["step_warmth"]["realized_share"] = 0.8
        json.dump(p, open(f"{tmp}/{folder}_inference.json", "w"))
        for net in ("resnet18", "mobilenet_v2", "vgg11"):
            j = json.loads(subprocess.run([bin, "predict", "-n", net, "-b", "2", "--input", "32", "--inference", "--hardware", f"{tmp}/{folder}_inference.json", "--json"],
                                          capture_output=True, text=True, check=True).stdout)
            for r in (0, 1):
                json.dump({"network": net, "batch_per_process": 2, "procs": 1, "inference": True, "input": [32, 32],
                           "median_s": j["iteration_s"], "min_s": j["iteration_s"]}, open(f"{tmp}/{folder}/{net}_b2_p1_inference_run{r}.json", "w"))
PY
for share in 45 30; do
  "$bin" fit "$torchmeas" "$cpusample" "$latepairs" --hardware cpu --steps "$tmp/steps_warm$share" -o "$tmp/warm$share.json" > "$tmp/warm$share.txt" 2>&1
  /usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['device']
assert abs(d['step_warmth']['realized_share'] - float(sys.argv[2])) < 1e-9, d['step_warmth']
inference = d['step_warmth'].get('realized_share_inference')
assert (abs(inference - 0.8) < 1e-9) if sys.argv[2] == '0.45' else inference is None, d['step_warmth']
assert d['step_sigma'] < 1e-6, d['step_sigma']" "$tmp/warm$share.json" "0.$share" && grep -q "warmth realized inside whole steps .*: 0.$share of the pairs' savings" "$tmp/warm$share.txt" \
    && echo "ok   fit_steps_realized_warmth_$share" || { echo "FAIL fit_steps_realized_warmth_$share"; grep -A2 'warmth realized' "$tmp/warm$share.txt"; fail=1; }
done
# The C++ programs on the same GPU: the GPU family fits every element type (TF32 as its own
# math), the analytic and regression families one; bench's launch bracket comes from its launch
# record, without which its times cannot be read.
gpumb="$src/data/measurements/h200/microbench"
check fit_gpu_dtype 0 'gemm in f32 and [0-9]+ more: one element type per fit: this one fits bf16' -- "$bin" fit "$gpumb/gemm_square.jsonl" "$gpumb/gemm_deepbench.jsonl" "$gpumb/launch.jsonl" --hardware h200 --dtype bf16 -o "$tmp/bf16.json"
check fit_gpu_tf32 0 'gemm tf32 +[0-9]+ ' -- "$bin" fit "$gpumb/gemm_square.jsonl" "$gpumb/gemm_deepbench.jsonl" "$gpumb/launch.jsonl" --hardware h200 -o "$tmp/f32.json"
check fit_gpu_no_launch 1 'no launch record of one kernel' -- "$bin" fit "$gpumb/gemm_square.jsonl" --hardware h200 -o "$tmp/nolaunch.json"
/usr/bin/python3 -c "
import json, sys
g = json.load(open(sys.argv[1]))['device']['efficiency']['gpu']
assert g['generation'] == 'hopper' and 0 < g['math']['tf32']['max_efficiency'] <= 1, g
assert set(g['residual_sigma']) == {'gemm'}, g['residual_sigma']" "$tmp/f32.json" && echo "ok   fit_gpu_family_written" || { echo "FAIL fit_gpu_family_written"; fail=1; }
check fit_bad_dtype 1 "--dtype: unknown element type 'f99'" -- "$bin" fit "$gpumb/gemm_square.jsonl" --hardware h200 --dtype f99 -o "$tmp/bad.json"
# Ground truth of another size than the prediction's is a failed case, not a comparison.
check validate_measured_size 1 'measured with input \[128\], predicted with \[64\] \(--seq\)' -- "$bin" validate --hardware "$tmp/gpu.json" --networks transformer_encoder --batch 32 --seq 64 --measured "$src/data/measurements/h200/validation/ground_truth"
check predict_gpu_host 0 'host  .* ms queueing kernels; the device waits' -- "$bin" predict -n mobilenet_v2 -b 32 --hardware "$tmp/gpu.json" --gpus-per-node 1 --summary
# A remainder feature without the blocking it divides by is refused, naming the field.
/usr/bin/python3 -c "
import json,sys
p=json.load(open(sys.argv[1])); m=p['compute_regression'][0]
m['features'].append('n_block_remainder'); m['weights'].append(0.1); m['covariance']=[]; m['blocking']=0
json.dump(p,open(sys.argv[2],'w'))" "$tmp/both.json" "$tmp/noblock.json"
check profile_blocking_missing 1 'blocking.*must be positive' -- "$bin" predict -n resnet18 -b 2 --hardware "$tmp/noblock.json" --summary
# score: a generic fit priced on ResNet-18's own kernels (measured separately), per class and in all
resmeas="$src/tests/data/cpu-sample/torch_cpu_resnet18.jsonl"
check score 0 'all +regression' -- "$bin" score --hardware "$tmp/both.json" "$resmeas" --points "$tmp/score.csv"
"$bin" score --hardware "$tmp/both.json" "$resmeas" --json | /usr/bin/python3 -c '
import csv, json, sys
j = json.load(sys.stdin)
classes = {c["class"]: c for c in j["classes"]}
assert set(classes) >= {"conv_forward", "conv_backward_data", "conv_backward_filter", "all"}, classes.keys()
assert classes["all"]["count"] == sum(c["count"] for k, c in classes.items() if k != "all")
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == classes["all"]["count"]
assert abs(sum(float(r["predicted_s"]) for r in rows) - classes["all"]["predicted_s"]) < 1e-6 * classes["all"]["predicted_s"]
' "$tmp/score.csv" && echo "ok   score_json_points" || { echo "FAIL score_json_points"; fail=1; }
# One fit (fits are slow under the sanitizers) checks a per-class family and the per-image GEMM class.
check fit_family_class 0 'per_image_gemm +analytic' -- "$bin" fit "$torchmeas" --hardware cpu --family gemm=analytic --per-image-gemms -o "$tmp/fam.json"
/usr/bin/python3 -c "
import json,sys
p=json.load(open(sys.argv[1])); d=p['device']
assert all(m['class'] != 'gemm' for m in p['compute_regression'])
assert d['efficiency']['gemm']['residual_sigma'] > 0
assert d['pointwise_conv_gemm_below_batch'] == 16
assert 0 <= d['efficiency']['conv']['shared_sigma'] <= d['efficiency']['conv']['residual_sigma']" "$tmp/fam.json" \
  && echo "ok   fit_family_gemm_analytic" || { echo "FAIL fit_family_gemm_analytic"; fail=1; }
check fit_family_bad 1 "unknown kernel class 'pool'" -- "$bin" fit "$torchmeas" --family pool=analytic -o "$tmp/fam2.json"
head -1 "$meas" >"$tmp/context_only.jsonl"
check score_no_kernels 1 'no usable GEMM, convolution, memory-pass or all-reduce measurements' -- "$bin" score --hardware cpu "$tmp/context_only.jsonl"
check score_comm_no_models 1 'no fitted communication models to score all-reduce records' -- "$bin" score --hardware cpu "$meas"
check score_missing 1 'cannot open the measurement file' -- "$bin" score --hardware cpu /nonexistent/k.jsonl
check validate 1 'MAPE .* over 1 cases; run-to-run noise floor' -- "$bin" validate --hardware cpu --networks resnet18,nosuchnet --batch 2 --input 32 --iterations 2 --save-measured "$tmp/gt"
# The kept ground truth judges another profile on the very same runs.
[ -f "$tmp/gt/resnet18_b2_p1_train_run0.json" ] && [ -f "$tmp/gt/resnet18_b2_p1_train_run1.json" ] && echo "ok   validate_saved" || { echo "FAIL validate_saved"; fail=1; }
check validate_on_saved 0 'MAPE .* over 1 cases' -- "$bin" validate --hardware a100 --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt"
# torch_train.py times each phase of a training step apart; the saved runs carry them.
check validate_saved_phases 0 'phase MAPE: forward' -- "$bin" validate --hardware a100 --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt"
# An interrupted validation resumes: a case whose two runs are kept (and are the case asked for)
# is read back, any other is run again.
cp -r "$tmp/gt" "$tmp/gt_resume" && rm "$tmp/gt_resume/resnet18_b2_p1_train_run1.json"
check validate_resume_kept 0 'resnet18 .*\(kept\)' -- "$bin" validate --hardware cpu --networks resnet18 --batch 2 --input 32 --save-measured "$tmp/gt" --resume
check validate_resume_rerun 0 'resnet18_b2_p1_train_run1\.json: no measurement for this case; running the case again' -- \
  "$bin" validate --hardware cpu --networks resnet18 --batch 2 --input 32 --iterations 2 --save-measured "$tmp/gt_resume" --resume
[ -f "$tmp/gt_resume/resnet18_b2_p1_train_run1.json" ] && echo "ok   validate_resume_rerun_saved" || { echo "FAIL validate_resume_rerun_saved"; fail=1; }
check validate_resume_other_case 0 'measured with input \[32,32\], predicted with \[40,40\] \(--input\); running the case again' -- \
  "$bin" validate --hardware cpu --networks resnet18 --batch 2 --input 40 --iterations 2 --save-measured "$tmp/gt_resume" --resume
# Several batches: the pooled MAPE and each (batch, processes) apart.
kept16="$src/data/measurements/cpu-vm-2core/validation/ground_truth"
check validate_by_size 0 'batch 4, 1 process: MAPE [0-9.]+% over 2 cases, noise floor mean [0-9.]+%.*batch 16, 1 process: MAPE [0-9.]+% over 2 cases' -- \
  bash -c "'$bin' validate --hardware '$src/data/hardware/calibrated/cpu-vm-2core.json' --networks resnet18,mobilenet_v2 --batch 4,16 --input 64 --measured '$kept16' | tr '\n' ' '"
"$bin" validate --hardware "$src/data/hardware/calibrated/cpu-vm-2core.json" --networks resnet18 --batch 4 --input 64 --measured "$kept16" | grep -q "batch 4, 1 process:" \
  && { echo "FAIL validate_by_size_one"; fail=1; } || echo "ok   validate_by_size_one"
# The predicted-vs-measured plot beside the table, its data beside it; nothing on stderr in a pipe
# (progress draws on a terminal only).
"$bin" validate --hardware "$src/data/hardware/calibrated/cpu-vm-2core.json" --networks resnet18,mobilenet_v2 --batch 4,16 --input 64 --measured "$kept16" \
  --plot "$tmp/validation.png" > "$tmp/plot.txt" 2> "$tmp/plot.err" \
  && [ -s "$tmp/validation.png" ] && /usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert len([c for c in j["cases"] if c["status"] == "ok"]) == 4, j["cases"]
' "$tmp/validation.png.json" && ! grep -q 'left' "$tmp/plot.err" \
  && echo "ok   validate_plot" || { echo "FAIL validate_plot: $(cat "$tmp/plot.err")"; fail=1; }
check validate_resume_needs_dir 2 'requires --save-measured' -- "$bin" validate --hardware cpu --networks resnet18 --batch 2 --resume
# A fitted profile keeps reference kernels; validate re-times them beside the cases and keeps them
# with the ground truth (one live check; judged on runs kept without them, it says so).
check validate_drift 0 'reference kernels take [0-9.]+x their calibrated time' -- "$bin" validate --hardware "$tmp/both.json" --networks resnet18 --batch 2 --input 32 --iterations 2 --save-measured "$tmp/gt3"
[ -s "$tmp/gt3/reference_kernels.jsonl" ] && echo "ok   validate_drift_saved" || { echo "FAIL validate_drift_saved"; fail=1; }
# The same runs judged again: each prediction also at the machine's speed then (x the reference
# kernels' median ratio), beside the plain error.
"$bin" validate --hardware "$tmp/both.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt3" --json > "$tmp/drift.json"
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); c = j["cases"][0]; d = j["machine_drift"]["median_ratio"]
expected = 100 * (d * c["predicted_s"] - c["measured_s"]) / c["measured_s"]
assert abs(c["drift_adjusted_error_percent"] - expected) < 1e-6 * max(1, abs(expected)), (c, d)
assert abs(j["drift_adjusted_error_percent"]["mean"] - abs(expected)) < 1e-6 * max(1, abs(expected))
assert abs(c["error_percent"] - 100 * (c["predicted_s"] - c["measured_s"]) / c["measured_s"]) < 1e-6 * max(1, abs(c["error_percent"]))
' "$tmp/drift.json" && echo "ok   validate_drift_adjusted" || { echo "FAIL validate_drift_adjusted"; fail=1; }
check validate_drift_not_kept 0 'machine against its calibration: unknown .*not kept with this ground truth' -- "$bin" validate --hardware "$tmp/both.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt"
# Memory passes beside the kernels: fit keeps the calibration's plain memory passes over 16 MiB
# and more at their measured times; validate times them again with the reference kernels and
# reports their ratio apart (memory can slow where arithmetic does not).
memfile="$src/tests/data/cpu-sample/torch_cpu_memory.jsonl"
check fit_reference_passes 0 'wrote' -- "$bin" fit "$torchmeas" "$memfile" --hardware cpu -o "$tmp/mem.json"
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("type") == "record" and r["op"].startswith("memory_") and list(r["params"]) == ["bytes"] and r["params"]["bytes"] >= 16 << 20:
        want.setdefault((r["op"], r["params"]["bytes"]), r["seconds"]["median"])
got = {(x["op"], x["bytes"]): x["seconds"] for x in p["reference_passes"]}
assert got == want and len(got) == 8, (got, want)
p["reference_passes"] = [x for x in p["reference_passes"] if x["bytes"] == 16 << 20][:2]
json.dump(p, open(sys.argv[3], "w"))' "$tmp/mem.json" "$memfile" "$tmp/mem2.json" \
  && echo "ok   fit_reference_passes_kept" || { echo "FAIL fit_reference_passes_kept"; fail=1; }
check validate_memory_drift 0 'and its 2 memory passes over 16 MiB and more [0-9.]+x \(10-90%: [0-9.]+-[0-9.]+x; slowest memory_[a-z]+ over 16 MiB' -- \
  "$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --iterations 2 --save-measured "$tmp/gt4"
# Kept records of the passes at 2x and 3x their calibrated time: the median and the slowest named.
mkdir -p "$tmp/gt5" && cp "$tmp"/gt4/resnet18_*.json "$tmp/gt5/"
/usr/bin/python3 -c '
import json, sys
passes = {x["op"]: x["seconds"] for x in json.load(open(sys.argv[1]))["reference_passes"]}
with open(sys.argv[3], "w") as out:
    for line in open(sys.argv[2]):
        r = json.loads(line)
        if r.get("type") == "record" and r["op"] in passes:
            r["seconds"]["median"] = passes[r["op"]] * (3 if r["op"] == "memory_elementwise" else 2)
        out.write(json.dumps(r) + "\n")' "$tmp/mem2.json" "$tmp/gt4/reference_kernels.jsonl" "$tmp/gt5/reference_kernels.jsonl"
"$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt5" --json > "$tmp/memdrift.json"
/usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["machine_drift"]["memory_passes"]
assert m["passes"] == 2 and abs(m["p10_ratio"] - 2) < 1e-9 and abs(m["median_ratio"] - 3) < 1e-9, m
assert m["slowest"] == {"pass": "memory_elementwise over 16 MiB", "ratio": m["slowest"]["ratio"]} and abs(m["slowest"]["ratio"] - 3) < 1e-9, m' "$tmp/memdrift.json" \
  && echo "ok   validate_memory_drift_kept" || { echo "FAIL validate_memory_drift_kept"; fail=1; }
check validate_memory_not_kept 0 'its 2 memory passes: not timed with this ground truth' -- "$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt3"
# Each run also timed the profile's references beside its iterations: per kernel class all but
# the shortest and the longest, the passes at the smallest size no slower than four copies.
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
want = []
classes = {}
for k in p["reference_kernels"]:
    classes.setdefault(k["op"], []).append(k)
for op, ks in classes.items():
    ks.sort(key=lambda k: k["seconds"])
    trim = 1 if len(ks) > 2 else 0
    want += [(k["op"], k["params"]) for k in ks[trim:len(ks) - trim]]
small = min(x["bytes"] for x in p["reference_passes"])
copy = [x["seconds"] for x in p["reference_passes"] if x["bytes"] == small and x["op"] == "memory_copy"]
want += [(x["op"], {"bytes": x["bytes"]}) for x in p["reference_passes"] if x["bytes"] == small and (not copy or x["seconds"] <= 4 * copy[0])]
for run in (0, 1):
    got = json.load(open(f"{sys.argv[2]}/resnet18_b2_p1_train_run{run}.json"))["reference"]
    assert sorted(json.dumps(g, sort_keys=True) for g in [(x["op"], x["params"]) for x in got]) == sorted(json.dumps(w, sort_keys=True) for w in want), (got, want)
    assert all(x["before_s"] > 0 and x["after_s"] > 0 for x in got)' "$tmp/mem2.json" "$tmp/gt4" \
  && echo "ok   validate_run_reference_kept" || { echo "FAIL validate_run_reference_kept"; fail=1; }
check validate_run_speed 0 "resnet18 +2 +1 .* [0-9.]+x.*each case at its own runs' speed \(column speed: .*\): MAPE [0-9.]+%" -- \
  bash -c "'$bin' validate --hardware '$tmp/mem2.json' --networks resnet18 --batch 2 --input 32 --measured '$tmp/gt4' | tr '\n' ' '"
# The same runs with their references at known speeds: kernels at 2x their calibrated time in
# run 0 and 4x in run 1, passes at 3x: the case's factor weighs 3x and 3x by the step's share of
# GEMMs and convolutions, and its error is the prediction's at that factor.
mkdir -p "$tmp/gt6"
/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
then = {json.dumps([k["op"], k["params"]], sort_keys=True): k["seconds"] for k in p["reference_kernels"]}
passes = {(x["op"], x["bytes"]): x["seconds"] for x in p["reference_passes"]}
for run, kernel_speed in ((0, 2), (1, 4)):
    j = json.load(open(f"{sys.argv[2]}/resnet18_b2_p1_train_run{run}.json"))
    for x in j["reference"]:
        base = passes[(x["op"], x["params"]["bytes"])] * 3 if x["op"].startswith("memory_") else then[json.dumps([x["op"], x["params"]], sort_keys=True)] * kernel_speed
        x["before_s"] = x["after_s"] = base
    json.dump(j, open(f"{sys.argv[3]}/resnet18_b2_p1_train_run{run}.json", "w"))' "$tmp/mem2.json" "$tmp/gt4" "$tmp/gt6"
"$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt6" --json > "$tmp/runspeed.json"
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); c = j["cases"][0]; d = c["run_drift"]
close = lambda a, b: abs(a - b) < 1e-9 * max(1, abs(b))
assert close(d["runs"][0], 2) and close(d["runs"][1], 4) and close(d["kernels"], 3) and close(d["passes"], 3), d
assert 0 < d["arithmetic_share"] <= 1 and close(d["factor"], 3), d
expected = 100 * (3 * c["predicted_s"] - c["measured_s"]) / c["measured_s"]
assert close(c["run_drift_adjusted_error_percent"], expected), (c, expected)
assert close(j["run_drift_adjusted_error_percent"]["mean"], abs(expected)) and close(j["run_drift_factor"]["min"], 3), j["run_drift_factor"]' "$tmp/runspeed.json" \
  && echo "ok   validate_run_speed_factor" || { echo "FAIL validate_run_speed_factor"; fail=1; }
# Runs timed without references (older ground truth, --no-run-reference): no speed, said so by a dash.
check validate_run_speed_unknown 0 'resnet18 +2 +1 .* +- *$' -- "$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt"
"$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --iterations 2 --no-run-reference --save-measured "$tmp/gt7" > /dev/null
/usr/bin/python3 -c '
import json, sys
assert "reference" not in json.load(open(sys.argv[1] + "/resnet18_b2_p1_train_run0.json"))' "$tmp/gt7" \
  && echo "ok   validate_no_run_reference" || { echo "FAIL validate_no_run_reference"; fail=1; }
# Which CPU: fit keeps the CPU its files' context lines name (the one most records ran on, with a
# warning where they name several); validate compares it with the CPU the ground truth ran on.
/usr/bin/python3 -c '
import json, sys
for path, family, keep in ((sys.argv[2], 25, None), (sys.argv[3], 26, 3)):
    with open(path, "w") as out:
        kept = 0
        for line in open(sys.argv[1]):
            r = json.loads(line)
            if r.get("type") == "context":
                r["cpu"] = {"vendor": "AuthenticAMD", "name": "AMD EPYC", "family": family, "model": 17, "isa": ["avx2"]}
                r["libraries"]["allocator"] = "heap only" if family == 25 else "mapped afresh"
            elif keep is not None:
                kept += 1
                if kept > keep: continue
            out.write(json.dumps(r) + "\n")' "$memfile" "$tmp/mem_f25.jsonl" "$tmp/mem_f26.jsonl"
check fit_measured_on 0 'measured on: AMD EPYC \(AuthenticAMD family 25 model 17\), AVX2' -- "$bin" fit "$tmp/mem_f25.jsonl" --hardware cpu -o "$tmp/f25.json"
/usr/bin/python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["measured_on"] == {"cpu": {"vendor": "AuthenticAMD", "name": "AMD EPYC", "family": 25, "model": 17, "isa": ["avx2"]},
                                                      "allocator": "heap only"}' "$tmp/f25.json" \
  && echo "ok   fit_measured_on_kept" || { echo "FAIL fit_measured_on_kept"; fail=1; }
out=$("$bin" fit "$tmp/mem_f26.jsonl" "$tmp/mem_f25.jsonl" --hardware cpu -o "$tmp/f2526.json" 2>&1)
grep -q 'these files ran on 2 different CPUs' <<<"$out" \
  && grep -qE 'family 25 model 17\), AVX2: [0-9]+ records \(mem_f25.jsonl\); the profile names this one$' <<<"$out" \
  && grep -qE 'family 26 model 17\), AVX2: 3 records \(mem_f26.jsonl\)$' <<<"$out" \
  && grep -q 'these files ran with 2 different allocator policies' <<<"$out" \
  && grep -qE "'heap only': [0-9]+ records \(mem_f25.jsonl\); the profile names this one$" <<<"$out" \
  && echo "ok   fit_two_cpus" || { echo "FAIL fit_two_cpus"; echo "$out" | head -5; fail=1; }
check fit_bad_cpu 1 "mem_bad.jsonl: a context line.s cpu: field 'family' must be an integer" -- sh -c "sed 's/\"family\": 25/\"family\": \"zen\"/' '$tmp/mem_f25.jsonl' > '$tmp/mem_bad.jsonl' && '$bin' fit '$tmp/mem_bad.jsonl' --hardware cpu"
# The runs kept in gt4 ran here and name this CPU: a profile naming it is on its own CPU, one naming
# another family is not, and one naming none cannot tell.
/usr/bin/python3 -c '
import json, sys
cpu = json.load(open(sys.argv[2] + "/resnet18_b2_p1_train_run0.json"))["cpu"]
p = json.load(open(sys.argv[1]))
p["measured_on"] = {"cpu": cpu}
json.dump(p, open(sys.argv[3], "w"))
p["measured_on"]["cpu"]["family"] = cpu["family"] + 1
json.dump(p, open(sys.argv[4], "w"))
p["measured_on"] = {"cpu": cpu, "allocator": "glibc defaults"}
json.dump(p, open(sys.argv[5], "w"))' "$tmp/mem2.json" "$tmp/gt4" "$tmp/cpu_same.json" "$tmp/cpu_other.json" "$tmp/alloc_other.json"
check validate_cpu_same 0 'CPU: the runs ran on the CPU the profile was calibrated on' -- "$bin" validate --hardware "$tmp/cpu_same.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4"
check validate_cpu_other 0 'CPU: the profile was calibrated on .*, the runs ran on .*\(family [0-9]+ -> [0-9]+\): its figures carry over only as far' -- \
  "$bin" validate --hardware "$tmp/cpu_other.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4"
"$bin" validate --hardware "$tmp/cpu_other.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4" --json > "$tmp/cpu_other_out.json"
/usr/bin/python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cpu"]
assert c["same"] is False and len(c["ground_truth"]) == 1 and c["differences"] == ["family %d -> %d" % (c["profile"]["family"], c["ground_truth"][0]["family"])], c' "$tmp/cpu_other_out.json" \
  && echo "ok   validate_cpu_other_json" || { echo "FAIL validate_cpu_other_json"; fail=1; }
# The allocator policy too: one the runs did not run with is named beside theirs.
check validate_allocator_other 0 "allocator: the profile.s measurements ran with .glibc defaults., the runs with .glibc, every block from the heap" -- \
  "$bin" validate --hardware "$tmp/alloc_other.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4"
"$bin" validate --hardware "$tmp/cpu_same.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4" --json > "$tmp/alloc_unknown_out.json"
"$bin" validate --hardware "$tmp/alloc_other.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4" --json > "$tmp/alloc_other_out.json"
/usr/bin/python3 -c '
import json, sys
unknown, other = (json.load(open(f))["allocator"] for f in sys.argv[1:])
assert unknown["same"] is None and unknown["profile"] is None and len(unknown["ground_truth"]) == 1, unknown
assert other["same"] is False and other["profile"] == "glibc defaults" and other["ground_truth"] == unknown["ground_truth"], other' \
  "$tmp/alloc_unknown_out.json" "$tmp/alloc_other_out.json" \
  && echo "ok   validate_allocator_json" || { echo "FAIL validate_allocator_json"; fail=1; }
check validate_cpu_unknown 0 "CPU: the runs ran on .*; profile '.*' does not name the CPU it was calibrated on" -- "$bin" validate --hardware "$tmp/mem2.json" --networks resnet18 --batch 2 --input 32 --measured "$tmp/gt4"
check validate_save_and_measured 2 'excludes' -- "$bin" validate --hardware cpu --networks resnet18 --batch 2 --measured "$tmp/gt" --save-measured "$tmp/gt2"
check validate_failed_case 1 "nosuchnet .*FAILED: unknown network 'nosuchnet'" -- "$bin" validate --hardware cpu --networks resnet18,nosuchnet --batch 2 --input 32 --iterations 2
check fitted_profile_predicts 0 'iteration' -- "$bin" predict -n resnet18 -b 2 --hardware "$tmp/fitted.json" --summary
check predict_library_missing 1 "no fitted allreduce model of gloo's own choice .*torch_comm_bench" -- "$bin" predict -n resnet18 -b 2 --gpus-per-node 2 --hardware "$tmp/fitted.json" --allreduce gloo
check predict_library_uncalibrated 1 'no fitted communication models' -- "$bin" predict -n resnet18 -b 2 --hardware cpu --allreduce gloo
# torch.distributed's own all-reduce, measured through gloo on 2 processes, fitted beside MPI's
if /usr/bin/python3 -c "import torch.distributed as d; assert d.is_gloo_available()" 2>/dev/null; then
  sizes=4,64,1024,16384,65536,262144,1048576
  check torch_comm_bench 0 'records in' -- /usr/bin/python3 "$src/scripts/torch_comm_bench.py" --procs 2 --sizes $sizes --target 0.02 -o "$tmp/gloo.jsonl"
  check torch_comm_bench_exists 1 'exists already; pass --resume' -- /usr/bin/python3 "$src/scripts/torch_comm_bench.py" --procs 2 --sizes 4 -o "$tmp/gloo.jsonl"
  check torch_comm_bench_one_proc 1 'at least 2' -- /usr/bin/python3 "$src/scripts/torch_comm_bench.py" --procs 1 -o "$tmp/gloo1.jsonl"
  /usr/bin/python3 -c "
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if '\"record\"' in l]
assert len(r) == 7 and all(x['verified'] and x['algorithm'] == 'gloo:default' and x['layout']['ranks'] == 2 for x in r), r
" "$tmp/gloo.jsonl" && echo "ok   torch_comm_bench_records" || { echo "FAIL torch_comm_bench_records"; fail=1; }
  check fit_gloo 0 'gloo:default' -- "$bin" fit "$tmp/gloo.jsonl" "$meas" --hardware cpu -o "$tmp/gloo.json"
  "$bin" comm --hardware "$tmp/gloo.json" --bytes 65536 --procs 2 --algorithm gloo --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["algorithm"] == "gloo:default" and j["seconds"] > 0, j
' && echo "ok   comm_gloo" || { echo "FAIL comm_gloo"; fail=1; }
  "$bin" predict -n resnet18 -b 2 --input 32 --gpus-per-node 2 --hardware "$tmp/gloo.json" --allreduce gloo --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert list(j["allreduce_algorithms"]) == ["gloo:default"], j["allreduce_algorithms"]
' && echo "ok   predict_gloo" || { echo "FAIL predict_gloo"; fail=1; }
  "$bin" predict -n resnet18 -b 2 --input 32 --gpus-per-node 2 --hardware "$tmp/gloo.json" --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert "gloo:default" not in j["allreduce_algorithms"], j["allreduce_algorithms"]  # best: only algorithms dnnperf can run
' && echo "ok   predict_best_skips_library" || { echo "FAIL predict_best_skips_library"; fail=1; }
else
  echo "skip torch_comm_bench: no torch.distributed with gloo for /usr/bin/python3"
fi
rm -rf "$tmp"
"$bin" predict -n bert-base --hardware h100 -b 16 --nodes 4 --dtype bf16 --optimizer adam --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
for key in ("iteration_s", "samples_per_s", "compute_s", "comm_exposed_s", "memory_per_device_bytes", "fits_in_memory", "layers"):
    assert key in j, key
assert j["devices"] == 32 and j["global_batch"] == 512
assert j["iteration_s"] >= j["compute_s"] > 0
assert all("forward_s" in l and "backward_s" in l and "name" in l for l in j["layers"])
' && echo "ok   predict_json" || { echo "FAIL predict_json"; fail=1; }
csv=$(mktemp --suffix=.csv)
"$bin" scale -n resnet18 --hardware a100 -b 64 --nodes 1..4096 --csv "$csv" --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
assert len(j["points"]) == 13
assert j["points"][0]["speedup"] == 1.0
' && [ "$(wc -l < "$csv")" -eq 14 ] && echo "ok   scale_json_csv" || { echo "FAIL scale_json_csv"; fail=1; }
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  png="${csv%.csv}.png"
  /usr/bin/python3 "$src/scripts/plot_scaling.py" "$csv" -o "$png" >/dev/null && [ -s "$png" ] && echo "ok   plot" || { echo "FAIL plot"; fail=1; }
fi
rm -f "$csv" "${csv%.csv}.png"
# dnnperf schedule: every method's schedule is checked by the command itself (it exits non-zero on
# an invalid one); here: the table, the JSON placements re-checked independently, bad input.
plat="$src/data/platforms/cpu-v100-a100.json"
check schedule_table 0 'split +[0-9.]+ (ms|us)' -- "$bin" schedule -n "randwire-ba:nodes=6,stages=1" --batch 2 --platform "$plat" --time-limit 3
check schedule_throughput 0 'inferences/s' -- "$bin" schedule -n resnet18 --platform "$plat" --objective throughput --coarsen 20 --method heft,split --time-limit 3
check schedule_symmetric 0 'identical layers' -- "$bin" schedule -n "gpt:layers=8,hidden=1024,heads=16" --seq 128 --platform "$src/data/platforms/dgx-h100-a100.json" --objective throughput --method symmetric --time-limit 3
check schedule_no_platform 1 'cannot open' -- "$bin" schedule -n resnet18 --platform /nonexistent.json
check schedule_bad_method 1 "unknown method 'fastest'" -- "$bin" schedule -n resnet18 --platform "$plat" --method fastest
check schedule_bad_objective 1 "objective" -- "$bin" schedule -n resnet18 --platform "$plat" --objective energy
check schedule_symmetric_cnn 1 'no repeated layers' -- "$bin" schedule -n alexnet --platform "$src/data/platforms/dgx-h100-a100.json" --method symmetric
tmp=$(mktemp -d)
cat > "$tmp/tiny.json" <<'JSON'
{"format": "dnnperf.platform", "version": 1, "name": "tiny", "servers": [{"name": "s", "devices": [
  {"name": "cpu", "hardware": "cpu", "memory_bytes": 2e8}, {"name": "gpu", "hardware": "v100", "memory_bytes": 2e8}],
  "links": [{"between": ["cpu", "gpu"], "bandwidth": 1e10}]}]}
JSON
check schedule_memory 1 'cannot hold network' -- "$bin" schedule -n vgg16 --platform "$tmp/tiny.json"
cat > "$tmp/split.json" <<'JSON'
{"format": "dnnperf.platform", "version": 1, "name": "split", "servers": [{"name": "s", "devices": [
  {"name": "cpu", "hardware": "cpu"}, {"name": "gpu", "hardware": "v100"}]}]}
JSON
check schedule_disconnected 1 'no link path' -- "$bin" schedule -n resnet18 --platform "$tmp/split.json"
"$bin" schedule -n "randwire-er:nodes=8,stages=1" --batch 4 --platform "$plat" --coarsen 30 --time-limit 3 -o "$tmp/s.json" >/dev/null &&
/usr/bin/python3 - "$tmp/s.json" <<'PY' && echo "ok   schedule_json_independent_check" || { echo "FAIL schedule_json_independent_check"; fail=1; }
import json, sys
doc = json.load(open(sys.argv[1]))
tasks, devices = doc["tasks"], [d["name"] for d in doc["devices"]]
assert {m["method"] for m in doc["methods"]} == {"single", "greedy", "heft", "cpop", "split", "milp"}
for m in doc["methods"]:
    assert m["found"] and m["valid"], m["method"]
    pl = {p["task"]: p for p in m["placements"]}
    assert len(pl) == len(tasks)
    for i, t in enumerate(tasks):
        p = pl[i]
        cost = t["seconds"][devices.index(p["device"])]
        assert cost is not None
        assert p["finish_s"] - p["start_s"] >= cost * (1 - 1e-9) or "with" in p, (m["method"], i)
        for e in t["inputs"]:  # transfers cost something, so a consumer starts no earlier than its producer ends
            assert p["start_s"] >= pl[e["task"]]["finish_s"] - 1e-12, (m["method"], i)
    assert abs(max(p["finish_s"] for p in pl.values()) - m["makespan_s"]) < 1e-12
    assert m["makespan_s"] >= doc["lower_bound"]["value_s"] * (1 - 1e-9)
PY
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  /usr/bin/python3 "$src/scripts/plot_gantt.py" "$tmp/s.json" -o "$tmp/g.png" >/dev/null && [ -s "$tmp/g.png" ] && echo "ok   gantt" || { echo "FAIL gantt"; fail=1; }
fi
rm -rf "$tmp"
# dnnperf calibrate: bad input is refused before anything is measured.
check calibrate_bad_backend 1 "unknown backend 'jax'" -- "$bin" calibrate --backend jax -o /tmp/dnnperf_cal.json
check calibrate_bad_device 1 "unknown device 'tpu'" -- "$bin" calibrate --device tpu -o /tmp/dnnperf_cal.json
check calibrate_no_python 1 'cannot import torch' -- "$bin" calibrate --python /nonexistent/python3 -o /tmp/dnnperf_cal.json --work /tmp/dnnperf_cal_work
check calibrate_networks_need_batch 1 'networks needs --batch' -- "$bin" calibrate --networks resnet18 -o /tmp/dnnperf_cal.json --work /tmp/dnnperf_cal_work
check calibrate_bad_procs 2 "--procs: must be a positive number, is 'x'" -- "$bin" calibrate --procs 2,x -o /tmp/dnnperf_cal.json
check calibrate_cuda_needs_profile 1 'hardware' -- "$bin" calibrate --device cuda -o /tmp/dnnperf_cal.json
rm -rf /tmp/dnnperf_cal_work
# validate --measured: ground truth from elsewhere; a missing case is marked, not fatal to the others.
mdir=$(mktemp -d)
echo '{"median_s": 0.05, "min_s": 0.049}' > "$mdir/resnet18_b4_p1_train_run0.json"
echo '{"median_s": 0.051, "min_s": 0.05}' > "$mdir/resnet18_b4_p1_train_run1.json"
check validate_measured 0 'resnet18 .* 50\.5' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --measured "$mdir"
check validate_measured_missing 1 'no measurement for this case' -- "$bin" validate --hardware cpu --networks resnet18 --batch 8 --input 64 --measured "$mdir"
check validate_no_phases 0 'per phase: not timed in these runs' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --measured "$mdir"
# Runs that timed each phase: a second table, and in JSON each phase's prediction and error; the
# predicted phases add up to the predicted step.
phases='"phases": {"forward": {"median_s": 0.02, "min_s": 0.019}, "backward": {"median_s": 0.027, "min_s": 0.026}, "update": {"median_s": 0.003, "min_s": 0.003}}'
echo "{\"median_s\": 0.05, \"min_s\": 0.049, $phases}" > "$mdir/resnet18_b4_p1_train_run0.json"
echo "{\"median_s\": 0.051, \"min_s\": 0.05, $phases}" > "$mdir/resnet18_b4_p1_train_run1.json"
check validate_phases 0 'phase MAPE: forward .*%, backward .*%, update .*% over 1 cases' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --measured "$mdir"
"$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --measured "$mdir" --json | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)["cases"][0]
ph = c["phases"]
assert abs(ph["forward"]["measured_s"] - 0.02) < 1e-12 and abs(ph["update"]["measured_s"] - 0.003) < 1e-12, ph
assert abs(sum(ph[k]["predicted_s"] for k in ("forward", "backward", "update")) - c["predicted_s"]) < 1e-9 * c["predicted_s"], ph
assert all(ph[k]["predicted_s"] > 0 for k in ph), ph
f = ph["forward"]; assert abs(f["error_percent"] - 100 * (f["predicted_s"] - 0.02) / 0.02) < 1e-9, f
' && echo "ok   validate_phases_json" || { echo "FAIL validate_phases_json"; fail=1; }
# Coverage is reported with the width that bought it.
"$bin" validate --hardware "$src/data/hardware/calibrated/cpu-vm-2core.json" --networks resnet18 --batch 4 --input 64 --measured "$mdir" --json | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin); c = j["cases"][0]; w = j["interval_width_percent"]
below, above = 100 * (1 - c["predicted_low_s"] / c["predicted_s"]), 100 * (c["predicted_high_s"] / c["predicted_s"] - 1)
assert below > 0 and above > 0 and abs(w["below"]["mean"] - below) < 1e-9 and abs(w["above"]["mean"] - above) < 1e-9, (w, below, above)
' && echo "ok   validate_interval_width" || { echo "FAIL validate_interval_width"; fail=1; }
echo '{"median_s": 0.05, "min_s": 0.049, "phases": {"forward": {"median_s": 0.02}}}' > "$mdir/resnet18_b4_p1_train_run1.json"
check validate_phases_bad 1 'resnet18_b4_p1_train_run1.json: not a torch_train.py result' -- "$bin" validate --hardware cpu --networks resnet18 --batch 4 --input 64 --measured "$mdir"
rm -rf "$mdir"
check shapes_zoo_image 0 '"h":64,' -- "$bin" bench conv --shapes zoo:resnet18@64 --batch 4 --list-shapes
check shapes_zoo_bad_image 1 "image size after '@'" -- "$bin" bench conv --shapes zoo:resnet18@big --list-shapes
exit $fail
