//! What the BLAS and the solver benchmarks share: random fills of each element type, an owned
//! stream, event timing and the unit roundoff of a compute type. A leaf below `bench::blas`.

use super::super::kit::{BenchCtx, BenchError, Samples};
use cuprite_driver::blas::{ComputeType, Element};
use cuprite_driver::sys::cublas::cudaDataType;
use cuprite_driver::{Context, ContextFlags, ContextStack, Device, Stream};
use half::{bf16, f16};
use std::sync::Arc;

/// Element types the benchmarks fill with random values.
pub(super) trait Fill32: Element + Copy {
    fn from_f32(x: f32) -> Self;
    fn to_f64(self) -> f64;
}
macro_rules! fill32 {
    ($t:ty, $from:expr, $to:expr) => {
        impl Fill32 for $t {
            fn from_f32(x: f32) -> Self {
                #[allow(clippy::redundant_closure_call)]
                ($from)(x)
            }
            fn to_f64(self) -> f64 {
                #[allow(clippy::redundant_closure_call)]
                ($to)(self)
            }
        }
    };
}
fill32!(bf16, bf16::from_f32, |x: bf16| x.to_f64());
fill32!(f16, f16::from_f32, |x: f16| x.to_f64());
fill32!(f32, |x: f32| x, |x: f32| x as f64);
fill32!(f64, |x: f32| x as f64, |x: f64| x);

pub(super) fn seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x5EED, |d| d.as_nanos() as u64)
}

/// `n` fresh uniform values in [-1, 1), filled in parallel.
pub(super) fn random<T: Fill32>(n: usize) -> Vec<T> {
    use rayon::prelude::*;
    let base = seed();
    let mut v = vec![T::from_f32(0.0); n];
    v.par_chunks_mut(1 << 16)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut s = base ^ (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for x in chunk {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let u = (s >> 40) as f32 / (1u64 << 24) as f32;
                *x = T::from_f32(2.0 * u - 1.0);
            }
        });
    v
}

/// An owned context (its own stream-tracking mode) and a stream of it.
pub(super) fn own_stream() -> Result<Arc<Stream>, BenchError> {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    Ok(ctx.new_stream()?)
}

/// Event-timed samples of `f` (which enqueues on `s`), with `ctx`'s warm-up and repeats.
pub(super) fn time_on(
    ctx: &BenchCtx,
    s: &Stream,
    f: impl FnMut() -> Result<(), BenchError>,
) -> Result<Samples, BenchError> {
    s.context().bind_to_thread()?;
    // SAFETY: `s` is a live stream of the context just bound, and outlives the call.
    unsafe { ctx.time_device(s.raw(), f) }
}

pub(super) fn unit_roundoff<T: Element>(compute: ComputeType) -> (f64, f64) {
    let out = match T::DATA_TYPE {
        cudaDataType::CUDA_R_16F => 2f64.powi(-11),
        cudaDataType::CUDA_R_16BF => 2f64.powi(-8),
        cudaDataType::CUDA_R_64F => 2f64.powi(-53),
        _ => 2f64.powi(-24),
    };
    let acc = match (compute, T::DATA_TYPE) {
        (ComputeType::Tf32, _) => 2f64.powi(-11),
        (_, cudaDataType::CUDA_R_64F) => 2f64.powi(-53),
        _ => 2f64.powi(-24),
    };
    (acc, out)
}
