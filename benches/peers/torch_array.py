#!/usr/bin/env python3
"""PyTorch peer figures for the cuprite-array benchmarks (crates/cuprite-cli/src/bench/array.rs
and curves.rs), to be judged by `cuprite bench --peers FILE`.

Runs on the same GPU the same work as `cuprite bench array curves/array`:
- the fused 8-op chain ((a*b + c).sin() * d.exp() - a/2) over 2^26 f32: eager and torch.compile
  (bytes: 4 inputs + 1 output);
- torch.sum over 2^28 f32 and torch.dot over 2^26 f32 (bytes read);
- host time of one small op (s + 1 over 1000 f32), call to enqueued: Python dispatch, measured
  as cuprite measures its Rust call (200 calls per sample);
- curves: the chain (eager, compiled) and the sum against size, drawn beside cuprite's.

Device work is timed as cuprite times it: K back-to-back calls between one pair of CUDA events,
divided by K, after warm-up; the median of the samples is kept. One call per event pair would
put Python's dispatch (several microseconds) inside each window, a bias as large as the
margins being measured. This script computes no ratio: `cuprite bench --peers` does.

usage: python3 benches/peers/torch_array.py [--quick] [--json out.json]
"""
import json
import statistics
import sys
import time

import torch
from peer_timing import device_time, identity

# The chart names of crates/cuprite-cli/src/bench/curves.rs.
CHART_ARRAY = "array kernels against a device copy of the same arrays"
ELEMENTS = "f32 elements per array"


def calls_for(nbytes, cap):
    """As cuprite's curves: enough calls that a sample is long against the host's cost."""
    return max(1, min(cap, (256 << 20) // max(1, nbytes)))


def chain(a, b, c, d):
    return torch.sin(a * b + c) * torch.exp(d) - a / 2


def main():
    quick = "--quick" in sys.argv
    n = 1 << (20 if quick else 26)
    big = 1 << (20 if quick else 28)
    calls = 10  # as cuprite's array/fused_chain and array/sum
    g = torch.Generator(device="cuda").manual_seed(1)
    a, b, c, d = (torch.rand(n, device="cuda", generator=g) for _ in range(4))
    figures = {}

    t = device_time(lambda: chain(a, b, c, d), calls)
    figures["chain_eager_TBps"] = 5 * 4 * n / t / 1e12
    compiled = torch.compile(chain, dynamic=False)
    compiled(a, b, c, d)
    t = device_time(lambda: compiled(a, b, c, d), calls)
    figures["chain_compile_TBps"] = 5 * 4 * n / t / 1e12

    x = torch.rand(big, device="cuda", generator=g)
    t = device_time(lambda: torch.sum(x), calls)
    figures["sum_TBps"] = 4 * big / t / 1e12
    del x
    t = device_time(lambda: torch.dot(a, b), calls)
    figures["dot_TBps"] = 8 * n / t / 1e12

    s = torch.rand(1000, device="cuda", generator=g)
    for _ in range(1000):
        s + 1
    torch.cuda.synchronize()
    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        for _ in range(200):
            s + 1
        samples.append((time.perf_counter() - t0) / 200)
        torch.cuda.synchronize()
    figures["small_op_host_us"] = statistics.median(samples) * 1e6
    del a, b, c, d

    # Curves at cuprite's sizes (curves/array): 2^14 .. 2^26 elements (2^20 with --quick).
    # One compiled function for every size (dynamic shapes: compiled once or twice, not per size).
    curves = []
    top = 20 if quick else 26
    comp = torch.compile(chain, dynamic=True)
    for log2 in range(14, top + 1, 2):
        m = 1 << log2
        k = calls_for(4 * m, 100)
        p, q, r, u = (torch.rand(m, device="cuda", generator=g) for _ in range(4))
        comp(p, q, r, u)
        for series, fn, nbytes in [
            ("fused 8-op chain (4 in + 1 out), eager", lambda: chain(p, q, r, u), 5 * 4 * m),
            ("fused 8-op chain (4 in + 1 out), torch.compile", lambda: comp(p, q, r, u), 5 * 4 * m),
            ("sum (reads)", lambda: torch.sum(p), 4 * m),
            ("fused sum(a*b) (reads), torch.dot", lambda: torch.dot(p, q), 8 * m),
        ]:
            t = device_time(fn, k, warmup=2, reps=10)
            curves.append({"chart": CHART_ARRAY, "series": series, "x": m, "y": nbytes / t / 1e9,
                           "x_label": ELEMENTS, "log_x": True, "unit": "GB/s"})

    res = {
        **identity(quick),
        "peer": f"PyTorch {torch.__version__}",
        "method": f"CUDA events around {calls} back-to-back calls (curves: as many as cuprite's)",
        "figures": figures,
        "sizes": {"chain": n, "sum": big, "dot": n},
        "curves": curves,
    }
    for k, v in figures.items():
        print(f"{k:22} {v:.4g}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
