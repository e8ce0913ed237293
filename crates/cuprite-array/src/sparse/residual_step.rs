//! The residual step of an unpreconditioned conjugate gradient iteration as one library call
//! ([`ResidualStep`]): `r − (num / den) · b` and its squared norm in one pass over the vectors,
//! a CUDA kernel (`residual_step.cu`) and its CPU twin, which do the same operations in the same
//! order (so both backends give the same bits). The guarded division (`0` where `den` is `0`)
//! is the solvers' own. The result is an ordinary lazy array of `n + 1` elements: the new
//! residual, then its squared norm.

use super::SparseValue;
use super::csr_product::dot_twin;
use crate::array::Array;
use crate::codegen::{KernelParams, KernelSource, ReadBuf, SharedBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::shape::{Layout, SliceArg, numel};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Threads a block, as the CSR-stream SpMV's (so that [`dot_twin`] gives the sum's order).
const THREADS: usize = 256;

/// Elements a thread loads at once (`RS_UNROLL`).
const RS_UNROLL: usize = 4;

/// The most blocks of a launch: each thread then takes several elements, so that the blocks'
/// partial sums and their count cost little beside the pass. A fixed number, so that the
/// order of the sum, which follows the grid, is the same on every device and in the CPU twin.
const MAX_GRID: u64 = 1024;

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

/// `r − (num / den) · b` and its squared norm for vectors `r` and `b` of `n` elements (inputs
/// 0 and 1) and one-element `num` and `den` (inputs 2 and 3), all of `dtype` (`f32` or `f64`):
/// an output of `n + 1` elements.
#[derive(Debug)]
pub(crate) struct ResidualStep {
    pub dtype: DType,
    pub n: usize,
}

impl ResidualStep {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let len = |i: usize| crate::shape::numel(inputs[i].shape);
        let ok = matches!(self.dtype, DType::F32 | DType::F64)
            && inputs.len() == 4
            && inputs.iter().all(|x| x.dtype == self.dtype)
            && len(0) == self.n
            && len(1) == self.n
            && len(2) == 1
            && len(3) == 1;
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

    fn kernel(&self) -> KernelSource {
        let name = format!("cuprite_sparse_residual_step_{}", self.dtype.name());
        let t = if self.dtype == DType::F64 {
            "double"
        } else {
            "float"
        };
        let header = format!(
            "typedef long long i64t;\ntypedef {t} T;\n#define RS_BLOCK {THREADS}\n\
             #define RS_UNROLL {RS_UNROLL}\n"
        );
        let entry =
            crate::codegen::entry::<ResidualArgs>(&name, &THREADS.to_string(), "residual_step");
        let text = format!(
            "{header}{}{}{entry}",
            include_str!("residual_step.cu"),
            crate::codegen::MARKER
        );
        KernelSource::new(name, text)
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x5a45_c501);
        "sparse-residual-step".hash(&mut h);
        RS_UNROLL.hash(&mut h);
        self.dtype.code().hash(&mut h);
        h.finish()
    }

    /// The blocks of the launch for `n` elements: one for each [`THREADS`] elements, at most
    /// [`MAX_GRID`].
    fn grid(n: usize) -> u32 {
        (n as u64).div_ceil(THREADS as u64).clamp(1, MAX_GRID) as u32
    }

    /// The CPU twin: the kernel's operations in its order.
    fn cpu<R: Real>(a: &[R], b: &[R], num: R, den: R, out: &mut [R]) {
        let q = if den != R::ZERO { num / den } else { R::ZERO };
        let (ys, norm) = out.split_at_mut(a.len());
        ys.par_iter_mut()
            .zip(a.par_iter().zip(b.par_iter()))
            .for_each(|(y, (&a, &b))| *y = a - b * q);
        if let Some(s) = norm.first_mut() {
            *s = dot_twin(ys, ys, Self::grid(ys.len()) as usize);
        }
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
        Ok(())
    }
}

/// `r − (num / den) · b` (`0` for the quotient where `den` is `0`) and its squared norm as a
/// 0-d array, from one pass over `r` and `b` (vectors of one length; `num` and `den` of one
/// element), for real `f32` and `f64` values on one device; `None` for other types. The step
/// and the norm are bit for bit the same on both backends.
pub(super) fn residual_step<T: SparseValue>(
    r: &Array<T>,
    b: &Array<T>,
    num: &Array<T>,
    den: &Array<T>,
) -> Result<Option<(Array<T>, Array<T>)>> {
    if !matches!(T::DTYPE, DType::F32 | DType::F64) {
        return Ok(None);
    }
    let n = r.len();
    if r.shape() != [n] || b.shape() != [n] || num.len() != 1 || den.len() != 1 {
        return Err(Error::Shape(format!(
            "residual step: r {:?} and b {:?} must be vectors of one length, num {:?} and den \
             {:?} single elements",
            r.shape(),
            b.shape(),
            num.shape(),
            den.shape()
        )));
    }
    let device = r.device();
    for (what, d) in [
        ("b", b.device()),
        ("num", num.device()),
        ("den", den.device()),
    ] {
        if d != device {
            return Err(Error::DeviceMismatch(format!(
                "residual step: {what} is on {d}, r on {device}"
            )));
        }
    }
    let call = ResidualStep { dtype: T::DTYPE, n };
    let inputs = [r, b, num, den].map(|x| x.node.clone()).to_vec();
    let both = Array::from_node(Node::new(
        Op::Library(Arc::new(call), inputs),
        T::DTYPE,
        vec![n + 1],
        device,
    ));
    let y = both.slice(&[SliceArg::Range {
        start: None,
        end: Some(n as isize),
        step: 1,
    }])?;
    let norm = both.slice(&[SliceArg::Index(n as isize)])?;
    Ok(Some((y, norm)))
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
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let kern = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let t = self.dtype;
        let part =
            |i: usize, len: usize| ReadBuf::part(inputs[i].buf, t, inputs[i].layout.offset, len);
        let grid = Self::grid(self.n);
        // A counter in the scratch's first 4 bytes (zeroed here), then from byte 8 a partial a
        // block.
        let bytes = (grid as usize + 1) * 8;
        // SAFETY: the counter is zeroed below before the launch reads it; each block writes its
        // partial before it counts itself, and the last block reads the partials only once
        // every block has counted.
        let mut scratch = unsafe { DevBuf::alloc(st, stream, DType::U8, bytes) }?;
        let buf = scratch.buffer_mut().ok_or_else(|| {
            Error::InvalidArgument("the residual step's scratch has no allocation".into())
        })?;
        stream.memset_zeros(&mut buf.slice_mut(0..4)?)?;
        let args = ResidualArgs {
            a: part(0, self.n)?,
            b: part(1, self.n)?,
            num: part(2, 1)?,
            den: part(3, 1)?,
            y: WriteBuf::part(out, t, 0, self.n + 1)?,
            part: SharedBuf::part(&scratch, t, 8 / t.size(), grid as usize)?,
            count: SharedBuf::part(&scratch, DType::U32, 0, 1)?,
            n: self.n as i64,
        }
        .args();
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`, `SharedBuf`) of the lengths `check` verified: `n` elements of `a` and `b`,
        // one of `num` and `den`, `n + 1` of the output, a zeroed counter and a partial for
        // each of the `grid` blocks launched. The kernel reads and writes elements below `n`
        // (the norm at `n`, by the last block only); its blocks hold `THREADS` threads, the
        // `RS_BLOCK` it is built for (its shared sums are indexed by thread).
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

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        if matches!(self.dtype, DType::F32 | DType::F64) {
            vec![self.kernel().source]
        } else {
            Vec::new()
        }
    }

    /// Every input is read packed from its offset: a contiguous view inside its storage (the
    /// residual of the step before and `A·p`, both slices of longer outputs) is read in place.
    fn accepts_view(&self, _index: usize, shape: &[usize], layout: &Layout, len: usize) -> bool {
        layout.is_contiguous(shape)
            && layout
                .offset
                .checked_add(numel(shape))
                .is_some_and(|end| end <= len)
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
}
