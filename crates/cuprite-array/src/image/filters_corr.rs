//! The n-d correlation of the image filters as one library call: a kernel (`filters_corr.cu`)
//! and its CPU twin on rayon, both summing every output over the weights in row-major order
//! in the working type of the data (`filters_elem.rs`), with the boundary mapping of
//! `boundary.rs`/`boundary.cu`.

use super::boundary::Boundary;
use super::filters_elem::{Acc, ImageElement, wide};
use super::filters_launch::{by_dtype, filter_kernel, filter_key, host, launch_grid_stride, part};
use crate::codegen::{KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::{checked_numel, numel};
use crate::storage::{DevBuf, HostBuf};
use rayon::prelude::*;

/// Threads a block.
const THREADS: usize = 256;

kernel_params! {
    /// The correlation of `batch` blocks of `n0 x n1 x n2` values with `m0 x m1 x m2` weights.
    pub(super) struct CorrArgs<'a> {
        x: ReadBuf<'a> as "T",
        w: ReadBuf<'a> as "C",
        y: WriteBuf<'a> as "T",
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        m0: i64,
        m1: i64,
        m2: i64,
        c0: i64,
        c1: i64,
        c2: i64,
        mode: i64,
        cval: f64,
        div: f64,
        sym: i64,
    }
}

/// A block of `batch` images of `n` values (three axes, leading ones 1 where fewer are
/// filtered), filtered with a window of `m` values whose centre is `c` along each axis
/// (input index `k + j - c` for output `k` and tap `j`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Win {
    pub batch: usize,
    pub n: [usize; 3],
    pub m: [usize; 3],
    pub c: [i64; 3],
}

impl Win {
    /// Checks that the element counts fit.
    pub(crate) fn checked(self) -> Result<Win> {
        checked_numel(&[self.batch, self.n[0], self.n[1], self.n[2]])?;
        checked_numel(&self.m)?;
        Ok(self)
    }
    pub(crate) fn len(&self) -> usize {
        self.batch * numel(&self.n)
    }
    /// The input index along axis `a` for output `k` and tap `j`, mapped by `b`; `None` for
    /// the constant.
    pub(crate) fn at(&self, b: Boundary, a: usize, k: usize, j: usize) -> Option<usize> {
        b.map(k as i64 + j as i64 - self.c[a], self.n[a] as i64)
            .map(|i| i as usize)
    }
}

/// The correlation of input 0 (the image, `dtype`, `win.len()` values) with input 1 (the
/// weights in the working type, `m0 m1 m2` values), divided by `div`.
#[derive(Debug)]
pub(crate) struct ImgCorrelate {
    pub dtype: DType,
    pub win: Win,
    pub boundary: Boundary,
    pub div: f64,
    /// The summation order ([`sym_of`] for a 1-d pass along axis 1; 0 for the n-d sum, which
    /// leaves out weights of magnitude at most `f64::EPSILON` as SciPy's `correlate`).
    pub sym: i64,
}

/// The summation order of SciPy's `correlate1d` for the 1-d weights `w`: 1 when they are
/// symmetric (an odd count, `|w[c + i] - w[c - i]| <= f64::EPSILON`), -1 when antisymmetric,
/// else 2.
pub(crate) fn sym_of(w: &[f64]) -> i64 {
    let (m, h) = (w.len(), w.len() / 2);
    if m % 2 == 1 {
        if (1..=h).all(|i| (w[h + i] - w[h - i]).abs() <= f64::EPSILON) {
            return 1;
        }
        if (1..=h).all(|i| (w[h + i] + w[h - i]).abs() <= f64::EPSILON) {
            return -1;
        }
    }
    2
}

impl ImgCorrelate {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let wt = if wide(self.dtype) {
            DType::F64
        } else {
            DType::F32
        };
        let ok = inputs.len() == 2
            && inputs[0].dtype == self.dtype
            && inputs[1].dtype == wt
            && numel(inputs[0].shape) == self.win.len()
            && numel(inputs[1].shape) == numel(&self.win.m);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the image correlation made for {:?} of {} was given {:?}",
                self.win,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    pub(crate) fn kernel(&self) -> KernelSource {
        filter_kernel::<CorrArgs>(
            format!("cuprite_img_correlate_{}", self.dtype.name()),
            self.dtype,
            Boundary::c_source(),
            include_str!("filters_corr.cu"),
            "img_correlate",
            THREADS,
        )
    }

    fn key(&self) -> u64 {
        filter_key(0x1a6e_c044, "img_correlate", self.dtype, ())
    }

    pub(crate) fn cpu<T: ImageElement, A: Acc>(&self, x: &[T], w: &[A], y: &mut [T]) {
        let win = self.win;
        let [n0, n1, n2] = win.n;
        let b = self.boundary;
        let cv = A::of(b.cval());
        let div = A::of(self.div);
        y.par_chunks_mut(n2.max(1))
            .enumerate()
            .for_each(|(line, out)| {
                let k1 = line % n1;
                let (k0, bi) = ((line / n1) % n0, line / n1 / n0);
                let xb = &x[bi * n0 * n1 * n2..][..n0 * n1 * n2];
                for (k2, o) in out.iter_mut().enumerate() {
                    let mut acc = if self.sym == 0 {
                        self.sum_nd(xb, w, [k0, k1, k2], cv)
                    } else {
                        let tap = |j: usize| match win.at(b, 1, k1, j) {
                            Some(i) => A::of(xb[(k0 * n1 + i) * n2 + k2].to_f64()),
                            None => cv,
                        };
                        sum_1d(self.sym, w, tap)
                    };
                    if self.div != 1.0 {
                        acc = acc / div;
                    }
                    *o = T::store(acc.f64());
                }
            });
    }

    /// The n-d sum of output `k` over the weights in row-major order, leaving out small ones.
    fn sum_nd<T: ImageElement, A: Acc>(&self, xb: &[T], w: &[A], k: [usize; 3], cv: A) -> A {
        let (win, b) = (self.win, self.boundary);
        let [_, n1, n2] = win.n;
        let [m0, m1, m2] = win.m;
        let mut acc = A::ZERO;
        for j0 in 0..m0 {
            let i0 = win.at(b, 0, k[0], j0);
            for j1 in 0..m1 {
                let i1 = win.at(b, 1, k[1], j1);
                let wl = &w[(j0 * m1 + j1) * m2..][..m2];
                for (j2, &wv) in wl.iter().enumerate() {
                    if wv.f64().abs() <= f64::EPSILON {
                        continue;
                    }
                    let v = match (i0, i1, win.at(b, 2, k[2], j2)) {
                        (Some(i0), Some(i1), Some(i2)) => {
                            A::of(xb[(i0 * n1 + i1) * n2 + i2].to_f64())
                        }
                        _ => cv,
                    };
                    acc = acc + wv * v;
                }
            }
        }
        acc
    }

    fn run_host<T: ImageElement, A: Acc>(
        &self,
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) {
        let n = self.win.len();
        let x: &[T] = host(&inputs[0], n);
        let w: &[A] = host(&inputs[1], numel(&self.win.m));
        let o: &mut [T] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu(x, w, &mut o[..n]);
    }
}

/// The 1-d sum of SciPy's `correlate1d` over the taps `w` in the order `sym` ([`sym_of`]),
/// with `tap(j)` the value under tap `j`.
pub(crate) fn sum_1d<A: Acc>(sym: i64, w: &[A], tap: impl Fn(usize) -> A) -> A {
    let m = w.len();
    let h = m / 2;
    let mut acc;
    if sym == 1 || sym == -1 {
        acc = tap(h) * w[h];
        for t in 0..h {
            let pair = if sym == 1 {
                tap(t) + tap(m - 1 - t)
            } else {
                tap(t) - tap(m - 1 - t)
            };
            acc = acc + pair * w[t];
        }
    } else {
        acc = tap(m - 1) * w[m - 1];
        for (t, &wt) in w.iter().enumerate().take(m - 1) {
            acc = acc + tap(t) * wt;
        }
    }
    acc
}

impl LibraryCall for ImgCorrelate {
    fn name(&self) -> &str {
        "correlate"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgCorrelate,
            i: &[CallInput<'_, HostBuf>],
            o: &mut HostBuf,
        ) -> Result<()> {
            s.run_host::<T, A>(i, o);
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
        let (wn, m, c) = (self.win.n, self.win.m, self.win.c);
        let params = CorrArgs {
            x: part(&inputs[0], self.dtype, n)?,
            w: part(&inputs[1], inputs[1].dtype, numel(&m))?,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.win.batch),
            n0: i(wn[0]),
            n1: i(wn[1]),
            n2: i(wn[2]),
            m0: i(m[0]),
            m1: i(m[1]),
            m2: i(m[2]),
            c0: c[0],
            c1: c[1],
            c2: c[2],
            mode: i64::from(self.boundary.code()),
            cval: self.boundary.cval(),
            div: self.div,
            sym: self.sym,
        };
        // SAFETY: `x` and `y` are checked views of `batch n0 n1 n2` elements and `w` of `m0 m1
        // m2` (`ReadBuf`/`WriteBuf::part` check them inside their allocations, and `Win::checked`
        // the products); the kernel reads `x` only at indices `img_map` keeps inside `[0, n)`
        // along each axis, `w` below `m0 m1 m2`, and writes `y` only below the total.
        unsafe { launch_grid_stride(lane, &k, &params, n, THREADS) }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}
