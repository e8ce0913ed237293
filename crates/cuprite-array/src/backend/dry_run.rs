//! The dry-run backend: the CPU backend that also records the CUDA source every kernel the GPU
//! would need (every variant it could pick), so that a machine without a GPU compiles them all
//! with NVRTC. Chosen by [`super::of`] while [`crate::jit::start_recording`] is on.

use super::contract::{Executor, FlagWord, LibraryInput};
use super::cpu::Cpu;
use crate::codegen::Finish;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FusedCall, LibraryCall, Program};
use crate::op::ReduceOp;
use crate::shape::{Layout, numel};
use crate::storage::Storage;
use std::sync::Arc;

/// Records, then runs on the CPU.
pub(crate) struct DryRun;

impl Executor for DryRun {
    fn upload(&self, d: Device, dtype: DType, len: usize, bytes: &[u8]) -> Result<Arc<Storage>> {
        Cpu.upload(d, dtype, len, bytes)
    }

    fn download(&self, s: &Storage) -> Result<Vec<u8>> {
        Cpu.download(s)
    }

    fn flag_word(&self, d: Device) -> Result<FlagWord> {
        Cpu.flag_word(d)
    }

    fn flag_raised(&self, flag: &FlagWord) -> Result<bool> {
        Cpu.flag_raised(flag)
    }

    fn eval(&self, d: Device, prog: &Program) -> Result<Vec<Arc<Storage>>> {
        record_elementwise(prog, false);
        Cpu.eval(d, prog)
    }

    fn eval_one(&self, d: Device, prog: &Program) -> Result<Arc<Storage>> {
        record_elementwise(prog, false);
        Cpu.eval_one(d, prog)
    }

    fn eval_into_views(
        &self,
        d: Device,
        dtype: DType,
        len: usize,
        pieces: &[(Program, Layout)],
    ) -> Result<Arc<Storage>> {
        for (p, l) in pieces {
            record_elementwise(p, !l.is_contiguous(&p.shape));
        }
        Cpu.eval_into_views(d, dtype, len, pieces)
    }

    fn reduce(
        &self,
        d: Device,
        prog: &Program,
        op: ReduceOp,
        outer: usize,
        inner: usize,
        out: DType,
    ) -> Result<Arc<Storage>> {
        record_reduction(prog, op, inner, out, Finish::Plain);
        record_column_sums(prog, op, (outer, inner), out);
        Cpu.reduce(d, prog, op, outer, inner, out)
    }

    fn sum_then_divide(
        &self,
        d: Device,
        prog: &Program,
        (outer, inner): (usize, usize),
        out: DType,
        divisor: f64,
    ) -> Result<(Arc<Storage>, bool)> {
        record_reduction(prog, ReduceOp::Sum, inner, out, Finish::Divide);
        record_column_sums(prog, ReduceOp::Sum, (outer, inner), out);
        Cpu.sum_then_divide(d, prog, (outer, inner), out, divisor)
    }

    fn library(
        &self,
        d: Device,
        call: &dyn LibraryCall,
        inputs: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>> {
        let sig: Vec<(DType, Vec<usize>)> =
            inputs.iter().map(|i| (i.dtype, i.shape.clone())).collect();
        for s in call.cuda_sources(&sig) {
            crate::jit::record(&s);
        }
        Cpu.library(d, call, inputs, out, len)
    }

    fn library_fused(
        &self,
        d: Device,
        call: &dyn FusedCall,
        prog: &Program,
        rest: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>> {
        for s in call.cuda_sources_fused(prog) {
            crate::jit::record(&s);
        }
        Cpu.library_fused(d, call, prog, rest, out, len)
    }

    fn sync(&self, d: Device) -> Result<()> {
        Cpu.sync(d)
    }

    fn mem_info(&self, d: Device) -> Result<(usize, usize)> {
        Cpu.mem_info(d)
    }

    fn gc(&self, d: Device) -> Result<()> {
        Cpu.gc(d)
    }
}

/// Records the CUDA source the GPU would run for `prog` (every variant it could pick).
fn record_elementwise(prog: &Program, strided_out: bool) {
    use crate::codegen::{Variant, elementwise, vectorisable_elementwise};
    for idx32 in [true, false] {
        if idx32 && !prog.fits_i32() {
            continue;
        }
        for vector in [false, true] {
            if vector && (strided_out || !vectorisable_elementwise(prog)) {
                continue;
            }
            let v = Variant {
                idx32,
                vector,
                strided_out,
            };
            crate::jit::record(&elementwise(prog, v).source);
        }
    }
}

/// Records the CUDA sources of a reduction (both passes, every variant).
/// The sums over the leading axis of one realised matrix take the column-sum kernels: records
/// them.
fn record_column_sums(prog: &Program, op: ReduceOp, rows: (usize, usize), out: DType) {
    if let Some(call) = crate::ops::linalg::plain_column_sums(prog, op, rows, out) {
        for s in call.cuda_sources(&[]) {
            crate::jit::record(&s);
        }
    }
}

/// Records the kernels a reduction of `prog` may build: every form, with `finish` in those
/// that write the rows' results (see `backend::cuda::reduce`'s plan).
fn record_reduction(prog: &Program, op: ReduceOp, inner: usize, out: DType, finish: Finish) {
    use crate::codegen::{
        RowAxes, VEC, Variant, acc_dtype, column_lanes, columns_fit, combinable, reduction,
        reduction_columns, reduction_one_per_thread, reduction_warp_rows, row_lanes, vectorisable,
    };
    let src = prog.instrs[prog.outputs[0]].dtype;
    let acc = acc_dtype(op, src);
    let rd = RowAxes::of(prog, inner);
    for vector in [false, true] {
        // Rows reduced together (`RowAxes::group`) are read by offsets only, as on CUDA.
        if vector && !(rd.rows_together() == 1 && vectorisable(prog) && inner % VEC == 0) {
            continue;
        }
        let v = Variant {
            idx32: prog.fits_i32(),
            vector,
            strided_out: false,
        };
        crate::jit::record(&reduction(prog, op, out, v, false, rd, finish).source);
        if !vector {
            // The short rows' form (lanes of a warp per row): the row's own lane count, and a
            // whole warp.
            for lanes in [row_lanes(inner), 32] {
                crate::jit::record(
                    &reduction_warp_rows(prog, op, out, v, rd, lanes, finish).source,
                );
            }
            // The column form (strided rows, neighbouring rows side by side): the rows' own
            // lane count, and a whole warp.
            if columns_fit(prog, op, inner, rd) {
                let rows = numel(&prog.shape) / inner.max(1);
                for lanes in [column_lanes(rows), 32] {
                    crate::jit::record(
                        &reduction_columns(prog, op, out, v, rd, lanes, finish).source,
                    );
                }
            }
        }
        if !op.is_arg() {
            crate::jit::record(&reduction(prog, op, acc, v, false, rd, Finish::Plain).source);
            if combinable(op) {
                crate::jit::record(&reduction(prog, op, out, v, true, rd, finish).source);
            }
            if v.idx32 && !vector {
                // The quick first build's form.
                crate::jit::record(&reduction_one_per_thread(prog, op, acc, v, rd).source);
            }
        }
    }
}
