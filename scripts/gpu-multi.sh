#!/usr/bin/env bash
# The multi-GPU validation of issue #15 (NCCL, peers, processes), in one command on a GPU host
# with 2 GPUs or more (no Rust there).
#
# Here:   ../shared/tools/gpu-bundle --out .gpu-nccl --examples --bins -- -p cuprite-driver -p cuprite-cli
#         cp scripts/gpu-multi.sh benches/peers/torch_nccl.py benches/peers/compare_nccl.py .gpu-nccl/
# There:  bash .gpu-nccl/gpu-multi.sh .gpu-nccl   (or scripts/gpu-multi.sh; carry .gpu-nccl;
#         logs and JSON land in $OUT)
#
# Steps: the cuprite-sys and cuprite test binaries (every packed one with FULL=1) with
# CUPRITE_REQUIRE_GPU=1 and CUPRITE_REQUIRE_GPUS=N (N = the GPUs present, at least 2:
# multi-GPU tests fail instead of skipping), the multi-process
# example with 2 processes and with one per GPU, the multi-process figures (the example's
# --sweep: one process per GPU, JSON; again with --blocking), `cuprite bench nccl peer` (one process, init_all) as
# JSON, and the torch.distributed peer script. NVLink multicast stays off everywhere: NCCL_NVLS_ENABLE=0 is
# exported here, so every child (test ranks, example ranks, torch workers) inherits it.
set -u
export NCCL_NVLS_ENABLE=0
bundle="$(cd "${1:-.gpu-nccl}" && pwd)"
# The repository root: this script lives in scripts/ or in the bundle folder, both one level down.
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-/tmp/cuprite-gpu-multi}"
mkdir -p "$out"
log="$out/gpu-multi.log"
: > "$log"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${ngpu:-0}" -ge 2 ] || ngpu=2
summary=()
step() { # name, folder, command...
    local name=$1 dir=$2; shift 2
    echo "##### $name" | tee -a "$log"
    local t0=$SECONDS
    (cd "$root/$dir" && "$@") >>"$log" 2>&1
    local rc=$?
    summary+=("$(printf '%-34s rc=%s  %ss' "$name" "$rc" "$((SECONDS - t0))")")
    tail -n 4 "$log"
}

# The test binaries of cuprite-sys and cuprite (NCCL, peers, processes and the whole
# single-GPU suite of the driver layer); FULL=1 runs every packed test binary instead.
if [ "${FULL:-0}" = 1 ]; then
    step "all tests (REQUIRE_GPUS=$ngpu)" . env OUT="$out" CUPRITE_REQUIRE_GPUS="$ngpu" timeout 420 bash "$bundle/run.sh"
else
    for t in cuprite-sys cuprite; do
        step "tests $t (REQUIRE_GPUS=$ngpu)" "crates/$t" env CUPRITE_REQUIRE_GPU=1 CUPRITE_REQUIRE_GPUS="$ngpu" RUST_BACKTRACE=1 timeout 200 "$bundle/test-$t"
    done
fi
step "example nccl_ranks --spawn 2" crates/cuprite-driver timeout 240 "$bundle/example-nccl_ranks" --spawn 2 --timeout 60
if [ "$ngpu" -gt 2 ]; then
    step "example nccl_ranks --spawn $ngpu" crates/cuprite-driver timeout 240 "$bundle/example-nccl_ranks" --spawn "$ngpu" --timeout 60
fi
step "multi-process sweep ($ngpu ranks)" crates/cuprite-driver timeout 300 "$bundle/example-nccl_ranks" --spawn "$ngpu" --timeout 120 --sweep "$out/multiproc-nccl.json"
step "multi-process sweep, blocking ($ngpu ranks)" crates/cuprite-driver timeout 300 "$bundle/example-nccl_ranks" --spawn "$ngpu" --timeout 120 --blocking --sweep "$out/multiproc-blocking.json"
step "cuprite bench nccl peer" . timeout 300 "$bundle/bin-cuprite" bench nccl peer --json "$out/bench-nccl.json" --markdown
# The peer script: from the bundle when it carries one (a copy of benches/peers/torch_nccl.py).
peer="$root/benches/peers/torch_nccl.py"
[ -f "$bundle/torch_nccl.py" ] && peer="$bundle/torch_nccl.py"
step "torch_nccl.py" . timeout 300 python3 "$peer" --json "$out/torch_nccl.json"

# One table: cuprite (one process, and one process per GPU) against torch, with the targets.
cmp="$root/benches/peers/compare_nccl.py"
[ -f "$bundle/compare_nccl.py" ] && cmp="$bundle/compare_nccl.py"
step "compare with torch" . python3 "$cmp" "$out/bench-nccl.json" "$out/multiproc-nccl.json" "$out/torch_nccl.json" --blocking-multiproc "$out/multiproc-blocking.json" --markdown "$out/compare-nccl.md"

echo
echo "===== summary ($ngpu GPUs, NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE)"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
grep -E "^test result|FAILED|^\[rank|nccl_ranks:" "$log" | tee -a "$out/summary.txt"
[ -f "$out/compare-nccl.md" ] && cat "$out/compare-nccl.md"
