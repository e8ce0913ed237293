//! What one FFT library call does (kind, shapes, axis groups), with the size arithmetic its
//! CPU and CUDA implementations share. Imports no sibling module.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::CallInput;

/// What one transform maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Complex to complex, exponent sign −1.
    Forward,
    /// Complex to complex, exponent sign +1 (unscaled: the norm is applied outside the call).
    Inverse,
    /// Real to complex along the real axis (forward), complex forward along the others.
    R2C,
    /// Complex inverse along all axes but the real one, then complex to real along it.
    C2R,
}

impl Kind {
    pub(crate) fn is_real(self) -> bool {
        matches!(self, Kind::R2C | Kind::C2R)
    }

    pub(crate) fn is_inverse(self) -> bool {
        matches!(self, Kind::Inverse | Kind::C2R)
    }
}

/// One FFT over `axes` of a contiguous input of `shape_in`, into a contiguous output of
/// `shape_out`. The input is already cropped or padded: every transformed axis has its logical
/// length on both sides, except the real axis (the last of `axes`) of R2C (output `n/2 + 1`)
/// and C2R (input `n/2 + 1`).
#[derive(Debug)]
pub(crate) struct FftCall {
    pub kind: Kind,
    /// `F32` or `F64`: the real type computed in.
    pub real: DType,
    pub shape_in: Vec<usize>,
    pub shape_out: Vec<usize>,
    /// Distinct axes in the caller's order; the last is the real axis of R2C and C2R.
    pub axes: Vec<usize>,
    /// Whether the input node was made for this call alone (no other array holds it), so
    /// that its realised buffer may be overwritten (cuFFT's complex-to-real transforms do).
    pub private_input: bool,
}

/// A run of consecutive axes `lo..hi` (one to three) transformed by one cuFFT plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    pub lo: usize,
    pub hi: usize,
}

impl FftCall {
    pub(crate) fn new(
        kind: Kind,
        real: DType,
        shape_in: Vec<usize>,
        shape_out: Vec<usize>,
        axes: Vec<usize>,
        private_input: bool,
    ) -> Result<FftCall> {
        if !matches!(real, DType::F32 | DType::F64) {
            return Err(Error::InvalidArgument(format!(
                "FFTs compute in f32 or f64, not {real}"
            )));
        }
        Ok(FftCall {
            kind,
            real,
            shape_in,
            shape_out,
            axes,
            private_input,
        })
    }

    /// The dtype of the input buffer.
    pub(crate) fn in_dtype(&self) -> DType {
        if self.kind == Kind::R2C {
            self.real
        } else {
            complex_of(self.real)
        }
    }

    /// The real axis of R2C and C2R (the last of `axes`).
    pub(crate) fn real_axis(&self) -> usize {
        self.axes[self.axes.len() - 1]
    }

    /// Checks that `x` is the input the call was made for.
    pub(crate) fn check<B>(&self, x: &CallInput<'_, B>) -> Result<()> {
        if x.dtype != self.in_dtype() || x.shape != &self.shape_in[..] {
            return Err(Error::InvalidArgument(format!(
                "an FFT made for {:?} of {} was given {:?} of {}",
                self.shape_in,
                self.in_dtype(),
                x.shape,
                x.dtype
            )));
        }
        Ok(())
    }

    /// The groups of axes the CUDA backend transforms with one plan each, in order: for R2C
    /// the real group first (its last axis the real one), then complex groups of the rest;
    /// for C2R the complex groups first, the real group last; for C2C runs of consecutive
    /// axes, three at most per group, the trailing (contiguous) group first.
    pub(crate) fn groups(&self) -> Vec<Group> {
        let mut rest: Vec<usize> = self.axes.clone();
        let mut real_group = None;
        if self.kind.is_real() {
            let r = self.real_axis();
            let mut lo = r;
            while lo > 0 && r + 1 - lo < 3 && self.axes.contains(&(lo - 1)) {
                lo -= 1;
            }
            rest.retain(|&a| a < lo || a > r);
            real_group = Some(Group { lo, hi: r + 1 });
        }
        rest.sort_unstable();
        // Runs of consecutive axes, cut into groups of at most three from the end.
        let mut runs: Vec<Group> = Vec::new();
        for &a in rest.iter().rev() {
            match runs.last_mut() {
                Some(g) if g.lo == a + 1 && g.hi - g.lo < 3 => g.lo = a,
                _ => runs.push(Group { lo: a, hi: a + 1 }),
            }
        }
        match (self.kind, real_group) {
            (Kind::R2C, Some(g)) => std::iter::once(g).chain(runs).collect(),
            (Kind::C2R, Some(g)) => runs.into_iter().chain(std::iter::once(g)).collect(),
            _ => runs,
        }
    }
}

/// `outer`, `inner`: the products of `shape` before `lo` and from `hi` on, checked.
pub(crate) fn outer_inner(shape: &[usize], g: Group) -> Result<(usize, usize)> {
    Ok((product(&shape[..g.lo])?, product(&shape[g.hi..])?))
}

/// The product of `dims`, or an `Err` naming them when it overflows.
pub(crate) fn product(dims: &[usize]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |p, &d| p.checked_mul(d))
        .ok_or_else(|| Error::InvalidArgument(format!("the sizes {dims:?} overflow usize")))
}

/// The complex dtype of real dtype `d` (f64 → c64, else c32).
pub(crate) fn complex_of(d: DType) -> DType {
    if d == DType::F64 {
        DType::C64
    } else {
        DType::C32
    }
}
