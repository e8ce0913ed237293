//! A separable filter of the last two axes in one pass over memory (`filters_sep.cu`): the
//! correlation along the rows axis and along the columns axis, in SciPy's order, with the
//! intermediate kept in shared memory. Its CPU twin is two passes of the n-d correlation
//! (`filters_corr.rs`), which is what SciPy computes.

use super::boundary::Boundary;
use super::filters_corr::{ImgCorrelate, Win};
use super::filters_elem::{Acc, ImageElement, header, wide};
use super::filters_launch::{by_dtype, grid_for, host, part};
use crate::codegen::{Helpers, KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// Threads a block (`SEP_THREADS` in the kernel).
const THREADS: usize = 256;
/// The output tile's side (`SEP_T`).
const TILE: usize = 32;
/// The most taps a pass of the fused kernel takes (its taps live in registers).
pub(crate) const SEP_MAX_TAPS: usize = 33;
/// The most dynamic shared memory the fused kernel asks for.
const SHARED_MAX: usize = 48 * 1024;

kernel_params! {
    /// The separable filter of `batch` images of `h x w`.
    pub(super) struct SepArgs<'a> {
        x: ReadBuf<'a> as "T",
        wy: ReadBuf<'a> as "C",
        wx: ReadBuf<'a> as "C",
        y: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        cy: i64,
        cx: i64,
        mode: i64,
        cval: f64,
        divy: f64,
        divx: f64,
    }
}

/// One pass of a separable filter: `m` taps with centre `c` summed in the order `sym`
/// (`filters_corr::sym_of`), the sum divided by `div`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pass1 {
    pub m: usize,
    pub c: i64,
    pub div: f64,
    pub sym: i64,
}

/// Input 0 (`batch` images of `h x w`, `dtype`) filtered by input 1 (`y.m` taps along rows)
/// and input 2 (`x.m` taps along columns), both in the working type; rows first unless
/// `xfirst`.
#[derive(Debug)]
pub(crate) struct ImgSep2 {
    pub dtype: DType,
    pub batch: usize,
    pub h: usize,
    pub w: usize,
    pub y: Pass1,
    pub x: Pass1,
    pub xfirst: bool,
    pub boundary: Boundary,
}

/// The kernel's code of a summation order: 1 symmetric, -1 antisymmetric, 0 plain.
fn sym_c(sym: i64) -> i64 {
    if sym == 2 { 0 } else { sym }
}

/// The bytes of dynamic shared memory the kernel needs for taps `my`, `mx` in a working type
/// of `esize` bytes (the kernel's `TILE + MR * mc`).
fn shared_bytes(my: usize, mx: usize, xfirst: bool, esize: usize) -> usize {
    let (sh, sw) = (TILE + my - 1, TILE + mx - 1);
    let tile = (sh * (sw | 1)).max(TILE * (TILE + 1));
    let (mr, mc) = if xfirst { (sh, TILE) } else { (TILE, sw) };
    (tile + mr * (mc | 1)) * esize
}

impl ImgSep2 {
    /// Whether the fused kernel takes these taps (else the filter runs as two passes).
    pub(crate) fn fits(dtype: DType, my: usize, mx: usize, xfirst: bool) -> bool {
        let esize = if wide(dtype) { 8 } else { 4 };
        (1..=SEP_MAX_TAPS).contains(&my)
            && (1..=SEP_MAX_TAPS).contains(&mx)
            && shared_bytes(my, mx, xfirst, esize) <= SHARED_MAX
    }

    fn esize(&self) -> usize {
        if wide(self.dtype) { 8 } else { 4 }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let wt = if wide(self.dtype) {
            DType::F64
        } else {
            DType::F32
        };
        let ok = inputs.len() == 3
            && inputs[0].dtype == self.dtype
            && inputs[1].dtype == wt
            && inputs[2].dtype == wt
            && numel(inputs[0].shape) == self.batch * self.h * self.w
            && numel(inputs[1].shape) == self.y.m
            && numel(inputs[2].shape) == self.x.m
            && Self::fits(self.dtype, self.y.m, self.x.m, self.xfirst);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the separable image filter made for {:?} was given {:?}",
                self,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    pub(crate) fn kernel(&self) -> KernelSource {
        let name = format!(
            "cuprite_img_sep2_{}_{}x{}_{}{}{}",
            self.dtype.name(),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym) + 1,
            sym_c(self.x.sym) + 1,
            if self.xfirst { "_xf" } else { "" }
        );
        let body = format!(
            "{}constexpr int SEP_MY = {};\nconstexpr int SEP_MX = {};\n\
             constexpr int SEP_SYMY = {};\nconstexpr int SEP_SYMX = {};\n\
             constexpr bool SEP_XFIRST = {};\n{}{}{}",
            header(self.dtype),
            self.y.m,
            self.x.m,
            sym_c(self.y.sym),
            sym_c(self.x.sym),
            self.xfirst,
            Boundary::c_source(),
            include_str!("filters_sep.cu"),
            crate::codegen::entry::<SepArgs>(&name, &THREADS.to_string(), "img_sep2")
        );
        KernelSource::generated(name, &body, Helpers::of_dtype(self.dtype))
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x1a6e_5e92);
        "img_sep2".hash(&mut h);
        self.dtype.code().hash(&mut h);
        (self.y.m, self.x.m, self.xfirst, self.y.sym, self.x.sym).hash(&mut h);
        h.finish()
    }

    /// One pass of the CPU twin: along rows (`rows`) or columns, as a 1-d correlation along
    /// the middle axis of a `[batch, n, inner]` block.
    fn pass(&self, rows: bool) -> ImgCorrelate {
        let p = if rows { self.y } else { self.x };
        let (batch, n, inner) = if rows {
            (self.batch, self.h, self.w)
        } else {
            (self.batch * self.h, self.w, 1)
        };
        ImgCorrelate {
            dtype: self.dtype,
            win: Win {
                batch,
                n: [1, n, inner],
                m: [1, p.m, 1],
                c: [0, p.c, 0],
            },
            boundary: self.boundary,
            div: p.div,
            sym: p.sym,
        }
    }

    fn run_host<T: ImageElement, A: Acc>(
        &self,
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        let n = self.batch * self.h * self.w;
        let x: &[T] = host(&inputs[0], n);
        let wy: &[A] = host(&inputs[1], self.y.m);
        let wx: &[A] = host(&inputs[2], self.x.m);
        let (first, second, w1, w2) = if self.xfirst {
            (self.pass(false), self.pass(true), wx, wy)
        } else {
            (self.pass(true), self.pass(false), wy, wx)
        };
        let mut mid = vec![T::store(0.0); n];
        first.cpu(x, w1, &mut mid);
        let o: &mut [T] = bytemuck::cast_slice_mut(out.bytes_mut());
        second.cpu(&mid, w2, &mut o[..n]);
        Ok(())
    }
}

impl LibraryCall for ImgSep2 {
    fn name(&self) -> &str {
        "separable filter"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        fn go<T: ImageElement, A: Acc>(
            s: &ImgSep2,
            i: &[CallInput<'_, HostBuf>],
            o: &mut HostBuf,
        ) -> Result<()> {
            s.run_host::<T, A>(i, o)
        }
        by_dtype!(self.dtype, go(self, inputs, out))
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let n = self.batch * self.h * self.w;
        if n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let i = |v: usize| v as i64;
        let params = SepArgs {
            x: part(&inputs[0], self.dtype, n)?,
            wy: part(&inputs[1], inputs[1].dtype, self.y.m)?,
            wx: part(&inputs[2], inputs[2].dtype, self.x.m)?,
            y: WriteBuf::part(out, self.dtype, 0, n)?,
            batch: i(self.batch),
            h: i(self.h),
            w: i(self.w),
            cy: self.y.c,
            cx: self.x.c,
            mode: i64::from(self.boundary.code()),
            cval: self.boundary.cval(),
            divy: self.y.div,
            divx: self.x.div,
        };
        let tiles = self.batch * self.h.div_ceil(TILE) * self.w.div_ceil(TILE);
        let grid = grid_for(u64::from(st.sms), 2, tiles, 1);
        let shared = shared_bytes(self.y.m, self.x.m, self.xfirst, self.esize());
        let a = params.args();
        // SAFETY: `x` and `y` are checked views of `batch h w` elements, `wy` and `wx` of their
        // tap counts (`ReadBuf`/`WriteBuf::part` check them inside their allocations); the
        // kernel reads `x` only at `img_map`ped indices inside `[0, h) x [0, w)` of each
        // image, writes `y` only at outputs inside them, and its shared memory is the
        // `shared` bytes asked for here (the kernel's `TILE + MR * mc` values, at most 48 KiB
        // as `fits` checked).
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (THREADS as u32, 1, 1),
                shared as u32,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}
