//! Benchmarks of arrays over several GPUs (`cuprite_array::mesh`): the fused 8-op
//! chain of `array/fused_chain` and a sum, sharded over the first 1, 2 (and 4, where present)
//! GPUs with the same number of elements per GPU, so that perfect scaling doubles the rate.
//!
//! Each figure with more than one GPU is compared with the one-GPU figure of the same run (its
//! ceiling): the ratio is the scaling. Time is taken with events on every device's array stream
//! around K back-to-back calls; a sample is the slowest device's time. The sharded sum ends in
//! its NCCL all-reduce (one element), inside the timed window.

use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target};
use cuprite_array::mesh::{Mesh, Sharded};
use cuprite_array::{Array, Device, with_device};
use cuprite_driver::{Event, EventFlags, Stream};
use std::sync::Arc;

/// The mesh benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "mesh/fused_chain",
            group: "mesh",
            needs_gpu: true,
            run: fused_chain,
        },
        Benchmark {
            name: "mesh/sum",
            group: "mesh",
            needs_gpu: true,
            run: sum,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 10;

/// The chain of `array/fused_chain`: 8 operations, 4 inputs, 1 output.
fn chain(a: &Array<f32>, b: &Array<f32>, c: &Array<f32>, d: &Array<f32>) -> Array<f32> {
    (a * b + c).sin() * d.exp() - a / 2.0
}

/// The GPU counts measured: 1, 2 and 4, as far as the machine has them.
fn gpu_counts() -> Result<Vec<usize>, BenchError> {
    let n = cuprite_driver::Device::count()?;
    Ok([1, 2, 4].into_iter().filter(|&k| k <= n).collect())
}

/// A mesh of the first `k` GPUs, and their array streams.
fn mesh_of(k: usize) -> Result<(Mesh, Vec<Arc<Stream>>), BenchError> {
    let mesh = Mesh::new(&(0..k).map(Device::cuda).collect::<Vec<_>>())?;
    let streams = (0..k)
        .map(cuprite_array::get_stream)
        .collect::<cuprite_array::Result<Vec<_>>>()?;
    Ok((mesh, streams))
}

/// A sharded f32 array of `per` random elements on every device of `mesh`, made in place.
fn rand_sharded(mesh: &Mesh, per: usize, seed: u64) -> Result<Sharded<f32>, BenchError> {
    let shards = mesh
        .devices()
        .iter()
        .enumerate()
        .map(|(r, &d)| {
            with_device(d, || {
                Array::<f32>::rand_uniform(&[per], seed * 31 + r as u64)
            })
        })
        .collect::<cuprite_array::Result<Vec<_>>>()?;
    Ok(Sharded::from_shards(mesh, shards, 0)?)
}

/// Seconds per call of `CALLS` calls of `call`, per repeat: the slowest device's event time.
fn time_sharded(
    ctx: &BenchCtx,
    streams: &[Arc<Stream>],
    mut call: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    for _ in 0..ctx.warmup.max(1) {
        call()?;
    }
    cuprite_array::tuning::wait_tier_up();
    call()?;
    for s in streams {
        s.synchronize()?;
    }
    let mut out = Vec::with_capacity(ctx.repeats);
    for _ in 0..ctx.repeats {
        let mut starts = Vec::with_capacity(streams.len());
        for s in streams {
            let e = Event::new(s.context(), EventFlags::DEFAULT)?;
            e.record(s)?;
            starts.push(e);
        }
        for _ in 0..CALLS {
            call()?;
        }
        let mut worst = 0.0f64;
        for (s, start) in streams.iter().zip(&starts) {
            let end = Event::new(s.context(), EventFlags::DEFAULT)?;
            end.record(s)?;
            end.synchronize()?;
            worst = worst.max(start.elapsed_ms(&end)? as f64 / 1e3);
        }
        out.push(worst / CALLS as f64);
    }
    Ok(Samples(out))
}

/// Scaling target on `k` GPUs: 1.9x on 2, 3.7x on 4.
fn scaling_target(k: usize) -> Option<Target> {
    match k {
        2 => Some(Target::RatioAtLeast(1.9)),
        4 => Some(Target::RatioAtLeast(3.7)),
        _ => None,
    }
}

fn fused_chain(ctx: &mut BenchCtx) -> BenchResult {
    let per = ctx.size(1 << 27, 1 << 20);
    let mut figs = Vec::new();
    let mut one = None;
    for k in gpu_counts()? {
        ctx.status(format!("sharded fused chain on {k} GPU(s)"));
        let (mesh, streams) = mesh_of(k)?;
        let (a, b, c, d) = (
            rand_sharded(&mesh, per, 1)?,
            rand_sharded(&mesh, per, 2)?,
            rand_sharded(&mesh, per, 3)?,
            rand_sharded(&mesh, per, 4)?,
        );
        let run = || -> Result<Sharded<f32>, BenchError> {
            let ab = a.zip(&b, |a, b| a * b)?;
            let abc = ab.zip(&c, |x, c| x + c)?;
            let r = abc
                .zip(&d, |x, d| x.sin() * d.exp())?
                .zip(&a, |x, a| x - a / 2.0)?;
            r.eval()?;
            Ok(r)
        };
        // The same values as one device computes, both from the optimised kernel (the quick
        // first build may round differently: it failed the bit-for-bit check once).
        let last = k - 1;
        run()?;
        chain(
            &a.shards()[last],
            &b.shards()[last],
            &c.shards()[last],
            &d.shards()[last],
        )
        .eval()?;
        cuprite_array::tuning::wait_tier_up();
        let r = run()?;
        let want = chain(
            &a.shards()[last],
            &b.shards()[last],
            &c.shards()[last],
            &d.shards()[last],
        );
        let (g, w) = (
            r.shards()[last].slice(&cuprite_array::s![..64])?.to_vec()?,
            want.slice(&cuprite_array::s![..64])?.to_vec()?,
        );
        if g != w {
            return Err(format!("sharded chain on {k} GPUs differs from one device's").into());
        }
        let s = time_sharded(ctx, &streams, || {
            run()?;
            Ok(())
        })?;
        let tbs = 5.0 * 4.0 * (per * k) as f64 / 1e12;
        let mut fig = Figure::rate(
            format!("mesh/fused_chain {k} GPU(s): 8-op chain over {per} f32 per GPU"),
            "TB/s",
            tbs,
            &s,
        )
        .with_note(format!(
            "sharded along axis 0 ({} per GPU), each shard one kernel on its GPU's array stream; \
             {CALLS} calls per event pair, slowest GPU; ceiling: the 1-GPU figure times 1 (ratio = scaling)",
            per
        ));
        match one {
            None => one = Some(fig.median),
            Some(base) => {
                fig = fig.with_ceiling("1 GPU, same chain (scaling)", base);
                if let Some(t) = scaling_target(k) {
                    fig = fig.with_target(t);
                }
            }
        }
        figs.push(fig);
    }
    Ok(figs)
}

fn sum(ctx: &mut BenchCtx) -> BenchResult {
    let per = ctx.size(1 << 27, 1 << 20);
    let mut figs = Vec::new();
    let mut one = None;
    for k in gpu_counts()? {
        ctx.status(format!("sharded sum on {k} GPU(s)"));
        let (mesh, streams) = mesh_of(k)?;
        let a = rand_sharded(&mesh, per, 9)?;
        let total = a.sum()?;
        // Every replica holds the sum of all shards.
        let mut want = 0.0f64;
        for s in a.shards() {
            want += s.cast::<f64>().sum()?.item()?;
        }
        for r in total.shards() {
            let got = r.item()? as f64;
            if (got - want).abs() > 1e-4 * want.abs() {
                return Err(format!("sharded sum on {k} GPUs: {got}, want {want}").into());
            }
        }
        let s = time_sharded(ctx, &streams, || {
            a.sum()?;
            Ok(())
        })?;
        let tbs = 4.0 * (per * k) as f64 / 1e12;
        let mut fig = Figure::rate(
            format!("mesh/sum {k} GPU(s): sum of {per} f32 per GPU (reads)"),
            "TB/s",
            tbs,
            &s,
        )
        .with_note(format!(
            "local fused reduction on every GPU, then one NCCL all-reduce of the partial sums{}; \
             {CALLS} calls per event pair, slowest GPU; ceiling: the 1-GPU figure (ratio = scaling)",
            if k == 1 { " (none with one GPU)" } else { "" }
        ));
        match one {
            None => one = Some(fig.median),
            Some(base) => fig = fig.with_ceiling("1 GPU, same sum (scaling)", base),
        }
        figs.push(fig);
    }
    Ok(figs)
}
