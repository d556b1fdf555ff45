#!/usr/bin/env bash
# Executes dnnperf's heterogeneous schedules for real on a machine's CPU and GPU with PyTorch and
# compares measured with predicted latency (under 5 minutes). Needs .device/schedule/ from
# scripts/device/prepare_schedule_check.sh (run here first).
#
#   scripts/gpu_schedule_check.sh [OUT_DIR]      (default: $OUT, else ./schedule-check)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-schedule-check}}
mkdir -p "$out"
exec > >(tee "$out/gpu_schedule_check.log") 2>&1
dir=.device/schedule
[ -d "$dir" ] || { echo "missing $dir: run scripts/device/prepare_schedule_check.sh first"; exit 2; }
python=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import torch" 2>/dev/null && python=/usr/bin/python3
$python -c "import torch; assert torch.cuda.is_available(), 'no GPU'; print('gpu', torch.cuda.get_device_name(0), 'torch', torch.__version__)" \
  || { echo "no usable GPU: nothing to check"; exit 77; }
status=0
for m in resnet50_eval_op13 inception_v3_eval_op13; do
  echo "== $m"
  timeout 120 $python scripts/run_schedule_torch.py --onnx "$dir/$m.pt" --schedule "$dir/$m.schedule.json" \
    --devices cpu=cpu,h200=cuda:0 --methods single,heft,cpop,split --repeats 30 --warmup 5 -o "$out/$m.result.json" || status=1
  cp "$dir/$m.schedule.json" "$out/"
done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/gpu.csv" 2>/dev/null || true
exit $status
