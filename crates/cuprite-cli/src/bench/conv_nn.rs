//! The neural-network convolution and pooling (`cuprite_array::signal::conv2d_with`, its
//! gradients, `max_pool2d`), as times judged against `benches/peers/torch_conv.py` (PyTorch's
//! `conv2d` and `torch.nn.grad.conv2d_input`/`conv2d_weight` on cuDNN, and `max_pool2d`) by
//! `cuprite bench --peers`:
//!
//! - `conv/conv2d`: a ResNet layer, input 64×64×56×56 (N, C, H, W), 64 filters 3×3, padding 1,
//!   in bf16 and f32 (full `f32`, TF32 off on both sides): the forward call, the input's and
//!   the weights' gradients, each timed twice: through cuDNN (`... cudnn ...` figures, judged
//!   at 0.95× PyTorch's speed or better; absent where cuDNN is not installed) and on the
//!   fallback (`... fallback ...`: lowered patches and cuBLASLt, or for the `f32` forward call
//!   and input gradient Winograd's F(2x2, 3x3) and cuBLASLt; forced by
//!   `tuning::with_cudnn(false)`, judged at half PyTorch's speed or better).
//! - `conv/max_pool2d`: 2×2 max pooling, stride 2, of 64×64×112×112 f32.
//!
//! `CUPRITE_BENCH_CONV_WORKSPACE` (bytes) sets the fallback's bound on the lowered patches it
//! holds at a time ([`signal::set_conv_workspace_bytes`]) for these figures, to compare chunk
//! sizes in one call. `CUPRITE_BENCH_CUDNN_GRAPH` (`1` or `0`) sends every element type's
//! convolutions through cuDNN's graph API or its legacy API
//! ([`cuprite_array::tuning::set_cudnn_graph_api`]), to compare the two in one call.

use super::curves::per_call;
use super::kit::{BenchCtx, BenchError, BenchResult, Benchmark, Figure, Samples, TimeUnit};
use cuprite_array::dtype::Float;
use cuprite_array::signal::{self, Conv2dOpts};
use cuprite_array::{Array, DType, Device, bf16, with_device};

/// The convolution and pooling benchmarks.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![
        Benchmark {
            name: "conv/conv2d",
            group: "conv",
            needs_gpu: true,
            run: conv2d,
        },
        Benchmark {
            name: "conv/max_pool2d",
            group: "conv",
            needs_gpu: true,
            run: max_pool2d,
        },
    ]
}

/// Back-to-back calls per event pair.
const CALLS: usize = 5;

/// Device seconds per call of `f` (its steady state: the optimised kernels built first).
fn time(
    ctx: &mut BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    f()?;
    cuprite_array::tuning::wait_tier_up();
    let stream = cuprite_array::get_stream(0)?.raw();
    // SAFETY: the array stream of device 0 lives for the whole process, and its (primary)
    // context is current after the caller's arrays were made on it; `f` only enqueues array
    // work, which runs on that stream.
    unsafe { per_call(ctx, stream, CALLS, &mut f) }
}

/// [`time`], and how many calls of `f` it made and how many passes of them this thread ran
/// through cuDNN.
fn counted(
    ctx: &mut BenchCtx,
    mut f: impl FnMut() -> Result<(), BenchError>,
) -> Result<(Samples, (u64, u64)), BenchError> {
    let before = cuprite_array::stats::thread_cudnn_calls();
    let mut made = 0u64;
    let s = time(ctx, || {
        made += 1;
        f()
    })?;
    Ok((
        s,
        (made, cuprite_array::stats::thread_cudnn_calls() - before),
    ))
}

/// The three passes of the layer in element type `T` (`label` in the figures' names) through
/// cuDNN (`lib`) or the fallback.
fn layer<T: Float>(ctx: &mut BenchCtx, n: usize, label: &str, lib: bool) -> BenchResult {
    let bound = std::env::var("CUPRITE_BENCH_CONV_WORKSPACE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok());
    let graph = match std::env::var("CUPRITE_BENCH_CUDNN_GRAPH").as_deref() {
        Ok("1") => Some(true),
        Ok("0") => Some(false),
        _ => None,
    };
    let api_before = cuprite_array::tuning::cudnn_graph_api();
    if graph.is_some() {
        cuprite_array::tuning::set_cudnn_graph_api(graph);
    }
    let before = signal::conv_workspace_bytes();
    if let Some(b) = bound {
        signal::set_conv_workspace_bytes(b);
    }
    let r = cuprite_array::tuning::with_cudnn(lib, || layer_passes::<T>(ctx, n, label, lib));
    signal::set_conv_workspace_bytes(before);
    cuprite_array::tuning::set_cudnn_graph_api(api_before);
    r
}

fn layer_passes<T: Float>(ctx: &mut BenchCtx, n: usize, label: &str, lib: bool) -> BenchResult {
    let (c, k, hw) = (64, 64, 56);
    let x = Array::<f32>::rand_uniform(&[n, c, hw, hw], 70)?.cast::<T>();
    let w = Array::<f32>::rand_uniform(&[k, c, 3, 3], 71)?.cast::<T>();
    let dy = Array::<f32>::rand_uniform(&[n, k, hw, hw], 72)?.cast::<T>();
    cuprite_array::eval_many(&[&x, &w, &dy])?;
    let o = Conv2dOpts::new().padding(1);
    let flop = 2.0 * (n * k * hw * hw * c * 9) as f64;
    let shape = format!("{n}x{c}x{hw}x{hw} k{k} 3x3");
    let (path, how) = if lib {
        ("cudnn", "cuDNN")
    } else {
        ("fallback", "fallback (lowered patches + cuBLASLt)")
    };
    // The fallback's `f32` and `f64` forward pass and input gradient of this `3 x 3` layer run
    // Winograd's algorithm unless it is switched off.
    let winograd = !lib
        && matches!(T::DTYPE, DType::F32 | DType::F64)
        && cuprite_array::tuning::conv_winograd();
    let mut figs = Vec::new();
    let mut add = |pass: &str, s: &Samples, (made, lib_calls): (u64, u64)| {
        // Every call of a path went that way (cuDNN can decline a problem).
        if lib_calls != u64::from(lib) * made {
            return Err(BenchError::from(format!(
                "conv2d {label} {pass}: {lib_calls} of {made} calls went through cuDNN with \
                 cuDNN {}",
                if lib { "on" } else { "off" }
            )));
        }
        figs.push(
            Figure::time(
                format!("conv2d {label} {pass} {path} {shape}"),
                s,
                TimeUnit::Ms,
            )
            .with_note(format!(
                "{:.1} TFLOP/s (direct multiply-adds); {}; peer: benches/peers/torch_conv.py",
                flop / s.median() / 1e12,
                if winograd && pass != "backward_weight" {
                    "fallback (Winograd F(2x2, 3x3) + cuBLASLt)"
                } else {
                    how
                }
            )),
        );
        Ok(())
    };
    let (s, calls) = counted(ctx, || {
        signal::conv2d_with(&x, &w, o)?.eval()?;
        Ok(())
    })?;
    add("forward", &s, calls)?;
    let (s, calls) = counted(ctx, || {
        signal::conv2d_backward_input(&dy, &w, x.shape(), o)?.eval()?;
        Ok(())
    })?;
    add("backward_input", &s, calls)?;
    let (s, calls) = counted(ctx, || {
        signal::conv2d_backward_weight(&x, &dy, w.shape(), o)?.eval()?;
        Ok(())
    })?;
    add("backward_weight", &s, calls)?;
    Ok(figs)
}

fn conv2d(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(64, 8);
    let lib = cuprite_driver::dnn::is_available();
    with_device(Device::cuda(0), || {
        let mut figs = Vec::new();
        if lib {
            figs.extend(layer::<bf16>(ctx, n, "bf16", true)?);
            figs.extend(layer::<f32>(ctx, n, "f32", true)?);
        }
        figs.extend(layer::<bf16>(ctx, n, "bf16", false)?);
        figs.extend(layer::<f32>(ctx, n, "f32", false)?);
        Ok(figs)
    })
}

fn max_pool2d(ctx: &mut BenchCtx) -> BenchResult {
    let n = ctx.size(64, 8);
    with_device(Device::cuda(0), || {
        let x = Array::<f32>::rand_uniform(&[n, 64, 112, 112], 73)?;
        x.eval()?;
        let s = time(ctx, || {
            signal::max_pool2d(&x, 2)?.eval()?;
            Ok(())
        })?;
        // The input read once and a quarter of it written.
        let bytes = 1.25 * 4.0 * (n * 64 * 112 * 112) as f64;
        let f = Figure::time(
            format!("max_pool2d 2x2 f32 forward {n}x64x112x112"),
            &s,
            TimeUnit::Ms,
        )
        .with_note(format!(
            "{:.2} TB/s of the input read and the output written once; peer: \
             benches/peers/torch_conv.py",
            bytes / s.median() / 1e12
        ));
        Ok(vec![f])
    })
}
