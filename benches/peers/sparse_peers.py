#!/usr/bin/env python3
"""Peer figures for the sparse benchmarks (crates/cuprite-cli/src/bench/sparse.rs):
torch.sparse (CSR) and, when CuPy is installed, cupyx.scipy.sparse.

Runs on the same GPU, in the same call, the same work as `cuprite bench sparse`:
- SpMV of the 5-point Laplacian of a 2048 x 2048 grid (f32, CSR) by a random vector;
- SpMM of the same matrix by a random 16-column dense matrix;
- 200 iterations of cupyx.scipy.sparse.linalg.cg on it (CuPy only; tol never reached);
- (CuPy only) SpMV of a random 2^20 x 2^20 matrix with 16 nonzeros per row (2^24 in all, f32,
  CSR) at uniformly random columns, built as `random_rows` below and as cuprite builds it;
- (CuPy only) SpGEMM `A @ A` of a random 65536 x 65536 CSR matrix (f32) with
  round(1e-3 * 65536^2) nonzeros at distinct uniformly random positions (as
  cuprite's `SparseArray::random`);
- (CuPy only) COO -> CSR, `coo_matrix((v, (i, j))).tocsr()`, of 2^24 triplets (int32 indices,
  float32 values, on the device) at uniformly random positions of a 2^20 x 2^20 matrix: tocsr
  sorts them and sums the values at a repeated position, on every call (a copy of an
  uncanonical matrix), as cuprite's `SparseArray::from_triplet_arrays` of device triplets does;
- the workload `workloads/poisson_cg` (crates/cuprite-cli/src/bench/workloads.rs): 200 conjugate
  gradient iterations on the 5-point Laplacian of a 1024 x 1024 grid in float64 (tol never
  reached), by cupyx.scipy.sparse.linalg.cg and by a conjugate gradient loop written in PyTorch
  (torch.sparse CSR products, the step lengths kept on the device: no host synchronisation).
Device work is timed with CUDA events around K back-to-back calls after warm-up; the median
over the repeats, divided by K, is printed, in ms.

usage: python3 benches/peers/sparse_peers.py [--quick] [--repeats N] [--json out.json]
"""
import json, sys

import torch
from peer_timing import identity, per_call_ms


def laplacian(g):
    """The CSR arrays of the 5-point Laplacian of a g x g grid, columns sorted per row."""
    n = g * g
    p = torch.arange(n, dtype=torch.int64)
    i, j = p // g, p % g
    cols, vals = [], []
    for di, dj, v, ok in [(-1, 0, -1.0, i > 0), (0, -1, -1.0, j > 0), (0, 0, 4.0, torch.ones_like(i, dtype=torch.bool)),
                          (0, 1, -1.0, j < g - 1), (1, 0, -1.0, i < g - 1)]:
        c = p + di * g + dj
        cols.append(torch.where(ok, c, torch.full_like(c, -1)))
        vals.append(torch.full((n,), v))
    cols = torch.stack(cols, 1)
    vals = torch.stack(vals, 1)
    keep = cols >= 0
    counts = keep.sum(1)
    offsets = torch.zeros(n + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(counts, 0)
    return offsets, cols[keep], vals[keep].float()


def random_rows(cupy, n, per_row):
    """CSR offsets and column indices (int32) of n x n with `per_row` nonzeros in each row: the
    columns drawn uniformly from [0, n - per_row], sorted, each raised to one past its
    predecessor where it repeats one (strictly increasing, below n)."""
    c = cupy.sort(cupy.random.randint(0, n - per_row + 1, size=(n, per_row), dtype=cupy.int64), axis=1)
    for k in range(1, per_row):
        c[:, k] = cupy.maximum(c[:, k], c[:, k - 1] + 1)
    off = cupy.arange(0, n * per_row + 1, per_row, dtype=cupy.int32)
    return off, c.reshape(-1).astype(cupy.int32)


def random_distinct(cupy, n, k):
    """The CSR arrays (int32 offsets and columns) of k distinct uniformly random positions of
    an n x n matrix, sorted by row then column."""
    total = n * n
    keys = cupy.unique(cupy.random.randint(0, total, size=k + k // 100 + 16, dtype=cupy.int64))
    while keys.size < k:
        keys = cupy.unique(cupy.concatenate([keys, cupy.random.randint(0, total, size=k, dtype=cupy.int64)]))
    keys = cupy.sort(keys[cupy.random.permutation(keys.size)[:k]])
    rows = keys // n
    off = cupy.searchsorted(rows, cupy.arange(n + 1, dtype=cupy.int64)).astype(cupy.int32)
    return off, (keys % n).astype(cupy.int32)


def torch_cg(a, b, iters):
    """`iters` unpreconditioned conjugate gradient steps from x = 0, without a host sync."""
    x = torch.zeros_like(b)
    r = b.clone()
    p = r.clone()
    rr = torch.dot(r, r)
    for _ in range(iters):
        ap = a @ p
        alpha = rr / torch.dot(p, ap)
        x.add_(alpha * p)
        r.sub_(alpha * ap)
        rr_new = torch.dot(r, r)
        p = r + (rr_new / rr) * p
        rr = rr_new
    return x


def main():
    quick = "--quick" in sys.argv
    reps = int(sys.argv[sys.argv.index("--repeats") + 1]) if "--repeats" in sys.argv else (5 if quick else 20)
    res = identity(quick)
    g = 256 if quick else 2048
    n = g * g
    off, idx, val = laplacian(g)
    gen = torch.Generator(device="cuda").manual_seed(1)
    a = torch.sparse_csr_tensor(off.cuda(), idx.cuda(), val.cuda(), size=(n, n))
    x = torch.rand(n, device="cuda", generator=gen)
    b = torch.rand(n, 16, device="cuda", generator=gen)
    res["torch_spmv_laplacian_ms"] = per_call_ms(lambda: a @ x, 10, reps=reps)[0]
    res["torch_spmm16_laplacian_ms"] = per_call_ms(lambda: a @ b, 10, reps=reps)[0]
    pg = 128 if quick else 1024
    poff, pidx, pval = laplacian(pg)
    pa = torch.sparse_csr_tensor(poff.cuda(), pidx.cuda(), pval.double().cuda(), size=(pg * pg, pg * pg))
    pb = torch.rand(pg * pg, device="cuda", generator=gen, dtype=torch.float64)
    cg_reps = max(3, reps // 4)
    res["torch_poisson_cg_ms"] = per_call_ms(lambda: torch_cg(pa, pb, 200), 1, reps=cg_reps)[0]
    res["peer"] = f"PyTorch {torch.__version__}"
    try:
        import cupy, cupyx.scipy.sparse as sp, cupyx.scipy.sparse.linalg as spl
        import inspect
        # A tolerance of zero runs every iteration: CuPy 14 names it `rtol`, older CuPy `tol`.
        zero_tol = {"rtol" if "rtol" in inspect.signature(spl.cg).parameters else "tol": 0.0}
        ca = sp.csr_matrix((cupy.asarray(val.numpy()), cupy.asarray(idx.numpy().astype("int32")),
                            cupy.asarray(off.numpy().astype("int32"))), shape=(n, n))
        cx = cupy.random.rand(n, dtype=cupy.float32)
        cb = cupy.random.rand(n, 16, dtype=cupy.float32)
        res["cupyx_spmv_laplacian_ms"] = per_call_ms(lambda: ca @ cx, 10, reps=reps)[0]
        res["cupyx_spmm16_laplacian_ms"] = per_call_ms(lambda: ca @ cb, 10, reps=reps)[0]
        res["cupyx_cg200_laplacian_ms"] = per_call_ms(lambda: spl.cg(ca, cx, maxiter=200, **zero_tol), 1, reps=max(3, reps // 4))[0]
        pca = sp.csr_matrix((cupy.asarray(pval.double().numpy()), cupy.asarray(pidx.numpy().astype("int32")),
                             cupy.asarray(poff.numpy().astype("int32"))), shape=(pg * pg, pg * pg))
        pcb = cupy.random.rand(pg * pg, dtype=cupy.float64)
        res["cupyx_poisson_cg_ms"] = per_call_ms(lambda: spl.cg(pca, pcb, maxiter=200, **zero_tol), 1, reps=cg_reps)[0]
        # Random SpMV: 16 nonzeros a row.
        rn = 1 << (14 if quick else 20)
        roff, ridx = random_rows(cupy, rn, 16)
        ra = sp.csr_matrix((cupy.random.rand(ridx.size, dtype=cupy.float32), ridx, roff), shape=(rn, rn))
        rx = cupy.random.rand(rn, dtype=cupy.float32)
        res["cupyx_spmv_random_ms"] = per_call_ms(lambda: ra @ rx, 10, reps=reps)[0]
        # SpGEMM A @ A, density 1e-3 (as many nonzeros as cuprite's SparseArray::random).
        gn = 4096 if quick else 65536
        gk = round(1e-3 * gn * gn)
        goff, gidx = random_distinct(cupy, gn, gk)
        ga = sp.csr_matrix((cupy.random.rand(gk, dtype=cupy.float32), gidx, goff), shape=(gn, gn))
        res["cupyx_spgemm_random_ms"] = per_call_ms(lambda: ga @ ga, 3, reps=reps)[0]
        res["spgemm_product_nnz"] = int((ga @ ga).nnz)
        sizes_cupyx = {"spmv_random": rn, "spmv_random_nnz": int(ridx.size), "spgemm": gn, "spgemm_nnz": gk}
        del ra, rx, ridx, roff, ga, gidx, goff
        # COO -> CSR of unsorted triplets with repeats (tocsr sums them).
        ct = 1 << (16 if quick else 24)
        cn = 1 << (12 if quick else 20)
        coo = sp.coo_matrix((cupy.random.rand(ct, dtype=cupy.float32),
                             (cupy.random.randint(0, cn, size=ct, dtype=cupy.int32),
                              cupy.random.randint(0, cn, size=ct, dtype=cupy.int32))), shape=(cn, cn))
        res["cupyx_coo_to_csr_ms"] = per_call_ms(lambda: coo.tocsr(), 10, reps=reps)[0]
        res["coo_to_csr_stored"] = int(coo.tocsr().nnz)
        sizes_cupyx.update({"coo_triplets": ct, "coo_matrix": cn})
        res["peer"] += f", CuPy {cupy.__version__}"
    except ImportError as e:
        res["cupyx"] = f"not installed ({e})"
        sizes_cupyx = {}
    res["sizes"] = {"grid": g, "rows": n, "nnz": int(off[-1]), "poisson_cg": pg, **sizes_cupyx}
    for key, v in res.items():
        print(f"{key:30} {v:.4g}" if isinstance(v, float) else f"{key:30} {v}")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
