//! The cuFFT [`Plan`]: made from a checked [`PlanDesc`], bound to a context and a [`Stream`],
//! with cuFFT's own allocation turned off and its work area taken from the stream-ordered
//! pool (a [`DeviceBuffer`] kept with the plan); and the transforms it runs over cuprite
//! buffers, each declared to the stream tracker like a kernel launch.
//!
//! This module owns the cuFFT handle and its calls. Layout and size checks are `desc.rs`'s;
//! which streams wait for which is the tracker's ([`Stream::begin_access`]).

use super::desc::{Direction, Extents, FftFloat, FftKind, PlanDesc, check_len};
use crate::context::{Context, DropWait};
use crate::error::{Error, Result};
use crate::handle_keep::HandleKeep;
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::LoadError;
use cuprite_sys::cufft::{self as sys, cufftHandle, cufftResult};
use cuprite_sys::driver::CUdeviceptr;
use cuprite_sys::library_types::cudaDataType;
use num_complex::Complex;
use std::ffi::{c_int, c_longlong, c_void};
use std::fmt;
use std::sync::Arc;

/// What a cuFFT status means (from the cuFFT documentation).
fn describe(r: cufftResult) -> &'static str {
    match r {
        cufftResult::CUFFT_INVALID_PLAN => "cuFFT was given an invalid plan handle",
        cufftResult::CUFFT_ALLOC_FAILED => "cuFFT failed to allocate GPU or CPU memory",
        cufftResult::CUFFT_INVALID_TYPE => "the transform type is not supported",
        cufftResult::CUFFT_INVALID_VALUE => "cuFFT was given a bad pointer or parameter",
        cufftResult::CUFFT_INTERNAL_ERROR => "a driver or internal cuFFT error",
        cufftResult::CUFFT_EXEC_FAILED => "cuFFT failed to run the transform on the GPU",
        cufftResult::CUFFT_SETUP_FAILED => "the cuFFT library failed to initialise",
        cufftResult::CUFFT_INVALID_SIZE => "cuFFT does not support this transform size or layout",
        cufftResult::CUFFT_UNALIGNED_DATA => "the data is not aligned as cuFFT needs",
        cufftResult::CUFFT_INCOMPLETE_PARAMETER_LIST => "parameters are missing from the call",
        cufftResult::CUFFT_INVALID_DEVICE => {
            "the plan runs on another GPU than the one it was made on"
        }
        cufftResult::CUFFT_PARSE_ERROR => "an internal plan database error",
        cufftResult::CUFFT_NO_WORKSPACE => "no work area was given before the transform ran",
        cufftResult::CUFFT_NOT_IMPLEMENTED => "not implemented in this version of cuFFT",
        cufftResult::CUFFT_LICENSE_ERROR => "a cuFFT licence error",
        cufftResult::CUFFT_NOT_SUPPORTED => {
            "cuFFT does not support this operation for these parameters"
        }
        cufftResult::CUFFT_MISSING_DEPENDENCY => {
            "a library cuFFT needs (for example nvJitLink) is missing"
        }
        cufftResult::CUFFT_NVRTC_FAILURE => "cuFFT's use of NVRTC failed",
        cufftResult::CUFFT_NVJITLINK_FAILURE => "cuFFT's use of nvJitLink failed",
        cufftResult::CUFFT_NVSHMEM_FAILURE => "cuFFT's use of NVSHMEM failed",
        _ => "an unknown cuFFT status",
    }
}

/// Turns a raw cuFFT call's outcome into a `Result`, naming `call` on failure.
fn check(r: std::result::Result<cufftResult, LoadError>, call: &'static str) -> Result<()> {
    match r {
        Ok(r) if r.is_success() => Ok(()),
        Ok(r) => Err(Error::Library {
            library: "libcufft",
            call,
            code: r.0,
            name: r
                .name()
                .map(str::to_string)
                .unwrap_or_else(|| format!("cufftResult({})", r.0)),
            description: describe(r).to_string(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// The version of the cuFFT library that cuprite loads (e.g. `12000` for cuFFT 12.0), without
/// needing a GPU. `Err` naming every place tried when cuFFT is not installed.
///
/// ```
/// match cuprite_driver::fft::version() {
///     Ok(v) => println!("cuFFT {}.{}", v / 1000, v % 1000 / 100),
///     Err(e) => println!("no cuFFT: {e}"),
/// }
/// ```
pub fn version() -> Result<u32> {
    let mut v: c_int = 0;
    // SAFETY: `v` is a valid out-pointer; the call has no other precondition.
    check(unsafe { sys::cufftGetVersion(&mut v) }, "cufftGetVersion")?;
    Ok(v.max(0) as u32)
}

/// Whether cuFFT can be loaded here.
pub fn is_available() -> bool {
    cuprite_sys::libraries::CUFFT.is_available()
}

/// The `cudaDataType`s of an Xt (half-precision) plan: (input, output, execution).
fn xt_types(desc: &PlanDesc) -> (cudaDataType, cudaDataType, cudaDataType) {
    use super::desc::Precision as P;
    let (r, c) = match desc.precision() {
        P::F16 => (cudaDataType::CUDA_R_16F, cudaDataType::CUDA_C_16F),
        P::BF16 => (cudaDataType::CUDA_R_16BF, cudaDataType::CUDA_C_16BF),
        P::F32 => (cudaDataType::CUDA_R_32F, cudaDataType::CUDA_C_32F),
        P::F64 => (cudaDataType::CUDA_R_64F, cudaDataType::CUDA_C_64F),
    };
    match desc.kind() {
        FftKind::C2C => (c, c, c),
        FftKind::R2C => (r, c, c),
        FftKind::C2R => (c, r, c),
    }
}

/// The classic `cufftType` of an f32/f64 plan.
fn cufft_type(desc: &PlanDesc) -> sys::cufftType {
    use super::desc::Precision as P;
    let double = desc.precision() == P::F64;
    match (desc.kind(), double) {
        (FftKind::C2C, false) => sys::cufftType::CUFFT_C2C,
        (FftKind::R2C, false) => sys::cufftType::CUFFT_R2C,
        (FftKind::C2R, false) => sys::cufftType::CUFFT_C2R,
        (FftKind::C2C, true) => sys::cufftType::CUFFT_Z2Z,
        (FftKind::R2C, true) => sys::cufftType::CUFFT_D2Z,
        (FftKind::C2R, true) => sys::cufftType::CUFFT_Z2D,
    }
}

/// A cuFFT plan: one transform (kind, precision, sizes, batch, layouts) made once and run many
/// times on its [`Stream`].
///
/// cuFFT's automatic allocation is off: the work area is a [`DeviceBuffer`] allocated
/// stream-ordered on the plan's stream (from the context's memory pool) and kept with the plan.
/// Every transform declares its buffers to the stream tracker as a kernel launch does (input
/// read, output written, work area written), so buffers used on other streams are waited for
/// exactly as they must be, and a plan moved to another stream ([`set_stream`](Self::set_stream))
/// waits for its own earlier transforms through its work area. Every size, stride and extent
/// is checked against the buffers before cuFFT sees them.
///
/// Transforms take `&mut self`: cuFFT does not allow one plan to run from two threads at once.
///
/// Dropping a plan that ran transforms first waits for them to finish (cuFFT
/// frees the plan's own device memory at once, not stream-ordered); the work area is freed
/// stream-ordered after its last use. A plan some of whose transforms a capture took is
/// destroyed with the last graph of that capture instead (which keeps the work area too),
/// after its context's work.
///
/// ```no_run
/// use cuprite_driver::fft::{Plan, PlanDesc, Precision};
/// use num_complex::Complex;
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let stream = ctx.default_stream();
/// let x: Vec<Complex<f32>> = (0..8).map(|i| Complex::new(i as f32, 0.0)).collect();
/// let input = stream.clone_htod(&x)?;
/// let mut output = stream.alloc_zeros::<Complex<f32>>(8)?;
/// let mut plan = Plan::new(&stream, &PlanDesc::c2c(Precision::F32, &[8]))?;
/// plan.exec_forward(&input, &mut output)?;
/// let y = stream.clone_dtoh(&output)?;
/// assert!((y[0].re - 28.0).abs() < 1e-4); // the sum of 0..8
/// # Ok(()) }
/// ```
pub struct Plan {
    handle: cufftHandle,
    desc: PlanDesc,
    extents: Extents,
    /// Destroys the handle (and with it the plan's own device memory) once neither this nor
    /// a graph that captured a transform holds it. Dropped before `work`.
    keep: Arc<HandleKeep>,
    /// cuFFT's work area, declared written by every transform; `None` when the plan needs
    /// none.
    work: Option<DeviceBuffer<u8>>,
    stream: Arc<Stream>,
    /// Whether a transform was enqueued (the drop then waits for that work before the plan's
    /// own device memory is freed).
    used: bool,
    /// Whether transforms may have been enqueued on another stream than `stream` (the drop then
    /// waits for the whole context, else for `stream` only).
    moved_after_use: bool,
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("handle", &self.handle)
            .field("desc", &self.desc)
            .field("work_bytes", &self.work_size())
            .field("stream", &self.stream)
            .finish()
    }
}

/// One buffer side as the checks see it.
struct Side<'a> {
    name: &'static str,
    ptr: CUdeviceptr,
    len: usize,
    need: usize,
    align: usize,
    ctx: &'a Arc<Context>,
}

fn side<'a, E, B: DeviceRead<E> + ?Sized>(name: &'static str, buf: &'a B, need: usize) -> Side<'a> {
    Side {
        name,
        ptr: buf.device_ptr(),
        len: buf.len(),
        need,
        align: std::mem::size_of::<E>(),
        ctx: buf.tracker().context(),
    }
}

impl Plan {
    /// Makes the plan that `desc` describes, bound to `stream` (and its context): checks `desc`
    /// ([`PlanDesc::check`]), creates the cuFFT plan with automatic allocation off
    /// (`cufftMakePlanMany64`; `cufftXtMakePlanMany` for f16 and bf16), allocates its work area
    /// stream-ordered on `stream`, and sets the plan's stream. `Err` when the description is
    /// unsound, cuFFT is missing (naming every place tried) or refuses the plan, and while
    /// `stream` is capturing (make plans before the capture begins).
    pub fn new(stream: &Arc<Stream>, desc: &PlanDesc) -> Result<Plan> {
        let extents = desc.check()?;
        let ctx = stream.context();
        ctx.bind_to_thread()?;
        // Its work area would be graph memory, gone with that graph while the plan lives on.
        crate::blas::refuse_capturing(stream, "an FFT plan")?;
        let mut handle: cufftHandle = sys::CUFFT_PLAN_NULL;
        // SAFETY: `handle` is a valid out-pointer.
        check(unsafe { sys::cufftCreate(&mut handle) }, "cufftCreate")?;
        // From here on the plan owns the handle: every early return destroys it.
        let keep = HandleKeep::new(
            ctx,
            "an fft::Plan",
            Box::new(move || {
                // SAFETY: the handle was created by cufftCreate and is destroyed once, by its
                // last holder, after every transform enqueued with it.
                check(unsafe { sys::cufftDestroy(handle) }, "cufftDestroy")
            }),
        );
        let mut plan = Plan {
            handle,
            desc: *desc,
            extents,
            keep,
            work: None,
            stream: stream.clone(),
            used: false,
            moved_after_use: false,
        };
        // SAFETY: a live plan handle, not yet made.
        let r = unsafe { sys::cufftSetAutoAllocation(handle, 0) };
        check(r, "cufftSetAutoAllocation")?;
        // Every value below was checked to fit in `long long` by `desc.check()`.
        let rank = desc.rank();
        let mut n: [c_longlong; 3] = [0; 3];
        for (o, &v) in n.iter_mut().zip(desc.shape()) {
            *o = v as c_longlong;
        }
        // Dense layouts go as null embeds (cuFFT's basic layout); with an advanced layout on
        // either side, cuFFT takes both sides' in full.
        let advanced = desc.input_layout().is_some() || desc.output_layout().is_some();
        let (mut iembed, istride, idist) = spell_out(&desc.effective_input_layout());
        let (mut oembed, ostride, odist) = spell_out(&desc.effective_output_layout());
        let (ip, op) = if advanced {
            (iembed.as_mut_ptr(), oembed.as_mut_ptr())
        } else {
            (std::ptr::null_mut(), std::ptr::null_mut())
        };
        let batch = desc.batch() as c_longlong;
        let mut work_size: usize = 0;
        if desc.precision().is_half() {
            let (it, ot, et) = xt_types(desc);
            // SAFETY: `n` and the embeds (or null) hold `rank` sizes each, checked against one
            // another; `work_size` is a valid out-pointer; the handle is live.
            let r = unsafe {
                sys::cufftXtMakePlanMany(
                    handle,
                    rank as c_int,
                    n.as_mut_ptr(),
                    ip,
                    istride,
                    idist,
                    it,
                    op,
                    ostride,
                    odist,
                    ot,
                    batch,
                    &mut work_size,
                    et,
                )
            };
            check(r, "cufftXtMakePlanMany")?;
        } else {
            // SAFETY: as above.
            let r = unsafe {
                sys::cufftMakePlanMany64(
                    handle,
                    rank as c_int,
                    n.as_mut_ptr(),
                    ip,
                    istride,
                    idist,
                    op,
                    ostride,
                    odist,
                    cufft_type(desc),
                    batch,
                    &mut work_size,
                )
            };
            check(r, "cufftMakePlanMany64")?;
        }
        if work_size > 0 {
            // SAFETY: scratch bytes that cuFFT writes before it reads them; u8 has no invalid
            // values.
            let work = unsafe { stream.alloc::<u8>(work_size) }?;
            // SAFETY: a live plan and `work_size` bytes of device memory of this context that
            // the plan keeps alive (dropped after the plan is destroyed).
            let r = unsafe { sys::cufftSetWorkArea(handle, work.device_ptr() as *mut c_void) };
            check(r, "cufftSetWorkArea")?;
            plan.work = Some(work);
        }
        // SAFETY: a live plan and a live stream of the current context.
        let r = unsafe { sys::cufftSetStream(handle, stream.raw()) };
        check(r, "cufftSetStream")?;
        Ok(plan)
    }

    /// What the plan computes.
    pub fn desc(&self) -> &PlanDesc {
        &self.desc
    }

    /// How many elements its input and output buffers must hold.
    pub fn extents(&self) -> Extents {
        self.extents
    }

    /// The stream its transforms are enqueued on.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// The context it was made in.
    pub fn context(&self) -> &Arc<Context> {
        self.stream.context()
    }

    /// The size of its work area in bytes (0 when cuFFT needs none).
    pub fn work_size(&self) -> usize {
        self.work.as_ref().map_or(0, |w| w.len())
    }

    /// cuFFT's handle, for calls cuprite does not wrap. Do not destroy it or change its work
    /// area or stream.
    pub fn raw(&self) -> cufftHandle {
        self.handle
    }

    /// Moves the plan to `stream` (of the same context): later transforms are enqueued there,
    /// and its work area is freed there. No synchronisation: the work area's tracking makes the
    /// next transform on `stream` wait (on the device) for the plan's last one on the old
    /// stream. `Err`, with the plan unchanged, for a stream of another context.
    pub fn set_stream(&mut self, stream: &Arc<Stream>) -> Result<()> {
        if !Arc::ptr_eq(stream.context(), self.stream.context()) {
            return Err(Error::InvalidArgument(format!(
                "fft::Plan::set_stream: the stream belongs to another context (device {}) than \
                 the plan (device {})",
                stream.context().ordinal(),
                self.stream.context().ordinal()
            )));
        }
        if Arc::ptr_eq(stream, &self.stream) {
            return Ok(());
        }
        stream.context().bind_to_thread()?;
        // SAFETY: a live plan and a live stream of the plan's context, now current.
        let r = unsafe { sys::cufftSetStream(self.handle, stream.raw()) };
        check(r, "cufftSetStream")?;
        if let Some(w) = &mut self.work {
            w.set_stream(stream)?;
        }
        self.moved_after_use |= self.used;
        self.stream = stream.clone();
        Ok(())
    }

    /// The forward complex-to-complex transform of `input` into `output` (a C2C plan).
    pub fn exec_forward<T, I, O>(&mut self, input: &I, output: &mut O) -> Result<()>
    where
        T: FftFloat,
        I: DeviceRead<Complex<T>> + ?Sized,
        O: DeviceWrite<Complex<T>> + ?Sized,
    {
        self.exec_c2c(Direction::Forward, input, output)
    }

    /// The inverse complex-to-complex transform of `input` into `output` (a C2C plan). Not
    /// normalised: forward then inverse multiplies by the number of points per signal.
    pub fn exec_inverse<T, I, O>(&mut self, input: &I, output: &mut O) -> Result<()>
    where
        T: FftFloat,
        I: DeviceRead<Complex<T>> + ?Sized,
        O: DeviceWrite<Complex<T>> + ?Sized,
    {
        self.exec_c2c(Direction::Inverse, input, output)
    }

    /// A complex-to-complex transform in `direction` of `input` into `output` (a C2C plan).
    /// `input` is only read. `Err` before anything is enqueued when the plan is not C2C, its
    /// precision is not `T`'s, a buffer belongs to another context, is misaligned or is
    /// shorter than the plan's layout reaches.
    pub fn exec_c2c<T, I, O>(
        &mut self,
        direction: Direction,
        input: &I,
        output: &mut O,
    ) -> Result<()>
    where
        T: FftFloat,
        I: DeviceRead<Complex<T>> + ?Sized,
        O: DeviceWrite<Complex<T>> + ?Sized,
    {
        let what = match direction {
            Direction::Forward => "fft::Plan::exec_forward",
            Direction::Inverse => "fft::Plan::exec_inverse",
        };
        self.check_call::<T>(what, FftKind::C2C)?;
        let (ip, op) = (input.device_ptr(), output.device_ptr_mut());
        self.check_sides(&[
            side::<Complex<T>, _>("input", input, self.extents.input),
            side::<Complex<T>, _>("output", output, self.extents.output),
        ])?;
        let dir = direction_code(direction);
        let accesses = [Access::read(input), Access::write(output)];
        self.enqueue(&accesses, |h| c2c_call::<T>(h, ip, op, dir))
    }

    /// A complex-to-complex transform in `direction` of `data` in place (a C2C plan whose input
    /// and output layouts are the same).
    pub fn exec_c2c_in_place<T, D>(&mut self, direction: Direction, data: &mut D) -> Result<()>
    where
        T: FftFloat,
        D: DeviceWrite<Complex<T>> + ?Sized,
    {
        self.check_call::<T>("fft::Plan::exec_c2c_in_place", FftKind::C2C)?;
        self.desc.check_same_layouts()?;
        let p = data.device_ptr_mut();
        let need = self.extents.input.max(self.extents.output);
        self.check_sides(&[side::<Complex<T>, _>("in-place", data, need)])?;
        let dir = direction_code(direction);
        let accesses = [Access::write(data)];
        self.enqueue(&accesses, |h| c2c_call::<T>(h, p, p, dir))
    }

    /// The real-to-complex (forward) transform of `input` into `output` (an R2C plan): the
    /// output's last dimension holds the `n/2 + 1` non-redundant points. `input` is only read.
    pub fn exec_r2c<T, I, O>(&mut self, input: &I, output: &mut O) -> Result<()>
    where
        T: FftFloat,
        I: DeviceRead<T> + ?Sized,
        O: DeviceWrite<Complex<T>> + ?Sized,
    {
        self.check_call::<T>("fft::Plan::exec_r2c", FftKind::R2C)?;
        let (ip, op) = (input.device_ptr(), output.device_ptr_mut());
        self.check_sides(&[
            side::<T, _>("input", input, self.extents.input),
            side::<Complex<T>, _>("output", output, self.extents.output),
        ])?;
        let accesses = [Access::read(input), Access::write(output)];
        self.enqueue(&accesses, |h| {
            // SAFETY: a live plan of this precision and kind; both buffers hold what the
            // plan's layouts reach (checked above), are aligned, and belong to the plan's
            // context, which `enqueue` made current.
            unsafe {
                match T::PRECISION {
                    super::Precision::F32 => sys::cufftExecR2C(h, ip as *mut f32, op as *mut _),
                    super::Precision::F64 => sys::cufftExecD2Z(h, ip as *mut f64, op as *mut _),
                    _ => sys::cufftXtExec(h, ip as *mut _, op as *mut _, sys::CUFFT_FORWARD),
                }
            }
        })
    }

    /// The complex-to-real (inverse, unnormalised) transform of `input` into `output` (a C2R
    /// plan): `input`'s last dimension holds the `n/2 + 1` non-redundant points.
    ///
    /// **cuFFT may overwrite `input`** (out of place, its complex-to-real transforms use the
    /// input as scratch), so it is taken as `&mut` and tracked as written. Copy it first if
    /// its contents are still needed.
    pub fn exec_c2r<T, I, O>(&mut self, input: &mut I, output: &mut O) -> Result<()>
    where
        T: FftFloat,
        I: DeviceWrite<Complex<T>> + ?Sized,
        O: DeviceWrite<T> + ?Sized,
    {
        self.check_call::<T>("fft::Plan::exec_c2r", FftKind::C2R)?;
        let (ip, op) = (input.device_ptr_mut(), output.device_ptr_mut());
        self.check_sides(&[
            side::<Complex<T>, _>("input", input, self.extents.input),
            side::<T, _>("output", output, self.extents.output),
        ])?;
        let accesses = [Access::write(input), Access::write(output)];
        self.enqueue(&accesses, |h| {
            // SAFETY: as in `exec_r2c`.
            unsafe {
                match T::PRECISION {
                    super::Precision::F32 => sys::cufftExecC2R(h, ip as *mut _, op as *mut f32),
                    super::Precision::F64 => sys::cufftExecZ2D(h, ip as *mut _, op as *mut f64),
                    _ => sys::cufftXtExec(h, ip as *mut _, op as *mut _, sys::CUFFT_INVERSE),
                }
            }
        })
    }

    /// `Err` unless the plan is of `kind` and computes in `T`'s precision.
    fn check_call<T: FftFloat>(&self, what: &str, kind: FftKind) -> Result<()> {
        if self.desc.kind() != kind {
            let use_instead = match self.desc.kind() {
                FftKind::C2C => "exec_forward, exec_inverse, exec_c2c or exec_c2c_in_place",
                FftKind::R2C => "exec_r2c",
                FftKind::C2R => "exec_c2r",
            };
            return Err(Error::InvalidArgument(format!(
                "{what} on a {:?} plan ({:?}): use {use_instead}",
                self.desc.kind(),
                self.desc
            )));
        }
        if T::PRECISION != self.desc.precision() {
            return Err(Error::InvalidArgument(format!(
                "{what}: the plan computes in {} but the buffers hold {} ({:?})",
                self.desc.precision(),
                T::PRECISION,
                self.desc
            )));
        }
        Ok(())
    }

    /// Context, alignment and length of each buffer.
    fn check_sides(&self, sides: &[Side<'_>]) -> Result<()> {
        for s in sides {
            if !Arc::ptr_eq(s.ctx, self.stream.context()) {
                return Err(Error::InvalidArgument(format!(
                    "FFT plan {:?}: the {} buffer belongs to another context (device {}) than the \
                     plan (device {})",
                    self.desc,
                    s.name,
                    s.ctx.ordinal(),
                    self.stream.context().ordinal()
                )));
            }
            if s.ptr % s.align as u64 != 0 {
                return Err(Error::InvalidArgument(format!(
                    "FFT plan {:?}: the {} buffer at {:#x} is not aligned to its element size of \
                     {} bytes, as cuFFT needs",
                    self.desc, s.name, s.ptr, s.align
                )));
            }
            check_len(&self.desc, s.name, s.len, s.need)?;
        }
        Ok(())
    }

    /// Runs `call` on the plan's stream between the tracker's `begin_access` and `end_access`
    /// for `io` and the work area, as a kernel launch does.
    fn enqueue(
        &mut self,
        io: &[Access<'_>],
        call: impl FnOnce(cufftHandle) -> std::result::Result<cufftResult, LoadError>,
    ) -> Result<()> {
        let stream = &*self.stream;
        stream.context().bind_to_thread()?;
        let mut all = [io[0]; 3];
        let mut n = 0;
        for a in io
            .iter()
            .copied()
            .chain(self.work.as_ref().map(Access::write))
        {
            all[n] = a;
            n += 1;
        }
        let accesses = &all[..n];
        self.keep.note_use(stream);
        stream.begin_access(accesses)?;
        self.used = true;
        let r = call(self.handle);
        let end = stream.end_access(accesses);
        check(r, exec_name(&self.desc))?;
        end
    }
}

fn direction_code(d: Direction) -> c_int {
    match d {
        Direction::Forward => sys::CUFFT_FORWARD,
        Direction::Inverse => sys::CUFFT_INVERSE,
    }
}

/// The cuFFT function a plan's transforms go through (for error messages).
fn exec_name(desc: &PlanDesc) -> &'static str {
    use super::desc::Precision as P;
    match (desc.precision(), desc.kind()) {
        (P::F32, FftKind::C2C) => "cufftExecC2C",
        (P::F32, FftKind::R2C) => "cufftExecR2C",
        (P::F32, FftKind::C2R) => "cufftExecC2R",
        (P::F64, FftKind::C2C) => "cufftExecZ2Z",
        (P::F64, FftKind::R2C) => "cufftExecD2Z",
        (P::F64, FftKind::C2R) => "cufftExecZ2D",
        _ => "cufftXtExec",
    }
}

fn c2c_call<T: FftFloat>(
    h: cufftHandle,
    ip: CUdeviceptr,
    op: CUdeviceptr,
    dir: c_int,
) -> std::result::Result<cufftResult, LoadError> {
    // SAFETY: a live C2C plan of T's precision; both addresses hold what the plan's layouts
    // reach (checked by the caller), are aligned, and belong to the plan's context, current.
    unsafe {
        match T::PRECISION {
            super::Precision::F32 => sys::cufftExecC2C(h, ip as *mut _, op as *mut _, dir),
            super::Precision::F64 => sys::cufftExecZ2Z(h, ip as *mut _, op as *mut _, dir),
            _ => sys::cufftXtExec(h, ip as *mut _, op as *mut _, dir),
        }
    }
}

/// A layout as cuFFT's explicit `(embed, stride, dist)`.
fn spell_out(l: &super::Layout) -> ([c_longlong; 3], i64, i64) {
    let mut e = [0; 3];
    for (o, &v) in e.iter_mut().zip(l.embed()) {
        *o = v as c_longlong;
    }
    (e, l.stride() as i64, l.dist() as i64)
}

impl Drop for Plan {
    fn drop(&mut self) {
        let ctx = self.stream.context().clone();
        // cuFFT frees the plan's own device memory (twiddles, kernels' data) at once: every
        // transform enqueued with it finishes first. A plan that only ever ran on its stream
        // waits for that stream alone, which leaves stream captures of other threads intact (a
        // context-wide synchronisation would invalidate them; it is refused while one is in
        // progress).
        let wait = if !self.used {
            DropWait::Done
        } else if self.moved_after_use {
            crate::stats::count_host_sync();
            ctx.synchronize_for_drop()
        } else {
            self.stream.synchronize_for_drop()
        };
        match wait {
            DropWait::Done => {}
            // A capture in progress refused the wait (it would invalidate it): the handle is
            // kept until the next context-wide synchronisation that succeeds, never destroyed
            // under transforms that may still run.
            DropWait::Refused => {
                let keep = self.keep.clone();
                ctx.after_next_sync(
                    "cufftDestroy of an fft::Plan",
                    Box::new(move || {
                        drop(keep);
                        Ok(())
                    }),
                );
            }
            DropWait::Failed(e) => {
                ctx.defer("cufftDestroy of an fft::Plan", e);
                // Leaked: never destroyed under transforms that may still run.
                std::mem::forget(self.keep.clone());
            }
        }
        // `keep` (a field) destroys the handle now, or with the last graph that captured a
        // transform; the work area drops after it, freed stream-ordered after its last use.
    }
}
