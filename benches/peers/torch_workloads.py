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
  rest of the iteration is compiled (the key poisson_cg_compile_note says which);
- image_pipeline: the steps of crates/cuprite-array/examples/image_pipeline.rs on a 4096 x 4096
  float32 image of 256 discs that do not touch (`discs` below, as workloads.rs draws them):
  a Gaussian of sigma 2 (SciPy's 17-tap window, SciPy's 'reflect' border, as two conv2d
  passes), the Sobel derivatives (one conv2d of two 3 x 3 kernels, edges replicated) and
  their magnitude, Canny's edges of the smoothed image (non-maximum suppression along the
  rounded gradient direction, thresholds 0.5 and 0.2 x 0.5 of the largest magnitude,
  hysteresis by max_pool2d until the edge count stops changing: cuprite's `canny`), the mask
  smoothed > 0.5, connected components (8-connected), each component's area and centroid
  (bincount) and a shift by (3.5, -2) with bilinear interpolation (grid_sample, its sampling
  grid made once beforehand). PyTorch has no labelling: the idiomatic loop gives each pixel
  the smallest index of its component by min-propagation (max_pool2d of the negated labels,
  16 rounds, then a comparison with the labels before them, until nothing changes), and
  torch.unique numbers the components 1..n in the raster order of their first pixels, as
  SciPy and cuprite (union-find) number them. Under torch.compile each piece between host
  decisions (the front up to the masks, a hysteresis step, 16 propagation rounds, the
  measurements) is compiled; the loops, torch.unique and the checks stay in Python. The
  labels are checked once against the number of discs drawn and, where SciPy is installed,
  against scipy.ndimage.label of the same mask; the key image_pipeline_stages_* gives each
  step's time.
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median over
the repeats, divided by K, is printed in ms. This script computes no ratio:
`cuprite bench --peers FILE` does.

usage: python3 benches/peers/torch_workloads.py [--quick] [--repeats N] [--only NAME[,NAME]] [--json out.json]
"""
import json
import math
import sys

import torch
import torch.nn.functional as F
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


IMG_CELL = 256  # one disc in each 256 x 256 cell of the image


def discs(n):
    """(row, column, radius, value) of the discs of an n x n image, as workloads.rs draws them:
    one disc in each IMG_CELL-pixel cell, radius 16..56, value 0.6..1.0, at least 12 pixels
    from its cell's sides (so no two touch, even after smoothing)."""
    per = n // IMG_CELL
    out = []
    for a in range(per):
        for b in range(per):
            k = a * per + b
            r = 16 + (k * 37) % 41
            room = IMG_CELL // 2 - r - 12
            cy = a * IMG_CELL + IMG_CELL // 2 + (k * 73) % (2 * room + 1) - room
            cx = b * IMG_CELL + IMG_CELL // 2 + (k * 91) % (2 * room + 1) - room
            out.append((cy, cx, r, 0.6 + 0.04 * ((k * 29) % 11)))
    return out


def disc_image(n):
    """The float32 n x n image of `discs(n)` on a ground of 0, on the device."""
    img = torch.zeros(n, n, dtype=torch.float32)
    for cy, cx, r, v in discs(n):
        i = torch.arange(cy - r, cy + r + 1).reshape(-1, 1)
        j = torch.arange(cx - r, cx + r + 1).reshape(1, -1)
        inside = (i - cy) ** 2 + (j - cx) ** 2 <= r * r
        img[cy - r:cy + r + 1, cx - r:cx + r + 1][inside] = v
    return img.cuda()


def gaussian_taps(sigma=2.0, radius=8):
    """SciPy's Gaussian window (exp(-x^2 / 2 sigma^2), x in -radius..radius, summing to 1)."""
    x = torch.arange(-radius, radius + 1, dtype=torch.float64)
    w = torch.exp(-0.5 * (x / sigma) ** 2)
    return (w / w.sum()).float()


def front(img, taps, sobel_k, neg_index, grid):
    """Everything up to the host's decisions: the smoothed image, the Sobel magnitude, Canny's
    strong and weak pixels, the mask, the first labels (negated) and the shifted image."""
    r = taps.numel() // 2
    x = img[None, None]
    # SciPy's 'reflect' border (d c b a | a b c d | d c b a): flipped slices on each side.
    x = torch.cat([x[..., :r, :].flip(-2), x, x[..., -r:, :].flip(-2)], -2)
    x = torch.cat([x[..., :r].flip(-1), x, x[..., -r:].flip(-1)], -1)
    x = F.conv2d(x, taps.reshape(1, 1, 1, -1))
    smooth = F.conv2d(x, taps.reshape(1, 1, -1, 1))
    g = F.conv2d(F.pad(smooth, (1, 1, 1, 1), mode="replicate"), sobel_k)
    gx, gy = g[:, :1], g[:, 1:]
    mag = torch.sqrt(gx * gx + gy * gy)
    # Non-maximum suppression along the gradient direction rounded to 0, 45, 90 or 135 degrees
    # (pixels past the edges count as 0), as cuprite's canny.
    h, w = mag.shape[-2:]
    pm = F.pad(mag, (1, 1, 1, 1))

    def at(di, dj):
        return pm[..., 1 + di:1 + di + h, 1 + dj:1 + dj + w]

    t = math.tan(math.pi / 8)
    ax, ay = gx.abs(), gy.abs()
    horiz, vert, same = ay <= ax * t, ax <= ay * t, gx * gy > 0
    diag1 = torch.where(same, at(-1, -1), at(-1, 1))
    diag2 = torch.where(same, at(1, 1), at(1, -1))
    n1 = torch.where(horiz, at(0, -1), torch.where(vert, at(-1, 0), diag1))
    n2 = torch.where(horiz, at(0, 1), torch.where(vert, at(1, 0), diag2))
    thin = torch.where((n1 <= mag) & (n2 <= mag) & (mag > 0), mag, 0.0)
    high = mag.amax() * 0.5
    low = high * 0.2
    strong = (thin >= high) & (thin > 0)
    weak = (thin >= low) & (thin > 0)
    mask = smooth > 0.5
    neg = torch.where(mask, neg_index, -math.inf)
    moved = F.grid_sample(smooth, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    return smooth, mag, strong, weak, mask, neg, moved


def grow(strong, weak):
    """One hysteresis step: weak pixels 8-connected to an edge become edges."""
    near = F.max_pool2d(strong.float(), 3, 1, 1) > 0
    return (near & weak) | strong


def propagate(neg, mask):
    """16 rounds of min-label propagation: each pixel of the mask takes the smallest label of
    its 3 x 3 neighbourhood (the largest of the negated labels; the ground is -inf)."""
    for _ in range(16):
        neg = torch.where(mask, F.max_pool2d(neg, 3, 1, 1), neg)
    return neg


def measure(inv, n, width):
    """Each component's area and centroid (row, column) from the numbering `inv` (0: ground)."""
    flat = inv.reshape(-1)
    p = torch.arange(flat.numel(), device=flat.device)
    area = torch.bincount(flat, minlength=n + 1).double()
    rows = torch.bincount(flat, weights=(p // width).double(), minlength=n + 1)
    cols = torch.bincount(flat, weights=(p % width).double(), minlength=n + 1)
    return area[1:], torch.stack([rows[1:] / area[1:], cols[1:] / area[1:]], 1)


def image_pipeline(img, k, ops, stats=None):
    """The whole pipeline with the pieces `ops` (eager or compiled); `k` holds the constants.
    Returns the magnitude, edges, labels (1..n), n, areas, centroids and shifted image."""
    smooth, mag, strong, weak, mask, neg, moved = ops["front"](img, k["taps"], k["sobel"], k["neg_index"], k["grid"])
    count, steps = int(strong.sum()), 0
    while True:
        strong = ops["grow"](strong, weak)
        steps += 1
        c = int(strong.sum())
        if c == count:
            break
        count = c
    rounds = 0
    while True:
        nxt = ops["propagate"](neg, mask)
        rounds += 16
        if torch.equal(nxt, neg):
            break
        neg = nxt
    first = torch.where(mask, -neg, 0.0).long()
    # The ground (0) is the first value: the discs leave the image's border unset.
    uniq, inv = torch.unique(first.reshape(img.shape), return_inverse=True)
    n = uniq.numel() - 1
    area, centroid = ops["measure"](inv, n, img.shape[-1])
    if stats is not None:
        stats["rounds"], stats["steps"] = rounds, steps
    return mag, strong, inv, n, area, centroid, moved


def image_constants(n):
    """The constants of the pipeline on an n x n image: the Gaussian taps, the Sobel kernels
    (d/dx, d/dy), the negated first labels (-1 - flat index, exact in float32 for n <= 4096)
    and grid_sample's grid for the shift by (3.5, -2) (align_corners: -1 and 1 at the centres
    of the first and last pixels)."""
    sx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
    ys = (torch.arange(n, dtype=torch.float64) - 3.5) * (2.0 / (n - 1)) - 1.0
    xs = (torch.arange(n, dtype=torch.float64) + 2.0) * (2.0 / (n - 1)) - 1.0
    grid = torch.stack(torch.broadcast_tensors(xs.reshape(1, n), ys.reshape(n, 1)), -1)
    return {
        "taps": gaussian_taps().cuda(),
        "sobel": torch.stack([sx, sx.t()]).reshape(2, 1, 3, 3).cuda(),
        "neg_index": -torch.arange(1, n * n + 1, dtype=torch.float32, device="cuda").reshape(1, 1, n, n),
        "grid": grid.float().reshape(1, n, n, 2).cuda(),
    }


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


    def run_image_pipeline():
        side = 1024 if quick else 4096
        img = disc_image(side)
        k = image_constants(side)
        # Float32 convolutions in float32, as cuprite computes them (not TF32).
        tf32 = torch.backends.cudnn.allow_tf32
        torch.backends.cudnn.allow_tf32 = False
        drawn = len(discs(side))
        eager = {"front": front, "grow": grow, "propagate": propagate, "measure": measure}
        compiled = {name: torch.compile(fn, dynamic=False) for name, fn in eager.items()}
        outs = {}
        for mode, ops in [("eager", eager), ("compile", compiled)]:
            st = {}
            mag, edges, labels, n, area, centroid, moved = image_pipeline(img, k, ops, st)
            torch.cuda.synchronize()
            if n != drawn:
                # No time for a wrong result: the rows show the peer file has no figure.
                res["image_pipeline_error"] = f"{mode}: {n} components, {drawn} discs drawn"
                torch.backends.cudnn.allow_tf32 = tf32
                return
            outs[mode] = (labels, n, area, centroid, int(edges.sum()))
            res["image_pipeline_label_rounds"] = st["rounds"]
            res["image_pipeline_hysteresis_steps"] = st["steps"]
            timed(f"image_pipeline_{mode}_ms", lambda: image_pipeline(img, k, ops))
            # Each step alone (the loops with their checks), from the same inputs.
            smooth, mag, strong, weak, mask, neg, moved = ops["front"](img, k["taps"], k["sobel"], k["neg_index"], k["grid"])
            stages = {}

            def hysteresis():
                s_, count = strong, int(strong.sum())
                while True:
                    s_ = ops["grow"](s_, weak)
                    c = int(s_.sum())
                    if c == count:
                        return s_
                    count = c

            def labelling():
                ng = neg
                while True:
                    nxt = ops["propagate"](ng, mask)
                    if torch.equal(nxt, ng):
                        break
                    ng = nxt
                return torch.unique(torch.where(mask, -ng, 0.0).long().reshape(side, side), return_inverse=True)

            for name, fn in [
                ("front (gaussian, sobel, canny's suppression, mask, shift)",
                 lambda: ops["front"](img, k["taps"], k["sobel"], k["neg_index"], k["grid"])),
                ("hysteresis", hysteresis),
                ("labelling (propagation, unique)", labelling),
                ("measure (bincount)", lambda: ops["measure"](labels, n, side)),
            ]:
                stages[name] = per_call_ms(fn, calls, reps=max(3, reps // 2))[0]
            res[f"image_pipeline_stages_{mode}_ms"] = stages
        (le, ne, ae, ce, ee), (lc, nc, ac, cc, ec) = outs["eager"], outs["compile"]
        res["image_pipeline_checks"] = {
            "discs drawn": drawn,
            "components eager, compiled": [ne, nc],
            "areas eager == compiled": bool(torch.equal(ae, ac)),
            "edge pixels eager, compiled": [ee, ec],
            "labels eager == compiled": bool(torch.equal(le, lc)),
            "largest centroid difference eager vs compiled": float((ce - cc).abs().max()),
        }
        # An independent labelling of the same mask: SciPy's on the host, else CuPy's.
        want = None
        try:
            import numpy as np
            from scipy import ndimage

            want, count = ndimage.label((le > 0).cpu().numpy(), structure=np.ones((3, 3), dtype=int))
            by = "scipy.ndimage.label"
        except ImportError:
            try:
                import cupy
                import numpy as np
                from cupyx.scipy import ndimage as cnd

                w, count = cnd.label(cupy.asarray(le > 0), structure=cupy.ones((3, 3), dtype=int))
                want, count, by = cupy.asnumpy(w), int(count), "cupyx.scipy.ndimage.label"
            except ImportError:
                res["image_pipeline_checks"]["independent labels"] = "neither SciPy nor CuPy installed"
        if want is not None:
            same = count == ne and np.array_equal(want, le.cpu().numpy())
            res["image_pipeline_checks"][f"{by} agrees"] = bool(same)
            if not same:
                res["image_pipeline_error"] = f"{by} finds {count} components, or numbers them otherwise"
                for key in ("image_pipeline_eager_ms", "image_pipeline_compile_ms"):
                    res.pop(key, None)
            res["image_pipeline_checks"][f"areas equal {by}'s"] = bool(
                np.array_equal(np.bincount(want.ravel())[1:], ae.cpu().numpy().astype(np.int64)))
        torch.backends.cudnn.allow_tf32 = tf32
        del img, k, outs
        sizes["image_pipeline"] = side

    runs = {
        "black_scholes": run_black_scholes,
        "kmeans": run_kmeans,
        "spectral_poisson": run_spectral_poisson,
        "mlp_train": run_mlp_train,
        "nbody": run_nbody,
        "poisson_cg": run_poisson_cg,
        "image_pipeline": run_image_pipeline,
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
