#!/usr/bin/env bash
# Runs chosen parts of the GPU validation from a bundle, one command for a GPU host reached
# through a copy of the repository (see CONTRIBUTING.md). Where the copy is size-limited, pack
# the bundle first (about 15 MB instead of 75):
#
#   bash scripts/gpu-bundle.sh --examples --bins
#   mkdir -p .gpu-pack && tar -cf - .gpu | xz -4 -T2 > .gpu-pack/bundle.tar.xz
#   cargo build --release -p cuprite-cli --features host-profile \
#       && cp target/release/cuprite .gpu-pack/cuprite-host-profile    # optional, for `smallop`
#
# On the GPU host, from the repository's root:
#
#   STEPS="tests examples fuzz" bash scripts/gpu-steps.sh
#
# The packed bundle is unpacked into .gpu first when .gpu-pack/bundle.tar.xz exists. Steps, run
# in the order given (default "tests"):
#   tests     every test binary (.gpu/run.sh, CUPRITE_REQUIRE_GPU=1); TEST_FILTER passed on
#   examples  every example from its crate's folder, then `cuprite info` and `cuprite demo`
#   fuzz      `cuprite fuzz --programs $FUZZ_N` (default 10000) for each seed of FUZZ_SEEDS
#   replay    `cuprite fuzz --replay --programs $FUZZ_N --max-seconds $REPLAY_S` (default 240) for
#             each seed of FUZZ_SEEDS: compiled programs against their eager runs, bit for bit
#   stress    `cuprite stress --threads 16 --streams 4 --seconds $STRESS_S` (default 60)
#   memcheck  compute-sanitizer memcheck of the tests of one binary (MC_BIN, default
#             test-cuprite-array) whose names match MC_FILTER (one libtest filter and any
#             `--skip`s), one test at a time, from the binary's crate folder; with
#             CUPRITE_ALLOC_EXACT=1 unless MC_SLACK=1 (allocations keep their slack past the end)
#   tiles     `cuprite bench $TILE_BENCH` (default image/gaussian_filter) under each
#             CUPRITE_IMAGE_SEP_TILE of TILES (`default` leaves it unset), TILE_ROUNDS (default 2)
#             rounds of them alternated
#   peers     `python3 benches/peers/torch_<name>.py` for each name of PEERS (array, sort, ...)
#   bench     `cuprite bench $BENCH` with every peer file of the `peers` step
#   smallop   `array/small_op_host`, twice with the host-profile build (when packed), twice plain
#   sanitize  scripts/gpu-sanitize.sh (its variables pass through: TOOLS, ONLY_<tool>, JOBS...)
#   ncu       Nsight Compute on `cuprite bench $NCU_BENCH --repeats 1 --warmup 0`: the first
#             $NCU_COUNT (default 8) kernels whose name matches $NCU_KERNELS (a regex, default
#             cuprite_sort), with $NCU_METRICS (default: time, DRAM bytes, L2 sectors read and
#             written, L2 read misses); clocks not locked
# Each step is bounded by <STEP>_T seconds (defaults below). Logs go to $OUT/logs (OUT default
# /tmp/cuprite-steps), a line per step in summary.txt, and all of it into $OUT/logs.tgz.
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="${OUT:-/tmp/cuprite-steps}"
L="$out/logs"
mkdir -p "$L"
sum="$L/summary.txt"
t0=$(date +%s)
if [ -f .gpu-pack/bundle.tar.xz ]; then
    xz -dc .gpu-pack/bundle.tar.xz | tar -xf - || { echo "gpu-steps: cannot unpack the bundle" >&2; exit 2; }
fi
[ -f .gpu/run.sh ] || { echo "gpu-steps: no bundle in .gpu (see the header)" >&2; exit 2; }
cli=.gpu/bin-cuprite
note() { echo "$*" | tee -a "$sum"; }
example() { # NAME CRATE
    echo "=== example $1" >> "$L/examples.log"
    (cd "crates/$2" && timeout "${EXAMPLE_T:-180}" "$root/.gpu/example-$1") >> "$L/examples.log" 2>&1
    note "example $1 rc=$?"
}
for step in ${STEPS:-tests}; do
    note "##### $step at $(( $(date +%s) - t0 )) s"
    case "$step" in
        tests)
            CUPRITE_GPU_LOG_DIR="$L" OUT="$L" timeout "${TESTS_T:-400}" bash .gpu/run.sh ${TEST_FILTER:-} > /dev/null 2>&1
            note "tests rc=$?"
            grep -E "^test result|^FAILED|panicked" "$L/gpu-tests.log" | head -40 | tee -a "$sum" ;;
        examples)
            for f in .gpu/example-*; do
                [ -x "$f" ] || continue
                n="${f##*/example-}"
                c=cuprite
                for d in crates/*/examples/"$n".rs; do [ -e "$d" ] && c="$(basename "$(dirname "$(dirname "$d")")")"; done
                example "$n" "$c"
            done
            (timeout 120 "$cli" info && timeout "${DEMO_T:-200}" "$cli" demo) > "$L/demo.log" 2>&1
            note "info and demo rc=$?" ;;
        fuzz)
            for seed in ${FUZZ_SEEDS:-1}; do
                timeout "${FUZZ_T:-300}" "$cli" fuzz --programs "${FUZZ_N:-10000}" --seed "$seed" > "$L/fuzz-$seed.log" 2>&1
                note "fuzz seed $seed rc=$?"
                tail -n 3 "$L/fuzz-$seed.log" | tee -a "$sum"
            done ;;
        replay)
            for seed in ${FUZZ_SEEDS:-1}; do
                timeout $(( ${REPLAY_S:-240} + 60 )) "$cli" fuzz --replay --programs "${FUZZ_N:-10000}" \
                    --max-seconds "${REPLAY_S:-240}" --seed "$seed" > "$L/replay-$seed.log" 2>&1
                note "replay seed $seed rc=$?"
                tail -n 12 "$L/replay-$seed.log" | tee -a "$sum"
            done ;;
        memcheck)
            mb="${MC_BIN:-test-cuprite-array}"
            dir=$(grep -E "^run $mb " .gpu/run.sh | awk '{print $3; exit}')
            if [ -z "$dir" ]; then
                note "memcheck: .gpu/run.sh has no binary $mb"
            else
                exact=1
                [ "${MC_SLACK:-0}" = 1 ] && exact=0
                # shellcheck disable=SC2086
                (cd "$dir" && env CUPRITE_REQUIRE_GPU=1 CUPRITE_UNDER_SANITIZER=1 \
                    CUPRITE_ALLOC_EXACT=$exact timeout "${MEMCHECK_T:-500}" \
                    /usr/local/cuda/bin/compute-sanitizer --tool memcheck --report-api-errors no \
                    "$root/.gpu/$mb" ${MC_FILTER:-} --test-threads=1) > "$L/memcheck.log" 2>&1
                note "memcheck $mb ${MC_FILTER:-} rc=$?"
                grep -E "ERROR SUMMARY|^test result|FAILED" "$L/memcheck.log" | head -20 | tee -a "$sum"
            fi ;;
        tiles)
            for round in $(seq "${TILE_ROUNDS:-2}"); do
                for t in ${TILES:-default}; do
                    echo "=== tile $t round $round" >> "$L/tiles.log"
                    if [ "$t" = default ]; then
                        timeout 120 "$cli" bench "${TILE_BENCH:-image/gaussian_filter}" >> "$L/tiles.log" 2>&1
                    else
                        CUPRITE_IMAGE_SEP_TILE="$t" timeout 120 "$cli" bench \
                            "${TILE_BENCH:-image/gaussian_filter}" >> "$L/tiles.log" 2>&1
                    fi
                    note "tile $t round $round rc=$?"
                done
            done ;;
        stress)
            timeout "${STRESS_T:-300}" "$cli" stress --threads 16 --streams 4 --seconds "${STRESS_S:-60}" > "$L/stress.log" 2>&1
            note "stress rc=$?"
            tail -n 6 "$L/stress.log" | tee -a "$sum" ;;
        peers)
            for p in ${PEERS:-array}; do
                timeout "${PEER_T:-300}" python3 "benches/peers/torch_$p.py" --json "$L/torch_$p.json" > "$L/peer_$p.log" 2>&1
                note "peer $p rc=$?"
            done ;;
        bench)
            peer_args=()
            for f in "$L"/torch_*.json; do [ -s "$f" ] && peer_args+=(--peers "$f"); done
            timeout "${BENCH_T:-400}" "$cli" bench ${BENCH:-} --markdown --json "$L/bench.json" \
                ${peer_args[@]+"${peer_args[@]}"} > "$L/bench.log" 2>&1
            note "bench rc=$?" ;;
        smallop)
            if [ -x .gpu-pack/cuprite-host-profile ]; then
                for _ in 1 2; do timeout 120 .gpu-pack/cuprite-host-profile bench array/small_op_host >> "$L/smallop-host-profile.log" 2>&1; done
            fi
            for _ in 1 2; do timeout 120 "$cli" bench array/small_op_host >> "$L/smallop.log" 2>&1; done
            note "smallop done" ;;
        sanitize)
            CUPRITE_SANITIZE_LOG_DIR="$L/sanitize" timeout "${SANITIZE_T:-560}" bash scripts/gpu-sanitize.sh .gpu > "$L/sanitize.log" 2>&1
            note "sanitize rc=$?"
            cat "$L"/sanitize/results/* > "$L/sanitize/all.txt" 2>/dev/null
            tail -n 8 "$L/sanitize.log" | tee -a "$sum"
            # Large logs cut to their start (the reports come first).
            find "$L/sanitize" -name '*.log' -size +1M -exec sh -c 'head -c 100000 "$1" > "$1.head" && rm "$1"' _ {} \; ;;
        ncu)
            m="${NCU_METRICS:-gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read_lookup_miss.sum}"
            timeout "${NCU_T:-200}" /usr/local/cuda/bin/ncu --clock-control none \
                -k "regex:${NCU_KERNELS:-cuprite_sort}" --launch-count "${NCU_COUNT:-8}" --metrics "$m" \
                "$cli" bench ${NCU_BENCH:-sort/f32_2^26_with} --repeats 1 --warmup 0 > "$L/ncu.log" 2>&1
            note "ncu rc=$?"
            grep -E "^  [A-Za-z_]|__" "$L/ncu.log" | head -80 | tee -a "$sum" ;;
        *)
            note "gpu-steps: unknown step $step (see the header)" ;;
    esac
done
note "##### end at $(( $(date +%s) - t0 )) s"
tar -czf "$out/logs.tgz" -C "$out" logs
