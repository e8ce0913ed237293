//! One pass of a 1-d correlation along an axis with its taps in the launch's parameters
//! (`filters_corr1.cu`): the 1-d case of [`ImgCorrelate`] without a weights buffer, so that no
//! call uploads taps. The kernel sums as `filters_corr.cu`'s 1-d pass does, and the CPU twin is
//! [`ImgCorrelate::cpu`] with the same taps.

use super::filters_corr::ImgCorrelate;
use super::filters_elem::{Acc, ImageElement};
use super::filters_launch::{
    by_dtype, check_one_input, filter_kernel, filter_key, host, launch_grid_stride, part,
};
use super::filters_sep::{SEP_MAX_TAPS, Taps, constants};
use crate::codegen::{KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::storage::{DevBuf, HostBuf};

/// Threads a block.
const THREADS: usize = 256;

kernel_params! {
    /// The 1-d correlation along axis 1 of `batch` blocks of `n0 x n1 x n2` values.
    pub(super) struct Corr1Args<'a> {
        x: ReadBuf<'a> as "T",
        wt: Taps,
        y: WriteBuf<'a> as "T",
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        c1: i64,
        mode: i64,
        cval: f64,
        div: f64,
    }
}

/// The correlation `corr` (a 1-d pass along axis 1: `sym` nonzero, `m == [1, w.len(), 1]`)
/// with the taps `w` (at most [`SEP_MAX_TAPS`]), which travel in the launch's parameters.
#[derive(Debug)]
pub(crate) struct ImgCorr1 {
    pub corr: ImgCorrelate,
    pub w: Vec<f64>,
}

impl ImgCorr1 {
    /// The pass `corr` with the taps `w` by value, or `None` when it is no 1-d pass of at most
    /// [`SEP_MAX_TAPS`] taps (which then takes its taps from a buffer).
    pub(crate) fn of(corr: ImgCorrelate, w: &[f64]) -> std::result::Result<ImgCorr1, ImgCorrelate> {
        let m = corr.win.m;
        if corr.sym == 0 || m != [1, w.len(), 1] || !(1..=SEP_MAX_TAPS).contains(&w.len()) {
            return Err(corr);
        }
        Ok(ImgCorr1 {
            corr,
            w: w.to_vec(),
        })
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let c = &self.corr;
        if c.sym == 0 || c.win.m != [1, self.w.len(), 1] || self.w.len() > SEP_MAX_TAPS {
            return Err(Error::InvalidArgument(format!(
                "the 1-d image correlation was made for {:?} with {} taps",
                c.win,
                self.w.len()
            )));
        }
        check_one_input("1-d image correlation", self, c.dtype, c.win.len(), inputs)
    }

    /// The kernel's summation order (`C1_SYM`): 1, -1 or 2 as [`super::filters_corr::sym_of`].
    fn kernel(&self) -> KernelSource {
        let c = &self.corr;
        let defs = constants(&[
            ("IMG_TAPS", SEP_MAX_TAPS as i64),
            ("C1_M", self.w.len() as i64),
            ("C1_SYM", c.sym),
        ]);
        let defs = [
            defs.as_str(),
            super::boundary::Boundary::c_source(),
            include_str!("filters_taps.cu"),
        ]
        .concat();
        filter_kernel::<Corr1Args>(
            format!(
                "cuprite_img_corr1_{}_{}_{}",
                c.dtype.name(),
                self.w.len(),
                c.sym + 1
            ),
            c.dtype,
            &defs,
            include_str!("filters_corr1.cu"),
            "img_correlate1",
            THREADS,
        )
    }

    fn key(&self) -> u64 {
        filter_key(
            0x1a6e_c0a1,
            "img_correlate1",
            self.corr.dtype,
            (self.w.len(), self.corr.sym),
        )
    }
}

impl LibraryCall for ImgCorr1 {
    fn name(&self) -> &str {
        "correlate"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgCorr1,
            i: &[CallInput<'_, HostBuf>],
            o: &mut HostBuf,
        ) -> Result<()> {
            let n = s.corr.win.len();
            let x: &[T] = host(&i[0], n);
            let w: Vec<A> = s.w.iter().map(|&v| A::of(v)).collect();
            let y: &mut [T] = bytemuck::cast_slice_mut(o.bytes_mut());
            s.corr.cpu(x, &w, &mut y[..n]);
            Ok(())
        }
        by_dtype!(self.corr.dtype, go(self, inputs, out))
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let c = &self.corr;
        let n = c.win.len();
        if n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(lane.st, self.key(), || self.kernel())?;
        let i = |v: usize| v as i64;
        let params = Corr1Args {
            x: part(&inputs[0], c.dtype, n)?,
            wt: Taps::of(&self.w)?,
            y: WriteBuf::part(out, c.dtype, 0, n)?,
            batch: i(c.win.batch),
            n0: i(c.win.n[0]),
            n1: i(c.win.n[1]),
            n2: i(c.win.n[2]),
            c1: c.win.c[1],
            mode: i64::from(c.boundary.code()),
            cval: c.boundary.cval(),
            div: c.div,
        };
        // SAFETY: `x` and `y` are checked views of `batch n0 n1 n2` elements (`ReadBuf`/
        // `WriteBuf::part` check them inside their allocations, `Win::checked` the product),
        // the taps are values; the kernel reads `x` only at indices `img_map` keeps inside
        // `[0, n1)` along axis 1 of each line, and writes `y` only below the total.
        unsafe { launch_grid_stride(lane, &k, &params, n, THREADS) }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}
