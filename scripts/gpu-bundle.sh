#!/usr/bin/env bash
# Builds cuprite's test binaries (and, if asked, its examples and the `cuprite` binary) on this
# machine and packs them into one folder with a run.sh, for a machine that has a GPU but no Rust
# toolchain. Copy the whole repository with the folder (the tests read files of their crates)
# and run `bash .gpu/run.sh` there. See CONTRIBUTING.md.
#
# Usage: bash scripts/gpu-bundle.sh [--out DIR] [--debug] [--examples] [--bins] [-- CARGO ARGS]
#   --out DIR    the folder to write (default .gpu, relative to the repository root)
#   --debug      debug builds (default: release)
#   --examples   also pack every example (as example-NAME)
#   --bins       also pack the binaries (bin-cuprite)
#   -- ARGS      extra arguments for cargo, e.g. `-- -p cuprite-cli` for one crate's tests
#
# run.sh [FILTER...]: runs every packed test binary from its crate's folder (as cargo does) with
# CUPRITE_REQUIRE_GPU=1, so a test that finds no GPU fails instead of being ignored; FILTER is
# passed to each test binary. The log goes to $CUPRITE_GPU_LOG_DIR/gpu-tests.log (default
# /tmp/cuprite-gpu). It exits non-zero when any test binary failed.
set -euo pipefail

out=.gpu
profile=release
examples=0
bins=0
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --debug) profile=debug; shift ;;
        --examples) examples=1; shift ;;
        --bins) bins=1; shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gpu-bundle.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="$(command -v python3 || command -v python)"
release=()
[ "$profile" = release ] && release=(--release)

# Reads cargo's JSON messages on stdin; prints "kind<TAB>name<TAB>executable<TAB>crate folder"
# for each executable artifact of the wanted kind (test binaries, or examples and bins).
artifacts() {
    "$python" -c '
import json, os, sys
want_test = sys.argv[1] == "test"
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    if bool(m.get("profile", {}).get("test")) != want_test:
        continue
    kinds = m["target"]["kind"]
    kind = "test" if want_test else ("example" if "example" in kinds else "bin")
    print("\t".join([kind, m["target"]["name"], m["executable"], os.path.dirname(m["manifest_path"])]))
' "$1"
}

# `--workspace` unless the extra arguments pick packages themselves (cargo lets it win over -p).
scope=(--workspace)
for a in ${extra[@]+"${extra[@]}"}; do
    case "$a" in -p|--package|--package=*|-p?*) scope=() ;; esac
done

list="$(mktemp)"
trap 'rm -f "$list"' EXIT
cargo test ${scope[@]+"${scope[@]}"} --no-run "${release[@]}" --message-format=json-render-diagnostics \
    ${extra[@]+"${extra[@]}"} | artifacts test >>"$list"
if [ $examples = 1 ] || [ $bins = 1 ]; then
    what=()
    [ $examples = 1 ] && what+=(--examples)
    [ $bins = 1 ] && what+=(--bins)
    cargo build ${scope[@]+"${scope[@]}"} "${release[@]}" "${what[@]}" --message-format=json-render-diagnostics \
        ${extra[@]+"${extra[@]}"} | artifacts build >>"$list"
fi

rm -rf "$out"
mkdir -p "$out"
up="$("$python" -c 'import os, sys; print(os.path.relpath(sys.argv[1], os.path.abspath(sys.argv[2])))' "$root" "$out")"
run="$out/run.sh"
cat >"$run" <<EOF
#!/usr/bin/env bash
# Written by scripts/gpu-bundle.sh: runs every packed test binary from its crate's folder.
here="\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
root="\$(cd "\$here/$up" && pwd)"
export CUPRITE_REQUIRE_GPU=1
log_dir="\${CUPRITE_GPU_LOG_DIR:-/tmp/cuprite-gpu}"
mkdir -p "\$log_dir"
log="\$log_dir/gpu-tests.log"
: >"\$log"
fail=0
run() {
    local name=\$1 dir=\$2
    shift 2
    echo "=== \$name (in \$dir)" | tee -a "\$log"
    (cd "\$root/\$dir" && "\$here/\$name" "\$@") 2>&1 | tee -a "\$log"
    if [ "\${PIPESTATUS[0]}" != 0 ]; then
        echo "FAILED: \$name" | tee -a "\$log"
        fail=1
    fi
}
EOF

count=0
declare -A seen=()
while IFS=$'\t' read -r kind name exe dir; do
    dest="$kind-$name"
    while [ -n "${seen[$dest]:-}" ]; do dest="${dest}_"; done
    seen[$dest]=1
    cp "$exe" "$out/$dest"
    strip --strip-debug "$out/$dest" 2>/dev/null || true
    chmod +x "$out/$dest"
    count=$((count + 1))
    if [ "$kind" = test ]; then
        rel="$("$python" -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$dir" "$root")"
        echo "run $dest $rel \"\$@\"" >>"$run"
    fi
    printf '  %-8s %s\n' "$kind" "$name"
done <"$list"

cat >>"$run" <<'EOF'
if [ $fail = 0 ]; then
    echo "every test binary passed" | tee -a "$log"
else
    echo "some test binaries FAILED (see above)" | tee -a "$log"
    exit 1
fi
EOF
chmod +x "$run"
size="$(du -sm "$out" | cut -f1)"
echo "gpu-bundle.sh: $count binaries, ${size} MiB in $out/; on the GPU machine: bash $out/run.sh [FILTER]"
