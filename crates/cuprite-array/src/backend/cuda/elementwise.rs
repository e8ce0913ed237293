//! The element-wise path of the CUDA backend: parameter words, the launch of a generated
//! kernel or of the interpreter, the vectorised-variant switch and alignment rules. A leaf of
//! `backend::cuda`: the backend (`mod.rs`) and the warm path (`direct`) use it, it uses
//! neither.

use crate::codegen::{self, BLOCK, ParamPlan, VEC, Variant};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::Program;
use crate::jit::{Kernel, KernelKind};
use crate::runtime::DeviceState;
use crate::shape::{Layout, numel};
use crate::stats::Phase;
use crate::storage::{DevBuf, Storage};
use crate::util::Inline;
use cuprite_driver::{Access, Stream};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// What the general path launched for a program: its compiled kernel (not the interpreter)
/// and the variant.
pub(crate) struct Capture {
    pub kernel: Option<Arc<Kernel>>,
    pub variant: Variant,
}

/// A new buffer of `len` elements of `dtype` on `stream`.
pub(super) fn alloc(
    st: &DeviceState,
    stream: &Arc<Stream>,
    dtype: DType,
    len: usize,
) -> Result<DevBuf> {
    // SAFETY: every buffer made here is fully written by a kernel or copy before any read.
    unsafe { DevBuf::alloc(st, stream, dtype, len) }
}

pub(super) fn dev_of(s: &Storage, ordinal: usize) -> Result<&DevBuf> {
    match s {
        Storage::Cuda(d) if d.ordinal() == ordinal => Ok(d),
        Storage::Cuda(d) => Err(Error::DeviceMismatch(format!(
            "an input lives on CUDA device {}, the operation runs on device {ordinal}",
            d.ordinal()
        ))),
        Storage::Host(_) => Err(Error::DeviceMismatch(
            "an input lives on the CPU backend, the operation runs on CUDA".into(),
        )),
    }
}

/// Launches `k` over `grid` blocks of [`BLOCK`] threads on `stream` with the parameter words
/// of a [`ParamPlan`], declaring the buffers it reads and writes; as a programmatic dependent
/// where `jit::launch_packed` takes it so (`k` begins with the grid wait, device `st` has it).
pub(super) fn launch(
    st: &DeviceState,
    stream: &Arc<Stream>,
    k: &Kernel,
    grid: u32,
    words: &[u64],
    reads: &[&DevBuf],
    writes: &[&DevBuf],
) -> Result<()> {
    // The accesses, inline for up to 16 buffers (no allocation on the hot path).
    let mut acc: Inline<Access<'_>, 16> = Inline::new();
    for b in reads.iter().filter_map(|d| d.live()) {
        acc.push(Access::read(b));
    }
    for b in writes.iter().filter_map(|d| d.live()) {
        acc.push(Access::write(b));
    }
    // SAFETY: the words are the kernel's parameters in order (codegen's `ParamPlan` lays them
    // out from the same description as the kernel's signature); every address among them is
    // one of the buffers declared in `acc` (inputs and outputs of the program, over the ranges
    // the program's layouts reach, checked when the arrays were made), alive until the kernel
    // has run (frees are stream-ordered after the declared accesses).
    unsafe {
        crate::jit::launch_packed(st, stream, k, (grid, 1, 1), (BLOCK, 1, 1), 0, words, &acc)
    }?;
    Ok(())
}

/// Launches the interpreter kernel `k` over `grid` blocks with `frame` as its parameter,
/// declaring the buffers it reads and writes.
pub(super) fn launch_interp(
    stream: &Arc<Stream>,
    k: &Kernel,
    grid: u32,
    frame: &[u64],
    reads: &[&DevBuf],
    writes: &[&DevBuf],
) -> Result<()> {
    let mut acc: Inline<Access<'_>, 16> = Inline::new();
    for b in reads.iter().filter_map(|d| d.live()) {
        acc.push(Access::read(b));
    }
    for b in writes.iter().filter_map(|d| d.live()) {
        acc.push(Access::write(b));
    }
    // SAFETY: `frame` is the interpreter's parameter (codegen::interp lays it out as its
    // kernels read it); every address in it is one of the buffers declared in `acc` (the
    // program's inputs and output, over the ranges its layouts reach, checked when the arrays
    // were made), alive until the kernel has run (frees are stream-ordered after the accesses).
    unsafe {
        stream.launch_struct(
            &k.func,
            (grid, 1, 1),
            (BLOCK, 1, 1),
            bytemuck::cast_slice(frame),
            &acc,
        )
    }?;
    Ok(())
}

/// 2: not yet read from the configuration; else 0 or 1.
static VECTOR: AtomicU8 = AtomicU8::new(2);

/// Turns the vectorised kernel variants on or off for the whole process (on by default;
/// `CUPRITE_ARRAY_NO_VECTOR=1` starts with them off). For diagnosis and tests of both paths.
pub fn set_vectorize(on: bool) {
    VECTOR.store(on as u8, Ordering::Relaxed);
}

pub(crate) fn vector_allowed() -> bool {
    match VECTOR.load(Ordering::Relaxed) {
        2 => {
            let on = crate::jit::JitConfig::get().vectorize;
            VECTOR.store(on as u8, Ordering::Relaxed);
            on
        }
        v => v == 1,
    }
}

/// Whether element `off` of `size`-byte elements at `ptr` starts a [`VEC`]-element vector
/// (`VEC * size` is a power of two: a mask, not a division).
pub(crate) fn aligned(ptr: u64, off: usize, size: usize) -> bool {
    debug_assert!((VEC * size).is_power_of_two());
    (ptr.wrapping_add(off.wrapping_mul(size) as u64)) & ((VEC * size) as u64 - 1) == 0
}

/// Blocks of [`BLOCK`] threads for `n` elements, [`VEC`] a thread when `vector` (shifts, not a
/// division: both are powers of two).
pub(crate) fn blocks_for(n: usize, vector: bool) -> u32 {
    let per_block = BLOCK as usize * if vector { VEC } else { 1 };
    debug_assert!(per_block.is_power_of_two());
    ((n >> per_block.trailing_zeros()) + (n & (per_block - 1) != 0) as usize) as u32
}

/// Evaluates `p` into `outs` (contiguous, or one output through `out_layout`) on `stream`;
/// `capture`, when given, receives the compiled kernel launched and its variant.
pub(super) fn run_elementwise(
    st: &'static DeviceState,
    ordinal: usize,
    stream: &Arc<Stream>,
    p: &Program,
    outs: &[&DevBuf],
    out_layout: Option<&Layout>,
    capture: Option<&mut Capture>,
) -> Result<()> {
    let n = numel(&p.shape);
    if n == 0 {
        return Ok(());
    }
    let mut ins: Inline<&DevBuf, 16> = Inline::new();
    for i in &p.inputs {
        ins.push(dev_of(&i.storage, ordinal)?);
    }
    let in_ptrs: Inline<u64, 16> = ins.iter().map(|d| d.ptr()).collect();
    let strided_out = out_layout.is_some_and(|l| !l.is_contiguous(&p.shape));
    let out_off = out_layout.map(|l| l.offset).unwrap_or(0);
    let out_ptrs: Inline<u64, 8> = outs
        .iter()
        .map(|d| {
            if strided_out {
                d.ptr()
            } else {
                d.ptr() + (out_off * d.dtype().size()) as u64
            }
        })
        .collect();
    let idx32 = p.fits_i32()
        && out_layout.is_none_or(|l| {
            let (lo, hi) = l.extent(&p.shape);
            lo >= 0 && hi < i32::MAX as isize
        });
    let vector = vector_allowed()
        && !strided_out
        && codegen::vectorisable_elementwise(p)
        && p.inputs
            .iter()
            .zip(in_ptrs.iter())
            .all(|(i, &ptr)| aligned(ptr, i.layout.offset, i.dtype.size()))
        && outs
            .iter()
            .zip(out_ptrs.iter())
            .all(|(d, &ptr)| aligned(ptr, 0, d.dtype().size()));
    let v = Variant {
        idx32,
        vector,
        strided_out,
    };
    let k = crate::jit::kernel_or_interp(
        st,
        p,
        KernelKind::Elementwise(v),
        || codegen::elementwise(p, v),
        // The quick build of a vectorised kernel: its one-element-per-thread form.
        || {
            v.vector
                .then(|| codegen::elementwise(p, Variant { vector: false, ..v }))
        },
        |ip| {
            if strided_out {
                return None;
            }
            codegen::interp::encode(p).map(|c| (ip.elementwise.clone(), c))
        },
    )?;
    crate::stats::phase_end(Phase::Lookup);
    if let Some(code) = &k.interp {
        let frame = codegen::interp::frame(p, code, &in_ptrs, out_ptrs[0], (0, 0));
        // Grid-stride: enough blocks to fill the device, at most one per BLOCK elements.
        let most = st.sms as usize * k.blocks_per_sm as usize * 4;
        let grid = n.div_ceil(BLOCK as usize).clamp(1, most.max(1)) as u32;
        let r = launch_interp(stream, &k, grid, &frame, &ins, outs);
        crate::stats::phase_end(Phase::Launch);
        return r;
    }
    let plan = ParamPlan::new(
        p,
        v,
        &in_ptrs,
        &out_ptrs,
        out_layout.filter(|_| strided_out),
    );
    let grid = blocks_for(n, vector && !k.scalar);
    let r = launch(st, stream, &k, grid, &plan.words, &ins, outs);
    crate::stats::phase_end(Phase::Launch);
    crate::stats::note_launch(&k.func, &plan.words, grid);
    if let (Ok(()), Some(c)) = (&r, capture) {
        *c = Capture {
            kernel: Some(k),
            variant: v,
        };
    }
    r
}
