//! The scan and compaction library call: a [`FusedCall`] that reads its input through the
//! element-wise program producing it (no intermediate buffer), on rayon (CPU) or the look-back
//! and column kernels of `codegen::scan` (CUDA).

use super::cpu::{self, Acc};
use crate::backend::cuda::{aligned, vector_allowed};
use crate::codegen::kargs::KernelParams;
use crate::codegen::{
    BLOCK, CHUNKED_BLOCKS, COUNTER_BYTES, ChunkArgs, ChunkBind, ColumnArgs, LookBackArgs,
    LookBackBind, LookBackStatus, ParamPlan, PipeArgs, PipeBind, PipeShape, SCAN_VEC_LONG,
    ScanForm, ScanSpec, Sink, VEC, Variant, chunk_tiles, pipe_row, scan_bits_possible,
    scan_chunked_possible, scan_pipe_possible, scan_vec_possible,
};
use crate::dtype::{Class, DType};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, FusedCall, LibraryCall, Program};
use crate::jit::KernelKind;
use crate::runtime::DeviceState;
use crate::storage::{DevBuf, HostBuf, Storage};
use cuprite_driver::{Access, Stream};
use std::sync::Arc;

/// Lines at or above which a scan along a non-innermost axis runs one thread per line.
const COLUMN_LINES: usize = 4096;

/// Bytes of static shared memory the pipelined kernel may take beside its stages (barriers,
/// tile ids, prefixes and segment totals of each stage).
const PIPE_STATIC_SHARED: usize = 16 * 1024;

/// The variant of every scan kernel's program code.
pub(super) const VARIANT: Variant = Variant {
    idx32: false,
    vector: false,
    strided_out: false,
};

/// A scan of the program's shape viewed as `outer x n x inner` along `n`, or a compaction
/// (`outer = inner = 1`, `n` the element count).
#[derive(Debug)]
pub(super) struct ScanCall {
    pub spec: ScanSpec,
    pub outer: usize,
    pub n: usize,
    pub inner: usize,
    /// Fused inputs: the values (or flags), then the keys (or values).
    pub inputs: usize,
}

/// A launch of the chunked kernel: tiles a chunk, tiles of the line, blocks.
#[derive(Clone, Copy, Debug)]
struct ChunkPlan {
    chunk: usize,
    tiles: usize,
    grid: usize,
}

/// The device buffers of a program's inputs, with their pointers.
pub(super) fn program_buffers<'a>(
    prog: &'a Program,
    ordinal: usize,
    what: &str,
) -> Result<(Vec<&'a DevBuf>, Vec<u64>)> {
    let mut bufs = Vec::with_capacity(prog.inputs.len());
    for i in &prog.inputs {
        match &*i.storage {
            Storage::Cuda(d) if d.ordinal() == ordinal && d.live().is_some() => bufs.push(d),
            _ => {
                return Err(Error::DeviceMismatch(format!(
                    "an input of {what} is not a live buffer of CUDA device {ordinal}"
                )));
            }
        }
    }
    let ptrs = bufs.iter().map(|d| d.ptr()).collect();
    Ok((bufs, ptrs))
}

/// A new scratch buffer of `bytes` bytes on `stream`, zeroed when `zero`.
fn scratch(
    st: &'static DeviceState,
    stream: &Arc<Stream>,
    bytes: usize,
    zero: bool,
) -> Result<DevBuf> {
    // SAFETY: a zeroed buffer is written before any read; the status arrays of the look-back
    // (not zeroed) are read only after their flag says they were written.
    let mut b = unsafe { DevBuf::alloc(st, stream, DType::U8, bytes) }?;
    if zero && let Some(buf) = b.buffer_mut() {
        stream.memset_zeros(buf)?;
    }
    Ok(b)
}

impl ScanCall {
    fn name_str(&self) -> &'static str {
        match self.spec.sink {
            Sink::Scan { keyed: true, .. } => "scan_by_key",
            Sink::Scan { .. } => "scan",
            Sink::Compact { values: true, .. } => "masked_select",
            Sink::Compact { values: false, .. } => "argwhere",
        }
    }

    fn lines(&self) -> usize {
        self.outer * self.inner
    }

    /// Whether the CUDA backend runs the one-thread-per-line kernel.
    fn columns(&self) -> bool {
        matches!(self.spec.sink, Sink::Scan { .. })
            && self.inner > 1
            && self.lines() >= COLUMN_LINES
    }

    /// Whether the CUDA backend runs the vectorised tile kernel ([`scan_vec`]): an unkeyed
    /// scan along contiguous lines, or a compaction, of a multiple of [`VEC`] elements, whose
    /// inputs (and a scan's output) all start on a vector boundary.
    fn vectorised(&self, prog: &Program, in_ptrs: &[u64], out_ptr: u64) -> bool {
        self.inner == 1
            && self.n % VEC == 0
            && vector_allowed()
            && scan_vec_possible(prog, self.spec)
            && prog
                .inputs
                .iter()
                .zip(in_ptrs)
                .all(|(i, &p)| aligned(p, i.layout.offset, i.dtype.size()))
            && (matches!(self.spec.sink, Sink::Compact { .. })
                || aligned(out_ptr, 0, self.spec.out.size()))
    }

    /// Whether the CUDA backend runs the pipelined kernel ([`ScanForm::Pipe`]) where it would
    /// run the long vectorised one: when the configuration asks for it
    /// ([`crate::jit::JitConfig::scan_pipeline`]), a scan that [`scan_pipe_possible`] allows, on a device of
    /// sm_90 to sm_103 (bulk copies) whose blocks may have the kernel's shared memory, every
    /// input starting on 16 bytes and its lines a multiple of 16 bytes long (each tile's copy
    /// is whole 16-byte units).
    fn pipelined(&self, st: &DeviceState, prog: &Program, in_ptrs: &[u64]) -> bool {
        let smem = PipeShape::of(pipe_row(prog)).smem_bytes(pipe_row(prog));
        crate::jit::JitConfig::get().scan_pipeline
            && (90..=103).contains(&st.arch)
            && self.n >= SCAN_VEC_LONG
            && scan_pipe_possible(prog, self.spec)
            && prog.inputs.iter().zip(in_ptrs).all(|(i, &p)| {
                let size = i.dtype.size();
                (self.n * size) % 16 == 0
                    && p.wrapping_add(i.layout.offset.wrapping_mul(size) as u64) % 16 == 0
            })
            && st
                .ctx
                .device()
                .attribute(cuprite_driver::DeviceAttribute::MaxSharedMemoryPerBlockOptin)
                .is_ok_and(|b| b >= 0 && b as usize >= smem + PIPE_STATIC_SHARED)
    }

    /// How the CUDA backend runs the chunked kernel ([`ScanForm::Chunked`]) where it would run
    /// the long vectorised one: when the configuration allows it
    /// ([`crate::jit::JitConfig::scan_chunked`]), a scan that [`scan_chunked_possible`] allows,
    /// of one line at least two chunks long, on a device of sm_80 or later whose L2
    /// [`chunk_tiles`] accepts, with the tickets (two a tile and one a block) within the
    /// kernel's 32-bit counter.
    fn chunked(&self, st: &DeviceState, prog: &Program) -> Option<ChunkPlan> {
        if !(crate::jit::JitConfig::get().scan_chunked
            && st.arch >= 80
            && self.lines() == 1
            && scan_chunked_possible(prog, self.spec))
        {
            return None;
        }
        let chunk = chunk_tiles(st.l2_bytes, prog.inputs[0].dtype.size())?;
        let tiles = self.n.div_ceil(ScanForm::Chunked.tile(self.spec, prog));
        let grid = (st.sms.max(1) as usize * CHUNKED_BLOCKS).min(2 * tiles);
        let tickets = tiles.checked_mul(2)?.checked_add(grid)?;
        (tiles >= 2 * chunk && tickets <= u32::MAX as usize).then_some(ChunkPlan {
            chunk,
            tiles,
            grid,
        })
    }

    fn cpu_typed<A: Acc>(&self, prog: &Program, out: &mut HostBuf) {
        let dims = (self.outer, self.n, self.inner);
        match self.spec.sink {
            Sink::Scan {
                op,
                exclusive,
                keyed,
            } => cpu::scan::<A>(
                prog,
                op,
                exclusive,
                keyed,
                self.spec.out,
                dims,
                out.bytes_mut(),
            ),
            Sink::Compact { values, .. } => {
                cpu::compact::<A>(prog, values, self.spec.out, out.bytes_mut())
            }
        }
    }
}

impl LibraryCall for ScanCall {
    fn name(&self) -> &str {
        self.name_str()
    }

    fn run_cpu(&self, _: &[CallInput<'_, HostBuf>], _: &mut HostBuf) -> Result<()> {
        Err(Error::InvalidArgument(format!(
            "{} reads its input fused and runs only through its fused form",
            self.name_str()
        )))
    }

    fn run_cuda(
        &self,
        _: &CudaLane<'_>,
        _: &[CallInput<'_, DevBuf>],
        _: &mut DevBuf,
    ) -> Result<()> {
        Err(Error::InvalidArgument(format!(
            "{} reads its input fused and runs only through its fused form",
            self.name_str()
        )))
    }

    fn cuda_sources(&self, _: &[(DType, Vec<usize>)]) -> Vec<String> {
        Vec::new()
    }

    fn fused(&self) -> Option<&dyn FusedCall> {
        Some(self)
    }
}

impl FusedCall for ScanCall {
    fn fused_inputs(&self) -> usize {
        self.inputs
    }

    fn run_cpu_fused(
        &self,
        prog: &Program,
        _: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let want = self.outer * self.n * self.inner;
        if crate::shape::numel(&prog.shape) != want || prog.outputs.len() != self.inputs {
            return Err(Error::InvalidArgument(format!(
                "{} made for {want} elements was given a program of shape {:?}",
                self.name_str(),
                prog.shape
            )));
        }
        let class = match self.spec.sink {
            Sink::Compact { values: false, .. } => Class::I64,
            _ => self.spec.out.class(),
        };
        match class {
            Class::F32 => self.cpu_typed::<f32>(prog, out),
            Class::F64 => self.cpu_typed::<f64>(prog, out),
            Class::I64 => self.cpu_typed::<i64>(prog, out),
            Class::U64 => self.cpu_typed::<u64>(prog, out),
            Class::C32 | Class::C64 => {
                return Err(Error::InvalidArgument(format!(
                    "{} of complex values ({}) is not supported",
                    self.name_str(),
                    self.spec.out
                )));
            }
        }
        Ok(())
    }

    fn run_cuda_fused(
        &self,
        lane: &CudaLane<'_>,
        prog: &Program,
        _: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let lines = self.lines();
        if lines == 0 || self.n == 0 || out.len() == 0 {
            return Ok(());
        }
        if self.spec.out.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "{} of complex values ({}) is not supported",
                self.name_str(),
                self.spec.out
            )));
        }
        let (bufs, in_ptrs) = program_buffers(prog, st.ordinal, self.name_str())?;
        let Some(dst) = out.live() else {
            return Err(Error::InvalidArgument(format!(
                "{} on a buffer that was handed back",
                self.name_str()
            )));
        };
        let plan = ParamPlan::new(prog, VARIANT, &in_ptrs, &[out.ptr()], None);
        let mut words: Vec<u64> = plan.words.iter().copied().collect();
        let mut chunk_plan = None;
        let kind = if self.columns() {
            ScanForm::Columns
        } else if !self.vectorised(prog, &in_ptrs, out.ptr()) {
            ScanForm::Tiles
        } else if scan_bits_possible(prog, self.spec) {
            ScanForm::Bits
        } else if self.pipelined(st, prog, &in_ptrs) {
            ScanForm::Pipe
        } else if let Some(plan) = self.chunked(st, prog) {
            chunk_plan = Some(plan);
            ScanForm::Chunked
        } else {
            ScanForm::Vec(self.n >= SCAN_VEC_LONG)
        };
        let spec = self.spec;
        let k = crate::jit::kernel(
            st,
            prog,
            KernelKind::Scan { spec, form: kind },
            || kind.source(prog, spec),
            || None,
        )?;
        let mut access: Vec<Access<'_>> = bufs
            .iter()
            .filter_map(|b| b.live())
            .map(Access::read)
            .collect();
        access.push(Access::write(dst));
        if kind == ScanForm::Columns {
            let tail = ColumnArgs {
                len: self.n,
                inner: self.inner,
                lines,
            }
            .launch_args()?;
            words.extend_from_slice(&tail.words);
            let resident = (st.sms * k.blocks_per_sm.max(1)) as usize;
            let grid = lines.div_ceil(BLOCK as usize).min(resident * 4).max(1) as u32;
            // SAFETY: the words are the kernel's parameters in order (the program's from its
            // `ParamPlan`, then the line geometry from `ColumnArgs`, the description that made
            // the signature); the kernel reads the program's inputs through their layouts
            // (checked when the arrays were made) and writes the `outer * n * inner` elements
            // of the new output buffer; all are declared.
            unsafe {
                stream.launch_packed(&k.func, (grid, 1, 1), (BLOCK, 1, 1), 0, &words, &access)
            }?;
            return Ok(());
        }
        if let Some(plan) = chunk_plan {
            // The zeroed counter, then one zeroed status word a tile and one carry word a
            // chunk.
            let after = plan.tiles + plan.tiles.div_ceil(plan.chunk);
            let status = scratch(st, stream, COUNTER_BYTES + 8 * after, true)?;
            let tail = ChunkArgs {
                bind: Some(ChunkBind {
                    len: self.n,
                    tiles: plan.tiles,
                    chunk: plan.chunk,
                    status: &status,
                }),
            }
            .launch_args()?;
            words.extend_from_slice(&tail.words);
            access.extend(tail.access);
            // SAFETY: the words are the kernel's parameters in order (the program's from its
            // `ParamPlan`, then `ChunkArgs`, the description that made the signature's tail:
            // the geometry, the tiles' zeroed status words, the chunks' zeroed carry words and
            // the zeroed counter, all inside `status`); the kernel reads its one input
            // (contiguous, aligned to a vector, `n` a multiple of the vector: `vectorised`
            // checked) only at the line's `n` elements, writes the line's `n` outputs, and
            // takes at most `2 tiles + grid` tickets from the counter (`chunked` checked that
            // they fit it); every buffer is declared.
            unsafe {
                stream.launch_packed(
                    &k.func,
                    (plan.grid as u32, 1, 1),
                    (BLOCK, 1, 1),
                    0,
                    &words,
                    &access,
                )
            }?;
            return Ok(());
        }
        let tpl = self.n.div_ceil(kind.tile(spec, prog));
        let tiles = lines
            .checked_mul(tpl)
            .filter(|&t| t <= i32::MAX as usize)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{}: {lines} lines of {} elements make too many tiles for one launch",
                    self.name_str(),
                    self.n
                ))
            })?;
        if kind == ScanForm::Pipe {
            let row = pipe_row(prog);
            let shape = PipeShape::of(row);
            // The zeroed counter, then (more than one tile a line) one zeroed status word a tile.
            let status = if tpl > 1 { 8 * tiles } else { 0 };
            let flags = scratch(st, stream, COUNTER_BYTES + status, true)?;
            let tail = PipeArgs {
                bind: Some(PipeBind {
                    len: self.n,
                    tpl,
                    tiles,
                    flags: &flags,
                }),
            }
            .launch_args()?;
            words.extend_from_slice(&tail.words);
            access.extend(tail.access);
            let smem = shape.smem_bytes(row) as u32;
            if k.func.max_dynamic_shared_memory() < smem {
                k.func.set_max_dynamic_shared_memory(smem)?;
            }
            // One block an SM, each taking tiles from the counter until they run out.
            let grid = tiles.min(st.sms.max(1) as usize) as u32;
            // SAFETY: the words are the kernel's parameters in order (the program's from its
            // `ParamPlan`, then `PipeArgs`, the description that made the signature's tail: the
            // geometry, the zeroed counter and after it `tiles` zeroed status words, or null and
            // unread when every line is one tile); the kernel bulk-copies each tile of the
            // program's inputs (contiguous, 16-byte aligned, lines a multiple of 16 bytes: the
            // caller checked) into its `smem` bytes of dynamic shared memory (allowed above) and
            // writes the output rows it was made for; every buffer is declared.
            unsafe {
                stream.launch_packed(
                    &k.func,
                    (grid, 1, 1),
                    (shape.threads(), 1, 1),
                    smem,
                    &words,
                    &access,
                )
            }?;
            return Ok(());
        }
        // The look-back status (see `LookBackStatus`): the zeroed counter, then one zeroed
        // 64-bit status word per tile (packed) or one zeroed flag per tile and, apart, the
        // aggregate and inclusive prefix of each tile.
        let (flags, status) = if tpl > 1 && spec.packed() {
            (
                Some(scratch(st, stream, 8 * tiles + COUNTER_BYTES, true)?),
                None,
            )
        } else if tpl > 1 {
            let f = scratch(st, stream, 4 * tiles + COUNTER_BYTES, true)?;
            let s = scratch(st, stream, 2 * spec.status_size() * tiles, false)?;
            (Some(f), Some(s))
        } else {
            (None, None)
        };
        let tail = LookBackArgs {
            status_size: spec.status_size(),
            bind: Some(LookBackBind {
                len: self.n,
                inner: self.inner,
                tpl,
                status: flags.as_ref().map(|f| LookBackStatus {
                    flags: f,
                    status: status.as_ref(),
                    tiles,
                }),
            }),
        }
        .launch_args()?;
        words.extend_from_slice(&tail.words);
        access.extend(tail.access);
        // SAFETY: the words are the kernel's parameters in order (the program's from its
        // `ParamPlan`, then `LookBackArgs`, the description that made the signature's tail:
        // the geometry and the status arrays, a zeroed counter and after it `tiles` zeroed
        // 64-bit status words (packed) or `tiles` zeroed flags and `2 * tiles` status
        // elements, or null and unread when every line is one tile); the kernel reads the
        // program's inputs through their layouts and writes the output rows it was made for
        // (a long scan also asks L2 for the inputs of the tile of its block index, below
        // `tiles`: inside those inputs); every buffer is declared.
        unsafe {
            stream.launch_packed(
                &k.func,
                (tiles as u32, 1, 1),
                (BLOCK, 1, 1),
                0,
                &words,
                &access,
            )
        }?;
        Ok(())
    }

    fn cuda_sources_fused(&self, prog: &Program) -> Vec<String> {
        let mut forms = vec![ScanForm::Tiles];
        if matches!(self.spec.sink, Sink::Scan { .. }) {
            forms.push(ScanForm::Columns);
        }
        if scan_vec_possible(prog, self.spec) {
            forms.extend([ScanForm::Vec(false), ScanForm::Vec(true)]);
        }
        if scan_bits_possible(prog, self.spec) {
            forms.push(ScanForm::Bits);
        }
        if scan_pipe_possible(prog, self.spec) {
            forms.push(ScanForm::Pipe);
        }
        if scan_chunked_possible(prog, self.spec) {
            forms.push(ScanForm::Chunked);
        }
        forms
            .into_iter()
            .map(|f| f.source(prog, self.spec).source)
            .collect()
    }
}
