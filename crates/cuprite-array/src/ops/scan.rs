//! Scans along an axis, as library calls (see [`crate::graph::LibraryCall`]): the input is
//! realised (fused with whatever element-wise work produces it), scanned by a kernel of its
//! own (CUDA) or by rayon (CPU), and the result is an ordinary lazy array.

use crate::array::Array;
use crate::dtype::{DType, Element, Numeric};
use crate::error::{Error, Result};
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::runtime::DeviceState;
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use cuprite::{Access, Stream};
use half::{bf16, f16};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// An inclusive cumulative sum of a contiguous array viewed as `outer x n x inner`, along `n`.
#[derive(Debug)]
struct Cumsum {
    dtype: DType,
    outer: usize,
    n: usize,
    inner: usize,
}

impl<T: Numeric> Array<T> {
    /// Inclusive cumulative sum along `axis` (negative counts from the end), in the dtype
    /// [`sum`](Self::sum) gives (integers in `i64`/`u64`, wrapping; floats in their own type,
    /// `f16`/`bf16` accumulated in `f32` and rounded per element). NumPy's `cumsum`.
    ///
    /// The input is evaluated first (fused with the element-wise work that produces it); the
    /// result is lazy, so element-wise work on it fuses onto the scan's output.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(a.cumsum(1)?.to_vec()?, [1, 3, 6, 4, 9, 15]);
    /// assert_eq!(a.cumsum(0)?.to_vec()?, [1, 2, 3, 5, 7, 9]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn cumsum(&self, axis: isize) -> Result<Array<T::Accum>> {
        let dtype = <T::Accum as Element>::DTYPE;
        if dtype.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "cumsum of {} is not supported yet (complex scans)",
                T::DTYPE
            )));
        }
        let shape = self.shape().to_vec();
        let ax = if shape.is_empty() {
            // A scalar scans as one element.
            if axis != 0 && axis != -1 {
                return Err(Error::Axis(format!(
                    "axis {axis} is out of range for a 0-dimensional array"
                )));
            }
            0
        } else {
            crate::shape::axis(axis, shape.len())?
        };
        let (outer, n, inner) = if shape.is_empty() {
            (1, 1, 1)
        } else {
            (numel(&shape[..ax]), shape[ax], numel(&shape[ax + 1..]))
        };
        let input = self.cast::<T::Accum>();
        let call = Arc::new(Cumsum {
            dtype,
            outer,
            n,
            inner,
        });
        let node = Node::new(
            Op::Library(call, vec![input.node.clone()]),
            dtype,
            shape,
            self.device(),
        );
        Ok(Array::from_node(node))
    }
}

/// Scans `x` (`outer * n * inner` values) into `out` line by line, `add` accumulating in `A`.
fn scan_lines<S: Copy + Send + Sync, A: Copy + Send + Sync>(
    x: &[S],
    out: &mut [S],
    n: usize,
    inner: usize,
    zero: A,
    add: impl Fn(A, S) -> A + Sync,
    round: impl Fn(A) -> S + Sync,
) {
    let plane = n * inner;
    if plane == 0 {
        return;
    }
    out.par_chunks_mut(plane)
        .zip(x.par_chunks(plane))
        .for_each(|(o, x)| {
            for j in 0..inner {
                let mut acc = zero;
                for i in 0..n {
                    acc = add(acc, x[i * inner + j]);
                    o[i * inner + j] = round(acc);
                }
            }
        });
}

impl Cumsum {
    /// Checks that `x` is what the call was made for.
    fn check<B>(&self, x: &CallInput<'_, B>) -> Result<()> {
        let want = self.outer * self.n * self.inner;
        if x.dtype != self.dtype || numel(x.shape) != want {
            return Err(Error::InvalidArgument(format!(
                "cumsum made for {want} elements of {} was given {:?} of {}",
                self.dtype, x.shape, x.dtype
            )));
        }
        Ok(())
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x5ca1_ab1e);
        "cumsum".hash(&mut h);
        self.dtype.code().hash(&mut h);
        h.finish()
    }
}

impl LibraryCall for Cumsum {
    fn name(&self) -> &str {
        "cumsum"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        let [x] = inputs else {
            return Err(Error::InvalidArgument("cumsum takes one input".into()));
        };
        self.check(x)?;
        let (n, inner) = (self.n, self.inner);
        let src = x.buf.bytes();
        let dst = out.bytes_mut();
        macro_rules! native {
            ($t:ty, $zero:expr, $add:expr) => {{
                let xs: &[$t] = bytemuck::cast_slice(src);
                let os: &mut [$t] = bytemuck::cast_slice_mut(dst);
                scan_lines(xs, os, n, inner, $zero, $add, |a| a)
            }};
        }
        match self.dtype {
            DType::F32 => native!(f32, 0.0f32, |a: f32, v: f32| a + v),
            DType::F64 => native!(f64, 0.0f64, |a: f64, v: f64| a + v),
            DType::I64 => native!(i64, 0i64, |a: i64, v: i64| a.wrapping_add(v)),
            DType::U64 => native!(u64, 0u64, |a: u64, v: u64| a.wrapping_add(v)),
            DType::F16 => {
                let xs: &[f16] = bytemuck::cast_slice(src);
                let os: &mut [f16] = bytemuck::cast_slice_mut(dst);
                scan_lines(
                    xs,
                    os,
                    n,
                    inner,
                    0.0f32,
                    |a, v| a + v.to_f32(),
                    f16::from_f32,
                )
            }
            DType::BF16 => {
                let xs: &[bf16] = bytemuck::cast_slice(src);
                let os: &mut [bf16] = bytemuck::cast_slice_mut(dst);
                scan_lines(
                    xs,
                    os,
                    n,
                    inner,
                    0.0f32,
                    |a, v| a + v.to_f32(),
                    bf16::from_f32,
                )
            }
            d => {
                return Err(Error::InvalidArgument(format!(
                    "cumsum runs in the accumulation dtype of its input, not {d}"
                )));
            }
        }
        Ok(())
    }

    fn run_cuda(
        &self,
        st: &'static DeviceState,
        stream: &Arc<Stream>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let [x] = inputs else {
            return Err(Error::InvalidArgument("cumsum takes one input".into()));
        };
        self.check(x)?;
        let lines = self.outer * self.inner;
        if lines == 0 || self.n == 0 {
            return Ok(());
        }
        let k =
            crate::jit::library_kernel(st, self.key(), || crate::codegen::scan_kernel(self.dtype))?;
        let (Some(src), Some(dst)) = (x.buf.live(), out.live()) else {
            return Err(Error::InvalidArgument(
                "cumsum on a buffer that was handed back".into(),
            ));
        };
        let in_ptr = x.buf.ptr() + (x.layout.offset * self.dtype.size()) as u64;
        let words = [
            in_ptr,
            out.ptr(),
            lines as u64,
            self.n as u64,
            self.inner as u64,
        ];
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = lines.min(resident * 8).min(i32::MAX as usize) as u32;
        // SAFETY: the input is a contiguous realised array of `outer * n * inner` elements
        // starting at `in_ptr` (the scheduler hands library calls contiguous inputs), the output
        // a new buffer of as many; the kernel reads and writes only those; both are declared.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (crate::codegen::BLOCK, 1, 1),
                0,
                &words,
                &[Access::read(src), Access::write(dst)],
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![crate::codegen::scan_kernel(self.dtype).source]
    }
}
