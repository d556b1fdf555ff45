#!/usr/bin/env bash
# Run here, before a device call: gathers the header-only dependencies the GPU machine lacks into
# .device/ (git-ignored), which the call carries: run(command="scripts/gpu_calibrate.sh", carry=[".device"]).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .device/include
cp -r /usr/include/nlohmann .device/include/
echo "prepared .device/ ($(du -sh .device | cut -f1))"
