//! The CUDA backend of the FFT call: cuFFT plans from the device's
//! [`PlanCache`](cuprite_driver::fft::PlanCache) (kept in its `runtime::DeviceState`: one per device
//! for the process, emptied by `device_gc` and so before an out-of-memory retry, which frees
//! the plans' work areas), run on the array stream.
//!
//! Each group of consecutive axes (see [`FftCall::groups`]) is one plan: rank 1 to 3, over
//! the group's sizes, with cuFFT's advanced layout (stride = the elements after the group,
//! dist 1) for a group that is not the trailing one — no transpose copies. The signals of a
//! group are the product of the axes before it (`outer`) and after it (`inner`); a plan has
//! one batch dimension, so the larger of the two is its batch and the other is looped over
//! (one plan, several executions at offsets). The first group reads the input and writes the
//! output; later groups transform the output in place.
//!
//! A complex-to-real transform may overwrite its input (cuFFT documents it). The call's input
//! is realised storage that other arrays may share, unless the operation made the input node
//! for the call alone ([`FftCall::private_input`], which a one-axis `irfft` does on CUDA):
//! then the transform runs on that buffer itself, else on a copy made on the stream. The
//! complex inverse groups before it run in place on the same buffer.
//!
//! A compiled program (`crate::compile`) gives the thread a plan cache of its own
//! ([`GraphPlans`]) for its eager run and its capture: the plans (and their work areas, from
//! the pool, on the program's stream) are made in the eager run, found again while capturing
//! (which makes no plan: a plan not made before is an `Err`), and kept by the captured graph
//! for as long as it lives, out of reach of eviction and `device_gc`.

use super::desc::{FftCall, Group, Kind, outer_inner, product};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::CallInput;
use crate::runtime::DeviceState;
use crate::storage::DevBuf;
use cuprite_driver::fft::{
    Direction, FftFloat, FftKind, Layout, Plan, PlanCache, PlanDesc, Precision,
};
use cuprite_driver::{DeviceBuffer, DeviceRead, DeviceView, DeviceViewMut, Stream};
use num_complex::Complex;
use std::sync::Arc;

/// The hits, misses and evictions of the FFT plan cache of CUDA device `ordinal` (zeros
/// before its first transform).
///
/// ```no_run
/// use cuprite_array::{Array, Device, FftNorm, c32};
/// use cuprite_array::ops::fft::FftOpts;
/// let x = Array::<c32>::zeros(&[1024]);
/// x.fft_with(FftOpts::new().axis(0))?.eval()?;
/// x.fft_with(FftOpts::new().axis(0))?.eval()?;
/// let s = cuprite_array::ops::fft::plan_cache_stats(0);
/// assert!(s.hits >= 1);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn plan_cache_stats(ordinal: usize) -> cuprite_driver::fft::CacheStats {
    crate::runtime::existing_state(ordinal)
        .map(|st| {
            st.fft_plans
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .stats()
        })
        .unwrap_or_default()
}

/// A writable view of the call's private input (see [`FftCall::private_input`]): a buffer no
/// other array holds, realised for this call alone, which the complex-to-real transform may
/// overwrite. The stream tracking sees the writes (it is declared written like any output).
type Private<'a, T> = DeviceViewMut<'a, T>;

/// The buffer a complex-to-real transform works in: the private input itself, or a copy.
enum Work<'a, T> {
    Private(DeviceView<'a, T>),
    Copy(DeviceBuffer<T>),
}

impl<'a, T: cuprite_driver::DeviceCopy> Work<'a, T> {
    /// A writable view from element `from` on.
    fn from(&mut self, from: usize) -> Result<Private<'_, T>> {
        Ok(match self {
            Work::Private(v) => {
                let v: &DeviceView<'_, T> = v;
                let part = v.slice(from..)?;
                // SAFETY: `part` lies inside the private input, device memory alive for the
                // borrow of `self`, tracked by its tracker; no other array holds that buffer
                // (see `FftCall::private_input`), so this call is its only writer.
                unsafe { DeviceViewMut::from_raw_parts(part.device_ptr(), part.len(), v.tracker()) }
            }
            Work::Copy(b) => b.slice_mut(from..)?,
        })
    }
}

/// One plan of a group, and the (input, output) element offsets it runs at.
struct Stage {
    desc: PlanDesc,
    offsets: Vec<(usize, usize)>,
}

/// The plan for group `g` of a transform of `kind` whose input side has `sin` and output
/// side `sout` (which differ only along the real axis, the group's last).
fn stage(kind: FftKind, prec: Precision, g: Group, sin: &[usize], sout: &[usize]) -> Result<Stage> {
    let (outer, inner) = outer_inner(sin, g)?;
    let dims_in = &sin[g.lo..g.hi];
    let dims_out = &sout[g.lo..g.hi];
    let logical = if kind == FftKind::C2R {
        dims_out
    } else {
        dims_in
    };
    let (pin, pout) = (product(dims_in)?, product(dims_out)?);
    let base = PlanDesc::new(kind, prec, logical);
    let mul = |a: usize, b: usize| {
        a.checked_mul(b)
            .ok_or_else(|| Error::InvalidArgument(format!("FFT offset {a} × {b} overflows")))
    };
    if inner == 1 {
        // The trailing axes: dense signals, batched over everything before them.
        return Ok(Stage {
            desc: base.with_batch(outer),
            offsets: vec![(0, 0)],
        });
    }
    // Interleaved signals: element k of a signal is `inner` apart.
    if kind != FftKind::C2R && outer > inner {
        // Batched over `outer` (dist: one slab), looped over the `inner` interleaved starts.
        // Not for C2R: its input may be overwritten, and these signals' extents overlap.
        let desc = base
            .with_batch(outer)
            .with_input_layout(Layout::new(dims_in, inner, mul(pin, inner)?))
            .with_output_layout(Layout::new(dims_out, inner, mul(pout, inner)?));
        return Ok(Stage {
            desc,
            offsets: (0..inner).map(|j| (j, j)).collect(),
        });
    }
    // Batched over the `inner` interleaved signals of a slab, looped over the slabs.
    let desc = base
        .with_batch(inner)
        .with_input_layout(Layout::new(dims_in, inner, 1))
        .with_output_layout(Layout::new(dims_out, inner, 1));
    let (sin_slab, sout_slab) = (mul(pin, inner)?, mul(pout, inner)?);
    let offsets = (0..outer)
        .map(|o| Ok((mul(o, sin_slab)?, mul(o, sout_slab)?)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Stage { desc, offsets })
}

/// Runs `call` on `x` into `out` on `stream` (both already checked against the call).
pub(super) fn run(
    call: &FftCall,
    st: &'static DeviceState,
    stream: &Arc<Stream>,
    x: &CallInput<'_, DevBuf>,
    out: &mut DevBuf,
) -> Result<()> {
    match call.real {
        DType::F32 => run_typed::<f32>(call, st, stream, x, out),
        DType::F64 => run_typed::<f64>(call, st, stream, x, out),
        d => Err(Error::InvalidArgument(format!(
            "FFTs compute in f32 or f64, not {d}"
        ))),
    }
}

fn released() -> Error {
    Error::InvalidArgument("an FFT on a buffer that was handed back".into())
}

fn run_typed<T>(
    call: &FftCall,
    st: &'static DeviceState,
    stream: &Arc<Stream>,
    x: &CallInput<'_, DevBuf>,
    out: &mut DevBuf,
) -> Result<()>
where
    T: FftFloat + bytemuck::Pod,
    Complex<T>: bytemuck::Pod,
{
    let len_in = product(&call.shape_in)?;
    let off = x.layout.offset;
    let end = off
        .checked_add(len_in)
        .ok_or_else(|| Error::InvalidArgument("FFT input extent overflows".into()))?;
    let src = x.buf.live().ok_or_else(released)?;
    let dst = out.buffer_mut().ok_or_else(released)?;
    let groups = call.groups();
    with_plans(st, |cache| {
        transforms::<T>(call, cache, stream, &groups, (src, dst), (off, end))
    })
}

/// Runs `f` on the calling thread's graph plan cache when it has one (see [`GraphPlans`]),
/// else on the device's; while capturing, on none but the thread's own.
fn with_plans<R>(st: &DeviceState, f: impl FnOnce(&mut Plans<'_>) -> Result<R>) -> Result<R> {
    let own = GRAPH_PLANS.with(|g| g.borrow_mut().take());
    match own {
        Some(mut cache) => {
            let r = f(&mut Plans(&mut cache));
            GRAPH_PLANS.with(|g| *g.borrow_mut() = Some(cache));
            r
        }
        None => {
            crate::runtime::refuse_in_capture_because(
                "an FFT",
                "it has no plans made before the capture (only a compiled program's eager run \
                 makes them)",
            )?;
            let mut cache = st.fft_plans.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut Plans(&mut cache))
        }
    }
}

/// A plan cache that, while the thread captures, hands out only plans it already holds.
struct Plans<'a>(&'a mut PlanCache);

impl Plans<'_> {
    fn get(&mut self, stream: &Arc<Stream>, desc: &PlanDesc) -> Result<&mut Plan> {
        if crate::runtime::capturing() && !self.0.contains(stream, desc) {
            return Err(Error::InvalidArgument(format!(
                "an FFT ({:?} of {:?}) needs a cuFFT plan inside a compiled program that its \
                 eager run did not make (making one allocates and synchronises, which a \
                 capture cannot); the closure must run the same FFTs every time",
                desc.kind(),
                desc.shape()
            )));
        }
        Ok(self.0.get(stream, desc)?)
    }
}

/// Plans the calling thread's FFTs take while it lives: a compiled program's eager run and
/// capture. Taken back with [`GraphPlans::finish`] (kept by the graph); dropped unfinished, its
/// plans go (after their transforms, waited for on their stream).
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
pub(crate) struct GraphPlans {
    prev: Option<PlanCache>,
    finished: bool,
}

thread_local! {
    static GRAPH_PLANS: std::cell::RefCell<Option<PlanCache>> = const { std::cell::RefCell::new(None) };
}

/// Plans a graph holds at most (none is ever evicted: an evicted plan's memory would be freed
/// under the graph's kernels).
#[cfg_attr(not(feature = "capture"), allow(dead_code))]
const GRAPH_PLANS_MAX: usize = 1 << 16;

impl GraphPlans {
    /// Gives the calling thread an empty plan cache of its own.
    #[cfg_attr(not(feature = "capture"), allow(dead_code))]
    pub(crate) fn begin() -> GraphPlans {
        let prev = GRAPH_PLANS.with(|g| g.replace(Some(PlanCache::new(GRAPH_PLANS_MAX))));
        GraphPlans {
            prev,
            finished: false,
        }
    }

    /// The plans made since [`begin`](Self::begin); the thread's previous cache comes back.
    #[cfg_attr(not(feature = "capture"), allow(dead_code))]
    pub(crate) fn finish(mut self) -> Option<PlanCache> {
        self.finished = true;
        let prev = self.prev.take();
        GRAPH_PLANS
            .with(|g| g.replace(prev))
            .filter(|c| !c.is_empty())
    }
}

impl Drop for GraphPlans {
    fn drop(&mut self) {
        if !self.finished {
            let prev = self.prev.take();
            let mine = GRAPH_PLANS.try_with(|g| g.replace(prev)).ok().flatten();
            drop(mine);
        }
    }
}

/// The transforms of `call` from `bufs.0` (elements `range`) into `bufs.1`.
fn transforms<T>(
    call: &FftCall,
    cache: &mut Plans<'_>,
    stream: &Arc<Stream>,
    groups: &[Group],
    bufs: (&DeviceBuffer<u8>, &mut DeviceBuffer<u8>),
    (off, end): (usize, usize),
) -> Result<()>
where
    T: FftFloat + bytemuck::Pod,
    Complex<T>: bytemuck::Pod,
{
    let prec = T::PRECISION;
    let (src, dst) = bufs;
    match call.kind {
        Kind::Forward | Kind::Inverse => {
            let dir = if call.kind == Kind::Inverse {
                Direction::Inverse
            } else {
                Direction::Forward
            };
            let input = src.view_as::<Complex<T>>()?;
            let input = input.slice(off..end)?;
            let mut output = dst.view_as_mut::<Complex<T>>()?;
            for (k, &g) in groups.iter().enumerate() {
                let s = stage(FftKind::C2C, prec, g, &call.shape_in, &call.shape_in)?;
                let plan = cache.get(stream, &s.desc)?;
                for &(i, o) in &s.offsets {
                    if k == 0 {
                        plan.exec_c2c(dir, &input.slice(i..)?, &mut output.slice_mut(o..)?)?;
                    } else {
                        plan.exec_c2c_in_place(dir, &mut output.slice_mut(o..)?)?;
                    }
                }
            }
        }
        Kind::R2C => {
            let input = src.view_as::<T>()?;
            let input = input.slice(off..end)?;
            let mut output = dst.view_as_mut::<Complex<T>>()?;
            for (k, &g) in groups.iter().enumerate() {
                if k == 0 {
                    let s = stage(FftKind::R2C, prec, g, &call.shape_in, &call.shape_out)?;
                    let plan = cache.get(stream, &s.desc)?;
                    for &(i, o) in &s.offsets {
                        plan.exec_r2c(&input.slice(i..)?, &mut output.slice_mut(o..)?)?;
                    }
                } else {
                    let s = stage(FftKind::C2C, prec, g, &call.shape_out, &call.shape_out)?;
                    let plan = cache.get(stream, &s.desc)?;
                    for &(_, o) in &s.offsets {
                        plan.exec_c2c_in_place(Direction::Forward, &mut output.slice_mut(o..)?)?;
                    }
                }
            }
        }
        Kind::C2R => {
            let input = src.view_as::<Complex<T>>()?;
            let input = input.slice(off..end)?;
            // cuFFT may overwrite a C2R input: work on it only when it is the call's own, else
            // on a copy (freed stream-ordered after its last use).
            let mut work = if call.private_input {
                Work::Private(input)
            } else {
                Work::Copy(stream.clone_dtod(&input)?)
            };
            let mut output = dst.view_as_mut::<T>()?;
            let last = groups.len() - 1;
            for (k, &g) in groups.iter().enumerate() {
                if k < last {
                    let s = stage(FftKind::C2C, prec, g, &call.shape_in, &call.shape_in)?;
                    let plan = cache.get(stream, &s.desc)?;
                    for &(_, o) in &s.offsets {
                        plan.exec_c2c_in_place(Direction::Inverse, &mut work.from(o)?)?;
                    }
                } else {
                    let s = stage(FftKind::C2R, prec, g, &call.shape_in, &call.shape_out)?;
                    let plan = cache.get(stream, &s.desc)?;
                    for &(i, o) in &s.offsets {
                        plan.exec_c2r(&mut work.from(i)?, &mut output.slice_mut(o..)?)?;
                    }
                }
            }
        }
    }
    Ok(())
}
