//! cuDNN under the convolution's and the pooling's CUDA calls: the switch that allows it
//! ([`set_cudnn`], [`with_cudnn`]), one [`Dnn`] handle per stream, and the calls that either
//! compute a pass through cuDNN (`Ok(true)`) or leave it to the family's own kernels
//! (`Ok(false)`).
//!
//! Dispatch, in order:
//! - the switch is off, cuDNN 9 cannot be opened here, or this stream has no handle while the
//!   thread or the stream is capturing (a handle is made only outside a capture, and is then
//!   kept for the stream's life: destroying one waits for the device): the kernels;
//! - the problem is not one cuDNN states: a padding that is not the same on both sides of an
//!   axis (the output differs from what the padding before gives on both sides), an input
//!   gradient whose padding reaches past the kernel (windows of only padding, which the
//!   driver's `conv_backward_data` refuses), a pooling whose `ceil_mode` adds a window, a
//!   tensor beyond cuDNN's 32-bit sizes: the kernels;
//! - cuDNN answers "not supported" (statuses `3000..=3999`, including no algorithm that keeps
//!   `f32` in full precision), or an initialisation or version status (`1000..=1999`), or a
//!   library or symbol it needs is missing: the kernels;
//! - any other error is returned.
//!
//! What goes to cuDNN: the three convolution passes (`f16`, `bf16` accumulating in `f32`;
//! `f32` in full `f32` unless [`crate::linalg::set_allow_tf32`] allows TF32, as for the
//! fallback's products; `f64`), with the bias and ReLU of the forward pass applied afterwards by
//! the family's `nn_bias_act` kernel (so their rules, NaN kept, are the fallback's); and
//! average pooling forward. Max pooling stays on the kernels, forward and backward: cuDNN's
//! max of a window of `-inf` is the lowest finite value instead of `-inf`, and max pooling's
//! gradient goes to the one position the tie and NaN rule picks (cuDNN does not document its
//! rule for ties); cuDNN's average gradient takes the forward input and output, which that
//! gradient does not have.
//!
//! cuDNN's workspaces come from the stream-ordered pool (the driver layer allocates them per
//! call); outputs are the call's own array buffers. Each convolution problem's algorithm is
//! measured on its first call outside a capture (cuDNN times its candidates on that call's
//! buffers; [`crate::tuning::set_cudnn_algo_search`] switches to cuDNN's heuristics) and kept
//! in the stream's handle: for `f16`/`bf16`, an execution plan of cuDNN's graph API; for
//! `f32`/`f64`, an algorithm of its legacy API, or, with [`crate::tuning::set_cudnn_api_duel`]
//! on, the measured plan or the measured legacy algorithm, whichever ran faster on that first
//! call ([`crate::tuning::set_cudnn_graph_api`] chooses one API for every type).

use super::geom::{ConvGeom, PoolGeom};
use super::kernels::{NnKernel, TileSwapArgs, count32};
use crate::codegen::{ReadBuf, WriteBuf};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::CallInput;
use crate::ops::linalg::{Span, SpanNew as _, allow_tf32};
use crate::storage::DevBuf;
use cuprite_driver::dnn::{self, ConvShape, Dnn, DnnElement, Layout, PoolMode, PoolShape};
use cuprite_driver::{CaptureStatus, Event, EventFlags};
use half::{bf16, f16};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Which convolution pass cuDNN computes, and the inputs it takes (as the call orders them):
/// `Forward` from `[x, w, ...]`, `Input` from `[dy, w]`, `Weight` from `[x, dy]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum ConvPass {
    Forward,
    Input,
    Weight,
}

/// Whether CUDA convolutions and poolings may go through cuDNN, for the whole process.
static ON: AtomicBool = AtomicBool::new(true);

thread_local! {
    /// This thread's choice ([`with_cudnn`]), over the process's.
    static THREAD: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Lets CUDA convolutions (`conv1d`/`conv2d`/`conv3d` and their gradients) and poolings
/// (`max_pool2d`, `avg_pool2d` forward) go through cuDNN where it is installed (`true`, the
/// default), or keeps them on cuprite's own kernels (`false`), for the whole process. Both
/// paths compute the same values within the convolution's rounding (the pooling maximum
/// exactly); for comparing them (`cuprite bench conv/conv2d` times both) and testing both.
/// The CPU backend is not affected.
///
/// ```
/// use cuprite_array::tuning;
/// tuning::set_cudnn(false); // cuprite's kernels from here on
/// assert!(!tuning::cudnn());
/// tuning::set_cudnn(true);
/// ```
pub fn set_cudnn(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether CUDA convolutions and poolings run on this thread may go through cuDNN
/// ([`with_cudnn`] on this thread, else [`set_cudnn`]).
///
/// ```
/// assert!(cuprite_array::tuning::cudnn());
/// ```
pub fn cudnn() -> bool {
    THREAD
        .with(Cell::get)
        .unwrap_or_else(|| ON.load(Ordering::Relaxed))
}

/// Runs `f` with the convolutions and poolings this thread evaluates allowed through cuDNN
/// (`true`) or kept on cuprite's kernels (`false`), whatever [`set_cudnn`] says; the choice
/// applies to the work evaluated inside `f`.
///
/// ```
/// use cuprite_array::{Array, Device, signal, tuning};
/// let x = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0], &[1, 1, 3])?;
/// let w = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 1.0], &[1, 1, 2])?;
/// let y = tuning::with_cudnn(false, || signal::conv1d(&x, &w)?.to_vec())?;
/// assert_eq!(y, [3.0, 5.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn with_cudnn<R>(on: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<bool>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THREAD.with(|t| t.replace(Some(on))));
    f()
}

/// The layout cuDNN computes a channels-first 2-D `f16`/`bf16` convolution (forward or the
/// input's gradient, one group) in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CudnnLayout {
    /// Whichever of the other two ran faster on the problem's first call (each timed on the
    /// call's own buffers after cuDNN chose its algorithm), kept per stream and problem.
    Measured,
    /// Channels first, as the arrays lie (the default).
    #[default]
    AsGiven,
    /// Channels last: the operands exchanged into channels-last scratch buffers by cuprite's
    /// tiled kernel (`nn_tile_swap`), cuDNN's channels-last algorithms, the result exchanged
    /// back.
    ChannelsLast,
}

/// The process's [`CudnnLayout`] (0 `Measured`, 1 `AsGiven`, 2 `ChannelsLast`).
static LAYOUT: AtomicU8 = AtomicU8::new(1);

/// Sets the layout cuDNN computes channels-first 2-D `f16`/`bf16` convolutions in, for the
/// whole process ([`CudnnLayout::AsGiven`] by default). Both layouts compute the same
/// convolution; the choice changes only which cuDNN algorithms are available (and so the
/// rounding of the sums, as any change of algorithm does).
///
/// ```
/// use cuprite_array::tuning::{self, CudnnLayout};
/// tuning::set_cudnn_layout(CudnnLayout::Measured);
/// assert_eq!(tuning::cudnn_layout(), CudnnLayout::Measured);
/// tuning::set_cudnn_layout(CudnnLayout::AsGiven);
/// ```
pub fn set_cudnn_layout(layout: CudnnLayout) {
    let v = match layout {
        CudnnLayout::Measured => 0,
        CudnnLayout::AsGiven => 1,
        CudnnLayout::ChannelsLast => 2,
    };
    LAYOUT.store(v, Ordering::Relaxed);
}

/// The layout set by [`set_cudnn_layout`] ([`CudnnLayout::AsGiven`] unless set).
///
/// ```
/// use cuprite_array::tuning;
/// println!("cuDNN convolutions' layout: {:?}", tuning::cudnn_layout());
/// ```
pub fn cudnn_layout() -> CudnnLayout {
    match LAYOUT.load(Ordering::Relaxed) {
        1 => CudnnLayout::AsGiven,
        0 => CudnnLayout::Measured,
        2 => CudnnLayout::ChannelsLast,
        _ => CudnnLayout::AsGiven,
    }
}

/// Whether cuDNN 9 can be opened here (asked once).
fn library_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| dnn::is_available() && matches!(dnn::version(), Ok((9, _, _))))
}

/// Whether `e` says cuDNN cannot do this problem here (rather than that it failed).
fn unsupported(e: &Error) -> bool {
    use cuprite_driver::Error as E;
    match e {
        Error::Cuda(E::LibraryNotFound { .. } | E::SymbolNotFound { .. }) => true,
        Error::Cuda(E::Library {
            library: "libcudnn",
            code,
            ..
        }) => (1000..=1999).contains(code) || (3000..=3999).contains(code),
        _ => false,
    }
}

/// Each stream's handle (`None`: cuDNN cannot start on that stream's device), by the stream's
/// address. A handle holds its stream, so an address is never reused while it is a key.
type Handles = Mutex<HashMap<usize, Option<Arc<Dnn>>>>;

/// The handle of `lane`'s stream when cuDNN may take this thread's work: made on first use
/// outside a capture, kept for the stream's life.
fn handle(lane: &CudaLane<'_>) -> Result<Option<Arc<Dnn>>> {
    if !cudnn() || !library_ready() {
        return Ok(None);
    }
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    let key = Arc::as_ptr(lane.stream) as usize;
    let mut map = HANDLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = map.get(&key) {
        return Ok(h.clone());
    }
    if crate::runtime::capturing() || lane.stream.capture_status()? != CaptureStatus::None {
        // Captured without cuDNN, which a run outside the capture would have used.
        cuprite_driver::graph::note_unprepared_in_capture();
        return Ok(None);
    }
    let h = match Dnn::new(lane.stream) {
        Ok(h) => Some(Arc::new(h)),
        Err(e) => {
            let e = Error::from(e);
            if !unsupported(&e) {
                return Err(e);
            }
            None
        }
    };
    map.insert(key, h.clone());
    Ok(h)
}

/// `Ok(false)` for an error that sends the work to the kernels, the error for any other.
fn settle(r: Result<bool>) -> Result<bool> {
    match r {
        Err(e) if unsupported(&e) => Ok(false),
        r => r,
    }
}

/// `r`, with a call that cuDNN ran counted in [`crate::stats::thread_cudnn_calls`].
fn counted(r: Result<bool>) -> Result<bool> {
    if let Ok(true) = r {
        crate::stats::note_cudnn_call();
    }
    r
}

/// The last `D` of three per-axis values.
fn last<const D: usize>(v: [usize; 3]) -> [usize; D] {
    let mut out = [0; D];
    out.copy_from_slice(&v[3 - D..]);
    out
}

/// Elements `offset..offset + len` of a realised buffer as `T`.
fn view<T>(buf: &DevBuf, offset: usize, len: usize) -> Result<Span<'_, T>> {
    Span::new(buf.buffer()?, offset, len)
}

/// Runs `$f::<T, D>($args)` for the element type `$d` and the spatial axes `$dims`.
macro_rules! typed {
    ($d:expr, $dims:expr, $f:ident($($arg:expr),*)) => {
        match ($d, $dims) {
            (DType::F16, 1) => $f::<f16, 1>($($arg),*),
            (DType::F16, 2) => $f::<f16, 2>($($arg),*),
            (DType::F16, 3) => $f::<f16, 3>($($arg),*),
            (DType::BF16, 1) => $f::<bf16, 1>($($arg),*),
            (DType::BF16, 2) => $f::<bf16, 2>($($arg),*),
            (DType::BF16, 3) => $f::<bf16, 3>($($arg),*),
            (DType::F32, 1) => $f::<f32, 1>($($arg),*),
            (DType::F32, 2) => $f::<f32, 2>($($arg),*),
            (DType::F32, 3) => $f::<f32, 3>($($arg),*),
            (DType::F64, 1) => $f::<f64, 1>($($arg),*),
            (DType::F64, 2) => $f::<f64, 2>($($arg),*),
            (DType::F64, 3) => $f::<f64, 3>($($arg),*),
            _ => Ok(false),
        }
    };
}

/// One pass of the convolution of `g` through cuDNN into `out` (without the forward pass's
/// bias and activation, which the caller applies): `Ok(true)` when done, `Ok(false)` when the
/// kernels must do it (nothing was enqueued). Inputs as [`super::call::ConvCall`] checked them.
pub(super) fn conv(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    pass: ConvPass,
    inputs: &[CallInput<'_, DevBuf>],
    out: &DevBuf,
) -> Result<bool> {
    let Some(h) = handle(lane)? else {
        return Ok(false);
    };
    h.set_allow_tf32(allow_tf32());
    counted(settle(typed!(
        d,
        g.dims,
        conv_typed(lane, &h, d, g, pass, inputs, out)
    )))
}

fn conv_typed<T: DnnElement, const D: usize>(
    lane: &CudaLane<'_>,
    h: &Dnn,
    d: DType,
    g: &ConvGeom,
    pass: ConvPass,
    inputs: &[CallInput<'_, DevBuf>],
    out: &DevBuf,
) -> Result<bool> {
    let shape = ConvShape::<D> {
        batch: g.n,
        in_channels: g.c,
        input: last(g.i),
        out_channels: g.k,
        kernel: last(g.r),
        stride: last(g.stride),
        pad: last(g.pad),
        dilation: last(g.dil),
        groups: g.groups,
        layout: Layout::Nchw,
    };
    // The padding before on both sides gives this output exactly when the padding after
    // reaches no tap beyond it (the taps read the same zeros); otherwise, or beyond cuDNN's
    // sizes, the kernels.
    match shape.output() {
        Ok(o) if o == last::<D>(g.o) => {}
        _ => return Ok(false),
    }
    // cuDNN's input gradient refuses padding past the kernel (windows of only padding).
    if pass == ConvPass::Input && shape.padding_past_kernel().is_some() {
        return Ok(false);
    }
    let route = if swappable(d, g, pass) {
        choose_route(lane, d, g, pass, |r| {
            run_route::<T, D>(lane, h, d, g, pass, &shape, inputs, out, r)
        })?
    } else {
        CudnnLayout::AsGiven
    };
    run_route::<T, D>(lane, h, d, g, pass, &shape, inputs, out, route)?;
    Ok(true)
}

/// Whether the channels-last route may compute this pass: a 2-D `f16`/`bf16` forward pass or
/// input gradient of one group, each matrix the exchange moves below 2^31 values a side.
fn swappable(d: DType, g: &ConvGeom, pass: ConvPass) -> bool {
    let side = |v: usize| v <= i32::MAX as usize;
    matches!(d, DType::F16 | DType::BF16)
        && g.dims == 2
        && g.groups == 1
        && pass != ConvPass::Weight
        && [
            g.n,
            g.c,
            g.k,
            g.i.iter().product(),
            g.o.iter().product(),
            g.r.iter().product(),
        ]
        .into_iter()
        .all(side)
}

/// A measured route, by stream (address: a handle keeps its stream alive), type, problem
/// and pass.
type Routes = Mutex<HashMap<(usize, DType, ConvGeom, ConvPass), CudnnLayout>>;

/// Timed runs of each route when the route of a problem is measured.
const ROUTE_RUNS: usize = 3;

/// The route of this problem: the process's [`CudnnLayout`] when it names one; otherwise the
/// cached measurement, or a new one made with `run` (each route once to let cuDNN settle its
/// algorithm, then [`ROUTE_RUNS`] timed runs each; the faster minimum wins, the route as given
/// on a tie). While the stream captures, nothing is measured: the route as given.
fn choose_route(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    pass: ConvPass,
    mut run: impl FnMut(CudnnLayout) -> Result<()>,
) -> Result<CudnnLayout> {
    match cudnn_layout() {
        CudnnLayout::Measured => {}
        fixed => return Ok(fixed),
    }
    static ROUTES: OnceLock<Routes> = OnceLock::new();
    let key = (Arc::as_ptr(lane.stream) as usize, d, *g, pass);
    let routes = ROUTES.get_or_init(Default::default);
    if let Some(r) = routes.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(*r);
    }
    if crate::runtime::capturing() || lane.stream.capture_status()? != CaptureStatus::None {
        // Captured with the layout as given, unmeasured.
        cuprite_driver::graph::note_unprepared_in_capture();
        return Ok(CudnnLayout::AsGiven);
    }
    let ctx = lane.stream.context();
    let mut best = [f32::INFINITY; 2];
    for (slot, r) in [CudnnLayout::AsGiven, CudnnLayout::ChannelsLast]
        .into_iter()
        .enumerate()
    {
        run(r)?;
        for _ in 0..ROUTE_RUNS {
            let start = Event::new(ctx, EventFlags::DEFAULT)?;
            let end = Event::new(ctx, EventFlags::DEFAULT)?;
            start.record(lane.stream)?;
            run(r)?;
            end.record(lane.stream)?;
            end.synchronize()?;
            best[slot] = best[slot].min(start.elapsed_ms(&end)?);
        }
    }
    let r = if best[1] < best[0] {
        CudnnLayout::ChannelsLast
    } else {
        CudnnLayout::AsGiven
    };
    routes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, r);
    Ok(r)
}

/// One pass of the channels-first problem `shape` by `route` (`Measured` is never passed).
#[allow(clippy::too_many_arguments)]
fn run_route<T: DnnElement, const D: usize>(
    lane: &CudaLane<'_>,
    h: &Dnn,
    d: DType,
    g: &ConvGeom,
    pass: ConvPass,
    shape: &ConvShape<D>,
    inputs: &[CallInput<'_, DevBuf>],
    out: &DevBuf,
    route: CudnnLayout,
) -> Result<()> {
    let (xl, wl, yl) = (shape.x_len()?, shape.w_len()?, shape.y_len()?);
    let at = |i: usize, len: usize| view::<T>(inputs[i].buf, inputs[i].layout.offset, len);
    if route != CudnnLayout::ChannelsLast {
        match pass {
            ConvPass::Forward => {
                let mut y = view::<T>(out, 0, yl)?;
                h.conv_forward(shape, &at(0, xl)?, &at(1, wl)?, &mut y)?;
            }
            ConvPass::Input => {
                let mut dx = view::<T>(out, 0, xl)?;
                h.conv_backward_data(shape, &at(1, wl)?, &at(0, yl)?, &mut dx)?;
            }
            ConvPass::Weight => {
                let mut dw = view::<T>(out, 0, wl)?;
                h.conv_backward_filter(shape, &at(0, xl)?, &at(1, yl)?, &mut dw)?;
            }
        }
        return Ok(());
    }
    let mut last_shape = *shape;
    last_shape.layout = Layout::Nhwc;
    let (hw_in, hw_out, rs) = (
        g.i.iter().product::<usize>(),
        g.o.iter().product::<usize>(),
        g.r.iter().product::<usize>(),
    );
    // The filters `[K, C, rs]` as `[K, rs, C]`.
    let ws = swapped(lane, d, &inputs[1], (g.c, rs, g.k))?;
    match pass {
        ConvPass::Forward => {
            // `x` `[N, C, HW]` as `[N, HW, C]`; `y` back from `[N, OHW, K]`.
            let xs = swapped(lane, d, &inputs[0], (g.c, hw_in, g.n))?;
            // SAFETY: cuDNN writes all of `y` before the exchange below reads it.
            let ys = unsafe { DevBuf::alloc(lane.st, lane.stream, d, yl) }?;
            h.conv_forward(
                &last_shape,
                &view::<T>(&xs, 0, xl)?,
                &view::<T>(&ws, 0, wl)?,
                &mut view::<T>(&ys, 0, yl)?,
            )?;
            tile_swap(lane, d, &ys, 0, out, (hw_out, g.k, g.n))
        }
        ConvPass::Input => {
            // `dy` `[N, K, OHW]` as `[N, OHW, K]`; `dx` back from `[N, HW, C]`.
            let dys = swapped(lane, d, &inputs[0], (g.k, hw_out, g.n))?;
            // SAFETY: cuDNN writes all of `dx` before the exchange below reads it.
            let dxs = unsafe { DevBuf::alloc(lane.st, lane.stream, d, xl) }?;
            h.conv_backward_data(
                &last_shape,
                &view::<T>(&ws, 0, wl)?,
                &view::<T>(&dys, 0, yl)?,
                &mut view::<T>(&dxs, 0, xl)?,
            )?;
            tile_swap(lane, d, &dxs, 0, out, (hw_in, g.c, g.n))
        }
        ConvPass::Weight => Err(Error::InvalidArgument(
            "the channels-last route computes the forward pass and the input's gradient".into(),
        )),
    }
}

/// A new buffer holding `input`'s `planes` matrices of `a × b` values (from its offset) with
/// their two axes exchanged.
fn swapped(
    lane: &CudaLane<'_>,
    d: DType,
    input: &CallInput<'_, DevBuf>,
    (a, b, planes): (usize, usize, usize),
) -> Result<DevBuf> {
    let len = a
        .checked_mul(b)
        .and_then(|v| v.checked_mul(planes))
        .ok_or_else(|| Error::InvalidArgument(format!("{planes} × {a} × {b} values overflow")))?;
    // SAFETY: `tile_swap` writes all `len` elements before anything reads them.
    let dst = unsafe { DevBuf::alloc(lane.st, lane.stream, d, len) }?;
    tile_swap(
        lane,
        d,
        input.buf,
        input.layout.offset,
        &dst,
        (a, b, planes),
    )?;
    Ok(dst)
}

/// `dst[pl, j, i] = src[src_off + (pl a + i) b + j]` for `planes` matrices of `a × b` values
/// (`nn_tile_swap`), into the start of `dst`.
fn tile_swap(
    lane: &CudaLane<'_>,
    d: DType,
    src: &DevBuf,
    src_off: usize,
    dst: &DevBuf,
    (a, b, planes): (usize, usize, usize),
) -> Result<()> {
    let len = a
        .checked_mul(b)
        .and_then(|v| v.checked_mul(planes))
        .ok_or_else(|| Error::InvalidArgument(format!("{planes} × {a} × {b} values overflow")))?;
    let params = TileSwapArgs {
        src: ReadBuf::part(src, d, src_off, len)?,
        dst: WriteBuf::part(dst, d, 0, len)?,
        a: count32("the rows of an exchanged matrix", a)?,
        b: count32("the columns of an exchanged matrix", b)?,
        planes: planes as i64,
    };
    let tiles = a.div_ceil(32) * b.div_ceil(32) * planes;
    // One block a tile, up to 2^20 blocks (the kernel loops over the rest).
    let blocks = tiles.min(1 << 20);
    // SAFETY: `src` and `dst` are checked views of `planes a b` values; the kernel reads
    // `src[(pl a + i) b + j]` and writes `dst[(pl b + j) a + i]` for `pl < planes`, `i < a`,
    // `j < b` only. The launch's blocks have 256 threads, as the kernel is written for.
    unsafe { NnKernel::TileSwap.launch(lane, d, &params, blocks * 256, 1) }
}

/// Pooling forward of `g` (`x`'s planes channels first) through cuDNN into `out`: `Ok(true)`
/// when done, `Ok(false)` when the kernels must do it (nothing was enqueued).
pub(super) fn pool(
    lane: &CudaLane<'_>,
    d: DType,
    g: &PoolGeom,
    mode: PoolMode,
    x: &CallInput<'_, DevBuf>,
    out: &DevBuf,
) -> Result<bool> {
    let Some(h) = handle(lane)? else {
        return Ok(false);
    };
    counted(settle(typed!(d, g.dims, pool_typed(&h, g, mode, x, out))))
}

fn pool_typed<T: DnnElement, const D: usize>(
    h: &Dnn,
    g: &PoolGeom,
    mode: PoolMode,
    x: &CallInput<'_, DevBuf>,
    out: &DevBuf,
) -> Result<bool> {
    let shape = PoolShape::<D> {
        batch: g.planes,
        channels: 1,
        input: last(g.i),
        window: last(g.k),
        stride: last(g.stride),
        pad: last(g.pad),
        mode,
        layout: Layout::Nchw,
    };
    // A window `ceil_mode` adds, or a size beyond cuDNN's: the kernels.
    match shape.output() {
        Ok(o) if o == last::<D>(g.o) => {}
        _ => return Ok(false),
    }
    let (xl, yl) = (shape.x_len()?, shape.y_len()?);
    let mut y = view::<T>(out, 0, yl)?;
    h.pooling_forward(&shape, &view::<T>(x.buf, x.layout.offset, xl)?, &mut y)?;
    Ok(true)
}
