//! The parameters of a generated element-wise or reduction kernel, from one description:
//! [`each_param`] walks them in order once, and both the kernel's signature ([`params`]) and
//! the launch's argument words ([`ParamPlan`]) are read off that walk, so they cannot drift
//! apart. Every parameter is one 8-byte word.

use super::variant::{Variant, const_words};
use crate::dtype::{DType, Scalar};
use crate::graph::Program;
use crate::shape::{Layout, numel};
use crate::util::Inline;

/// One kernel parameter.
#[derive(Clone, Copy)]
enum Param {
    /// Base pointer of input `i`.
    In(usize),
    /// Element count of gathered input `i`.
    GatherLen(usize),
    /// Offset (elements) of input `i`.
    Offset(usize),
    /// Stride of input `i` along axis `d`.
    Stride(usize, usize),
    /// Pointer of output `o`.
    Out(usize),
    /// Offset of a strided output.
    OutOffset,
    /// Stride of a strided output along axis `d`.
    OutStride(usize),
    /// Number of elements.
    Len,
    /// Extent of axis `d`.
    Extent(usize),
    /// Constant `k` (its real part, for complex constants).
    Const(usize),
    /// Imaginary part of complex constant `k`.
    ConstIm(usize),
}

/// Calls `f` with each parameter of a kernel of `p` in variant `v` writing `n_out` outputs.
fn each_param(p: &Program, v: Variant, n_out: usize, mut f: impl FnMut(Param)) {
    let nd = p.shape.len();
    for (i, inp) in p.inputs.iter().enumerate() {
        f(Param::In(i));
        if inp.gather_len.is_some() {
            f(Param::GatherLen(i));
        } else {
            f(Param::Offset(i));
            if !inp.layout.is_contiguous(&p.shape) {
                (0..nd).for_each(|d| f(Param::Stride(i, d)));
            }
        }
    }
    (0..n_out).for_each(|o| f(Param::Out(o)));
    if v.strided_out {
        f(Param::OutOffset);
        (0..nd).for_each(|d| f(Param::OutStride(d)));
    }
    f(Param::Len);
    (0..nd).for_each(|d| f(Param::Extent(d)));
    for (k, c) in p.consts.iter().enumerate() {
        f(Param::Const(k));
        if matches!(c, Scalar::C32(_) | Scalar::C64(_)) {
            f(Param::ConstIm(k));
        }
    }
}

/// The kernel's parameter list (C declarations, comma-separated).
pub(super) fn params(p: &Program, v: Variant, n_out: usize, out_dtypes: &[DType]) -> String {
    let mut s = Vec::new();
    each_param(p, v, n_out, |param| {
        s.push(match param {
            Param::In(i) => format!(
                "const {}* __restrict__ in{i}",
                p.inputs[i].dtype.c_storage()
            ),
            Param::GatherLen(i) => format!("u64t len{i}"),
            Param::Offset(i) => format!("i64t off{i}"),
            Param::Stride(i, d) => format!("i64t st{i}_{d}"),
            Param::Out(o) => format!("{}* __restrict__ out{o}", out_dtypes[o].c_storage()),
            Param::OutOffset => "i64t ooff".into(),
            Param::OutStride(d) => format!("i64t ost{d}"),
            Param::Len => "u64t n".into(),
            Param::Extent(d) => format!("u64t s{d}"),
            Param::Const(k) => format!("u64t k{k}"),
            Param::ConstIm(k) => format!("u64t k{k}i"),
        })
    });
    s.join(", ")
}

/// The launch's argument words for a kernel made with [`params`].
pub(crate) struct ParamPlan {
    /// Inline up to 24 words (no allocation for common kernels).
    pub words: Inline<u64, 24>,
}

impl ParamPlan {
    /// The words: `in_ptrs[i]` are the input base pointers, `out_ptrs` the outputs, and
    /// `out_layout` the layout of a strided output.
    pub fn new(
        p: &Program,
        v: Variant,
        in_ptrs: &[u64],
        out_ptrs: &[u64],
        out_layout: Option<&Layout>,
    ) -> ParamPlan {
        let mut w = Inline::new();
        // A complex constant's words, read once for its real and once for its imaginary part.
        let const_word = |k: usize, part: usize| const_words(p.consts[k]).nth(part).unwrap_or(0);
        each_param(p, v, out_ptrs.len(), |param| {
            w.push(match param {
                Param::In(i) => in_ptrs[i],
                Param::GatherLen(i) => p.inputs[i].gather_len.unwrap_or(0) as u64,
                Param::Offset(i) => p.inputs[i].layout.offset as u64,
                Param::Stride(i, d) => p.inputs[i].layout.strides[d] as i64 as u64,
                Param::Out(o) => out_ptrs[o],
                Param::OutOffset => out_layout.map_or(0, |l| l.offset as u64),
                Param::OutStride(d) => out_layout.map_or(0, |l| l.strides[d] as i64 as u64),
                Param::Len => numel(&p.shape) as u64,
                Param::Extent(d) => p.shape[d] as u64,
                Param::Const(k) => const_word(k, 0),
                Param::ConstIm(k) => const_word(k, 1),
            })
        });
        ParamPlan { words: w }
    }
}

/// Where one argument word of a kernel comes from, for a launch that fills the words without
/// its program (the warm path of a small op).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WordFrom {
    /// The base pointer of input `i`.
    In(usize),
    /// The offset (elements) of input `i`.
    Offset(usize),
    /// The output pointer.
    Out,
    /// The number of elements.
    Len,
    /// The extent of axis `d`.
    Extent(usize),
    /// Word `part` of constant `k` (see `const_words`).
    Const(usize, usize),
}

/// The sources of the argument words of `p`'s kernel in variant `v` with one contiguous output,
/// in order; `None` when a word depends on more than inputs' pointers and offsets, the output
/// pointer, the shape and the constants (strided or gathered inputs, a strided output).
pub(crate) fn word_sources(p: &Program, v: Variant) -> Option<Inline<WordFrom, 24>> {
    let mut w = Inline::new();
    let mut all = !v.strided_out;
    each_param(p, v, 1, |param| {
        w.push(match param {
            Param::In(i) => WordFrom::In(i),
            Param::Offset(i) => WordFrom::Offset(i),
            Param::Out(_) => WordFrom::Out,
            Param::Len => WordFrom::Len,
            Param::Extent(d) => WordFrom::Extent(d),
            Param::Const(k) => WordFrom::Const(k, 0),
            Param::ConstIm(k) => WordFrom::Const(k, 1),
            Param::GatherLen(_) | Param::Stride(..) | Param::OutOffset | Param::OutStride(_) => {
                all = false;
                WordFrom::Len
            }
        })
    });
    all.then_some(w)
}
