//! Compiled programs (`cuprite_array::compile`): a small-op training step and a chain of tiny
//! kernels replayed as CUDA graphs, against the same work run eagerly and against PyTorch's
//! `torch.cuda.graph` (`benches/peers/torch_graphs.py`, run in the same call); what a first
//! capture costs; the host cost of one replay against a raw `cuGraphLaunch` of the same graph.
//!
//! - `graphs/mlp_step`: a 4-layer MLP of width 256 on a batch of 64, each layer
//!   `tanh(h·W + b)·0.5 + h·0.5`, and a mean-square loss against a target; the weights come
//!   from the closure's environment, the batch and the target are the inputs.
//! - `graphs/tiny_ops`: 200 alternating multiplications and additions on 4,096 f32, each op
//!   realised on its own (`eval` after each), so each is its own kernel, as in PyTorch.
//! - `graphs/first_capture`: the first call of a fresh compiled MLP step (the capture,
//!   instantiation and first launch, with an eager run before the capture only where the
//!   capture needs one) against one eager step, both waited for, and the mean host time of each
//!   stage of that first call (the program is dropped after the clock stops). Each fresh
//!   program captures on a private stream kept from a dropped one (with the cuBLASLt handle an
//!   earlier capture made), as a process's later programs do; the untimed first sample's
//!   stream may lack it, and its first call then runs the closure eagerly first.
//! - `graphs/replay_host`: the host time of one `Compiled::call` (the launch enqueued as one
//!   access set, the outputs the buffers the graph wrote; the inputs are the arrays of the call
//!   before, so their copies are skipped) against one raw `cuGraphLaunch` of its graph, and the
//!   mean host time of each stage of the call (timed in separate calls, so the clock reads do
//!   not weigh on the call's own figure); the same call with `CUPRITE_DEFERRED_CELLS` the other
//!   way (a steady launch's cell recorded at each launch, or left to its first reader). The
//!   call, the switched call and the raw launch take one sample each in turn, so that the three
//!   see the same host.
//!
//! Device figures time K back-to-back calls between one pair of events on the array stream
//! ([`super::curves::per_call`]), after warm calls and the optimised builds: kernels are built
//! and tiered up before the first capture, since a graph keeps the kernels it captured.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, Target, TimeUnit};
use cuprite_array::{Array, Device, compile, linalg, with_device};
use std::time::Instant;

/// The graph benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "graphs/mlp_step",
            group: "graphs",
            needs_gpu: true,
            run: mlp_step,
        },
        Benchmark {
            name: "graphs/tiny_ops",
            group: "graphs",
            needs_gpu: true,
            run: tiny_ops,
        },
        Benchmark {
            name: "graphs/first_capture",
            group: "graphs",
            needs_gpu: true,
            run: first_capture,
        },
        Benchmark {
            name: "graphs/replay_host",
            group: "graphs",
            needs_gpu: true,
            run: replay_host,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 20;
/// The MLP's layers, width and batch.
const LAYERS: usize = 4;
const WIDTH: usize = 256;
const BATCH: usize = 64;
/// The tiny-op chain's length and elements.
const TINY_OPS: usize = 200;
const TINY_LEN: usize = 4096;

/// The MLP's weights and biases (uniform in ±1/√width, fixed seeds).
struct Mlp {
    w: Vec<Array<f32>>,
    b: Vec<Array<f32>>,
}

impl Mlp {
    fn new() -> cuprite_array::Result<Mlp> {
        let scale = 2.0 / (WIDTH as f32).sqrt();
        let mut w = Vec::new();
        let mut b = Vec::new();
        for l in 0..LAYERS as u64 {
            let wl = (Array::<f32>::rand_uniform(&[WIDTH, WIDTH], 10 + l)? - 0.5) * scale;
            let bl = (Array::<f32>::rand_uniform(&[1, WIDTH], 20 + l)? - 0.5) * scale;
            cuprite_array::eval_many(&[&wl, &bl])?;
            w.push(wl);
            b.push(bl);
        }
        Ok(Mlp { w, b })
    }

    /// One step: the network's output and the mean-square loss against `target`.
    fn step(&self, x: &Array<f32>, target: &Array<f32>) -> cuprite_array::Result<Vec<Array<f32>>> {
        let mut h = x.clone();
        for (w, b) in self.w.iter().zip(&self.b) {
            let z = linalg::matmul(&h, w)? + b;
            h = z.tanh() * 0.5 + &h * 0.5;
        }
        let d = &h - target;
        let loss = (&d * &d).mean()?;
        Ok(vec![h, loss])
    }
}

/// The batch and target of the MLP step.
fn mlp_inputs() -> cuprite_array::Result<(Array<f32>, Array<f32>)> {
    let x = Array::<f32>::rand_normal(&[BATCH, WIDTH], 1)?;
    let t = Array::<f32>::rand_normal(&[BATCH, WIDTH], 2)? * 0.1;
    cuprite_array::eval_many(&[&x, &t])?;
    Ok((x, t))
}

/// Realises every array of `outs`.
fn realise(outs: &[Array<f32>]) -> cuprite_array::Result<()> {
    let refs: Vec<&Array<f32>> = outs.iter().collect();
    cuprite_array::eval_many(&refs)
}

/// Device time per call of `f` (K calls per event pair) on the array stream of device 0.
fn timed(
    ctx: &BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    f()?;
    let stream = cuprite_array::get_stream(0)?.raw();
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the arrays of the caller were made.
    unsafe { per_call(ctx, stream, CALLS, f) }
}

/// The eager step run until its kernels are built and optimised (a graph keeps the kernels it
/// captured).
fn warm(f: impl Fn() -> cuprite_array::Result<Vec<Array<f32>>>) -> cuprite_array::Result<()> {
    realise(&f()?)?;
    cuprite_array::tuning::wait_tier_up();
    realise(&f()?)?;
    cuprite_array::sync(Device::cuda(0))
}

fn mlp_step(ctx: &mut BenchCtx) -> BenchResult {
    with_device(Device::cuda(0), || {
        let mlp = Mlp::new()?;
        let (x, t) = mlp_inputs()?;
        warm(|| mlp.step(&x, &t))?;
        let eager = timed(ctx, || Ok(realise(&mlp.step(&x, &t)?)?))?;
        let prog = compile(|a: &[Array<f32>]| mlp.step(&a[0], &a[1]));
        let replayed = timed(ctx, || {
            prog.call(&[&x, &t])?;
            Ok(())
        })?;
        let name = format!("{LAYERS}-layer MLP step, width {WIDTH}, batch {BATCH}");
        Ok(vec![
            Figure::time(format!("{name}, replayed "), &replayed, TimeUnit::Us)
                .with_ceiling("the eager step", eager.median() * 1e6)
                .with_target(Target::RatioAtMost(1.0 / 3.0))
                .with_note(
                    "compile(): the same input arrays at every call (their copies skipped), one \
                     graph launch, outputs handed out as the graph wrote them; target ≥ 3× faster than eager; peer: \
                     torch.cuda.graph in benches/peers/torch_graphs.py",
                ),
            Figure::time(format!("{name}, eager "), &eager, TimeUnit::Us)
                .with_note("the same closure called directly, every array realised"),
        ])
    })
}

/// The tiny-op chain: each op realised on its own (one kernel each).
fn chain(x: &Array<f32>) -> cuprite_array::Result<Vec<Array<f32>>> {
    let mut h = x.clone();
    for i in 0..TINY_OPS {
        h = if i % 2 == 0 { &h * 1.0001 } else { &h + 0.0001 };
        h.eval()?;
    }
    Ok(vec![h])
}

fn tiny_ops(ctx: &mut BenchCtx) -> BenchResult {
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[TINY_LEN], 3)?;
        x.eval()?;
        warm(|| chain(&x))?;
        let eager = timed(ctx, || Ok(realise(&chain(&x)?)?))?;
        let prog = compile(|a: &[Array<f32>]| chain(&a[0]));
        let replayed = timed(ctx, || {
            prog.call(&[&x])?;
            Ok(())
        })?;
        let name = format!("{TINY_OPS} tiny element-wise ops on {TINY_LEN} f32");
        Ok(vec![
            Figure::time(format!("{name}, replayed "), &replayed, TimeUnit::Us)
                .with_ceiling("the eager chain", eager.median() * 1e6)
                .with_note(
                    "alternating * 1.0001 and + 0.0001, each op realised on its own (one kernel \
                     each); peer: torch.cuda.graph in benches/peers/torch_graphs.py",
                ),
            Figure::time(format!("{name}, eager "), &eager, TimeUnit::Us),
        ])
    })
}

/// Host wall time of `f` followed by a wait for the device, `ctx.repeats` samples after one
/// untimed call.
fn waited(
    ctx: &BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::sync(Device::cuda(0))?;
    let mut out = Vec::with_capacity(ctx.repeats);
    for _ in 0..ctx.repeats {
        let t = Instant::now();
        f()?;
        cuprite_array::sync(Device::cuda(0))?;
        out.push(t.elapsed().as_secs_f64());
    }
    Ok(Samples(out))
}

fn first_capture(ctx: &mut BenchCtx) -> BenchResult {
    with_device(Device::cuda(0), || {
        let mlp = Mlp::new()?;
        let (x, t) = mlp_inputs()?;
        warm(|| mlp.step(&x, &t))?;
        let eager = waited(ctx, || Ok(realise(&mlp.step(&x, &t)?)?))?;
        // Each sample: a fresh program's first call, waited for. The program is dropped after
        // the clock stops (its graph destroyed, its stream kept for the next one), so the
        // figure is the capture's alone.
        let mut first = Vec::with_capacity(ctx.repeats);
        cuprite_array::replay_stage_timing(true);
        let timed_calls = (|| -> Result<(), BenchError> {
            for k in 0..ctx.repeats + 1 {
                let prog = compile(|a: &[Array<f32>]| mlp.step(&a[0], &a[1]));
                cuprite_array::sync(Device::cuda(0))?;
                let t0 = Instant::now();
                prog.call(&[&x, &t])?;
                cuprite_array::sync(Device::cuda(0))?;
                let dt = t0.elapsed().as_secs_f64();
                if k > 0 {
                    first.push(dt);
                } else {
                    // The untimed first sample's stages are not counted either.
                    drop(cuprite_array::take_capture_stages());
                }
                drop(prog);
            }
            cuprite_array::sync(Device::cuda(0))?;
            Ok(())
        })();
        let stages = cuprite_array::take_capture_stages();
        cuprite_array::replay_stage_timing(false);
        timed_calls?;
        let first = Samples(first);
        let mut figures = vec![
            Figure::time("first capture of the MLP step ", &first, TimeUnit::Ms)
                .with_ceiling("one eager step, waited for", eager.median() * 1e3)
                .with_target(Target::RatioAtMost(3.0))
                .with_note(
                    "a fresh compile(): the capture (no eager run: its kernels are built and \
                     its private stream has the handles it needs), instantiation, the first \
                     launch, waited for; the program is dropped after the clock stops",
                ),
            Figure::time("one eager MLP step, waited for ", &eager, TimeUnit::Ms),
        ];
        for (stage, secs) in stages {
            figures.push(
                Figure::time(
                    format!("capture stage: {stage} "),
                    &Samples(vec![secs]),
                    TimeUnit::Us,
                )
                .with_note("mean host time of this stage of a first call, in the calls above"),
            );
        }
        Ok(figures)
    })
}

fn replay_host(ctx: &mut BenchCtx) -> BenchResult {
    with_device(Device::cuda(0), || {
        let mlp = Mlp::new()?;
        let (x, t) = mlp_inputs()?;
        warm(|| mlp.step(&x, &t))?;
        let prog = compile(|a: &[Array<f32>]| mlp.step(&a[0], &a[1]));
        prog.call(&[&x, &t])?;
        let (exec, stream) = prog
            .raw_graph(&[&x, &t])?
            .ok_or("the compiled MLP step has no graph after its first call")?;
        // One host sample of `f`: the device idle first, the clock around the call alone.
        let sample = |f: &mut dyn FnMut() -> Result<(), BenchError>| -> Result<f64, BenchError> {
            cuprite_array::sync(Device::cuda(0))?;
            let t0 = Instant::now();
            f()?;
            Ok(t0.elapsed().as_secs_f64())
        };
        let mut call_once = || -> Result<(), BenchError> {
            prog.call(&[&x, &t])?;
            Ok(())
        };
        let mut raw_once = || -> Result<(), BenchError> {
            // SAFETY: `exec` and `stream` are the graph and stream `prog` keeps for this
            // signature (one signature, so no eviction); the context is current after the
            // calls above; the launch reads the graph's own input buffers and writes its own
            // outputs, which no other work touches meanwhile (the device is idle: synced).
            let r = unsafe { cuprite_driver::sys::driver::cuGraphLaunch(exec, stream) };
            match r {
                Ok(cuprite_driver::sys::driver::CUresult::CUDA_SUCCESS) => {}
                other => return Err(format!("cuGraphLaunch: {other:?}").into()),
            }
            Ok(())
        };
        // The call, the call with the deferred cell recordings switched the other way, and the
        // raw launch, one sample of each in turn, so that the three see the same host.
        let deferred = cuprite_driver::graph::deferred_cells();
        let (mut call, mut other, mut raw) = (Vec::new(), Vec::new(), Vec::new());
        let interleaved = (|| -> Result<(), BenchError> {
            for k in 0..ctx.repeats + ctx.warmup {
                let c = sample(&mut call_once)?;
                cuprite_driver::graph::set_deferred_cells(!deferred);
                let o = sample(&mut call_once);
                cuprite_driver::graph::set_deferred_cells(deferred);
                let o = o?;
                let r = sample(&mut raw_once)?;
                if k >= ctx.warmup {
                    call.push(c);
                    other.push(o);
                    raw.push(r);
                }
            }
            Ok(())
        })();
        cuprite_driver::graph::set_deferred_cells(deferred);
        interleaved?;
        cuprite_array::sync(Device::cuda(0))?;
        let (call, other, raw) = (Samples(call), Samples(other), Samples(raw));
        // The stages, timed in calls of their own.
        cuprite_array::replay_stage_timing(true);
        let timed_calls = (|| -> Result<(), BenchError> {
            for _ in 0..ctx.repeats + ctx.warmup {
                sample(&mut call_once)?;
            }
            Ok(())
        })();
        let stages = cuprite_array::take_replay_stages();
        cuprite_array::replay_stage_timing(false);
        timed_calls?;
        // The driver's current-context query that every cuprite launch makes first, its mean
        // over a thousand back-to-back calls a sample.
        let ctx_query = Samples(
            (0..ctx.repeats)
                .map(|_| {
                    let t0 = Instant::now();
                    for _ in 0..1000 {
                        let mut cur = std::ptr::null_mut();
                        // SAFETY: `cur` is a valid out-pointer; the call reads no other memory.
                        let r = unsafe { cuprite_driver::sys::driver::cuCtxGetCurrent(&mut cur) };
                        std::hint::black_box((r.is_ok(), cur));
                    }
                    t0.elapsed().as_secs_f64() / 1000.0
                })
                .collect(),
        );
        let mut figures = vec![
            Figure::time(
                "host time of one replay of the MLP step ",
                &call,
                TimeUnit::Us,
            )
            .with_ceiling("a raw cuGraphLaunch of the same graph", raw.median() * 1e6)
            .with_target(Target::RatioAtMost(1.2))
            .with_note(
                "Compiled::call with the inputs of the call before (copies skipped): the launch \
                 (its outputs handed out as the graph wrote them, no copies), one access set",
            ),
            Figure::time(
                "host time of a raw cuGraphLaunch of the MLP step ",
                &raw,
                TimeUnit::Us,
            ),
            Figure::time(
                if deferred {
                    "host time of one replay of the MLP step, its cell recorded at each launch "
                } else {
                    "host time of one replay of the MLP step, its cell's recording deferred "
                },
                &other,
                TimeUnit::Us,
            )
            .with_ceiling("a raw cuGraphLaunch of the same graph", raw.median() * 1e6)
            .with_note(
                "as the first row, its samples taken in turn with the first row's and the raw \
                 launch's, CUPRITE_DEFERRED_CELLS (graph::set_deferred_cells) the other way: deferred, a steady launch enqueues \
                 the graph alone and the first reader of its buffers records the cell's event; \
                 otherwise each launch records it (one cuEventRecord)",
            ),
        ];
        figures.push(
            Figure::time(
                "host time of one cuCtxGetCurrent (the context check before each launch) ",
                &ctx_query,
                TimeUnit::Us,
            )
            .with_note("the mean of 1000 back-to-back calls a sample"),
        );
        for (stage, secs) in stages {
            figures.push(
                Figure::time(
                    format!("replay stage: {stage} "),
                    &Samples(vec![secs]),
                    TimeUnit::Us,
                )
                .with_note("mean host time of this stage of Compiled::call, timed apart"),
            );
        }
        Ok(figures)
    })
}
