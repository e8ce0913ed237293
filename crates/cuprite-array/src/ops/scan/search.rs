//! `searchsorted`: a fused library call whose queries are read through the program that
//! produces them, searched in a realised sorted row (or one row per leading index).

use super::Side;
use super::call::{VARIANT, program_buffers};
use super::cpu::Acc;
use crate::array::Array;
use crate::backend::cpu::{Vals, run_chunk};
use crate::codegen::kargs::KernelParams;
use crate::codegen::{BLOCK, ParamPlan, SearchArgs, SearchBind, search_kernel};
use crate::dtype::{Class, DType, Element};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, FusedCall, LibraryCall, Node, Op, Program};
use crate::storage::{DevBuf, HostBuf};
use cuprite_driver::Access;
use half::{bf16, f16};
use rayon::prelude::*;
use std::sync::Arc;

/// Queries per parallel chunk on the CPU.
const CHUNK: usize = 1 << 14;

/// `searchsorted` of `kq` queries per row in rows of `m` sorted elements of `dtype`.
#[derive(Debug)]
struct Search {
    dtype: DType,
    m: usize,
    kq: usize,
    right: bool,
}

impl<T: Element> Array<T> {
    /// For each of `values`, the index at which inserting it into this sorted array keeps it
    /// sorted (NumPy's and PyTorch's `searchsorted`), as `i64` of `values`' shape. The array
    /// is one sorted row (1-D; `values` of any shape), or rows along its last axis with
    /// `values` holding as many rows (equal leading axes; PyTorch's batched form). Floats
    /// order NaN last. `values` is read fused.
    ///
    /// ```
    /// use cuprite_array::{Array, Device, Side};
    /// let s = Array::<f32>::from_slice_on(Device::CPU, &[1.0, 2.0, 2.0, 5.0], &[4])?;
    /// let v = Array::<f32>::from_slice_on(Device::CPU, &[2.0, 0.0, 9.0], &[3])?;
    /// assert_eq!(s.searchsorted(&v, Side::Left)?.to_vec()?, [1i64, 0, 4]);
    /// assert_eq!(s.searchsorted(&v, Side::Right)?.to_vec()?, [3i64, 0, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn searchsorted(&self, values: &Array<T>, side: Side) -> Result<Array<i64>> {
        if T::DTYPE.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "searchsorted of {} is not supported (complex numbers have no order)",
                T::DTYPE
            )));
        }
        crate::array::check_devices(&[&self.node, &values.node])?;
        let (s, v) = (self.shape(), values.shape());
        let (m, kq) = match s.len() {
            0 => {
                return Err(Error::Shape(
                    "searchsorted needs a sorted array of at least one axis, not a 0-d one".into(),
                ));
            }
            1 => (s[0], crate::shape::numel(v)),
            n if v.len() == n && s[..n - 1] == v[..n - 1] => (s[n - 1], v[n - 1]),
            _ => {
                return Err(Error::Shape(format!(
                    "searchsorted needs a 1-D sorted array, or sorted rows whose leading axes \
                     match the values' (sorted {s:?}, values {v:?})"
                )));
            }
        };
        let call = Arc::new(Search {
            dtype: T::DTYPE,
            m,
            kq,
            right: side == Side::Right,
        });
        // Insertion points: 0 to m.
        Ok(Array::from_node(Node::new(
            Op::Library(call, vec![values.node.clone(), self.node.clone()]),
            DType::I64,
            v.to_vec(),
            self.device(),
        ))
        .known_in(0, m as i64))
    }
}

/// The sorted elements (bytes of `d`) in their compute class.
fn class_vals(bytes: &[u8], d: DType) -> Vals {
    macro_rules! conv {
        ($v:ident, $t:ty, $f:expr) => {
            Vals::$v(
                bytemuck::cast_slice::<u8, $t>(bytes)
                    .iter()
                    .map($f)
                    .collect(),
            )
        };
    }
    match d {
        DType::F32 => conv!(F32, f32, |&x| x),
        DType::F16 => conv!(F32, f16, |x| x.to_f32()),
        DType::BF16 => conv!(F32, bf16, |x| x.to_f32()),
        DType::F64 => conv!(F64, f64, |&x| x),
        DType::I8 => conv!(I64, i8, |&x| x as i64),
        DType::I16 => conv!(I64, i16, |&x| x as i64),
        DType::I32 => conv!(I64, i32, |&x| x as i64),
        DType::I64 => conv!(I64, i64, |&x| x),
        DType::Bool | DType::U8 => conv!(U64, u8, |&x| x as u64),
        DType::U16 => conv!(U64, u16, |&x| x as u64),
        DType::U32 => conv!(U64, u32, |&x| x as u64),
        DType::U64 => conv!(U64, u64, |&x| x),
        DType::C32 | DType::C64 => unreachable!("complex searches are refused when made"),
    }
}

/// `a < b` with NaN after everything.
fn lt<A: PartialOrd + Copy>(a: A, b: A) -> bool {
    let nan = |x: A| x.partial_cmp(&x).is_none();
    (!nan(a) && nan(b)) || a < b
}

impl Search {
    fn cpu_typed<A: Acc>(&self, prog: &Program, sorted: Vec<A>, out: &mut [i64]) {
        let (m, kq, right) = (self.m, self.kq, self.right);
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, o)| {
            let start = c * CHUNK;
            let q = A::take(run_chunk(prog, start, o.len()).swap_remove(0));
            for (i, (o, &x)) in o.iter_mut().zip(&q).enumerate() {
                let row = (start + i).checked_div(kq).unwrap_or(0);
                let s = &sorted[row * m..(row + 1) * m];
                *o = s.partition_point(|&e| if right { !lt(x, e) } else { lt(e, x) }) as i64;
            }
        });
    }
}

impl LibraryCall for Search {
    fn name(&self) -> &str {
        "searchsorted"
    }

    fn run_cpu(&self, _: &[CallInput<'_, HostBuf>], _: &mut HostBuf) -> Result<()> {
        Err(Error::InvalidArgument(
            "searchsorted reads its queries fused and runs only through its fused form".into(),
        ))
    }

    fn run_cuda(
        &self,
        _: &CudaLane<'_>,
        _: &[CallInput<'_, DevBuf>],
        _: &mut DevBuf,
    ) -> Result<()> {
        Err(Error::InvalidArgument(
            "searchsorted reads its queries fused and runs only through its fused form".into(),
        ))
    }

    fn cuda_sources(&self, _: &[(DType, Vec<usize>)]) -> Vec<String> {
        Vec::new()
    }

    fn fused(&self) -> Option<&dyn FusedCall> {
        Some(self)
    }
}

impl Search {
    /// Checks the realised sorted input.
    fn sorted<'a, B>(&self, rest: &'a [CallInput<'a, B>]) -> Result<&'a CallInput<'a, B>> {
        match rest {
            [s] if s.dtype == self.dtype
                && s.layout.offset == 0
                && crate::shape::numel(s.shape) % self.m.max(1) == 0 =>
            {
                Ok(s)
            }
            _ => Err(Error::InvalidArgument(format!(
                "searchsorted made for rows of {} elements of {} was given other inputs",
                self.m, self.dtype
            ))),
        }
    }
}

impl FusedCall for Search {
    fn fused_inputs(&self) -> usize {
        1
    }

    fn run_cpu_fused(
        &self,
        prog: &Program,
        rest: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let s = self.sorted(rest)?;
        let n = crate::shape::numel(s.shape);
        let bytes = &s.buf.bytes()[..n * self.dtype.size()];
        let vals = class_vals(bytes, self.dtype);
        let o: &mut [i64] = bytemuck::cast_slice_mut(out.bytes_mut());
        match self.dtype.class() {
            Class::F32 => self.cpu_typed::<f32>(prog, f32::take(vals), o),
            Class::F64 => self.cpu_typed::<f64>(prog, f64::take(vals), o),
            Class::I64 => self.cpu_typed::<i64>(prog, i64::take(vals), o),
            Class::U64 => self.cpu_typed::<u64>(prog, u64::take(vals), o),
            Class::C32 | Class::C64 => {
                return Err(Error::InvalidArgument(
                    "searchsorted of complex numbers is not supported".into(),
                ));
            }
        }
        Ok(())
    }

    fn run_cuda_fused(
        &self,
        lane: &CudaLane<'_>,
        prog: &Program,
        rest: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let s = self.sorted(rest)?;
        let total = out.len();
        if total == 0 {
            return Ok(());
        }
        let (bufs, in_ptrs) = program_buffers(prog, st.ordinal, "searchsorted")?;
        let Some(dst) = out.live() else {
            return Err(Error::InvalidArgument(
                "searchsorted on a buffer that was handed back".into(),
            ));
        };
        let plan = ParamPlan::new(prog, VARIANT, &in_ptrs, &[out.ptr()], None);
        let mut words: Vec<u64> = plan.words.iter().copied().collect();
        let tail = SearchArgs {
            sorted: self.dtype,
            bind: Some(SearchBind {
                rows: s.buf,
                m: self.m,
                kq: self.kq,
                right: self.right,
            }),
        }
        .launch_args()?;
        words.extend_from_slice(&tail.words);
        let dtype = self.dtype;
        let k = crate::jit::kernel(
            st,
            prog,
            crate::jit::KernelKind::Search { dtype: self.dtype },
            || search_kernel(prog, dtype),
            || None,
        )?;
        let mut access: Vec<Access<'_>> = bufs
            .iter()
            .filter_map(|b| b.live())
            .map(Access::read)
            .collect();
        access.extend(tail.access);
        access.push(Access::write(dst));
        let resident = (st.sms * k.blocks_per_sm.max(1)) as usize;
        let grid = total.div_ceil(BLOCK as usize).min(resident * 4).max(1) as u32;
        // SAFETY: the words are the kernel's parameters in order (the program's from its
        // `ParamPlan`, then `SearchArgs`, the description that made the signature's tail: the
        // sorted rows, a contiguous realised buffer of `rows * m` elements from offset 0,
        // checked above); the kernel reads the program's inputs through
        // their layouts and the sorted rows, and writes the `total` elements of the new output;
        // every buffer is declared.
        unsafe { stream.launch_packed(&k.func, (grid, 1, 1), (BLOCK, 1, 1), 0, &words, &access) }?;
        Ok(())
    }

    fn cuda_sources_fused(&self, prog: &Program) -> Vec<String> {
        vec![search_kernel(prog, self.dtype).source]
    }
}
