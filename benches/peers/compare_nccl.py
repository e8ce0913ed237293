#!/usr/bin/env python3
"""One table of the NCCL and peer-copy figures of one GPU host, side by side:

- cuprite, one process driving every GPU (`cuprite bench nccl peer --json`),
- cuprite, one process per GPU (`nccl_ranks --spawn N --sweep FILE`),
- torch.distributed with NCCL, one process per GPU (`benches/peers/torch_nccl.py --json`),
- optionally the same with blocking communicators (`CommOptions::blocking`): the one-process
  figures named `... blocking ...` in BENCH.json, and `--blocking-multiproc FILE` (a sweep of
  `nccl_ranks --blocking`),

with the ratio of each cuprite figure to torch's (bus bandwidth: higher is better; the 8 KiB
all_reduce latency: lower is better) and the issue's targets (>= 0.97x torch from 64 MiB up,
<= 20 us for the 8 KiB all_reduce, peer copy >= 0.97x torch).

usage: python3 benches/peers/compare_nccl.py BENCH.json MULTIPROC.json TORCH.json
           [--blocking-multiproc FILE] [--markdown OUT.md]

"met" holds the default (nonblocking) figures to the targets, each cuprite variant on its own
("1 process / per GPU"), the same way for the latency and for the bandwidths: a verdict never
takes the better of two variants for one figure and the worse for another. The blocking columns
are shown beside them, unjudged.
"""
import json, re, sys


def load(path):
    """The JSON at `path`, or {} when it is missing or unreadable (a step that failed)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"compare_nccl: {path}: {e}", file=sys.stderr)
        return {}


def cuprite_figures(path):
    """name -> median from `cuprite bench --json`."""
    out = {}
    d = load(path)
    for r in d.get("results", []):
        for fig in r.get("figures", []) or []:
            name = re.sub(r" \(\d+ rank\(s\)\)$", "", fig["name"])
            out[name] = fig["median"]
    return out


def per_process(path):
    """name -> busbw (GB/s) or time (us) from the sweep / torch JSON."""
    out = {}
    d = load(path)
    for k, v in d.items():
        if isinstance(v, dict):
            if "busbw_GBps" in v:
                out[k] = v["busbw_GBps"]
            elif "GBps" in v:
                out[k] = v["GBps"]
            elif "time_us" in v:
                out[k] = v["time_us"]
    return out, d


MIB = 1 << 20


def refusal(bench, torch_meta):
    """Why the torch file may not be compared with cuprite's report (as `cuprite bench --peers`
    refuses a peer file: another device, driver or quick flag), or None."""
    if not bench:
        return None
    norm = lambda u: (u or "").lower().removeprefix("gpu-")
    for key, same in (("device", lambda a, b: a == b), ("device_uuid", lambda a, b: norm(a) == norm(b)),
                      ("driver", lambda a, b: a == b), ("quick", lambda a, b: bool(a) == bool(b))):
        a, b = bench.get(key), torch_meta.get(key)
        if a is None or b is None:
            return f"{key} is not recorded by both (cuprite: {a!r}, torch: {b!r})"
        if not same(a, b):
            return f"another {key}: cuprite {a!r}, torch {b!r}"
    return None


def size_of(name):
    m = re.search(r" (\d+)(B|KiB|MiB|GiB) ", name + " ")
    if not m:
        return 0
    return int(m.group(1)) * {"B": 1, "KiB": 1 << 10, "MiB": MIB, "GiB": 1 << 30}[m.group(2)]


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    one = cuprite_figures(sys.argv[1])
    multi, _ = per_process(sys.argv[2])
    torch, tmeta = per_process(sys.argv[3])
    why = refusal(load(sys.argv[1]), tmeta)
    if why is not None:
        print(f"compare_nccl: refused, nothing judged: {why}", file=sys.stderr)
        return 1
    mb = {}
    if "--blocking-multiproc" in sys.argv:
        mb, _ = per_process(sys.argv[sys.argv.index("--blocking-multiproc") + 1])

    def blocking_name(n):
        if "latency" in n:
            return n.replace(" latency", " latency blocking")
        parts = n.split(" ", 1)
        return parts[0] + " blocking " + parts[1] if len(parts) == 2 else n

    names = [n for n in torch if n.startswith(("nccl/", "peer/"))]
    rows = ["| figure | cuprite, 1 process | cuprite, 1 process/GPU | blocking: 1 process / per GPU | torch | ratio (1 proc) | ratio (per GPU) | ratio blocking (1 proc / per GPU) | target | met (1 proc / per GPU) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        t = torch.get(n)
        a = one.get(n)
        b = multi.get(n)
        ab = one.get(blocking_name(n))
        bb = mb.get(n)
        lower_better = "latency" in n
        unit = "µs" if lower_better else "GB/s"

        def ratio(x):
            if x is None or not t:
                return None
            return (t / x) if lower_better else (x / t)

        ra, rb = ratio(a), ratio(b)
        rab, rbb = ratio(ab), ratio(bb)
        target, met = "-", "-"
        def verdict(ok, x):
            return "-" if x is None else ("yes" if ok(x) else "NO")

        if "latency" in n:
            # A fixed bound, not a peer's figure: the torch column is shown beside it.
            target = "≤ 20 µs (fixed floor)"
            met = f"{verdict(lambda v: v <= 20.0, a)} / {verdict(lambda v: v <= 20.0, b)}"
        elif n.startswith("peer/") or size_of(n) >= 64 * MIB:
            target = "≥ 0.97× torch"
            met = f"{verdict(lambda r: r >= 0.97, ra)} / {verdict(lambda r: r >= 0.97, rb)}"
        f = lambda v: "-" if v is None else f"{v:.3g} {unit}"
        g = lambda r: "-" if r is None else f"{r:.3f}"
        rows.append(f"| {n} | {f(a)} | {f(b)} | {f(ab)} / {f(bb)} | {f(t)} | {g(ra)} | {g(rb)} | "
                    f"{g(rab)} / {g(rbb)} | {target} | {met} |")
    head = (f"{tmeta.get('gpus')} × {tmeta.get('device')}, NCCL {tmeta.get('nccl')}, torch "
            f"{tmeta.get('torch')}, NCCL_NVLS_ENABLE={tmeta.get('NCCL_NVLS_ENABLE')}")
    text = head + "\n\n" + "\n".join(rows) + "\n"
    print(text)
    if "--markdown" in sys.argv:
        with open(sys.argv[sys.argv.index("--markdown") + 1], "w") as fo:
            fo.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
