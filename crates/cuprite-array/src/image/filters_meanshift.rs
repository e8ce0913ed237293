//! ArrayFire's `meanShift` (one channel) as one library call: a kernel
//! (`filters_meanshift.cu`) and its CPU twin on rayon, both following each pixel's window in
//! the same order in the working type of the image (`filters_elem.rs`).

use super::filters_afwindow::AfWindow;
use super::filters_elem::{Acc, ImageElement};
use super::filters_launch::{
    by_dtype, check_one_input, filter_kernel, filter_key, host, launch_grid_stride, part,
};
use crate::array::Array;
use crate::codegen::{KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::storage::{DevBuf, HostBuf};
use rayon::prelude::*;
use std::sync::Arc;

/// Threads a block.
const THREADS: usize = 128;

kernel_params! {
    /// The mean shift of `batch` images of `h x w`.
    pub(super) struct MeanShiftArgs<'a> {
        x: ReadBuf<'a> as "T",
        y: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        radius: i64,
        cvar: f64,
        iters: i64,
    }
}

/// Input 0 (`batch` images of `h x w`, `dtype`) mean-shifted for at most `iters` rounds.
#[derive(Debug)]
struct ImgMeanShift {
    dtype: DType,
    win: AfWindow,
    iters: usize,
}

/// The kernel's round count for `iters` rounds: `iters`, or `i64::MAX` where `iters` does not
/// fit (no walk takes that many rounds: the two counts stop every walk alike), never a
/// negative word, which would stop every walk before its first round.
fn iters_word(iters: usize) -> i64 {
    i64::try_from(iters).unwrap_or(i64::MAX)
}

fn is_int(d: DType) -> bool {
    matches!(d, DType::U8 | DType::U16)
}

impl ImgMeanShift {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        check_one_input("mean shift", self, self.dtype, self.win.len(), inputs)
    }

    fn kernel(&self) -> KernelSource {
        filter_kernel::<MeanShiftArgs>(
            format!("cuprite_img_meanshift_{}", self.dtype.name()),
            self.dtype,
            &format!("constexpr bool MS_INT = {};\n", is_int(self.dtype)),
            include_str!("filters_meanshift.cu"),
            "img_meanshift",
            THREADS,
        )
    }

    fn key(&self) -> u64 {
        filter_key(0x1a6e_3e55, "img_meanshift", self.dtype, ())
    }

    /// The final centre of the pixel `(i0, j0)` of the image `xb`.
    fn follow<T: ImageElement, A: Acc>(&self, xb: &[T], i0: usize, j0: usize) -> A {
        let (h, w, r) = (self.win.h as i64, self.win.w as i64, self.win.radius as i64);
        let cv = A::of(self.win.cvar);
        let (mut pi, mut pj) = (i0 as i64, j0 as i64);
        let mut centre = A::of(xb[i0 * self.win.w + j0].to_f64());
        for _ in 0..self.iters {
            let (mut count, mut si, mut sj, mut sum) = (0i64, 0i64, 0i64, A::ZERO);
            for ti in (pi - r..=pi + r).filter(|t| (0..h).contains(t)) {
                for tj in (pj - r..=pj + r).filter(|t| (0..w).contains(t)) {
                    let v = A::of(xb[(ti * w + tj) as usize].to_f64());
                    let d = centre - v;
                    if d * d <= cv {
                        sum = sum + v;
                        si += ti;
                        sj += tj;
                        count += 1;
                    }
                }
            }
            if count == 0 {
                break;
            }
            let (ni, nj) = (si / count, sj / count);
            let mut mean = sum / A::of(count as f64);
            if is_int(self.dtype) {
                mean = A::of(mean.f64().trunc());
            }
            let dv = centre - mean;
            let moved = A::of(((ni - pi).abs() + (nj - pj).abs()) as f64);
            let stop = (ni == pi && nj == pj) || moved + dv * dv <= A::of(1.0);
            (pi, pj) = (ni, nj);
            centre = A::of(T::store(mean.f64()).to_f64());
            if stop {
                break;
            }
        }
        centre
    }

    fn cpu<T: ImageElement, A: Acc>(&self, x: &[T], y: &mut [T]) {
        let hw = self.win.h * self.win.w;
        y.par_chunks_mut(self.win.w.max(1))
            .enumerate()
            .for_each(|(line, out)| {
                let i = line % self.win.h;
                let xb = &x[(line / self.win.h) * hw..][..hw];
                for (j, o) in out.iter_mut().enumerate() {
                    *o = T::store(self.follow::<T, A>(xb, i, j).f64());
                }
            });
    }
}

impl LibraryCall for ImgMeanShift {
    fn name(&self) -> &str {
        "mean_shift"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgMeanShift,
            i: &[CallInput<'_, HostBuf>],
            o: &mut HostBuf,
        ) -> Result<()> {
            let n = s.win.len();
            let x: &[T] = host(&i[0], n);
            let y: &mut [T] = bytemuck::cast_slice_mut(o.bytes_mut());
            s.cpu::<T, A>(x, &mut y[..n]);
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
        let i = |v: usize, what: &str| crate::util::kernel_i64(v, what);
        let params = MeanShiftArgs {
            x: part(&inputs[0], self.dtype, n)?,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.win.batch, "mean_shift: batch")?,
            h: i(self.win.h, "mean_shift: h")?,
            w: i(self.win.w, "mean_shift: w")?,
            radius: i(self.win.radius, "mean_shift: radius")?,
            cvar: self.win.cvar,
            iters: iters_word(self.iters),
        };
        // SAFETY: `x` and `y` are checked views of `batch h w` elements (`ReadBuf`/
        // `WriteBuf::part` check them inside their allocations); the kernel reads `x` only at
        // window positions it has checked inside `[0, h) x [0, w)` of an image (window
        // centres are means of such positions) and writes `y` below the total.
        unsafe { launch_grid_stride(lane, &k, &params, n, THREADS) }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}

/// ArrayFire's `meanShift` of one-channel images (the last two axes; leading axes a batch,
/// e.g. the channels of a CHW image each on its own): each pixel follows the mean of the
/// pixels of its window (`max(1, floor(1.5 spatial_sigma))` each side, `spatial_sigma`
/// clamped to 11.5) whose value lies within `chromatic_sigma` of the current value, for at
/// most `iterations` rounds, and takes the value it ends at. The window moves to the mean
/// position (truncated); the value to the mean value (truncated for integer images; kept for
/// float images, where ArrayFire's CUDA kernel truncates too); it stops early when the
/// position and value move by at most 1 in all (`|di| + |dj| + change² <= 1`). The result has
/// the image's type.
///
/// # Errors
/// A sigma that is not positive and finite, or fewer than two axes.
///
/// ```
/// use cuprite_array::{Array, image::mean_shift};
/// // Two flat regions stay apart; the noise inside each is flattened.
/// let x = Array::from_slice(&[10u8, 12, 11, 90, 91, 89], &[1, 6])?;
/// let y = mean_shift(&x, 2.0, 5.0, 5)?.to_vec()?;
/// assert!(y[..3].iter().all(|&v| (10..=12).contains(&v)) && y[3..].iter().all(|&v| (89..=91).contains(&v)));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn mean_shift<T: ImageElement>(
    x: &Array<T>,
    spatial_sigma: f64,
    chromatic_sigma: f64,
    iterations: usize,
) -> Result<Array<T>> {
    let call = Arc::new(ImgMeanShift {
        dtype: T::DTYPE,
        win: AfWindow::of("mean_shift", x.shape(), spatial_sigma, chromatic_sigma)?,
        iters: iterations,
    });
    Ok(Array::from_node(Node::new(
        Op::Library(call, vec![x.node.clone()]),
        T::DTYPE,
        x.shape().to_vec(),
        x.device(),
    )))
}

#[cfg(test)]
mod tests {
    use super::iters_word;

    #[test]
    fn iterations_past_i64_are_i64_max() {
        assert_eq!(iters_word(0), 0);
        assert_eq!(iters_word(5), 5);
        assert_eq!(iters_word(i64::MAX as usize), i64::MAX);
        assert_eq!(iters_word(1 << 63), i64::MAX);
        assert_eq!(iters_word(usize::MAX), i64::MAX);
    }
}
