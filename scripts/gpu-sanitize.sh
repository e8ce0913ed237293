#!/usr/bin/env bash
# Every GPU test binary and every example of a gpu-bundle folder under NVIDIA compute-sanitizer:
# memcheck, initcheck, racecheck and synccheck (API errors not reported: tests provoke them on
# purpose). See CONTRIBUTING.md.
#
# Where Rust is: bash scripts/gpu-bundle.sh --examples
# On the GPU:    bash scripts/gpu-sanitize.sh [.gpu]
#
# Tests whose name contains $TRAP_FILTER (default "trap": a kernel that traps on purpose, whose
# report is the point of the test) run apart, with that filter, under each tool: they must pass,
# and what the sanitizer reports for them is listed as expected, not counted. Every other test
# runs with `--skip $TRAP_FILTER`.
#
# Environment: SANITIZER (default /usr/local/cuda/bin/compute-sanitizer), TOOLS (default
# "memcheck initcheck racecheck synccheck"), CUPRITE_SANITIZE_LOG_DIR (default
# /tmp/cuprite-sanitize; one log per tool and binary), RUN_TIMEOUT (seconds per run, default
# 3600), EXTRA_TEST_ARGS (passed to every test binary, e.g. a name filter), TEST_THREADS (the
# test binaries' --test-threads, default 1: run whole and in parallel under memcheck, the cuprite
# binary stalled (120 of 285 tests in 420 s), one test at a time it took 65 s).
#
# Prints the errors per tool and per binary; exits 1 on any sanitizer error outside the trap
# tests, on any failing test or example, or on a run that timed out.
set -u
bundle="$(cd "${1:-.gpu}" && pwd)" || { echo "gpu-sanitize: no bundle folder ${1:-.gpu}" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
san="${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
tools="${TOOLS:-memcheck initcheck racecheck synccheck}"
trap_filter="${TRAP_FILTER:-trap}"
out="${CUPRITE_SANITIZE_LOG_DIR:-/tmp/cuprite-sanitize}"
timeout_s="${RUN_TIMEOUT:-3600}"
read -r -a extra <<<"${EXTRA_TEST_ARGS:-}"
extra+=("--test-threads=${TEST_THREADS:-1}")
mkdir -p "$out"
export CUPRITE_REQUIRE_GPU=1
[ -x "$san" ] || { echo "gpu-sanitize: compute-sanitizer not found at $san (set SANITIZER)" >&2; exit 2; }

declare -A errors runs failed expected
summary=()
bad=0

# errors_in LOGPREFIX: the sum of "ERROR SUMMARY: N error(s)" over the logs of one run (one log
# per process: tests start child processes).
errors_in() {
    local n=0 f k
    for f in "$1".*.log; do
        [ -e "$f" ] || continue
        k=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$f" | awk '{s += $3} END {print s + 0}')
        n=$((n + k))
    done
    echo "$n"
}

# sanitize TOOL NAME DIR KIND(main|trap) BINARY ARGS...
sanitize() {
    local tool=$1 name=$2 dir=$3 kind=$4; shift 4
    local prefix="$out/$tool-$name-$kind"
    rm -f "$prefix".*.log
    (cd "$root/$dir" && timeout "$timeout_s" "$san" --tool "$tool" --report-api-errors no \
        --target-processes all --log-file "$prefix.%p.log" "$@") >"$prefix.out" 2>&1
    local rc=$?
    local n
    n=$(errors_in "$prefix")
    runs[$tool]=$(( ${runs[$tool]:-0} + 1 ))
    local what="ok"
    if [ "$rc" = 124 ]; then
        what="TIMED OUT after ${timeout_s}s"; bad=1; failed[$tool]=$(( ${failed[$tool]:-0} + 1 ))
    elif [ "$rc" != 0 ]; then
        what="FAILED (exit $rc, see $prefix.out)"; bad=1; failed[$tool]=$(( ${failed[$tool]:-0} + 1 ))
    fi
    if [ "$kind" = trap ]; then
        expected[$tool]=$(( ${expected[$tool]:-0} + n ))
        summary+=("$(printf '%-10s %-34s %-5s %4s expected error(s)  %s' "$tool" "$name" "$kind" "$n" "$what")")
    else
        errors[$tool]=$(( ${errors[$tool]:-0} + n ))
        [ "$n" != 0 ] && bad=1
        summary+=("$(printf '%-10s %-34s %-5s %4s error(s)           %s' "$tool" "$name" "$kind" "$n" "$what")")
    fi
    echo "${summary[-1]}"
}

# The test binaries and the folders they run in, from the bundle's run.sh ("run NAME DIR ...").
mapfile -t tests < <(awk '$1 == "run" && $2 != "()" {print $2 " " $3}' "$bundle/run.sh")
# Examples: run from the folder of the crate that has examples/NAME.rs (else the root).
examples=()
for f in "$bundle"/example-*; do
    [ -x "$f" ] || continue
    n="${f##*/example-}"
    d=.
    for c in "$root"/crates/*/examples/"$n".rs; do [ -e "$c" ] && d="crates/$(basename "$(dirname "$(dirname "$c")")")"; done
    examples+=("$n $d")
done
[ ${#tests[@]} -gt 0 ] || { echo "gpu-sanitize: no test binary listed in $bundle/run.sh" >&2; exit 2; }

for tool in $tools; do
    for t in "${tests[@]}"; do
        read -r name dir <<<"$t"
        bin="$bundle/$name"
        sanitize "$tool" "$name" "$dir" main "$bin" --skip "$trap_filter" ${extra[@]+"${extra[@]}"}
        if (cd "$root/$dir" && "$bin" --list 2>/dev/null) | grep -q -- "$trap_filter"; then
            sanitize "$tool" "$name" "$dir" trap "$bin" "$trap_filter"
        fi
    done
    for e in ${examples[@]+"${examples[@]}"}; do
        name="${e% *}"; dir="${e#* }"
        sanitize "$tool" "example-$name" "$dir" main "$bundle/example-$name"
    done
done

echo
echo "===== compute-sanitizer summary (logs in $out)"
for tool in $tools; do
    printf '%-10s runs %3s  failed %3s  errors %5s  expected (trap tests) %3s\n' "$tool" \
        "${runs[$tool]:-0}" "${failed[$tool]:-0}" "${errors[$tool]:-0}" "${expected[$tool]:-0}"
done | tee "$out/summary.txt"
if [ "$bad" = 0 ]; then
    echo "gpu-sanitize: 0 errors, every run passed" | tee -a "$out/summary.txt"
else
    echo "gpu-sanitize: ERRORS or FAILURES (see above)" | tee -a "$out/summary.txt"
    exit 1
fi
