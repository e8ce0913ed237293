//! The residual step of an unpreconditioned conjugate gradient iteration as one library call
//! ([`ResidualStep`]): `r − (num / den) · b` and its squared norm in one pass over the vectors,
//! a CUDA kernel (`residual_step.cu`) and its CPU twin, which do the same operations in the same
//! order (so both backends give the same bits). The guarded division (`0` where `den` is `0`)
//! is the solvers' own. The result is an ordinary lazy array of `n + 1` elements: the new
//! residual, then its squared norm.
//!
//! With `update`, the call is the whole CG step after `A·p`: it also steps `x` along `p` and
//! makes the next direction from the new residual (`n` more elements each). On CUDA that is
//! one cooperative launch where the device holds the grid at once and the vectors fit the
//! registers it keeps (`CG_VB`, `CG_K` in `residual_step.cu`); otherwise the residual step's
//! launch and then an update launch. Both compute the same operations in the same order, as
//! the CPU twin does.

use super::SparseValue;
use super::csr_product::dot_twin;
use crate::array::Array;
use crate::codegen::{
    KernelParams, KernelSource, LaunchArgs, ReadBuf, SharedBuf, WriteBuf, kernel_params,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::shape::{Layout, SliceArg};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Threads a block, as the CSR-stream SpMV's (so that [`dot_twin`] gives the sum's order).
const THREADS: usize = 256;

/// Elements a thread loads at once (`RS_UNROLL`).
const RS_UNROLL: usize = 4;

/// The most blocks of a launch: each thread then takes several elements, so that the blocks'
/// partial sums and their count cost little beside the pass. A fixed number, so that the
/// order of the sum, which follows the grid, is the same on every device and in the CPU twin.
const MAX_GRID: u64 = 1024;

/// The CG step's vectors start at multiples of this many elements of the output.
const ALIGN: usize = 32;

/// Virtual blocks a block of the fused CG step takes (`CG_VB` in `residual_step.cu`).
const CG_VB: usize = 2;

/// Elements a thread of one virtual block keeps across the fused step's barrier (`CG_K`).
const CG_K: usize = 4;

kernel_params! {
    /// `y[..n] = a − (num / den) · b` (`0` for the quotient where `den` is `0`) and
    /// `y[n] = Σ y[i]²`: `part` holds a partial a block, `count` one counter that is zero at
    /// the launch.
    struct ResidualArgs<'a> {
        a: ReadBuf<'a> as "T",
        b: ReadBuf<'a> as "T",
        num: ReadBuf<'a> as "T",
        den: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        part: SharedBuf<'a> as "T",
        count: SharedBuf<'a> as "unsigned",
        n: i64,
    }
}

kernel_params! {
    /// The CG step's update after the residual step: `y` holds `r'` and its squared norm, and
    /// receives `x'` and `p'` (see `residual_step.cu`).
    struct CgUpdateArgs<'a> {
        x: ReadBuf<'a> as "T",
        p: ReadBuf<'a> as "T",
        num: ReadBuf<'a> as "T",
        den: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        n: i64,
        s: i64,
    }
}

kernel_params! {
    /// The residual step and the CG step's update in one cooperative launch: `part` holds
    /// `vgrid` partials, `bar` two counters that are zero at the launch (and left zero).
    struct CgFusedArgs<'a> {
        a: ReadBuf<'a> as "T",
        b: ReadBuf<'a> as "T",
        num: ReadBuf<'a> as "T",
        den: ReadBuf<'a> as "T",
        x: ReadBuf<'a> as "T",
        p: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        part: SharedBuf<'a> as "T",
        bar: SharedBuf<'a> as "unsigned",
        n: i64,
        s: i64,
        vgrid: i64,
    }
}

/// `r − (num / den) · b` and its squared norm for vectors `r` and `b` of `n` elements (inputs
/// 0 and 1) and one-element `num` and `den` (inputs 2 and 3), all of `dtype` (`f32` or `f64`):
/// an output of `n + 1` elements. With `update`, also `x' = x + (num / den) · p` and
/// `p' = r' + (‖r'‖² / num) · p` for vectors `x` and `p` (inputs 4 and 5; both quotients `0`
/// where the divisor is `0`): an output of `2s + n` elements ([`Self::stride`] `s`): `r'` and
/// `‖r'‖²` from 0, `x'` from `s`, `p'` from `2s`.
#[derive(Debug)]
pub(crate) struct ResidualStep {
    pub dtype: DType,
    pub n: usize,
    pub update: bool,
}

impl ResidualStep {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let len = |i: usize| crate::shape::numel(inputs[i].shape);
        let ok = matches!(self.dtype, DType::F32 | DType::F64)
            && inputs.len() == if self.update { 6 } else { 4 }
            && inputs.iter().all(|x| x.dtype == self.dtype)
            && len(0) == self.n
            && len(1) == self.n
            && len(2) == 1
            && len(3) == 1
            && (!self.update || (len(4) == self.n && len(5) == self.n));
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the residual step made for {} {:?} elements was given {:?}",
                self.n,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// Where `x'` starts in the output with `update` (`p'` at twice that): past `r'` and its
    /// norm, rounded up to [`ALIGN`] elements so that each vector starts aligned as the buffer.
    fn stride(n: usize) -> usize {
        (n + 1).div_ceil(ALIGN) * ALIGN
    }

    /// The elements of the output.
    fn out_len(&self) -> usize {
        if self.update {
            2 * Self::stride(self.n) + self.n
        } else {
            self.n + 1
        }
    }

    /// The source of one of the file's kernels: `form`'s entry (`Form::name`) over `P`.
    fn source<'a, P: KernelParams<'a>>(&self, form: Form) -> KernelSource {
        let name = format!("cuprite_sparse_{}_{}", form.name(), self.dtype.name());
        let t = if self.dtype == DType::F64 {
            "double"
        } else {
            "float"
        };
        let header = format!(
            "typedef long long i64t;\ntypedef {t} T;\n#define RS_BLOCK {THREADS}\n\
             #define RS_UNROLL {RS_UNROLL}\n"
        );
        let entry = crate::codegen::entry::<P>(&name, &THREADS.to_string(), form.body());
        let text = format!(
            "{header}{}{}{entry}",
            include_str!("residual_step.cu"),
            crate::codegen::MARKER
        );
        KernelSource::new(name, text)
    }

    fn kernel(&self, form: Form) -> KernelSource {
        match form {
            Form::Residual => self.source::<ResidualArgs>(form),
            Form::Update => self.source::<CgUpdateArgs>(form),
            Form::Fused => self.source::<CgFusedArgs>(form),
        }
    }

    fn key(&self, form: Form) -> u64 {
        let mut h = KeyHasher(0x5a45_c501);
        "sparse-residual-step".hash(&mut h);
        RS_UNROLL.hash(&mut h);
        self.dtype.code().hash(&mut h);
        form.hash(&mut h);
        h.finish()
    }

    /// The blocks of the launch for `n` elements: one for each [`THREADS`] elements, at most
    /// [`MAX_GRID`].
    fn grid(n: usize) -> u32 {
        (n as u64).div_ceil(THREADS as u64).clamp(1, MAX_GRID) as u32
    }

    /// The CPU twin: the kernel's operations in its order.
    fn cpu<R: Real>(a: &[R], b: &[R], num: R, den: R, out: &mut [R]) {
        let q = quot(num, den);
        let (ys, norm) = out.split_at_mut(a.len());
        ys.par_iter_mut()
            .zip(a.par_iter().zip(b.par_iter()))
            .for_each(|(y, (&a, &b))| *y = a - b * q);
        if let Some(s) = norm.first_mut() {
            *s = dot_twin(ys, ys, Self::grid(ys.len()) as usize);
        }
    }

    /// The CPU twin of the CG step's update: `out` (`2s + n` elements, [`Self::stride`]) holds
    /// `r'` and its squared norm (the residual step's output), then receives `x'` and `p'`.
    fn cpu_update<R: Real>(x: &[R], p: &[R], num: R, den: R, out: &mut [R]) {
        let n = x.len();
        let s = Self::stride(n);
        let (q, be) = (quot(num, den), quot(out[n], num));
        let (head, tail) = out.split_at_mut(s);
        let (xs, ps) = tail.split_at_mut(s);
        let (xs, ps) = (&mut xs[..n], &mut ps[..n]);
        xs.par_iter_mut()
            .zip(x.par_iter().zip(p.par_iter()))
            .for_each(|(o, (&x, &p))| *o = x + p * q);
        ps.par_iter_mut()
            .zip(head[..n].par_iter().zip(p.par_iter()))
            .for_each(|(o, (&r, &p))| *o = r + p * be);
    }

    fn run_cpu_typed<R: Real>(
        &self,
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let vals = |i: usize, len: usize| -> &[R] {
            let x = &inputs[i];
            let v: &[R] = bytemuck::cast_slice(x.buf.bytes());
            &v[x.layout.offset..][..len]
        };
        let (a, b) = (vals(0, self.n), vals(1, self.n));
        let (num, den) = (vals(2, 1)[0], vals(3, 1)[0]);
        let o: &mut [R] = bytemuck::cast_slice_mut(out.bytes_mut());
        Self::cpu(a, b, num, den, &mut o[..self.n + 1]);
        if self.update {
            let (x, p) = (vals(4, self.n), vals(5, self.n));
            Self::cpu_update(x, p, num, den, &mut o[..self.out_len()]);
        }
        Ok(())
    }
}

/// Whether the CG step may run as one cooperative launch on CUDA: 0 not yet decided (then
/// `CUPRITE_ARRAY_CG_FUSED=0` decides off, anything else on), 1 off, 2 on.
static FUSED: AtomicU8 = AtomicU8::new(0);

/// Lets the unpreconditioned CG step (`sparse::cg` without a preconditioner) run as one
/// cooperative launch on CUDA devices that hold its grid at once (`true`, the default unless
/// `CUPRITE_ARRAY_CG_FUSED=0`), or always as two launches (`false`), for the whole process.
/// Both give the same bits, as the CPU backend does; for comparing them and testing both.
///
/// ```
/// use cuprite_array::tuning;
/// tuning::set_cg_fused(false); // two launches a step from here on
/// tuning::set_cg_fused(true);
/// ```
pub fn set_cg_fused(on: bool) {
    FUSED.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

fn fused_on() -> bool {
    match FUSED.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var("CUPRITE_ARRAY_CG_FUSED").map_or(true, |v| v != "0");
            let v = if on { 2 } else { 1 };
            // A setting made meanwhile wins.
            let _ = FUSED.compare_exchange(0, v, Ordering::Relaxed, Ordering::Relaxed);
            FUSED.load(Ordering::Relaxed) == 2
        }
        v => v == 2,
    }
}

/// The call's node over `inputs` (`r`, `b`, `num`, `den`, then `x` and `p` with `update`),
/// checked: vectors of one length, single-element quotient operands, one device.
fn node<T: SparseValue>(inputs: &[&Array<T>], update: bool) -> Result<Array<T>> {
    let what = ["r", "b", "num", "den", "x", "p"];
    let n = inputs[0].len();
    let shapes_ok = inputs.iter().enumerate().all(|(i, a)| {
        if i == 2 || i == 3 {
            a.len() == 1
        } else {
            a.shape() == [n]
        }
    });
    if !shapes_ok {
        return Err(Error::Shape(format!(
            "CG step: {} must be vectors of one length, num and den single elements",
            inputs
                .iter()
                .zip(what)
                .map(|(a, w)| format!("{w} {:?}", a.shape()))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let device = inputs[0].device();
    for (a, w) in inputs.iter().zip(what).skip(1) {
        if a.device() != device {
            return Err(Error::DeviceMismatch(format!(
                "CG step: {w} is on {}, r on {device}",
                a.device()
            )));
        }
    }
    let call = ResidualStep {
        dtype: T::DTYPE,
        n,
        update,
    };
    let len = call.out_len();
    Ok(Array::from_node(Node::new(
        Op::Library(
            Arc::new(call),
            inputs.iter().map(|x| x.node.clone()).collect(),
        ),
        T::DTYPE,
        vec![len],
        device,
    )))
}

/// Elements `start..start + len` of the vector `v`.
fn part<T: SparseValue>(v: &Array<T>, start: usize, len: usize) -> Result<Array<T>> {
    v.slice(&[SliceArg::Range {
        start: Some(start as isize),
        end: Some((start + len) as isize),
        step: 1,
    }])
}

/// The arrays of one unpreconditioned CG step after `A·p` ([`cg_step`]).
pub(super) struct CgStep<T: SparseValue> {
    /// The new residual `r' = r − α·A·p`.
    pub r: Array<T>,
    /// `‖r'‖²` as a 0-d array.
    pub rr: Array<T>,
    /// The new iterate `x' = x + α·p`.
    pub x: Array<T>,
    /// The next direction `p' = r' + (‖r'‖² / rz)·p`.
    pub p: Array<T>,
}

/// One unpreconditioned CG step after `A·p`, with `α = rz / pap` (`rz = ‖r‖²`, `pap = p·A·p`;
/// each quotient `0` where its divisor is `0`): the new residual, its squared norm, the new
/// iterate and the next direction, from one pass over the vectors (one launch on CUDA where the
/// device allows), for real `f32` and `f64` values on one device; `None` for other types. Bit
/// for bit the same on both backends.
pub(super) fn cg_step<T: SparseValue>(
    r: &Array<T>,
    ap: &Array<T>,
    rz: &Array<T>,
    pap: &Array<T>,
    x: &Array<T>,
    p: &Array<T>,
) -> Result<Option<CgStep<T>>> {
    if !matches!(T::DTYPE, DType::F32 | DType::F64) {
        return Ok(None);
    }
    let n = r.len();
    let all = node(&[r, ap, rz, pap, x, p], true)?;
    let s = ResidualStep::stride(n);
    Ok(Some(CgStep {
        r: part(&all, 0, n)?,
        rr: all.slice(&[SliceArg::Index(n as isize)])?,
        x: part(&all, s, n)?,
        p: part(&all, 2 * s, n)?,
    }))
}

/// `num / den`, `0` where `den` is `0` (the solvers' guarded division).
fn quot<R: Real>(num: R, den: R) -> R {
    if den != R::ZERO { num / den } else { R::ZERO }
}

/// The kernels of `residual_step.cu`.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
enum Form {
    /// The residual step (`residual_step`).
    Residual,
    /// The CG step's update after the residual step (`cg_update`).
    Update,
    /// Both in one cooperative launch (`cg_fused`).
    Fused,
}

impl Form {
    fn name(self) -> &'static str {
        match self {
            Form::Residual => "residual_step",
            Form::Update => "cg_update",
            Form::Fused => "cg_fused",
        }
    }

    /// The device function the entry calls.
    fn body(self) -> &'static str {
        self.name()
    }
}

/// The element types of the CPU twin.
trait Real:
    Copy
    + Send
    + Sync
    + PartialEq
    + bytemuck::Pod
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + super::csr_product::Real
{
    const ZERO: Self;
}
impl Real for f32 {
    const ZERO: f32 = 0.0;
}
impl Real for f64 {
    const ZERO: f64 = 0.0;
}

/// Launches `kern` over `grid` blocks of [`THREADS`] threads with `args`.
///
/// # Safety
/// As for [`cuprite_driver::Stream::launch_packed`]: `args` are valid words for the kernel,
/// their accesses every buffer it touches.
unsafe fn launch(
    stream: &cuprite_driver::Stream,
    kern: &crate::jit::Kernel,
    grid: u32,
    args: &LaunchArgs<'_>,
) -> Result<()> {
    // SAFETY: the caller's contract.
    unsafe {
        stream.launch_packed(
            &kern.func,
            (grid, 1, 1),
            (THREADS as u32, 1, 1),
            0,
            &args.words,
            &args.accesses(),
        )
    }?;
    Ok(())
}

impl ResidualStep {
    /// Input `i`'s `len` elements from its offset.
    fn read<'a>(
        &self,
        inputs: &'a [CallInput<'_, DevBuf>],
        i: usize,
        len: usize,
    ) -> Result<ReadBuf<'a>> {
        ReadBuf::part(inputs[i].buf, self.dtype, inputs[i].layout.offset, len)
    }

    /// The residual step's launch into the output's first `n + 1` elements.
    fn run_residual(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let kern = crate::jit::library_kernel(st, self.key(Form::Residual), || {
            self.kernel(Form::Residual)
        })?;
        let t = self.dtype;
        let grid = Self::grid(self.n);
        // SAFETY: each block writes its partial before it counts itself, and the last block
        // reads the partials only once every block has counted.
        let part = unsafe { DevBuf::alloc(st, stream, t, grid as usize) }?;
        let count = crate::backend::cuda::zeroed_counters(st, stream, 1)?;
        let args = ResidualArgs {
            a: self.read(inputs, 0, self.n)?,
            b: self.read(inputs, 1, self.n)?,
            num: self.read(inputs, 2, 1)?,
            den: self.read(inputs, 3, 1)?,
            y: WriteBuf::part(out, t, 0, self.n + 1)?,
            part: SharedBuf::part(&part, t, 0, grid as usize)?,
            count: SharedBuf::part(count.buf(), DType::U32, 0, 1)?,
            n: self.n as i64,
        }
        .args();
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`, `SharedBuf`) of the lengths `check` verified: `n` elements of `a` and `b`,
        // one of `num` and `den`, `n + 1` of the output, a partial for each of the `grid`
        // blocks launched and a counter that is zero at the launch (the last block sets it
        // back). The kernel reads and writes elements below `n` (the norm at `n`, by the last
        // block only); its blocks hold `THREADS` threads, the `RS_BLOCK` it is built for (its
        // shared sums are indexed by thread).
        unsafe { launch(stream, &kern, grid, &args) }
    }

    /// The CG step's update after [`Self::run_residual`].
    fn run_update(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        if self.n == 0 {
            return Ok(());
        }
        let kern =
            crate::jit::library_kernel(st, self.key(Form::Update), || self.kernel(Form::Update))?;
        let resident = (st.sms * kern.blocks_per_sm).max(1) as u64;
        let grid = (self.n as u64).div_ceil(THREADS as u64).clamp(1, resident) as u32;
        let args = CgUpdateArgs {
            x: self.read(inputs, 4, self.n)?,
            p: self.read(inputs, 5, self.n)?,
            num: self.read(inputs, 2, 1)?,
            den: self.read(inputs, 3, 1)?,
            y: WriteBuf::part(out, self.dtype, 0, self.out_len())?,
            n: self.n as i64,
            s: Self::stride(self.n) as i64,
        }
        .args();
        // SAFETY: the words are live ranges checked inside their allocations: `n` elements of
        // `x` and `p`, one of `num` and `den`, the output's `2s + n`, whose first `n + 1` the
        // residual step's launch, ordered before on this stream, wrote. The kernel reads
        // elements below `n + 1` of the output and writes `n` from `s` and `n` from `2s`.
        unsafe { launch(stream, &kern, grid, &args) }
    }

    /// The residual step and the update in one cooperative launch, where the device holds
    /// the grid of [`CG_VB`]-fold blocks at once and each thread's elements fit [`CG_K`]:
    /// `Ok(true)` once launched, `Ok(false)` where it does not apply or the driver refuses the
    /// cooperative launch (nothing then written).
    fn run_fused(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<bool> {
        let CudaLane { st, stream } = *lane;
        let vgrid = Self::grid(self.n) as usize;
        let fits = (vgrid * THREADS)
            .checked_mul(CG_K)
            .is_some_and(|cover| self.n <= cover);
        if self.n == 0 || !fits || !fused_on() {
            return Ok(false);
        }
        let kern =
            crate::jit::library_kernel(st, self.key(Form::Fused), || self.kernel(Form::Fused))?;
        let grid = vgrid.div_ceil(CG_VB);
        if grid > (st.sms * kern.blocks_per_sm) as usize {
            return Ok(false);
        }
        let t = self.dtype;
        // SAFETY: each virtual block's partial is written before the grid barrier and read
        // only after it.
        let part = unsafe { DevBuf::alloc(st, stream, t, vgrid) }?;
        let bar = crate::backend::cuda::zeroed_counters(st, stream, 2)?;
        let args = CgFusedArgs {
            a: self.read(inputs, 0, self.n)?,
            b: self.read(inputs, 1, self.n)?,
            num: self.read(inputs, 2, 1)?,
            den: self.read(inputs, 3, 1)?,
            x: self.read(inputs, 4, self.n)?,
            p: self.read(inputs, 5, self.n)?,
            y: WriteBuf::part(out, t, 0, self.out_len())?,
            part: SharedBuf::part(&part, t, 0, vgrid)?,
            bar: SharedBuf::part(bar.buf(), DType::U32, 0, 2)?,
            n: self.n as i64,
            s: Self::stride(self.n) as i64,
            vgrid: vgrid as i64,
        }
        .args();
        // SAFETY: the words are live ranges checked inside their allocations: `n` elements of
        // `a`, `b`, `x` and `p`, one of `num` and `den`, the output's `2s + n`, `vgrid`
        // partials and two counters that are zero at the launch (the barrier's last block sets
        // them back). The kernel's blocks hold `THREADS` threads (its `RS_BLOCK`); `grid`
        // blocks take the `vgrid` virtual ones `CG_VB` each and every element below `n`
        // (checked: `n ≤ CG_K · vgrid · THREADS`). The launch is cooperative, so the barrier's
        // blocks are all resident; the driver refuses a grid the device cannot hold at once.
        let launched = unsafe {
            stream.launch_packed_cooperative(
                &kern.func,
                (grid as u32, 1, 1),
                (THREADS as u32, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        };
        if launched.is_ok() {
            crate::stats::note_cooperative_cg_step();
        }
        Ok(launched.is_ok())
    }
}

impl LibraryCall for ResidualStep {
    fn name(&self) -> &str {
        "residual step"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        if self.dtype == DType::F64 {
            self.run_cpu_typed::<f64>(inputs, out)
        } else {
            self.run_cpu_typed::<f32>(inputs, out)
        }
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        if self.update && self.run_fused(lane, inputs, out)? {
            return Ok(());
        }
        self.run_residual(lane, inputs, out)?;
        if self.update {
            self.run_update(lane, inputs, out)?;
        }
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        if !matches!(self.dtype, DType::F32 | DType::F64) {
            Vec::new()
        } else if self.update {
            [Form::Residual, Form::Update, Form::Fused]
                .map(|f| self.kernel(f).source)
                .to_vec()
        } else {
            vec![self.kernel(Form::Residual).source]
        }
    }

    /// Every input is read packed from its offset: a contiguous view inside its storage (the
    /// residual of the step before and `A·p`, both slices of longer outputs) is read in place.
    fn accepts_view(&self, _index: usize, shape: &[usize], layout: &Layout, len: usize) -> bool {
        layout.packed_within(shape, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twin against a float64 reference computed here, and the guarded division.
    #[test]
    fn twin_matches_formula() {
        let n = 1000;
        let a: Vec<f32> = (0..n)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let b: Vec<f32> = (0..n)
            .map(|i| ((i * 53 % 89) as f32 - 44.0) / 3.0)
            .collect();
        let (num, den) = (1.5f32, -0.75f32);
        let mut out = vec![0.0f32; n + 1];
        ResidualStep::cpu(&a, &b, num, den, &mut out);
        let q = num / den;
        let mut norm = 0.0f64;
        for i in 0..n {
            let want = a[i] - b[i] * q;
            assert_eq!(out[i].to_bits(), want.to_bits(), "element {i}");
            norm += (want as f64) * (want as f64);
        }
        let bound = 2.0 * n as f64 * f32::EPSILON as f64 * norm;
        assert!(
            (out[n] as f64 - norm).abs() <= bound,
            "norm {} against {norm}",
            out[n]
        );
        // den = 0: the quotient is 0, the step leaves `a` as it is.
        ResidualStep::cpu(&a, &b, num, 0.0, &mut out);
        assert!(
            out[..n]
                .iter()
                .zip(&a)
                .all(|(y, x)| y.to_bits() == x.to_bits())
        );
    }

    /// The update's twin against the formula computed here: `x + p·q`, `r' + p·(rr / num)`,
    /// and both quotients 0 where their divisors are.
    #[test]
    fn update_twin_matches_formula() {
        let n = 300;
        let x: Vec<f64> = (0..n)
            .map(|i| ((i * 13 % 31) as f64 - 15.0) / 4.0)
            .collect();
        let p: Vec<f64> = (0..n).map(|i| ((i * 7 % 23) as f64 - 11.0) / 5.0).collect();
        let r1: Vec<f64> = (0..n).map(|i| ((i * 5 % 17) as f64 - 8.0) / 3.0).collect();
        for (num, den, rr) in [
            (2.5f64, -1.25f64, 0.75f64),
            (2.5, 0.0, 0.75),
            (0.0, 3.0, 1.5),
        ] {
            let s = ResidualStep::stride(n);
            assert!(s > n && s % ALIGN == 0);
            let mut out = vec![0.0f64; 2 * s + n];
            out[..n].copy_from_slice(&r1);
            out[n] = rr;
            ResidualStep::cpu_update(&x, &p, num, den, &mut out);
            let q = if den == 0.0 { 0.0 } else { num / den };
            let be = if num == 0.0 { 0.0 } else { rr / num };
            for i in 0..n {
                let (wx, wp) = (x[i] + p[i] * q, r1[i] + p[i] * be);
                assert_eq!(
                    out[s + i].to_bits(),
                    wx.to_bits(),
                    "x' {i}, num {num} den {den}"
                );
                assert_eq!(out[2 * s + i].to_bits(), wp.to_bits(), "p' {i}, num {num}");
            }
            assert_eq!(out[n], rr);
        }
    }
}
