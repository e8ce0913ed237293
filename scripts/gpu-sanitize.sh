#!/usr/bin/env bash
# Every GPU test binary and every example of a gpu-bundle folder under NVIDIA compute-sanitizer:
# memcheck, initcheck, racecheck and synccheck (API errors not reported: tests provoke them on
# purpose). See CONTRIBUTING.md.
#
# Where Rust is: bash scripts/gpu-bundle.sh --examples
# On the GPU:    bash scripts/gpu-sanitize.sh [.gpu]
#
# Each test binary is cut into groups by test name (`cuda::sort::...` is one group), and every
# (tool, group) and (tool, example) runs as its own process under the sanitizer, `JOBS` of them
# at a time (default: half the cores, at most 12). Inside a process tests run one at a time
# (`TEST_THREADS`, default 1): run whole and in parallel under memcheck, the cuprite binary
# stalled (120 of 285 tests in 420 s).
#
# Tests whose name contains $TRAP_FILTER (default "trap": a kernel that traps on purpose, whose
# report is the point of the test) run apart under each tool: they must pass, and what the
# sanitizer reports for them is listed as expected, not counted. Tests named in $ALONE (default:
# the one that fills most of the device's free memory) run before the parallel phase, one
# process at a time, so that they do not starve the others.
#
# Environment: SANITIZER (default /usr/local/cuda/bin/compute-sanitizer), TOOLS (default
# "memcheck initcheck racecheck synccheck"), CUPRITE_SANITIZE_LOG_DIR (default
# /tmp/cuprite-sanitize; logs per tool and group), RUN_TIMEOUT (seconds per process, default
# 1800), EXTRA_TEST_ARGS (passed to every test binary, e.g. a name filter), JOBS, TEST_THREADS,
# ALONE (space-separated exact test names), EXAMPLES (default 1; 0 skips the examples), SPLIT
# (names matching this regular expression run one test a process), ONLY (a regular expression:
# only the runs whose label matches, e.g. to finish a sweep that ran out of time),
# KNOWN_INITCHECK (a regular expression over run labels, default cuda__linalg__: where
# initcheck's reports of host copies of cuBLASLt half-precision outputs are known reports of the
# tool, counted apart), SLACK_RUNS (a regular expression over run labels, default
# signal_nn__|^dnn__: the runs whose allocations keep their slack past the end; every other run
# sets CUPRITE_ALLOC_EXACT=1), RACECHECK_FUZZ_PROGRAMS (the fuzz test's programs under racecheck, default 2; 40 under the
# other tools; under racecheck the fuzz test also runs with CUPRITE_ARRAY_TIERED=0).
#
# Prints the errors per tool, group and example; exits 1 on any sanitizer error outside the
# trap tests, on any failing test or example, or on a run that timed out.
set -u
bundle="$(cd "${1:-.gpu}" && pwd)" || { echo "gpu-sanitize: no bundle folder ${1:-.gpu}" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
san="${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
tools="${TOOLS:-memcheck initcheck racecheck synccheck}"
trap_filter="${TRAP_FILTER:-trap}"
out="${CUPRITE_SANITIZE_LOG_DIR:-/tmp/cuprite-sanitize}"
timeout_s="${RUN_TIMEOUT:-1800}"
cores=$(nproc 2>/dev/null || echo 2)
jobs="${JOBS:-$(( cores / 2 > 12 ? 12 : (cores / 2 < 1 ? 1 : cores / 2) ))}"
alone="${ALONE:-memory::oom_trims_cached_pool_memory}"
extra_args="${EXTRA_TEST_ARGS:-}"
threads="--test-threads=${TEST_THREADS:-1}"
mkdir -p "$out/results"
rm -f "$out"/results/*
# Fewer fuzz programs (every new kernel is instrumented; the plain run checks 1,500).
export CUPRITE_FUZZ_PROGRAMS="${CUPRITE_FUZZ_PROGRAMS:-40}"
# Tests that check a speed loosen it (instrumented copies and kernels are slow).
export CUPRITE_UNDER_SANITIZER=1
help=$("$san" --help 2>/dev/null)
BULK_COPY_OPT=""
grep -q -- '--check-bulk-copy' <<<"$help" && BULK_COPY_OPT=--check-bulk-copy
# Kernels of NVIDIA's libraries that synccheck stops (its report ends the kernel, so the test
# fails): cuSOLVER's triangular solve (`trsm_ln_up_kernel`, in getrs and potrs) has threads
# leave before a block barrier that others reach. Not instrumented by synccheck; every kernel of
# cuprite's own is. Override with SYNC_EXCLUDE (a compute-sanitizer kernel-name specifier).
SYNC_EXCLUDE="${SYNC_EXCLUDE-kns=trsm_ln_}"
grep -q -- '--kernel-name-exclude' <<<"$help" || SYNC_EXCLUDE=""
export CUPRITE_REQUIRE_GPU=1 san out timeout_s root BULK_COPY_OPT SYNC_EXCLUDE
[ -x "$san" ] || { echo "gpu-sanitize: compute-sanitizer not found at $san (set SANITIZER)" >&2; exit 2; }

# one_run TOOL LABEL DIR KIND(main|trap) BINARY ARGS...: one process under the sanitizer; writes
# "tool label kind errors rc seconds" to results/. The error count sums "ERROR SUMMARY: N" over
# the logs of every process of the run (tests start child processes).
one_run() {
    local tool=$1 label=$2 dir=$3 kind=$4; shift 4
    local prefix="$out/$tool-$label-$kind" t0 rc n f k
    rm -f "$prefix".*.log
    t0=$(date +%s)
    local opts=()
    # TMA bulk copies (cuBLAS's Hopper kernels store through them) count as writes only when
    # the tool tracks them; without, initcheck reports every later read of a GEMM's output.
    [ "$tool" = initcheck ] && [ -n "${BULK_COPY_OPT:-}" ] && opts+=("$BULK_COPY_OPT" yes)
    [ "$tool" = synccheck ] && [ -n "${SYNC_EXCLUDE:-}" ] && opts+=(--kernel-name-exclude "$SYNC_EXCLUDE")
    # Where initcheck's known reports are counted apart (below), every report must be in the
    # log: the tool prints only the first 100 by default (1,948 in `matmul_dtypes`).
    if [ "$tool" = initcheck ] && [[ "$label" =~ ${KNOWN_INITCHECK:-cuda__linalg__} ]]; then
        opts+=(--print-limit 1000000)
    fi
    # racecheck instruments every shared-memory access: 40 fuzz programs (sorts, scans, row
    # operations among them) did not finish in 420 s, while initcheck checked them in 6 s.
    [ "$tool" = racecheck ] && export CUPRITE_FUZZ_PROGRAMS="${RACECHECK_FUZZ_PROGRAMS:-2}"
    # Even 4 programs did not finish in 540 s: each quick first build is linked with the math
    # library, and racecheck instruments every module loaded. Under racecheck the fuzz test
    # builds each kernel once, optimised, on the spot (the same sources; the tiers are checked
    # by the array tests).
    # Each program's start and end are printed (CUPRITE_FUZZ_TRACE) to see where time goes.
    if [ "$tool" = racecheck ]; then
        case "$label" in *fuzz__*) export CUPRITE_ARRAY_TIERED=0 CUPRITE_FUZZ_TRACE=1 ;; esac
    fi
    # Allocations without their slack past the end (cuprite-driver's `Stream::alloc`), so that
    # memcheck sees every read past a buffer, except in the runs of cuDNN's convolutions
    # (SLACK_RUNS), whose graph-API bf16 engines read past small operands by design of theirs.
    if [[ "$label" =~ ${SLACK_RUNS:-signal_nn__|^dnn__} ]]; then
        export CUPRITE_ALLOC_EXACT=0
    else
        export CUPRITE_ALLOC_EXACT=1
    fi
    (cd "$root/$dir" && timeout "$timeout_s" "$san" --tool "$tool" --report-api-errors no \
        ${opts[@]+"${opts[@]}"} --target-processes all --log-file "$prefix.%p.log" "$@") >"$prefix.out" 2>&1
    rc=$?
    n=0
    for f in "$prefix".*.log; do
        [ -e "$f" ] || continue
        k=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$f" | awk '{s += $3} END {print s + 0}')
        n=$((n + k))
    done
    # initcheck's reports of reads by a host copy of memory that cuBLASLt's Hopper half-precision
    # GEMMs wrote (their stores are not seen as writes; PyTorch's same product gets the same
    # reports, see docs/perf-log/2026-11-notebook.md), in runs whose label matches KNOWN_INITCHECK: counted
    # apart, as known reports of the tool, when they are every report of the run.
    local known=0
    if [ "$tool" = initcheck ] && [ "$n" != 0 ] && [[ "$label" =~ ${KNOWN_INITCHECK:-cuda__linalg__} ]]; then
        # One report is a header line ("Host API memory access error ...") and then its
        # detail ("Uninitialized access to ... on access by cudaMemcpy source").
        known=$(cat "$prefix".*.log 2>/dev/null | grep -c 'Uninitialized access .*by cudaMemcpy source')
        if [ "$known" = "$n" ]; then n=0; else known=0; fi
    fi
    echo "$tool $label $kind $n $rc $(( $(date +%s) - t0 )) $known" > "$out/results/$tool-$label-$kind"
}
export -f one_run

# The test binaries and the folders they run in, from the bundle's run.sh ("run NAME DIR ...").
mapfile -t tests < <(awk '$1 == "run" && $2 != "()" {print $2 " " $3}' "$bundle/run.sh")
[ ${#tests[@]} -gt 0 ] || { echo "gpu-sanitize: no test binary listed in $bundle/run.sh" >&2; exit 2; }
# Examples: run from the folder of the crate that has examples/NAME.rs (else the root).
examples=()
if [ "${EXAMPLES:-1}" != 0 ]; then
    for f in "$bundle"/example-*; do
        [ -x "$f" ] || continue
        n="${f##*/example-}"
        d=.
        for c in "$root"/crates/*/examples/"$n".rs; do [ -e "$c" ] && d="crates/$(basename "$(dirname "$(dirname "$c")")")"; done
        examples+=("$n $d")
    done
fi

skips=(--skip "$trap_filter")
for a in $alone; do skips+=(--skip "$a"); done
plan="$out/plan.txt"
: > "$plan"
late="$out/late.txt"
: > "$late"
for t in "${tests[@]}"; do
    read -r name dir <<<"$t"
    bin="$bundle/$name"
    # Test names without the kind tag ("[gpu] cuda::sort::rows: test" -> cuda::sort::rows),
    # except the tests tagged [cpu]: they do no device work for a sanitizer to check (they run
    # in every plain run).
    listing=$(cd "$root/$dir" && "$bin" --list 2>/dev/null)
    mapfile -t names < <(sed -n 's/^\(\[[a-z]*\] \)\{0,1\}\(.*\): test$/\2/p' <<<"$listing")
    mapfile -t device_names < <(grep -v '^\[cpu\]' <<<"$listing" | sed -n 's/^\(\[[a-z]*\] \)\{0,1\}\(.*\): test$/\2/p')
    # Runs: a name of three or more parts goes with the others of its first two parts (a
    # filter "a::b::"); a name of two parts runs alone (--exact). Biggest groups first.
    # Groups named in SPLIT (default: the array FFT, sort and scan tests and the quick bench smoke
    # runs, the slowest under the tools) run a test a process.
    mapfile -t groups < <(printf '%s\n' "${device_names[@]}" | awk -F'::' -v split_re="${SPLIT:-^(cuda::(fft|sort|scan)|bench::quick_smoke)::}" 'NF >= 3 && $0 !~ split_re { print $1 "::" $2 "::" } (NF < 3 && NF > 0) || (NF >= 3 && $0 ~ split_re) { print "=" $0 }' | sort | uniq -c | sort -rn | awk '{print $2}')
    for tool in $tools; do
        for g in "${groups[@]}"; do
            case " $alone $trap_filter " in *" ${g#=} "*) continue ;; esac
            [[ "$g" == *"$trap_filter"* ]] && continue
            if [[ "$g" == =* ]]; then
                echo "$tool $name-${g//[:=]/_} $dir main $bin ${g#=} --exact $threads $extra_args" >> "$plan"
            else
                echo "$tool $name-${g//:/_} $dir main $bin $g ${skips[*]} $threads $extra_args" >> "$plan"
            fi
        done
        if printf '%s\n' "${names[@]}" | grep -q -- "$trap_filter"; then
            echo "$tool $name-trap $dir trap $bin $trap_filter $threads" >> "$plan"
        fi
        for a in $alone; do
            if printf '%s\n' "${names[@]}" | grep -qx -- "$a"; then
                echo "$tool $name-${a//:/_} $dir main $bin $a --exact $threads" >> "$late"
            fi
        done
    done
done
for tool in $tools; do
    for e in ${examples[@]+"${examples[@]}"}; do
        n="${e% *}"; d="${e#* }"
        echo "$tool example-$n $d main $bundle/example-$n" >> "$plan"
    done
done
# ONLY (an extended regular expression), or ONLY_<tool> for one tool: keep the runs whose
# label matches.
keep_only() {
    local f=$1 line tool label re
    while read -r line; do
        read -r tool label _ <<<"$line"
        re="ONLY_$tool"; re="${!re:-${ONLY:-}}"
        if [ -z "$re" ] || [[ "$label" =~ $re ]]; then echo "$line"; fi
    done < "$f" > "$f.only"
    mv "$f.only" "$f"
}
keep_only "$plan"
keep_only "$late"
# The runs known to be long under a sanitizer start first (HEAVY, a regular expression).
heavy="${HEAVY:-fft|fuzz|quick_smoke|props|sort__|scan__|linalg|eigh|svd|example-data_parallel}"
{ grep -E -- "^[a-z]+ [^ ]*(${heavy})" "$plan"; grep -v -E -- "^[a-z]+ [^ ]*(${heavy})" "$plan"; } > "$plan.sorted"
mv "$plan.sorted" "$plan"
echo "gpu-sanitize: $(wc -l < "$late") runs apart first, then $(wc -l < "$plan") runs, ${jobs} at a time"
sed 's/ *$//' "$late" | xargs -r -P 1 -L 1 bash -c 'one_run "$@"' _
sed 's/ *$//' "$plan" | xargs -r -P "$jobs" -L 1 bash -c 'one_run "$@"' _

echo
echo "===== compute-sanitizer results (logs in $out)"
bad=0
summary="$out/summary.txt"
: > "$summary"
for tool in $tools; do
    runs=0 failed=0 errors=0 expected=0 secs=0 tool_known=0
    for f in "$out"/results/"$tool"-*; do
        [ -e "$f" ] || continue
        read -r _ label kind n rc s k < "$f"
        runs=$((runs + 1)); secs=$((secs + s)); tool_known=$((tool_known + ${k:-0}))
        if [ "${k:-0}" != 0 ]; then
            printf '%-10s %-48s %-5s %4s known report(s) of the tool (host copy of a cuBLASLt output)\n' "$tool" "$label" "$kind" "$k"
        fi
        what=ok
        if [ "$rc" = 124 ]; then what="TIMED OUT after ${timeout_s}s"; failed=$((failed + 1)); bad=1
        elif [ "$rc" != 0 ]; then what="FAILED (exit $rc, see $out/$tool-$label-$kind.out)"; failed=$((failed + 1)); bad=1; fi
        if [ "$kind" = trap ]; then expected=$((expected + n))
        else errors=$((errors + n)); [ "$n" != 0 ] && bad=1; fi
        if [ "$what" != ok ] || [ "$n" != 0 ]; then
            printf '%-10s %-48s %-5s %4s error(s) %5ss  %s\n' "$tool" "$label" "$kind" "$n" "$s" "$what"
        fi
    done
    printf '%-10s runs %3s  failed %3s  errors %5s  expected (trap tests) %3s  known (tool) %5s  process-seconds %6s\n' \
        "$tool" "$runs" "$failed" "$errors" "$expected" "$tool_known" "$secs" | tee -a "$summary"
done
if [ "$bad" = 0 ]; then
    echo "gpu-sanitize: 0 errors, every run passed" | tee -a "$summary"
else
    echo "gpu-sanitize: ERRORS or FAILURES (see above)" | tee -a "$summary"
    exit 1
fi
