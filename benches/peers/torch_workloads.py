#!/usr/bin/env python3
"""PyTorch peer figures for the workload benchmarks (crates/cuprite-cli/src/bench/workloads.rs).

Runs on the same GPU, in the same call, the same work as `cuprite bench workloads`, each in
PyTorch eager and under torch.compile:
- black_scholes: call and put prices of 2^24 float32 options (spot 5-30, strike 1-100, expiry
  0.25-10 years, rate 2%, volatility 30%), the normal distribution function as erfc;
- kmeans: one Lloyd iteration over 2^22 points in 16-D with 64 centroids: |c|^2 - 2 x.c by a
  matrix product, argmin, index_add_ of the points and bincount of the labels, new centroids
  (an empty cluster keeps its centroid);
- spectral_poisson: a 4096² float32 periodic Poisson solve: rfft2, a multiplication by
  -1/(kx² + ky²) (0 at the mean), irfft2.
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median over
the repeats, divided by K, is printed in ms. This script computes no ratio:
`cuprite bench --peers FILE` does.

usage: python3 benches/peers/torch_workloads.py [--quick] [--repeats N] [--json out.json]
"""
import json
import math
import sys

import torch
from peer_timing import identity, per_call_ms


def black_scholes(s, k, t):
    rate, vol = 0.02, 0.30
    vol_sqrt_t = torch.sqrt(t) * vol
    d1 = (torch.log(s / k) + t * (rate + 0.5 * vol * vol)) / vol_sqrt_t
    d2 = d1 - vol_sqrt_t

    def cdf(x):
        return torch.erfc(x * -(1.0 / math.sqrt(2.0))) * 0.5

    discounted_k = k * torch.exp(t * -rate)
    call = s * cdf(d1) - discounted_k * cdf(d2)
    put = discounted_k * cdf(-d2) - s * cdf(-d1)
    return call, put


def lloyd_step(x, centroids):
    k, d = centroids.shape
    c_sq = (centroids * centroids).sum(1)
    scores = c_sq - (x @ centroids.t()) * 2.0
    labels = scores.argmin(1)
    sums = torch.zeros(k, d, device=x.device, dtype=x.dtype).index_add_(0, labels, x)
    counts = torch.bincount(labels, minlength=k).to(x.dtype).reshape(k, 1)
    keep_old = (1.0 - counts).clamp_min(0.0)
    return (sums + centroids * keep_old) / counts.clamp_min(1.0)


def poisson(f, inverse):
    n = f.shape[0]
    return torch.fft.irfft2(torch.fft.rfft2(f) * inverse, s=(n, n))


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    calls = 10
    g = torch.Generator(device="cuda").manual_seed(1)
    res = {**identity(quick)}

    def timed(key, fn):
        med, lo, hi = per_call_ms(fn, calls, reps=reps)
        res[key], res[key.replace("_ms", "_min_max_ms")] = med, [lo, hi]

    n = 1 << (18 if quick else 24)
    s = torch.rand(n, device="cuda", generator=g) * 25.0 + 5.0
    k = torch.rand(n, device="cuda", generator=g) * 99.0 + 1.0
    t = torch.rand(n, device="cuda", generator=g) * 9.75 + 0.25
    timed("black_scholes_eager_ms", lambda: black_scholes(s, k, t))
    compiled_bs = torch.compile(black_scholes, dynamic=False)
    timed("black_scholes_compile_ms", lambda: compiled_bs(s, k, t))
    del s, k, t

    m, dim, clusters = 1 << (16 if quick else 22), 16, 64
    x = torch.randn(m, dim, device="cuda", generator=g) * 10.0
    centroids = x[:clusters].clone()
    timed("kmeans_eager_ms", lambda: lloyd_step(x, centroids))
    compiled_step = torch.compile(lloyd_step, dynamic=False)
    timed("kmeans_compile_ms", lambda: compiled_step(x, centroids))

    del x, centroids

    p = 512 if quick else 4096
    f = torch.randn(p, p, device="cuda", generator=g)
    ky = torch.fft.fftfreq(p, 1.0 / p, device="cuda").reshape(p, 1)
    kx = torch.fft.rfftfreq(p, 1.0 / p, device="cuda").reshape(1, p // 2 + 1)
    k2 = ky * ky + kx * kx
    at_mean = (1.0 - k2).clamp_min(0.0)
    inverse = ((at_mean - 1.0) / (k2 + at_mean)).to(torch.complex64)
    timed("spectral_poisson_eager_ms", lambda: poisson(f, inverse))
    compiled_poisson = torch.compile(poisson, dynamic=False)
    timed("spectral_poisson_compile_ms", lambda: compiled_poisson(f, inverse))

    res["peer"] = f"PyTorch {torch.__version__}"
    res["method"] = f"CUDA events around {calls} back-to-back calls"
    res["sizes"] = {"black_scholes": n, "kmeans": m, "spectral_poisson": p}
    for key, val in res.items():
        print(f"{key:30} {val:.4g}" if isinstance(val, float) else f"{key:30} {val}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
