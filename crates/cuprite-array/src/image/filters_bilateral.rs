//! ArrayFire's `bilateral` filter as one library call: a kernel (`filters_bilateral.cu`) and
//! its CPU twin on rayon, both summing each window with the row offset outermost, in the
//! working type of the image (`filters_elem.rs`), into a float result.

use super::filters_afwindow::AfWindow;
use super::filters_elem::{Acc, ImageElement};
use super::filters_launch::{
    by_dtype, check_one_input, filter_kernel, filter_key, host, launch_grid_stride, part,
};
use crate::array::Array;
use crate::codegen::{KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, Element, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::storage::{DevBuf, HostBuf};
use rayon::prelude::*;
use std::sync::Arc;

/// Threads a block.
const THREADS: usize = 128;

kernel_params! {
    /// The bilateral filter of `batch` images of `h x w`.
    pub(super) struct BilateralArgs<'a> {
        x: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "O",
        batch: i64,
        h: i64,
        w: i64,
        radius: i64,
        svar: f64,
        cvar: f64,
    }
}

/// Input 0 (`batch` images of `h x w`, `dtype`) filtered into `f64` (for `f64`) or `f32`.
#[derive(Debug)]
struct ImgBilateral {
    dtype: DType,
    win: AfWindow,
}

impl ImgBilateral {
    fn out_dtype(&self) -> DType {
        if self.dtype == DType::F64 {
            DType::F64
        } else {
            DType::F32
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        check_one_input("bilateral filter", self, self.dtype, self.win.len(), inputs)
    }

    fn kernel(&self) -> KernelSource {
        let o = if self.out_dtype() == DType::F64 {
            "double"
        } else {
            "float"
        };
        filter_kernel::<BilateralArgs>(
            format!("cuprite_img_bilateral_{}", self.dtype.name()),
            self.dtype,
            &format!("typedef {o} O;\n"),
            include_str!("filters_bilateral.cu"),
            "img_bilateral",
            THREADS,
        )
    }

    fn key(&self) -> u64 {
        filter_key(0x1a6e_b11a, "img_bilateral", self.dtype, ())
    }

    fn cpu<T: ImageElement, A: Acc, O: bytemuck::Pod + Send>(
        &self,
        x: &[T],
        y: &mut [O],
        st: fn(f64) -> O,
    ) {
        let wn = &self.win;
        let (h, w, r) = (wn.h as i64, wn.w as i64, wn.radius as i64);
        let ks = A::of(-0.5 / (wn.space * wn.space));
        let kc = A::of(-0.5 / wn.cvar);
        y.par_chunks_mut(wn.w.max(1))
            .enumerate()
            .for_each(|(line, out)| {
                let i = (line % wn.h) as i64;
                let xb = &x[(line / wn.h) * wn.h * wn.w..][..wn.h * wn.w];
                let at = |a: i64, b: i64| A::of(xb[(a * w + b) as usize].to_f64());
                for (j, o) in out.iter_mut().enumerate() {
                    let j = j as i64;
                    let c = at(i, j);
                    let (mut norm, mut res) = (A::ZERO, A::ZERO);
                    for dy in -r..=r {
                        let ti = (i + dy).clamp(0, h - 1);
                        for dx in -r..=r {
                            let tj = (j + dx).clamp(0, w - 1);
                            let v = at(ti, tj);
                            let d = c - v;
                            let wt = (A::of((dy * dy + dx * dx) as f64) * ks + d * d * kc).exp();
                            norm = norm + wt;
                            res = res + v * wt;
                        }
                    }
                    *o = st((res / norm).f64());
                }
            });
    }
}

impl LibraryCall for ImgBilateral {
    fn name(&self) -> &str {
        "bilateral"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgBilateral,
            i: &[CallInput<'_, HostBuf>],
            o: &mut HostBuf,
        ) -> Result<()> {
            let n = s.win.len();
            let x: &[T] = host(&i[0], n);
            if s.out_dtype() == DType::F64 {
                let y: &mut [f64] = bytemuck::cast_slice_mut(o.bytes_mut());
                s.cpu::<T, A, f64>(x, &mut y[..n], |v| v);
            } else {
                let y: &mut [f32] = bytemuck::cast_slice_mut(o.bytes_mut());
                s.cpu::<T, A, f32>(x, &mut y[..n], |v| v as f32);
            }
            Ok(())
        }
        by_dtype!(self.dtype, go(self, inputs, out))
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let n = self.win.len();
        if n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(lane.st, self.key(), || self.kernel())?;
        let i = |v: usize| v as i64;
        let params = BilateralArgs {
            x: part(&inputs[0], self.dtype, n)?,
            y: WriteBuf::part(out, self.out_dtype(), 0, n)?,
            batch: i(self.win.batch),
            h: i(self.win.h),
            w: i(self.win.w),
            radius: i(self.win.radius),
            svar: self.win.space * self.win.space,
            cvar: self.win.cvar,
        };
        // SAFETY: `x` and `y` are checked views of `batch h w` elements (`ReadBuf`/
        // `WriteBuf::part` check them inside their allocations); the kernel reads `x` only at
        // indices clamped into `[0, h) x [0, w)` of an image and writes `y` below the total.
        unsafe { launch_grid_stride(lane, &k, &params, n, THREADS) }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}

/// ArrayFire's `bilateral`: each pixel of the last two axes (leading axes a batch, e.g. the
/// channels of a CHW image) replaced by the mean of its window weighted by a Gaussian of the
/// distance (`spatial_sigma`, clamped to at most 11.5 as ArrayFire does; the window reaches
/// `max(1, floor(1.5 sigma))` pixels each side) and a Gaussian of the difference from the
/// centre value (`chromatic_sigma`), edges extended with the nearest pixel. The result is
/// `f64` for `f64` images, else `f32`, as ArrayFire's.
///
/// # Errors
/// A sigma that is not positive and finite, or fewer than two axes.
///
/// ```
/// use cuprite_array::{Array, image::bilateral};
/// // An edge survives: values across it weigh almost nothing.
/// let x = Array::from_slice(&[0u8, 0, 0, 200, 200, 200], &[1, 6])?;
/// let y = bilateral(&x, 2.0, 10.0)?.to_vec()?;
/// assert!(y[2] < 1e-3 && (y[3] - 200.0).abs() < 1e-3);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bilateral<T: ImageElement>(
    x: &Array<T>,
    spatial_sigma: f64,
    chromatic_sigma: f64,
) -> Result<Array<T::Real>> {
    let call = Arc::new(ImgBilateral {
        dtype: T::DTYPE,
        win: AfWindow::of("bilateral", x.shape(), spatial_sigma, chromatic_sigma)?,
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, vec![x.node.clone()]),
        <T::Real as Element>::DTYPE,
        x.shape().to_vec(),
        x.device(),
    )))
}
