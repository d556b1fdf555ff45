#!/usr/bin/env bash
# Installs every Debian package dnnperf builds, tests or runs its scripts with.
# Idempotent: packages already present are skipped, so a second run costs a few dpkg queries.
# CUDA (nvcc, cuBLAS, cuDNN, NCCL) is not installed here: the build uses it when /usr/local/cuda
# or nvcc on PATH provides it and skips the GPU programs otherwise.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libeigen3-dev libceres-dev nlohmann-json3-dev catch2 libbenchmark-dev libcli11-dev
  libopenmpi-dev openmpi-bin
  libonnx-dev libprotobuf-dev protobuf-compiler
  coinor-libcbc-dev
  librapidcheck-dev clang libfuzzer-14-dev
  python3-torch python3-torchvision python3-onnx python3-matplotlib python3-numpy python3-sklearn
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${#missing[@]} missing packages: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
