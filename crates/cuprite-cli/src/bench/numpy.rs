//! NumPy-level routines: the NaN-aware reductions against the plain reduction of the same data
//! in the same run (their ceiling; target 0.9), and stacking, splitting, repeating and `tril`
//! against the device copy bandwidth (target 0.85). Each figure counts the bytes the routine
//! must move: reductions read `n` elements; the movement routines read and write theirs.
//! `isin` of 2^24 values in 2^16, `lexsort` of 2^24 x 2 keys and `interp` of 2^24 queries
//! into 2^20 points are times, judged against `benches/peers/torch_numpy.py` (PyTorch, and
//! CuPy for `interp`) by `cuprite bench --peers`, as is `eig` of a 1024² f64 matrix
//! (eigenvalues and vectors) against `torch.linalg.eig`.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::{Array, Device, with_device};

/// The NumPy-routine benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "numpy/nan_reductions",
            group: "numpy",
            needs_gpu: true,
            run: nan_reductions,
        },
        Benchmark {
            name: "numpy/movement",
            group: "numpy",
            needs_gpu: true,
            run: movement,
        },
        Benchmark {
            name: "numpy/isin_lexsort",
            group: "numpy",
            needs_gpu: true,
            run: isin_lexsort,
        },
        Benchmark {
            name: "numpy/eig",
            group: "numpy",
            needs_gpu: true,
            run: eig,
        },
        Benchmark {
            name: "numpy/interp",
            group: "numpy",
            needs_gpu: true,
            run: interp,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

fn stream_raw() -> Result<cuprite_sys::driver::CUstream, BenchError> {
    Ok(cuprite_array::get_stream(0)?.raw())
}

/// Device seconds per call of `f` (its steady state: the optimised kernels built first).
fn time(
    ctx: &mut BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    let stream = stream_raw()?;
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the caller's arrays were made on it; `f` only enqueues array
    // work, which runs on that stream.
    unsafe { per_call(ctx, stream, CALLS, &mut f) }
}

/// One routine of [`nan_reductions`]: its name, the call (its result realised), and the
/// index of its plain counterpart in [`PLAIN`].
type NanCase<'a> = (&'a str, Box<dyn Fn() -> Result<(), BenchError> + 'a>, usize);

/// The plain reductions the NaN-aware ones are measured against, in [`nan_reductions`]' order.
const PLAIN: [&str; 10] = [
    "sum", "prod", "mean", "max", "min", "argmax", "var", "std", "cumsum", "cumprod",
];

fn nan_reductions(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(Device::cuda(0), || {
        let u = Array::<f32>::rand_uniform(&[n], 11)?;
        // About one element in ten NaN.
        let a = Array::select(&u.less(0.1f32), f32::NAN, &u)?;
        a.eval()?;
        let gb = 4.0 * n as f64 / 1e12;
        let rate = |s: &Samples| gb / s.median();
        // Every call's result is realised: a scan, and the last element-wise step of a
        // reduction, stay lazy until read, and a lazy result left unread runs nothing.
        macro_rules! run {
            ($e:expr) => {
                Box::new(|| {
                    $e?.eval()?;
                    Ok(())
                })
            };
        }
        let plain: Vec<Box<dyn Fn() -> Result<(), BenchError> + '_>> = vec![
            run!(a.sum()),
            run!(a.prod()),
            run!(a.mean()),
            run!(a.max()),
            run!(a.min()),
            run!(a.argmax()),
            run!(a.var()),
            run!(a.std()),
            run!(a.cumsum(0)),
            run!(a.cumprod(0)),
        ];
        let mut base = Vec::with_capacity(plain.len());
        for f in &plain {
            base.push(time(ctx, f)?);
        }
        let cases: Vec<NanCase> = vec![
            ("nansum", run!(a.nansum()), 0),
            ("nanprod", run!(a.nanprod()), 1),
            ("nanmean", run!(a.nanmean()), 2),
            ("nanmax", run!(a.nanmax()), 3),
            ("nanmin", run!(a.nanmin()), 4),
            ("nanargmax", run!(a.nanargmax()), 5),
            ("nanvar", run!(a.nanvar()), 6),
            ("nanstd", run!(a.nanstd()), 7),
            ("nancumsum", run!(a.nancumsum(0)), 8),
            ("nancumprod", run!(a.nancumprod(0)), 9),
        ];
        let mut figs = Vec::new();
        for (name, f, k) in cases {
            let s = time(ctx, f)?;
            figs.push(
                Figure::rate(
                    format!("{name} of {n} f32, 10% NaN (reads)"),
                    "TB/s",
                    gb,
                    &s,
                )
                .with_ceiling(format!("plain {} of the same array", PLAIN[k]), rate(&base[k]))
                .with_target(Target::RatioAtLeast(0.9))
                .with_note(
                    "each NaN-aware call makes the passes of its plain form: nanmean's sum and count in one f64 reduction, nanvar's and nanstd's then the deviations; nanmax, nanmin and nanargmax are reductions that pass over NaNs (no read-back)",
                ),
            );
        }
        Ok(figs)
    })
}

fn movement(ctx: &mut BenchCtx) -> BenchResult {
    let ceiling = ctx.device_copy_ceiling()?;
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(Device::cuda(0), || {
        let q = n / 4;
        let parts: Vec<Array<f32>> = (0..4)
            .map(|i| Array::<f32>::rand_uniform(&[q], 20 + i))
            .collect::<Result<_, _>>()?;
        let refs: Vec<&Array<f32>> = parts.iter().collect();
        let whole = Array::<f32>::rand_uniform(&[n], 30)?;
        let side = (n as f64).sqrt() as usize;
        let square = Array::<f32>::rand_uniform(&[side, side], 31)?;
        // TB a routine must move: `read` f32 elements read and `written` written.
        let tb = |read: usize, written: usize| 4.0 * (read + written) as f64 / 1e12;
        let mut figs = Vec::new();
        let mut fig = |what: String, bytes: f64, s: &Samples| {
            figs.push(
                Figure::rate(what, "TB/s", bytes, s)
                    .against(&ceiling)
                    .with_target(Target::RatioAtLeast(0.85)),
            );
        };
        let s = time(ctx, || {
            Array::stack(&refs, 0)?.eval()?;
            Ok(())
        })?;
        fig(format!("stack of 4 x {q} f32 (read + write)"), tb(n, n), &s);
        let s = time(ctx, || {
            Array::concat(&refs, 0)?.eval()?;
            Ok(())
        })?;
        fig(
            format!("concatenate of 4 x {q} f32 (read + write)"),
            tb(n, n),
            &s,
        );
        let s = time(ctx, || {
            for p in whole.split(4, 0)? {
                p.contiguous()?.eval()?;
            }
            Ok(())
        })?;
        fig(
            format!("split of {n} f32 into 4 copies (read + write)"),
            tb(n, n),
            &s,
        );
        let half = whole.slice(&[(0..(n / 2) as isize).into()])?.contiguous()?;
        let s = time(ctx, || {
            half.repeat(2)?.eval()?;
            Ok(())
        })?;
        // Each input element is read once and written twice.
        fig(
            format!("repeat x2 of {} f32 (reads {}, writes {n})", n / 2, n / 2),
            tb(n / 2, n),
            &s,
        );
        let s = time(ctx, || {
            square.tril(0)?.eval()?;
            Ok(())
        })?;
        fig(
            format!("tril of {side} x {side} f32 (read + write)"),
            tb(side * side, side * side),
            &s,
        );
        Ok(figs)
    })
}

fn isin_lexsort(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 24, 1 << 18);
    let m = ctx.size(1 << 16, 1 << 12);
    with_device(Device::cuda(0), || {
        // Values in [0, 2^20): about 6% of them are in a test set of 2^16 such values.
        let x = Array::<i64>::randint(0, 1 << 20, &[n], 40)?;
        let t = Array::<i64>::randint(0, 1 << 20, &[m], 41)?;
        let s = time(ctx, || {
            x.isin(&t)?.eval()?;
            Ok(())
        })?;
        let f1 = Figure::time(format!("isin of {n} i64 in {m}"), &s, TimeUnit::Ms)
            .with_note("peer: torch.isin in benches/peers/torch_numpy.py");
        let k1 = Array::<i64>::randint(0, 1 << 10, &[n], 42)?;
        let k2 = Array::<i64>::randint(0, 1 << 10, &[n], 43)?;
        let s = time(ctx, || {
            cuprite_array::ops::lexsort(&[&k1, &k2])?.eval()?;
            Ok(())
        })?;
        let f2 = Figure::time(format!("lexsort of {n} x 2 i64 keys"), &s, TimeUnit::Ms)
            .with_note("peer: two stable torch.sort passes in benches/peers/torch_numpy.py");
        Ok(vec![f1, f2])
    })
}

/// The seed of the `numpy/eig` matrix, shared with `benches/peers/torch_numpy.py`.
const EIG_SEED: u64 = 1024;

/// `count` uniform values in [0, 1) from SplitMix64 of `seed` (the i-th value from the state
/// `seed + i·0x9E3779B97F4A7C15`, i from 1, its top 53 bits scaled by 2^-53): the generator
/// `benches/peers/torch_numpy.py` repeats, so both sides time one matrix.
#[must_use]
pub fn shared_uniform(count: usize, seed: u64) -> Vec<f64> {
    (1..=count as u64)
        .map(|i| {
            let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
        })
        .collect()
}

fn eig(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1024, 256);
    with_device(Device::cuda(0), || {
        // The same matrix as the peer's (see `shared_uniform`): the QR iterations, and so the
        // time, depend on the matrix.
        let a = Array::<f64>::from_slice_on(
            Device::cuda(0),
            &shared_uniform(n * n, EIG_SEED),
            &[n, n],
        )?;
        let stream = stream_raw()?;
        let mut once = || -> Result<(), BenchError> {
            let (w, v) = cuprite_array::linalg::eig(&a)?;
            w.eval()?;
            v.eval()?;
            Ok(())
        };
        once()?;
        // SAFETY: as in `time`: the array stream of device 0 lives for the process and its
        // context is current; each call enqueues its work there (and waits for cuSOLVER's
        // info, which the event pair brackets like any other stream work).
        let s = unsafe { per_call(ctx, stream, 1, &mut once) }?;
        Ok(vec![
            Figure::time(
                format!("eig of {n}² f64 (values and vectors)"),
                &s,
                TimeUnit::Ms,
            )
            .with_note("peer: torch.linalg.eig in benches/peers/torch_numpy.py"),
        ])
    })
}

fn interp(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 24, 1 << 18);
    let m = ctx.size(1 << 20, 1 << 14);
    with_device(Device::cuda(0), || {
        // Uniform queries in [0, 1) into sorted uniform points: every search runs its full
        // depth, and the queries are in no order.
        let xp = Array::<f32>::rand_uniform(&[m], 50)?.sort(0)?;
        let fp = Array::<f32>::rand_uniform(&[m], 51)?;
        let x = Array::<f32>::rand_uniform(&[n], 52)?;
        cuprite_array::eval_many(&[&xp, &fp, &x])?;
        let s = time(ctx, || {
            cuprite_array::ops::interp(&x, &xp, &fp, None, None, None)?.eval()?;
            Ok(())
        })?;
        let f = Figure::time(
            format!("interp of {n} f32 queries into {m} points"),
            &s,
            TimeUnit::Ms,
        )
        .with_note("peer: cupy.interp in benches/peers/torch_numpy.py");
        Ok(vec![f])
    })
}

#[cfg(test)]
mod tests {
    use super::shared_uniform;

    #[test]
    fn shared_uniform_is_splitmix64() {
        // The first three values of seed 1024, computed apart with Python's integers.
        let want = [0.26621512936491976, 0.9478213790814538, 0.2724211505898213];
        assert_eq!(shared_uniform(3, 1024), want);
    }
}
