#!/usr/bin/env bash
# Issue 13's matrix-product workloads on the GPU machine, from the repository root after
# .ci/device-bundle packed .device/: the transformer_block sample once (a smoke test: its output,
# checksum and stats), bench_matmul (lazyfuse, fused and unfused), bench/peers_matmul.py
# (PyTorch eager and torch.compile), then compare.py's tables side by side.
#   bash bench/matmul_device.sh [--iters N] [--only WORKLOAD]
# The options go to both benches. Logs and JSON go to $OUT (the device tool's folder that comes
# back), else /tmp/lazyfuse-matmul.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/lazyfuse-matmul}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.device/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LAZY_CACHE_DIR=${LAZY_CACHE_DIR:-/tmp/lazyfuse-matmul-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true
.device/transformer_block 2>&1 | tee "$out/transformer_block.log" ||
  echo "transformer_block failed; the benches run anyway"
.device/bench_matmul "$@" --json "$out/bench_matmul.json" 2>&1 | tee "$out/bench_matmul.log"
python3 bench/peers_matmul.py "$@" --json "$out/peers_matmul.json" 2>&1 |
  tee "$out/peers_matmul.log"
python3 bench/compare.py "$out/bench_matmul.json" "$out/peers_matmul.json" |
  tee "$out/compare.txt"
