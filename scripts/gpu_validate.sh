#!/usr/bin/env bash
# Ground truth for `dnnperf validate` on a GPU (under 8 minutes): real PyTorch training iterations
# and inferences of the validation networks on the GPU, two runs per case, written where
# `dnnperf validate --measured DIR` reads them. dnnperf itself is not needed there (the GPU
# machines lent for measurement cannot build it); the comparison runs here afterwards:
#
#   on the GPU machine:  scripts/gpu_validate.sh [OUT_DIR]          (default: $OUT, else ./gpu-validation)
#   back here:           build/bin/dnnperf validate --hardware h200 --networks resnet50,... --batch 32,128 \
#                            --input 224,224 --measured OUT_DIR/measured
#
# Cases: CNNs at 224x224 and the transformer encoder at 128 tokens, batches 32 and 128, training
# and inference; each run 20 timed iterations after warm-up. A case that fails is logged and the
# others still run. NETWORKS, BATCHES and MODES ("train inference") narrow the cases; DTYPES
# ("fp32" by default; tf32, fp16, bf16: `validate --dtype`) adds precisions, whose files are
# named NETWORK_bB_p1_DTYPE_MODE_runR.json (bert-base and bert-large run too, at 128 tokens).
# With PROFILE=path/to/calibrated.json (a profile fitted on this GPU, carried in
# the tree), its reference kernels are timed again after the cases (measured/reference_kernels.jsonl):
# `validate --measured` then reports the machine's drift since that calibration.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-validation}}
mkdir -p "$out/measured"
exec > >(tee -a "$out/gpu_validate.log") 2>&1  # appended: a second call (another DTYPES) keeps the first's
python=python3
/usr/bin/python3 -c "import torch, torchvision" 2>/dev/null && python=/usr/bin/python3
$python -c "import torch; assert torch.cuda.is_available(); print('gpu', torch.cuda.get_device_name(0), 'torch', torch.__version__)" \
  || { echo "no usable GPU: nothing to measure"; exit 77; }
start=$(date +%s)
networks=${NETWORKS:-resnet18,resnet50,vgg11,mobilenet_v2,densenet121,inception_v3,alexnet,transformer_encoder}
batches=${BATCHES:-32,128}
budget=${BUDGET_S:-420}
failed=0
for dtype in ${DTYPES:-fp32}; do
for mode in ${MODES:-train inference}; do
  for net in ${networks//,/ }; do
    for b in ${batches//,/ }; do
      if [ $(( $(date +%s) - start )) -gt "$budget" ]; then echo "time budget reached; stopping"; break 4; fi
      stem="${net}_b${b}_p1_${mode}"; [ "$dtype" != fp32 ] && stem="${net}_b${b}_p1_${dtype}_${mode}"
      input=224,224; [ "$net" = inception_v3 ] && input=299,299
      for run in 0 1; do
        flags=(--dtype "$dtype"); [ "$mode" = inference ] && flags+=(--inference)
        if ! timeout 120 $python scripts/torch_train.py --network "$net" --batch "$b" --input "$input" --seq 128 --device cuda \
             --iterations 20 --warmup 5 "${flags[@]}" -o "$out/measured/${stem}_run${run}.json"; then
          echo "FAILED: $stem run $run"; failed=$((failed + 1))
        fi
      done
      [ -f "$out/measured/${stem}_run0.json" ] && $python -c "import json,sys; j=json.load(open(sys.argv[1])); print(f'{sys.argv[2]}: median {j[\"median_s\"]*1e3:.2f} ms')" "$out/measured/${stem}_run0.json" "$stem"
    done
  done
done
done
if [ -n "${PROFILE:-}" ]; then
  if $python -c "import json,sys; k=json.load(open(sys.argv[1])).get('reference_kernels', []); assert k; json.dump(k, open(sys.argv[2], 'w'))" \
       "$PROFILE" "$out/reference_list.json" 2>/dev/null; then
    timeout 120 $python scripts/torch_bench.py --kernels "$out/reference_list.json" --cold --device cuda -o "$out/measured/reference_kernels.jsonl" \
      || echo "FAILED: re-timing the reference kernels of $PROFILE"
  else
    echo "$PROFILE: no reference kernels to time (a profile from dnnperf fit has them)"
  fi
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv > "$out/gpu.csv" 2>/dev/null || true
echo "done in $(( $(date +%s) - start )) s, $failed failed runs"
