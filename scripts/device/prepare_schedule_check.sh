#!/usr/bin/env bash
# Run here, before the device call for scripts/gpu_schedule_check.sh: exports the models to ONNX,
# schedules them on data/platforms/h200-host.json with dnnperf (which the GPU machine cannot
# build), and stores models as torch bundles (the GPU machine has no onnx package) in
# .device/schedule/, which the call carries:
#   run(command="scripts/gpu_schedule_check.sh", carry=[".device"])
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.device/schedule
mkdir -p "$dir"
/usr/bin/python3 scripts/export_onnx.py --skip-existing "$dir" resnet50_eval_op13 inception_v3_eval_op13
for m in resnet50_eval_op13 inception_v3_eval_op13; do
  /usr/bin/python3 scripts/run_schedule_torch.py --bundle "$dir/$m.onnx" "$dir/$m.pt"
  build/bin/dnnperf schedule -n "$dir/$m.onnx" --platform data/platforms/h200-host.json --method single,greedy,heft,cpop,split \
    --time-limit 30 -o "$dir/$m.schedule.json" | tail -8
done
rm -f "$dir"/*.onnx
echo "prepared $dir ($(du -sh "$dir" | cut -f1))"
