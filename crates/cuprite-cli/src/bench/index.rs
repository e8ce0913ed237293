//! Indexing benchmarks: a gather of 2^26 `f32` at 2^26 random `i64` indices
//! (`Array::take`), and `index_add` of 2^26 `f32` values into 2^20 destinations at random
//! indices, atomic and deterministic; the PyTorch figures (`x[idx]`, `index_add_`) come from
//! `benches/peers/torch_index.py`, run in the same call on the same GPU, and are judged by
//! `cuprite bench --peers` (see [`super::report::PEER_RULES`]).
//!
//! Each figure times K back-to-back calls (the lazy call and its evaluation) between one pair
//! of events ([`super::curves::per_call`]), as the peer script does. The default index mode
//! checks the indices in the kernel that reads them and reads a flag back after it (a
//! synchronisation per call in the timed window), unless the indices' value range is known
//! from how they were made: `randint` indices (as the peer's `torch.randint`) need no check.
//! The gather is timed three ways: `randint` indices, the same indices uploaded from the host
//! (range unknown: checked), and the `clamp` mode (never checked). `index_add` uses uploaded
//! indices (checked) and the `clamp` mode. The deterministic `index_add` is judged against the
//! atomic one of the same run (target: at most 2x).

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Ceiling, Figure, Target, TimeUnit};
use cuprite_array::ops::TakeOpts;
use cuprite_array::ops::{IndexMode, ScatterOpts};
use cuprite_array::{Array, Device, with_device};

/// The indexing benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "index/gather",
            group: "index",
            needs_gpu: true,
            run: gather,
        },
        Benchmark {
            name: "index/index_add",
            group: "index",
            needs_gpu: true,
            run: index_add,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

fn stream_raw() -> Result<cuprite_sys::driver::CUstream, BenchError> {
    Ok(cuprite_array::get_stream(0)?.raw())
}

/// `n` uniform random indices in `[0, range)` (i64), made on the device: their value range
/// is known, so checked calls need no check.
fn indices(n: usize, range: usize, seed: u64) -> Result<Array<i64>, BenchError> {
    let i = Array::<i64>::randint(0, range as i64, &[n], seed)?;
    i.eval()?;
    Ok(i)
}

/// The same indices uploaded from the host, as indices read from a file would be: an upload
/// this large has no known range, so checked calls check.
fn uploaded(i: &Array<i64>) -> Result<Array<i64>, BenchError> {
    Ok(Array::from_slice(&i.to_vec()?, i.shape())?)
}

fn gather(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(1 << 26, 1 << 20);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n], 11)?;
        let idx = indices(n, n, 12)?;
        let up = uploaded(&idx)?;
        // Check once against the host: x[idx] at a few places.
        let g = x.take(&idx)?;
        let (xs, is, gs) = (x.to_vec()?, idx.to_vec()?, g.to_vec()?);
        for k in [0, n / 3, n - 1] {
            if gs[k] != xs[is[k] as usize] {
                return Err(format!("gather check failed at {k}").into());
            }
        }
        cuprite_array::tuning::wait_tier_up();
        let stream = stream_raw()?;
        let mut figs = Vec::new();
        // The headline first: indices the library cannot vouch for, checked on the device, as
        // PyTorch's x[idx] checks them (the pair `--peers` judges). Then the same call where the
        // check is elided (indices of known range) and the clamp mode: cuprite's own paths,
        // labelled, with no peer.
        for (ix, mode, name) in [
            (
                &up,
                IndexMode::Error,
                format!(
                    "gather of {n} f32 at random i64 indices (checked on the device: uploaded indices, the call waits for the check)"
                ),
            ),
            (
                &idx,
                IndexMode::Error,
                format!(
                    "gather (check elided: randint indices, range known) of {n} f32 at random i64 indices"
                ),
            ),
            (
                &idx,
                IndexMode::Clamp,
                format!("gather (clamp, unchecked) of {n} f32 at random i64 indices"),
            ),
        ] {
            // SAFETY: the array stream of device 0 lives for the whole process, and its
            // (primary) context is current after the arrays above were made.
            let s = unsafe {
                per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                    x.take_with(ix, TakeOpts::new().mode(mode))?.eval()?;
                    Ok(())
                })
            }?;
            figs.push(Figure::time(name, &s, TimeUnit::Ms).with_note(format!(
                "{CALLS} calls per event pair; peer: x[idx] in benches/peers/torch_index.py"
            )));
        }
        Ok(figs)
    })
}

fn index_add(ctx: &mut BenchCtx) -> BenchResult {
    let m = ctx.size(1 << 26, 1 << 20);
    let n = ctx.size(1 << 20, 1 << 14);
    with_device(Device::cuda(0), || {
        let v = Array::<f32>::rand_uniform(&[m], 21)?;
        let idx = uploaded(&indices(m, n, 22)?)?;
        let base = Array::<f32>::zeros(&[n]);
        base.eval()?;
        let det = ScatterOpts {
            deterministic: true,
            mode: IndexMode::Error,
        };
        // The deterministic sum twice: the same bits.
        let a = base.index_add(0, &idx, &v, det)?.to_vec()?;
        let b = base.index_add(0, &idx, &v, det)?.to_vec()?;
        if a.iter().zip(&b).any(|(x, y)| x.to_bits() != y.to_bits()) {
            return Err("deterministic index_add differs run to run".into());
        }
        let total: f64 = a.iter().map(|&x| x as f64).sum();
        let want: f64 = v.cast::<f64>().sum()?.item()?;
        if (total - want).abs() > 1e-3 * want.abs().max(1.0) {
            return Err(format!("index_add total {total} vs {want}").into());
        }
        // The atomic sum once (its kernels built before the wait below, so that every figure
        // times the optimised builds): the same total.
        let c = base
            .index_add(0, &idx, &v, ScatterOpts::default())?
            .to_vec()?;
        let total: f64 = c.iter().map(|&x| x as f64).sum();
        if (total - want).abs() > 1e-3 * want.abs().max(1.0) {
            return Err(format!("atomic index_add total {total} vs {want}").into());
        }
        cuprite_array::tuning::wait_tier_up();
        let stream = stream_raw()?;
        let mut figs = Vec::new();
        let mut atomic_ms = None;
        for (opts, label) in [
            (ScatterOpts::default(), "atomic, checked"),
            (
                ScatterOpts {
                    deterministic: false,
                    mode: IndexMode::Clamp,
                },
                "atomic, clamp, unchecked",
            ),
            (det, "deterministic, checked"),
            (
                ScatterOpts {
                    deterministic: true,
                    mode: IndexMode::Clamp,
                },
                "deterministic, clamp, unchecked",
            ),
        ] {
            // SAFETY: as in `gather`.
            let s = unsafe {
                per_call(ctx, stream, CALLS, || -> Result<(), BenchError> {
                    base.index_add(0, &idx, &v, opts)?.eval()?;
                    Ok(())
                })
            }?;
            let mut f = Figure::time(
                format!("index_add of {m} f32 into {n} ({label})"),
                &s,
                TimeUnit::Ms,
            )
            .with_note(format!(
                "{CALLS} calls per event pair; peer: index_add_ in benches/peers/torch_index.py"
            ));
            if !opts.deterministic && opts.mode == IndexMode::Error {
                atomic_ms = Some(s.median() * 1e3);
            }
            if opts.deterministic
                && opts.mode == IndexMode::Error
                && let Some(ms) = atomic_ms
            {
                f = f
                    .against(&Ceiling {
                        name: "atomic index_add of the same run".into(),
                        value: ms,
                    })
                    .with_target(Target::RatioAtMost(2.0));
            }
            figs.push(f);
        }
        Ok(figs)
    })
}
