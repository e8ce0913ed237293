#!/usr/bin/env bash
# The whole GPU validation of cuprite, in one command on a machine with a GPU (no Rust needed
# there). See CONTRIBUTING.md.
#
# Where Rust is: bash scripts/gpu-bundle.sh --examples --bins
#                cp target/release/examples/libdlpack_py.so .gpu/   # the ctypes library for PyTorch
# On the GPU:    bash scripts/gpu-check.sh [.gpu]
#                (logs, JSON and SVG charts go to $CUPRITE_GPU_LOG_DIR, default /tmp/cuprite-gpu)
#
# Runs every test binary (CUPRITE_REQUIRE_GPU=1), every example (each asserts its results),
# the DLPack exchange with PyTorch, `cuprite info`, `cuprite demo`, the PyTorch peer scripts,
# then `cuprite bench` (all benchmarks, JSON, charts, the peer figures judged beside cuprite's),
# and prints one summary line per step.
set -u
bundle="$(cd "${1:-.gpu}" && pwd)"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${CUPRITE_GPU_LOG_DIR:-/tmp/cuprite-gpu}"
export CUPRITE_GPU_LOG_DIR="$out"
mkdir -p "$out"
summary=()
step() { # name, folder, command...
    local name=$1 dir=$2; shift 2
    echo "##### $name" | tee -a "$out/gpu-check.log"
    (cd "$root/$dir" && "$@") >>"$out/gpu-check.log" 2>&1
    local rc=$?
    summary+=("$(printf '%-28s rc=%s' "$name" "$rc")")
    tail -n 3 "$out/gpu-check.log"
}

step tests . bash "$bundle/run.sh"
for ex in context_single context_threads context_devices sin_ptx matmul custom_struct quickstart \
          streams_fork threads device_flow graph; do
    step "example $ex" crates/cuprite-driver timeout 120 "$bundle/example-$ex"
done
for ex in custom_kernel cuda_app readme; do
    step "example $ex" crates/cuprite-array timeout 120 "$bundle/example-$ex"
done
if [ -f "$bundle/libdlpack_py.so" ]; then
    step "dlpack with torch" . timeout 180 python3 crates/cuprite-array/examples/dlpack_torch.py "$bundle/libdlpack_py.so"
else
    summary+=("dlpack with torch            skipped: no libdlpack_py.so in the bundle")
fi
step "cuprite info" . "$bundle/bin-cuprite" info
step "cuprite demo" . "$bundle/bin-cuprite" demo
step "torch peers" . timeout 300 python3 benches/peers/torch_array.py --json "$out/torch_peers.json"
step "torch fft peers" . timeout 300 python3 benches/peers/torch_fft.py --json "$out/torch_fft_peers.json"
peers=()
[ -s "$out/torch_peers.json" ] && peers+=(--peers "$out/torch_peers.json")
[ -s "$out/torch_fft_peers.json" ] && peers+=(--peers "$out/torch_fft_peers.json")
step "cuprite bench" . timeout 400 "$bundle/bin-cuprite" bench --json "$out/bench.json" --markdown \
    --plot "$out/plots" ${peers[@]+"${peers[@]}"}

echo
echo "===== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
grep -E "^test result|FAILED" "$out/gpu-tests.log" | tee -a "$out/summary.txt"
