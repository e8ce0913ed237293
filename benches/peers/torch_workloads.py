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
  -1/(kx² + ky²) (0 at the mean), irfft2;
- mlp_train: one SGD step of a bfloat16 1024-4096-1024 perceptron with tanh-GELU on a batch of
  4096: out = gelu(x W1 + b1) W2 + b2, loss 0.5 * sum((out - y)^2) / batch (in float32), the
  gradients by autograd (torch.autograd.grad; under torch.compile the loss function is compiled,
  so its backward is too), the update p -= lr * grad (one foreach kernel);
- nbody: one symplectic Euler step of 16,384 float32 bodies under softened gravity (G = 1,
  eps^2 = 0.01, dt = 1e-3): the pair differences by broadcasting (1,N,3) - (N,1,3), the
  accelerations summed over the second body, v += a dt, r += v dt;
- poisson_cg (torch.compile only; its eager loop and cupyx are in sparse_peers.py): 200
  unpreconditioned conjugate gradient iterations from x = 0 on the 5-point Laplacian of a
  1024 x 1024 grid in float64 (CSR, tol never reached, no host synchronisation), one
  iteration (SpMV, two dot products, three vector updates) compiled and called 200 times;
  where torch.compile does not take the sparse CSR product, the product runs eagerly and the
  rest of the iteration is compiled (the key poisson_cg_compile_note says which).
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median over
the repeats, divided by K, is printed in ms. This script computes no ratio:
`cuprite bench --peers FILE` does.

usage: python3 benches/peers/torch_workloads.py [--quick] [--repeats N] [--only NAME[,NAME]] [--json out.json]
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


def mlp_loss(x, y, w1, b1, w2, b2):
    h = torch.nn.functional.gelu(torch.addmm(b1, x, w1), approximate="tanh")
    out = torch.addmm(b2, h, w2)
    diff = (out - y).float()
    return (diff * diff).sum() * (0.5 / x.shape[0])


def mlp_step(loss_fn, params, x, y, lr):
    loss = loss_fn(x, y, *params)
    grads = torch.autograd.grad(loss, params)
    with torch.no_grad():
        torch._foreach_add_(params, grads, alpha=-lr)
    return loss


def nbody_step(pos, vel, mass, eps2=0.01, dt=1e-3):
    n = pos.shape[0]
    d = pos.reshape(1, n, 3) - pos.reshape(n, 1, 3)
    r2 = (d * d).sum(2, keepdim=True) + eps2
    inv = torch.rsqrt(r2)
    acc = (d * (inv * inv * inv * mass.reshape(1, n, 1))).sum(1)
    vel2 = vel + acc * dt
    return pos + vel2 * dt, vel2


def cg_step(a, x, r, p, rr):
    """One conjugate gradient iteration (as sparse_peers.torch_cg's loop body)."""
    ap = a @ p
    return cg_update(ap, x, r, p, rr)


def cg_update(ap, x, r, p, rr):
    """The iteration after the product: step length, x, r, the new direction."""
    alpha = rr / torch.dot(p, ap)
    x = x + alpha * p
    r = r - alpha * ap
    rr_new = torch.dot(r, r)
    return x, r, r + (rr_new / rr) * p, rr_new


def cg_run(step, a, b, iters):
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rr = torch.dot(r, r)
    for _ in range(iters):
        x, r, p, rr = step(a, x, r, p, rr)
    return x


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    # --only NAME[,NAME...]: just those workloads (their figures alone are in the file).
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    calls = 10
    g = torch.Generator(device="cuda").manual_seed(1)
    res = {**identity(quick)}
    sizes = {}

    def timed(key, fn):
        med, lo, hi = per_call_ms(fn, calls, reps=reps)
        res[key], res[key.replace("_ms", "_min_max_ms")] = med, [lo, hi]

    def run_black_scholes():
        n = 1 << (18 if quick else 24)
        s = torch.rand(n, device="cuda", generator=g) * 25.0 + 5.0
        k = torch.rand(n, device="cuda", generator=g) * 99.0 + 1.0
        t = torch.rand(n, device="cuda", generator=g) * 9.75 + 0.25
        timed("black_scholes_eager_ms", lambda: black_scholes(s, k, t))
        compiled_bs = torch.compile(black_scholes, dynamic=False)
        timed("black_scholes_compile_ms", lambda: compiled_bs(s, k, t))
        del s, k, t
        sizes["black_scholes"] = n

    def run_kmeans():
        m, dim, clusters = 1 << (16 if quick else 22), 16, 64
        x = torch.randn(m, dim, device="cuda", generator=g) * 10.0
        centroids = x[:clusters].clone()
        timed("kmeans_eager_ms", lambda: lloyd_step(x, centroids))
        compiled_step = torch.compile(lloyd_step, dynamic=False)
        timed("kmeans_compile_ms", lambda: compiled_step(x, centroids))

        del x, centroids
        sizes["kmeans"] = m

    def run_spectral_poisson():
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

        del f, ky, kx, k2, at_mean, inverse
        sizes["spectral_poisson"] = p

    def run_mlp_train():
        batch = 512 if quick else 4096
        d_in, hidden, d_out = batch // 4, batch, batch // 4

        def normal(*shape, scale=1.0):
            return (torch.randn(*shape, device="cuda", generator=g) * scale).to(torch.bfloat16)

        params = [
            normal(d_in, hidden, scale=d_in ** -0.5),
            normal(hidden, scale=0.1),
            normal(hidden, d_out, scale=hidden ** -0.5),
            normal(d_out, scale=0.1),
        ]
        for p_ in params:
            p_.requires_grad_(True)
        xb, yb = normal(batch, d_in), normal(batch, d_out)
        lr = 1.0 / hidden
        timed("mlp_train_eager_ms", lambda: mlp_step(mlp_loss, params, xb, yb, lr))
        compiled_loss = torch.compile(mlp_loss, dynamic=False)
        timed("mlp_train_compile_ms", lambda: mlp_step(compiled_loss, params, xb, yb, lr))
        del params, xb, yb
        sizes["mlp_train"] = f"batch {batch}, {d_in}-{hidden}-{d_out}"

    def run_nbody():
        bodies = 2048 if quick else 16384
        pos = torch.randn(bodies, 3, device="cuda", generator=g)
        vel = torch.randn(bodies, 3, device="cuda", generator=g) * 0.1
        mass = (torch.rand(bodies, device="cuda", generator=g) + 0.5) / bodies
        timed("nbody_eager_ms", lambda: nbody_step(pos, vel, mass))
        compiled_nbody = torch.compile(nbody_step, dynamic=False)
        timed("nbody_compile_ms", lambda: compiled_nbody(pos, vel, mass))

        del pos, vel, mass
        sizes["nbody"] = bodies

    def run_poisson_cg():
        from sparse_peers import laplacian

        pg = 128 if quick else 1024
        poff, pidx, pval = laplacian(pg)
        pa = torch.sparse_csr_tensor(poff.cuda(), pidx.cuda(), pval.double().cuda(), size=(pg * pg, pg * pg))
        pb = torch.rand(pg * pg, device="cuda", generator=g, dtype=torch.float64)
        whole = torch.compile(cg_step, dynamic=False)
        step = whole
        res["poisson_cg_compile_note"] = "the whole iteration compiled"
        try:
            cg_run(whole, pa, pb, 2)
            torch.cuda.synchronize()
        except Exception as e:  # torch.compile may refuse the sparse CSR operand
            update = torch.compile(cg_update, dynamic=False)

            def step(a, x, r, p, rr):
                return update(a @ p, x, r, p, rr)

            res["poisson_cg_compile_note"] = (
                f"SpMV eager (torch.compile refused it: {type(e).__name__}), the rest compiled"
            )
        med, lo, hi = per_call_ms(lambda: cg_run(step, pa, pb, 200), 1, reps=max(3, reps // 4))
        res["poisson_cg_compile_ms"], res["poisson_cg_compile_min_max_ms"] = med, [lo, hi]
        del pa, pb
        sizes["poisson_cg"] = pg

    runs = {
        "black_scholes": run_black_scholes,
        "kmeans": run_kmeans,
        "spectral_poisson": run_spectral_poisson,
        "mlp_train": run_mlp_train,
        "nbody": run_nbody,
        "poisson_cg": run_poisson_cg,
    }
    for name, run in runs.items():
        if only is None or name in only:
            run()

    res["peer"] = f"PyTorch {torch.__version__}"
    res["method"] = f"CUDA events around {calls} back-to-back calls (poisson_cg: one solve)"
    res["sizes"] = sizes
    for key, val in res.items():
        print(f"{key:30} {val:.4g}" if isinstance(val, float) else f"{key:30} {val}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
