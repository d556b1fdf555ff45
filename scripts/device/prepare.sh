#!/usr/bin/env bash
# Run here, before a device call: gathers what the GPU machine lacks into .device/ (git-ignored),
# which the call carries: nlohmann/json's header (the C++ measurement programs) and, from this
# build's dnnperf, the kernel lists the PyTorch backend times there (dnnperf itself cannot be
# built there):
#   kernels/sample.json  the generic set `dnnperf calibrate --device cuda` measures (sample:600:1:200)
#   kernels/exact.json   the anchor kernels (anchors:200, inside the sample: fit puts the two files on
#                        one speed by them), then the GEMMs and convolutions of scripts/gpu_validate.sh's
#                        networks at batch 32 (the transformer encoder at its zoo default of 128
#                        tokens, as gpu_validate.sh runs it)
#   networks/*.pt        the composition networks (scripts/export_onnx.py composition) as bundles
#                        torch_train.py trains without the onnx package; their ONNX files stay in
#                        .device-onnx/ here, for `dnnperf fit --steps ... --step-networks .device-onnx`
# Then: run(command="scripts/gpu_calibrate.sh", carry=[".device"]) or scripts/device/gpu_lease.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
dnnperf=${DNNPERF:-build/bin/dnnperf}
mkdir -p .device/include .device/kernels
cp -r /usr/include/nlohmann .device/include/
if [ -x "$dnnperf" ]; then
  "$dnnperf" bench gemm --shapes sample:600:1:200 --list-shapes > .device/kernels/sample.json
  { "$dnnperf" bench gemm --shapes anchors:200 --list-shapes
    for spec in resnet18@224 resnet50@224 vgg11@224 mobilenet_v2@224 densenet121@224 alexnet@224 inception_v3@299 transformer_encoder; do
      "$dnnperf" bench gemm --shapes "zoo:$spec" --batch 32 --list-shapes
    done; } | /usr/bin/python3 -c '
import json, sys
decoder, text, seen, kernels = json.JSONDecoder(), sys.stdin.read(), set(), []
i = 0
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    part, i = decoder.raw_decode(text, i)
    for k in part:
        key = json.dumps(k, sort_keys=True)
        if key not in seen:
            seen.add(key)
            kernels.append(k)
json.dump(kernels, open(".device/kernels/exact.json", "w"))
print(f"exact kernels: {len(kernels)}")'
else
  echo "no $dnnperf: kernel lists not written (build dnnperf first, or set DNNPERF)" >&2
fi
/usr/bin/python3 scripts/export_onnx.py --skip-existing .device-onnx composition > /dev/null
mkdir -p .device/networks
for f in .device-onnx/*.onnx; do
  /usr/bin/python3 -c 'import sys; sys.path.insert(0, "scripts"); from dnnperf_py import onnx_torch; onnx_torch.bundle(sys.argv[1], sys.argv[2])' \
    "$f" ".device/networks/$(basename "${f%.onnx}").pt"
done
echo "prepared .device/ ($(du -sh .device | cut -f1))"
