#!/usr/bin/env python3
"""PyTorch peer figures for the cuprite-array benchmarks (crates/cuprite-cli/src/bench/array.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench array`:
- the fused 8-op chain ((a*b + c).sin() * d.exp() - a/2) over 2^26 f32: eager and torch.compile
  (bytes: 4 inputs + 1 output);
- torch.sum over 2^28 f32 and torch.dot over 2^26 f32 (bytes read);
- host time of one small op (a + 1 over 1000 f32), call to enqueued.
Device work is timed with CUDA events after warm-up; the median of the repeats is printed.

usage: python3 benches/peers/torch_array.py [--quick] [--json out.json]
"""
import json, statistics, sys, time

import torch


def device_time(fn, warmup=5, reps=30):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    out = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        out.append(start.elapsed_time(end) / 1e3)
    return statistics.median(out)


def chain(a, b, c, d):
    return torch.sin(a * b + c) * torch.exp(d) - a / 2


def main():
    quick = "--quick" in sys.argv
    n = 1 << (20 if quick else 26)
    big = 1 << (20 if quick else 28)
    g = torch.Generator(device="cuda").manual_seed(1)
    a, b, c, d = (torch.rand(n, device="cuda", generator=g) for _ in range(4))
    res = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}

    t = device_time(lambda: chain(a, b, c, d))
    res["chain_eager_TBps"] = 5 * 4 * n / t / 1e12
    compiled = torch.compile(chain)
    compiled(a, b, c, d)
    t = device_time(lambda: compiled(a, b, c, d))
    res["chain_compile_TBps"] = 5 * 4 * n / t / 1e12

    x = torch.rand(big, device="cuda", generator=g)
    t = device_time(lambda: torch.sum(x))
    res["sum_TBps"] = 4 * big / t / 1e12
    del x
    t = device_time(lambda: torch.dot(a, b))
    res["dot_TBps"] = 8 * n / t / 1e12

    s = torch.rand(1000, device="cuda", generator=g)
    for _ in range(1000):
        s + 1
    torch.cuda.synchronize()
    samples = []
    for _ in range(30):
        t0 = time.perf_counter()
        for _ in range(200):
            s + 1
        samples.append((time.perf_counter() - t0) / 200)
        torch.cuda.synchronize()
    res["small_op_host_us"] = statistics.median(samples) * 1e6

    for k, v in res.items():
        print(f"{k:22} {v:.4g}" if isinstance(v, float) else f"{k:22} {v}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
