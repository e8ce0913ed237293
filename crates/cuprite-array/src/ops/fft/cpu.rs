//! The CPU backend of the FFT call: `rustfft` (complex) and `realfft` (real) one axis at a
//! time, in parallel over the signals (rayon). Plans come from one planner per precision for
//! the process, so repeated sizes are planned once.
//!
//! A transform along an inner axis (stride > 1) gathers its signals into contiguous lines,
//! transforms them, and scatters the results back: every pass is parallel over lines.

use super::desc::{FftCall, Kind, product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::CallInput;
use crate::storage::HostBuf;
use num_complex::Complex;
use rayon::prelude::*;
use realfft::RealFftPlanner;
use rustfft::{Fft, FftNum, FftPlanner};
use std::sync::{Arc, LazyLock, Mutex};

/// A precision the CPU transforms compute in, with its process-wide planners.
trait CpuFloat: FftNum + bytemuck::Pod + Default {
    fn planners() -> &'static Planners<Self>;
}

struct Planners<T: FftNum> {
    complex: Mutex<FftPlanner<T>>,
    real: Mutex<RealFftPlanner<T>>,
}

impl<T: FftNum> Planners<T> {
    fn new() -> Self {
        Planners {
            complex: Mutex::new(FftPlanner::new()),
            real: Mutex::new(RealFftPlanner::new()),
        }
    }
}

static PLANNERS_F32: LazyLock<Planners<f32>> = LazyLock::new(Planners::new);
static PLANNERS_F64: LazyLock<Planners<f64>> = LazyLock::new(Planners::new);

impl CpuFloat for f32 {
    fn planners() -> &'static Planners<f32> {
        &PLANNERS_F32
    }
}
impl CpuFloat for f64 {
    fn planners() -> &'static Planners<f64> {
        &PLANNERS_F64
    }
}

fn complex_plan<T: CpuFloat>(n: usize, inverse: bool) -> Arc<dyn Fft<T>> {
    let mut p = T::planners()
        .complex
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if inverse {
        p.plan_fft_inverse(n)
    } else {
        p.plan_fft_forward(n)
    }
}

/// Runs `call` on `x` into `out` (both already checked against the call).
pub(super) fn run(call: &FftCall, x: &CallInput<'_, HostBuf>, out: &mut HostBuf) -> Result<()> {
    match call.real {
        DType::F32 => run_typed::<f32>(call, x, out),
        DType::F64 => run_typed::<f64>(call, x, out),
        d => Err(Error::InvalidArgument(format!(
            "FFTs compute in f32 or f64, not {d}"
        ))),
    }
}

/// `len` elements of `T` from `bytes`, starting at element `offset`.
fn typed<T: bytemuck::Pod>(bytes: &[u8], offset: usize, len: usize) -> Result<&[T]> {
    let all: &[T] = bytemuck::try_cast_slice(bytes).map_err(|e| {
        Error::InvalidArgument(format!("an FFT input cannot be read as its type: {e}"))
    })?;
    all.get(offset..offset.saturating_add(len)).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "an FFT input of {} elements cannot hold {len} from offset {offset}",
            all.len()
        ))
    })
}

fn typed_mut<T: bytemuck::Pod>(bytes: &mut [u8]) -> Result<&mut [T]> {
    bytemuck::try_cast_slice_mut(bytes).map_err(|e| {
        Error::InvalidArgument(format!("an FFT output cannot be written as its type: {e}"))
    })
}

fn run_typed<T: CpuFloat>(
    call: &FftCall,
    x: &CallInput<'_, HostBuf>,
    out: &mut HostBuf,
) -> Result<()> {
    let len_in = product(&call.shape_in)?;
    let off = x.layout.offset;
    match call.kind {
        Kind::Forward | Kind::Inverse => {
            let src: &[Complex<T>] = typed(x.buf.bytes(), off, len_in)?;
            let dst: &mut [Complex<T>] = typed_mut(out.bytes_mut())?;
            let inverse = call.kind == Kind::Inverse;
            // The contiguous last axis first.
            let mut axes = call.axes.clone();
            axes.sort_unstable_by(|a, b| b.cmp(a));
            c2c_axes(src, dst, &call.shape_in, &axes, inverse)
        }
        Kind::R2C => {
            let src: &[T] = typed(x.buf.bytes(), off, len_in)?;
            let dst: &mut [Complex<T>] = typed_mut(out.bytes_mut())?;
            let r = call.real_axis();
            r2c_axis(src, dst, &call.shape_in, r)?;
            let rest: Vec<usize> = call.axes.iter().copied().filter(|&a| a != r).collect();
            if rest.is_empty() {
                return Ok(());
            }
            let tmp = dst.to_vec();
            c2c_axes(&tmp, dst, &call.shape_out, &rest, false)
        }
        Kind::C2R => {
            let src: &[Complex<T>] = typed(x.buf.bytes(), off, len_in)?;
            let dst: &mut [T] = typed_mut(out.bytes_mut())?;
            let r = call.real_axis();
            let rest: Vec<usize> = call.axes.iter().copied().filter(|&a| a != r).collect();
            if rest.is_empty() {
                return c2r_axis(src, dst, &call.shape_in, r, call.shape_out[r]);
            }
            let mut tmp = vec![Complex::<T>::default(); src.len()];
            c2c_axes(src, &mut tmp, &call.shape_in, &rest, true)?;
            c2r_axis(&tmp, dst, &call.shape_in, r, call.shape_out[r])
        }
    }
}

/// Complex transforms of `src` (of `shape`) along each of `axes` in turn, into `dst`.
fn c2c_axes<T: CpuFloat>(
    src: &[Complex<T>],
    dst: &mut [Complex<T>],
    shape: &[usize],
    axes: &[usize],
    inverse: bool,
) -> Result<()> {
    let Some((&first, rest)) = axes.split_first() else {
        dst.copy_from_slice(src);
        return Ok(());
    };
    c2c_axis(src, dst, shape, first, inverse)?;
    if rest.is_empty() {
        return Ok(());
    }
    let mut tmp = vec![Complex::<T>::default(); dst.len()];
    for &a in rest {
        tmp.copy_from_slice(dst);
        c2c_axis(&tmp, dst, shape, a, inverse)?;
    }
    Ok(())
}

/// `(outer, n, inner)` of `shape` around `axis`.
fn split(shape: &[usize], axis: usize) -> Result<(usize, usize, usize)> {
    Ok((
        product(&shape[..axis])?,
        shape[axis],
        product(&shape[axis + 1..])?,
    ))
}

fn c2c_axis<T: CpuFloat>(
    src: &[Complex<T>],
    dst: &mut [Complex<T>],
    shape: &[usize],
    axis: usize,
    inverse: bool,
) -> Result<()> {
    let (outer, n, inner) = split(shape, axis)?;
    let fft = complex_plan::<T>(n, inverse);
    let scratch = fft.get_inplace_scratch_len();
    per_line(
        src,
        dst,
        (outer, n, n, inner),
        || vec![Complex::<T>::default(); scratch],
        |s, d, w| {
            d.copy_from_slice(s);
            fft.process_with_scratch(d, w);
            Ok(())
        },
    )
}

fn r2c_axis<T: CpuFloat>(
    src: &[T],
    dst: &mut [Complex<T>],
    shape: &[usize],
    axis: usize,
) -> Result<()> {
    let (outer, n, inner) = split(shape, axis)?;
    let plan = T::planners()
        .real
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .plan_fft_forward(n);
    per_line(
        src,
        dst,
        (outer, n, n / 2 + 1, inner),
        || (vec![T::default(); n], plan.make_scratch_vec()),
        |s, d, (buf, scratch)| {
            // realfft uses its input as scratch: transform a copy.
            buf.copy_from_slice(s);
            plan.process_with_scratch(buf, d, scratch)
                .map_err(|e| format!("realfft forward of {n} points: {e}"))
        },
    )
}

/// Complex-to-real along `axis` of `src` (of `shape`, `n / 2 + 1` points along `axis`) into
/// `n` real points.
fn c2r_axis<T: CpuFloat>(
    src: &[Complex<T>],
    dst: &mut [T],
    shape: &[usize],
    axis: usize,
    n: usize,
) -> Result<()> {
    let (outer, m, inner) = split(shape, axis)?;
    let plan = T::planners()
        .real
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .plan_fft_inverse(n);
    per_line(
        src,
        dst,
        (outer, m, n, inner),
        || (vec![Complex::<T>::default(); m], plan.make_scratch_vec()),
        |s, d, (buf, scratch)| {
            buf.copy_from_slice(s);
            // The imaginary parts of the zero-frequency point and (even n) of the Nyquist
            // point do not exist in a real signal's spectrum: ignored, as cuFFT and NumPy do.
            buf[0].im = T::zero();
            if n % 2 == 0 {
                buf[m - 1].im = T::zero();
            }
            plan.process_with_scratch(buf, d, scratch)
                .map_err(|e| format!("realfft inverse of {n} points: {e}"))
        },
    )
}

/// Applies `f` to every signal along an axis: `src` is `outer × n_in × inner`, `dst`
/// `outer × n_out × inner`; `f` gets one contiguous input line and its output line (and
/// per-thread work state from `init`). Parallel over lines; lines of an inner axis are
/// gathered into contiguous memory first and scattered back after.
fn per_line<S, D, W>(
    src: &[S],
    dst: &mut [D],
    (outer, n_in, n_out, inner): (usize, usize, usize, usize),
    init: impl Fn() -> W + Sync + Send,
    f: impl Fn(&[S], &mut [D], &mut W) -> std::result::Result<(), String> + Sync + Send,
) -> Result<()>
where
    S: Copy + Default + Send + Sync,
    D: Copy + Default + Send + Sync,
{
    let lines = outer
        .checked_mul(inner)
        .ok_or_else(|| Error::InvalidArgument("FFT line count overflows".into()))?;
    if lines == 0 || n_in == 0 || n_out == 0 {
        return Ok(());
    }
    let fail = |e: String| Error::InvalidArgument(e);
    if inner == 1 {
        return dst
            .par_chunks_mut(n_out)
            .zip(src.par_chunks(n_in))
            .try_for_each_init(&init, |w, (d, s)| f(s, d, w))
            .map_err(fail);
    }
    // Gather: line l = (o, j) holds src[(o * n_in + i) * inner + j] for i in 0..n_in.
    let mut gathered = vec![S::default(); lines * n_in];
    gathered
        .par_chunks_mut(n_in)
        .enumerate()
        .for_each(|(l, line)| {
            let (o, j) = (l / inner, l % inner);
            let base = o * n_in * inner + j;
            for (i, v) in line.iter_mut().enumerate() {
                *v = src[base + i * inner];
            }
        });
    let mut results = vec![D::default(); lines * n_out];
    results
        .par_chunks_mut(n_out)
        .zip(gathered.par_chunks(n_in))
        .try_for_each_init(&init, |w, (d, s)| f(s, d, w))
        .map_err(fail)?;
    // Scatter: row r = (o, i) of dst holds results[(o * inner + j) * n_out + i] for j.
    dst.par_chunks_mut(inner).enumerate().for_each(|(r, row)| {
        let (o, i) = (r / n_out, r % n_out);
        let base = o * inner * n_out + i;
        for (j, v) in row.iter_mut().enumerate() {
            *v = results[base + j * n_out];
        }
    });
    Ok(())
}
