//! Sort-family benchmarks through cuprite-array on the array stream: a full sort of
//! 2^26 `f32` with indices and of keys only, 2^26 `i32` with indices, 4096 rows of 4096 `f32`
//! along the last axis, the top 64 of 2^26 `f32` and the median of 2^26 `f32` (radix
//! selection), and `unique` of 2^24 `i64` (the values alone, and with every output). Device time with events around `K` back-to-back
//! calls (each allocating its outputs from the pool; the median over the repeats, divided by
//! `K`), so host work between kernels (a few synchronisations to size passes and outputs)
//! counts. Results are checked against the host. PyTorch's figures come from
//! `benches/peers/torch_sort.py`, run in the same call on the same GPU.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, TimeUnit};
use cuprite_array::{Array, Device, with_device};

/// The sort benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    let one = |name, run| Benchmark {
        name,
        group: "sort",
        needs_gpu: true,
        run,
    };
    vec![
        one("sort/f32_2^26_with_indices", sort_f32_indices),
        one("sort/f32_2^26_keys", sort_f32_keys),
        one("sort/i32_2^26_with_indices", sort_i32),
        one("sort/rows_4096x4096_f32", sort_rows),
        one("sort/topk_64_of_2^26_f32", topk),
        one("sort/median_2^26_f32", median),
        one("sort/unique_2^24_i64", unique),
    ]
}

/// A xorshift stream from the clock.
fn rng() -> impl FnMut() -> u64 {
    let mut s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x5EED, |d| d.as_nanos() as u64)
        | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn f32s(n: usize) -> Vec<f32> {
    let mut r = rng();
    (0..n)
        .map(|_| (r() >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
        .collect()
}

/// Times `call` (`k` per event pair) on device 0's array stream: one figure, with no target of
/// its own. `peer` names the PyTorch call it is judged against by `cuprite bench --peers`
/// (figures of `benches/peers/torch_sort.py` run in the same call), or says there is none.
fn timed(
    b: &mut BenchCtx,
    what: String,
    k: usize,
    peer: &str,
    mut call: impl FnMut() -> Result<(), BenchError>,
) -> BenchResult {
    let stream = cuprite_array::get_stream(0)?;
    stream.context().bind_to_thread()?;
    call()?;
    b.status(what.clone());
    // SAFETY: the array stream of device 0 lives for the process; its context is bound above.
    let s = unsafe { per_call(b, stream.raw(), k, &mut call) }?;
    Ok(vec![Figure::time(what, &s, TimeUnit::Ms).with_note(
        format!("{k} calls per event pair, outputs allocated per call; {peer}"),
    )])
}

fn check(ok: bool, what: &str) -> Result<(), BenchError> {
    if ok {
        Ok(())
    } else {
        Err(format!("{what}: wrong result").into())
    }
}

fn sort_f32_indices(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 26, 1 << 18);
    with_device(Device::cuda(0), || {
        let x = f32s(n);
        let a = Array::from_slice(&x, &[n])?;
        let (v, i) = a.sort_with_indices(0)?;
        let (v, i) = (v.to_vec()?, i.to_vec()?);
        check(
            v.windows(2).all(|w| w[0] <= w[1])
                && (0..n).step_by(997).all(|j| x[i[j] as usize] == v[j]),
            "sort f32 with indices",
        )?;
        timed(
            b,
            format!("sort {n} f32 with indices"),
            b.size(5, 2),
            "peer: torch.sort (--peers, benches/peers/torch_sort.py)",
            || {
                a.sort_with_indices(0)?;
                Ok(())
            },
        )
    })
}

fn sort_f32_keys(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 26, 1 << 18);
    with_device(Device::cuda(0), || {
        let a = Array::from_slice(&f32s(n), &[n])?;
        let v = a.sort(0)?.to_vec()?;
        check(v.windows(2).all(|w| w[0] <= w[1]), "sort f32 keys")?;
        timed(
            b,
            format!("sort {n} f32, keys only"),
            b.size(5, 2),
            "no peer: PyTorch always returns indices",
            || {
                a.sort(0)?;
                Ok(())
            },
        )
    })
}

fn sort_i32(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 26, 1 << 18);
    with_device(Device::cuda(0), || {
        let mut r = rng();
        let x: Vec<i32> = (0..n).map(|_| r() as i32).collect();
        let a = Array::from_slice(&x, &[n])?;
        let v = a.sort(0)?.to_vec()?;
        check(v.windows(2).all(|w| w[0] <= w[1]), "sort i32")?;
        timed(
            b,
            format!("sort {n} i32 with indices"),
            b.size(5, 2),
            "peer: torch.sort (--peers, benches/peers/torch_sort.py)",
            || {
                a.sort_with_indices(0)?;
                Ok(())
            },
        )
    })
}

fn sort_rows(b: &mut BenchCtx) -> BenchResult {
    let rows = b.size(4096, 256);
    with_device(Device::cuda(0), || {
        let a = Array::from_slice(&f32s(rows * 4096), &[rows, 4096])?;
        let v = a.sort(-1)?.to_vec()?;
        check(
            v.chunks(4096).all(|r| r.windows(2).all(|w| w[0] <= w[1])),
            "row sort",
        )?;
        timed(
            b,
            format!("sort {rows} rows of 4096 f32 (last axis) with indices"),
            b.size(10, 2),
            "peer: torch.sort(dim=-1) (--peers, benches/peers/torch_sort.py)",
            || {
                a.sort_with_indices(-1)?;
                Ok(())
            },
        )
    })
}

fn topk(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 26, 1 << 18);
    with_device(Device::cuda(0), || {
        let x = f32s(n);
        let a = Array::from_slice(&x, &[n])?;
        let (v, _) = a.topk(64, 0)?;
        let mut s = x.clone();
        s.sort_by(|p, q| q.total_cmp(p));
        check(v.to_vec()? == s[..64], "topk")?;
        timed(
            b,
            format!("topk 64 of {n} f32 (values and indices)"),
            b.size(10, 2),
            "peer: torch.topk (--peers, benches/peers/torch_sort.py)",
            || {
                a.topk(64, 0)?;
                Ok(())
            },
        )
    })
}

fn median(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 26, 1 << 18);
    with_device(Device::cuda(0), || {
        let x = f32s(n);
        let a = Array::from_slice(&x, &[n])?;
        let m = a.median()?.item()?;
        let mut s = x.clone();
        s.sort_by(f32::total_cmp);
        let want = ((s[n / 2 - 1] as f64 + s[n / 2] as f64) * 0.5) as f32;
        check(m == want, "median")?;
        timed(
            b,
            format!("median of {n} f32"),
            b.size(10, 2),
            "peer: torch.median (--peers, benches/peers/torch_sort.py)",
            || {
                a.median()?;
                Ok(())
            },
        )
    })
}

fn unique(b: &mut BenchCtx) -> BenchResult {
    let n = b.size(1 << 24, 1 << 18);
    with_device(Device::cuda(0), || {
        let mut r = rng();
        let x: Vec<i64> = (0..n).map(|_| (r() % (n as u64 / 2)) as i64).collect();
        let a = Array::from_slice(&x, &[n])?;
        let u = a.unique()?;
        let mut s = x.clone();
        s.sort_unstable();
        s.dedup();
        check(u.values.to_vec()? == s, "unique")?;
        check(a.unique_values()?.to_vec()? == s, "unique_values")?;
        let mut figs = timed(
            b,
            format!("unique values of {n} i64 in [0, n/2) (`unique_values`)"),
            b.size(10, 2),
            "peer: torch.unique (--peers, benches/peers/torch_sort.py)",
            || {
                a.unique_values()?;
                Ok(())
            },
        )?;
        figs.extend(timed(
            b,
            format!("unique of {n} i64 in [0, n/2) (values, counts, first, inverse)"),
            b.size(10, 2),
            "peer: torch.unique(return_inverse, return_counts) (--peers, benches/peers/torch_sort.py)",
            || {
                a.unique()?;
                Ok(())
            },
        )?);
        Ok(figs)
    })
}
