#!/usr/bin/env bash
# The GPU validation of cuprite in one command on a machine with one GPU (no Rust needed there),
# within 9 minutes on an H200. See CONTRIBUTING.md.
#
# Where Rust is:  bash scripts/gpu-bundle.sh --examples --bins
#                 cp target/release/examples/libdlpack_py.so .gpu/   # optional: DLPack with torch
#                 mkdir -p .gpu-pack && tar -cf - .gpu | xz -4 -T2 > .gpu-pack/bundle.tar.xz
# On the GPU:     bash scripts/gpu-check.sh [.gpu] [test-name filter]
#                 (.gpu-pack/bundle.tar.xz, when present and newer, is unpacked into .gpu first)
#
# 1. Every test binary of the bundle at once (CUPRITE_REQUIRE_GPU=1), each from its package's
#    folder, with its `gpu_alone` tests left out (CUPRITE_TEST_ALONE=skip): the GPU tests of
#    different binaries share the GPU, and the examples run one after another beside them.
#    cuprite-array runs as five processes, each a shard of its tests (see `shards_of`).
# 2. The `gpu_alone` tests (graph captures), binary after binary, one test at a time (a
#    waiting test could otherwise lose the lock to the thread that just released it), nothing else running
#    (CUPRITE_TEST_ALONE=only): a capture never overlaps another binary's work.
# 3. The DLPack exchange with PyTorch (when the bundle has libdlpack_py.so and python3 has
#    torch), `cuprite info`, `cuprite demo`.
# 4. With GPU_CHECK_BENCH=1 (it does not fit the 9 minutes): the PyTorch peer scripts, then
#    `cuprite bench` judging their files (JSON, charts).
#
# Then a summary: each binary's pass, time and counts, every failed test, and the 10 slowest
# tests of the suite (every binary prints each test's time: `test-time` lines of
# cuprite-testkit). Logs go to $OUT (default $CUPRITE_GPU_LOG_DIR, else /tmp/cuprite-gpu):
# tests/<binary>.log and .alone.log, examples.log, gpu-check.log, summary.txt.
#
# The compile-only NVRTC tests (`*kernels_compile`) are left out (CI runs them) unless
# GPU_CHECK_NVRTC=1. Time limits, in seconds: PASS1_T (default 480) for each binary of the first pass,
# ALONE_T (360) for each binary of the second, EXAMPLE_T (120) for each example.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
pack=.gpu-pack/bundle.tar.xz
if [ -f "$pack" ] && { [ ! -f .gpu/run.sh ] || [ "$pack" -nt .gpu/run.sh ]; }; then
    xz -dc "$pack" | tar -xf - || { echo "gpu-check: cannot unpack $pack" >&2; exit 2; }
fi
bundle="$(cd "${1:-.gpu}" 2>/dev/null && pwd)" || { echo "gpu-check: no bundle folder ${1:-.gpu}" >&2; exit 2; }
[ -f "$bundle/run.sh" ] || { echo "gpu-check: $bundle has no run.sh (see the header)" >&2; exit 2; }
shift $(( $# > 0 ? 1 : 0 ))
filter=("$@")
# The compile-only test of every generated kernel needs NVRTC, not a GPU, and runs in CI; here
# it would take the CPU cores the GPU tests need (GPU_CHECK_NVRTC=1 keeps it).
if [ "${GPU_CHECK_NVRTC:-0}" != 1 ]; then
    filter+=(--skip codegen::every_generated_kernel_compiles --skip kernels_compile)
fi
out="${OUT:-${CUPRITE_GPU_LOG_DIR:-/tmp/cuprite-gpu}}"
export CUPRITE_GPU_LOG_DIR="$out" CUPRITE_REQUIRE_GPU=1 RUST_BACKTRACE=1
T="$out/tests"
mkdir -p "$T"
log="$out/gpu-check.log"
: > "$log"
t0=$(date +%s)
now() { echo $(( $(date +%s) - t0 )); }
say() { echo "$*" | tee -a "$log"; }

# The test binaries and their package folders, from the `run test-NAME DIR "$@"` lines of run.sh.
bins=() dirs=()
while read -r _ name dir _; do
    bins+=("$name")
    dirs+=("$dir")
done < <(grep -E '^run test-' "$bundle/run.sh")
[ ${#bins[@]} -gt 0 ] || { echo "gpu-check: run.sh lists no test binary" >&2; exit 2; }

# One binary: NAME DIR PASS LOGFILE LIMIT [SHARD ARGS...]; writes LOGFILE.rc and LOGFILE.secs.
run_bin() {
    local name=$1 dir=$2 pass=$3 file=$4 limit=$5 s=$(date +%s)
    shift 5
    (cd "$root/$dir" && CUPRITE_TEST_ALONE=$pass timeout "$limit" "$bundle/$name" "$@" ${filter[@]+"${filter[@]}"}) > "$file" 2>&1
    echo $? > "$file.rc"
    echo $(( $(date +%s) - s )) > "$file.secs"
}

# The shards of a binary's first pass, one line of arguments each (one name filter at most,
# the harness takes one, and `--skip`s), together covering every test once: a binary's
# just-in-time builds run on its own threads, so the largest suite runs as several processes.
# A binary not named here, or any binary when a filter is given, runs as one.
shards_of() {
    if [ ${#filter[@]} -gt 4 ] || { [ ${#filter[@]} -gt 0 ] && [ "${GPU_CHECK_NVRTC:-0}" = 1 ]; }; then
        echo ""
        return
    fi
    case $1 in
        test-cuprite-array)
            echo "cuda::image"
            echo "cuda::s"
            echo "props::"
            echo "cuda:: --skip cuda::image --skip cuda::s --skip props::"
            echo "--skip cuda:: --skip props::"
            ;;
        *) echo "" ;;
    esac
}

examples() {
    local ex c
    # Every example of the bundle but those of several GPUs or processes (gpu-multi.sh runs
    # them) and the ctypes library of the DLPack exchange.
    for ex in $(cd "$bundle" && ls example-* 2>/dev/null | sed 's/^example-//'); do
        case "$ex" in nccl_ranks|data_parallel|dlpack_py|libdlpack_py*) continue ;; esac
        c=cuprite-driver
        [ -e "crates/cuprite-array/examples/$ex.rs" ] && c=cuprite-array
        if [ ! -x "$bundle/example-$ex" ]; then
            echo "example $ex: not in the bundle" >> "$out/examples.txt"
            continue
        fi
        echo "=== example $ex" >> "$out/examples.log"
        (cd "crates/$c" && timeout "${EXAMPLE_T:-120}" "$bundle/example-$ex") >> "$out/examples.log" 2>&1
        echo "example $ex: rc=$?" >> "$out/examples.txt"
    done
}

say "##### pass 1 at $(now) s: ${#bins[@]} test binaries at once (gpu_alone tests left out), the examples beside them"
: > "$out/examples.log"
: > "$out/examples.txt"
pids=()
for i in "${!bins[@]}"; do
    k=0
    while IFS= read -r shard; do
        suffix=""
        [ -n "$shard" ] && suffix=".s$k"
        # shellcheck disable=SC2086 # a shard is a list of words
        run_bin "${bins[$i]}" "${dirs[$i]}" skip "$T/${bins[$i]}$suffix.log" "${PASS1_T:-480}" $shard &
        pids+=($!)
        k=$((k + 1))
    done < <(shards_of "${bins[$i]}")
done
examples &
pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done

say "##### pass 2 at $(now) s: the gpu_alone tests, one binary at a time"
for i in "${!bins[@]}"; do
    run_bin "${bins[$i]}" "${dirs[$i]}" only "$T/${bins[$i]}.alone.log" "${ALONE_T:-360}" --test-threads=1
done

say "##### the rest at $(now) s"
rest() { # NAME COMMAND...
    local name=$1; shift
    echo "=== $name" >> "$log"
    "$@" >> "$log" 2>&1
    local rc=$?
    echo "$(printf '%-24s rc=%s' "$name" "$rc")" >> "$out/rest.txt"
}
: > "$out/rest.txt"
if [ -f "$bundle/libdlpack_py.so" ] && python3 -c "import torch" 2>/dev/null; then
    rest "dlpack with torch" timeout 180 python3 crates/cuprite-array/examples/dlpack_torch.py "$bundle/libdlpack_py.so"
else
    echo "dlpack with torch        skipped: no libdlpack_py.so in the bundle, or no torch" >> "$out/rest.txt"
fi
rest "cuprite info" timeout 60 "$bundle/bin-cuprite" info
rest "cuprite demo" timeout 200 "$bundle/bin-cuprite" demo
if [ "${GPU_CHECK_BENCH:-0}" = 1 ]; then
    peers=()
    for p in array blas fft index rows scan sort stats; do
        rest "torch_$p.py" timeout 300 python3 "benches/peers/torch_$p.py" --json "$out/torch_$p.json"
        [ -s "$out/torch_$p.json" ] && peers+=(--peers "$out/torch_$p.json")
    done
    rest "cuprite bench" timeout 900 "$bundle/bin-cuprite" bench --json "$out/bench.json" --markdown \
        --plot "$out/plots" ${peers[@]+"${peers[@]}"}
fi

{
    echo
    echo "===== summary ($(now) s in all)"
    fail=0
    for f in "$T"/*.log; do
        part=$(basename "$f" .log)
        rc=$(cat "$f.rc" 2>/dev/null || echo "?")
        [ "$rc" = 0 ] || fail=1
        res=$(grep -E "^test result" "$f" | tail -n 1)
        [ "$rc" = 124 ] && res="TIMED OUT ($res)"
        printf '%-36s rc=%-3s %4s s  %s\n' "$part" "$rc" \
            "$(cat "$f.secs" 2>/dev/null)" "${res:-no result line}"
    done
    grep -v "rc=0$" "$out/examples.txt" | grep -q . && fail=1
    echo "examples: $(grep -c 'rc=0$' "$out/examples.txt") passed of $(grep -c . "$out/examples.txt")"
    grep -v "rc=0$" "$out/examples.txt"
    grep -v "rc=0$" "$out/rest.txt" | grep -v skipped | grep -q . && fail=1
    cat "$out/rest.txt"
    echo
    echo "failed tests:"
    grep -H -E " \.\.\. FAILED$" "$T"/*.log | sed -E "s#^$T/##; s#\.log:# #" || echo "  none"
    echo
    echo "the 10 slowest tests (seconds, outcome, binary, test):"
    grep -H "^test-time" "$T"/*.log | sed -E "s#^$T/##; s#\.log:test-time# #" \
        | awk '{ printf "%10s %-8s %-28s %s\n", $2, $4, $1, $5 }' | sort -k1,1 -g -r | head -n 10
    [ $fail = 0 ] && echo "gpu-check: everything passed" || echo "gpu-check: FAILURES (see above and $out)"
    echo "fail=$fail" > "$out/.status"
} | tee "$out/summary.txt"
grep -q "fail=0" "$out/.status"
