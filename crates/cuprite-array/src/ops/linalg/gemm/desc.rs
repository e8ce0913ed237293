//! What one product node is ([`Gemm`], its epilogue activation), and how each operand's
//! realised layout maps to an order, a leading dimension and per-product offsets.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::CallInput;
use crate::shape::{Layout, numel};
use cuprite_driver::blaslt::Order;

/// The activation of an epilogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Act {
    None,
    Relu,
    GeluTanh,
    /// `tanh(x)`: this crate's small kernel only (see [`Gemm::needs_small`]).
    Tanh,
}

/// What follows the activation: `out = scale · act(..) + beta · P`, with `P` an input (`m × n`,
/// one product) when `add` is set. Anything but [`Post::NONE`] comes only beside an activation,
/// never with C or an auxiliary result, and runs this crate's small kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Post {
    pub scale: f64,
    pub add: bool,
    pub beta: f64,
}

impl Post {
    /// Nothing after the activation.
    pub(crate) const NONE: Post = Post {
        scale: 1.0,
        add: false,
        beta: 0.0,
    };
}

/// A second result a single product stores beside D (cuBLASLt's gradient epilogues).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Aux {
    /// D only.
    None,
    /// `D = gelu(x)` (`act` is [`Act::GeluTanh`]) and, after it, the GELU input `x` (the
    /// pre-activation, bias included): `2·m·n` elements.
    GeluInput,
    /// `D = x · gelu'(pre)` with the pre-activation `pre` read from the last input (`m × n`,
    /// row-major, contiguous), and after it the sum of D over its rows (`n` elements, the bias
    /// gradient): `m·n + n` elements.
    GeluGrad,
    /// `D = x · gelu'(pre)` as for [`Aux::GeluGrad`], without the sum: `m·n` elements.
    GeluDeriv,
}

impl Aux {
    /// Whether the product reads the pre-activation (its last input).
    pub(super) fn reads_pre(self) -> bool {
        matches!(self, Aux::GeluGrad | Aux::GeluDeriv)
    }
}

/// `out[b] = act(alpha · A[b] · B[b] + beta · C[b] + bias)` for every index `b` of the output
/// batch shape, followed by the [`Post`] stage, with [`Aux`]'s second result after it for a
/// single product.
///
/// Inputs: A (`[..., m, k]`), B (`[..., k, n]`), then the bias (`n` elements) when `bias` is
/// set, then C (`m × n`, one product only) when `addend` is set, then the pre-activation when
/// `aux` is [`Aux::GeluGrad`] or [`Aux::GeluDeriv`], then the post addend `P` (`m × n`) when
/// `post.add` is set. The batch dimensions of A and B broadcast to `batch`
/// (right-aligned); the output is `batch × m × n` elements, row-major, under whatever shape the
/// node has (followed by the auxiliary result, see [`Aux`]).
#[derive(Clone, Debug)]
pub(crate) struct Gemm {
    pub dtype: DType,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub batch: Vec<usize>,
    pub alpha: f64,
    pub bias: bool,
    pub act: Act,
    pub tf32: bool,
    /// C is an input (scaled by `beta`).
    pub addend: bool,
    pub beta: f64,
    pub aux: Aux,
    /// After the activation ([`Post`]).
    pub post: Post,
}

/// How one operand's matrices lie: the order, leading dimension, and the offset (in elements)
/// of each product's matrix.
#[derive(Clone, Debug)]
pub(super) struct Operand {
    pub(super) order: Order,
    pub(super) ld: usize,
    pub(super) offset: usize,
    /// One stride for the whole flattened batch, when the batch collapses to one.
    pub(super) batch_stride: Option<usize>,
    /// Otherwise the offset of every product's matrix.
    pub(super) offsets: Vec<usize>,
}

/// The matrix order and leading dimension of an `r × c` matrix with strides `(sr, sc)`.
fn matrix_order(r: usize, c: usize, sr: isize, sc: isize) -> Option<(Order, usize)> {
    if r == 0 || c == 0 {
        // No element is read: any packed description does.
        return Some((Order::RowMajor, c.max(1)));
    }
    if sr < 0 || sc < 0 {
        return None;
    }
    let (sr, sc) = (sr as usize, sc as usize);
    if (sc == 1 || c <= 1) && (r <= 1 || sr >= c.max(1)) {
        return Some((Order::RowMajor, if r <= 1 { c.max(1) } else { sr }));
    }
    if (sr == 1 || r <= 1) && (c <= 1 || sc >= r.max(1)) {
        return Some((Order::ColMajor, if c <= 1 { r.max(1) } else { sc }));
    }
    None
}

/// Describes an operand of shape `shape` (at least 2-D) read through `layout`, broadcast over
/// `batch`; `None` when its matrices are neither row- nor column-major or a stride is negative.
pub(super) fn describe(shape: &[usize], layout: &Layout, batch: &[usize]) -> Option<Operand> {
    let nd = shape.len();
    if nd < 2 || layout.strides.len() != nd || batch.len() + 2 < nd {
        return None;
    }
    let (r, c) = (shape[nd - 2], shape[nd - 1]);
    let (order, ld) = matrix_order(r, c, layout.strides[nd - 2], layout.strides[nd - 1])?;
    // The stride of each output batch dimension in this operand (0 where it broadcasts).
    let lead = batch.len() + 2 - nd;
    let mut strides = Vec::with_capacity(batch.len());
    for (j, &b) in batch.iter().enumerate() {
        if j < lead {
            strides.push(0usize);
            continue;
        }
        let (ext, st) = (shape[j - lead], layout.strides[j - lead]);
        if ext == 1 || b <= 1 {
            strides.push(0);
        } else if st < 0 {
            return None;
        } else {
            strides.push(st as usize);
        }
    }
    // One stride for the whole batch when consecutive products are equally spaced.
    let mut single: Option<usize> = Some(0);
    let mut span = 1usize; // products covered by the inner dimensions seen so far
    let mut first = true;
    for j in (0..batch.len()).rev() {
        if batch[j] <= 1 {
            continue;
        }
        let want = single.and_then(|s| s.checked_mul(span));
        if first {
            single = Some(strides[j]);
            first = false;
        } else if want != Some(strides[j]) {
            single = None;
        }
        span = span.saturating_mul(batch[j]);
    }
    let count = numel(batch);
    let offsets = if single.is_some() {
        Vec::new()
    } else {
        let mut v = Vec::with_capacity(count);
        let mut idx = vec![0usize; batch.len()];
        for _ in 0..count {
            let mut o = layout.offset;
            for (i, s) in idx.iter().zip(&strides) {
                o = o.checked_add(i.checked_mul(*s)?)?;
            }
            v.push(o);
            for j in (0..batch.len()).rev() {
                idx[j] += 1;
                if idx[j] < batch[j] {
                    break;
                }
                idx[j] = 0;
            }
        }
        v
    };
    Some(Operand {
        order,
        ld,
        offset: layout.offset,
        batch_stride: single,
        offsets,
    })
}

impl Operand {
    /// The element offset of product `b`'s matrix.
    pub(super) fn at(&self, b: usize) -> usize {
        match self.batch_stride {
            Some(s) => self.offset + b * s,
            None => self.offsets[b],
        }
    }

    /// The last element (exclusive) any product reads, for an `r × c` matrix; `None` on
    /// overflow.
    pub(super) fn end(&self, r: usize, c: usize, count: usize) -> Option<usize> {
        if r == 0 || c == 0 || count == 0 {
            return Some(self.offset);
        }
        let (inner, outer) = match self.order {
            Order::RowMajor => (c, r),
            Order::ColMajor => (r, c),
        };
        let span = (outer - 1).checked_mul(self.ld)?.checked_add(inner)?;
        let last = match self.batch_stride {
            Some(s) => self.offset.checked_add((count - 1).checked_mul(s)?)?,
            None => *self.offsets.iter().max()?,
        };
        last.checked_add(span)
    }
}

impl Gemm {
    pub(super) fn count(&self) -> usize {
        numel(&self.batch)
    }

    pub(super) fn has_epilogue(&self) -> bool {
        self.bias
            || self.act != Act::None
            || self.alpha != 1.0
            || self.addend
            || self.aux != Aux::None
            || self.post != Post::NONE
    }

    /// Whether only this crate's small kernel can run the product: a `tanh` activation or a
    /// [`Post`] stage, which cuBLASLt's epilogues lack.
    pub(crate) fn needs_small(&self) -> bool {
        self.act == Act::Tanh || self.post != Post::NONE
    }

    /// The index of C among the inputs, when it is one.
    pub(super) fn addend_index(&self) -> Option<usize> {
        self.addend.then_some(2 + usize::from(self.bias))
    }

    /// The index of the pre-activation among the inputs, when it is one.
    pub(super) fn pre_index(&self) -> Option<usize> {
        self.aux
            .reads_pre()
            .then_some(2 + usize::from(self.bias) + usize::from(self.addend))
    }

    /// The index of the post addend among the inputs, when it is one.
    pub(super) fn post_index(&self) -> Option<usize> {
        self.post.add.then_some(
            2 + usize::from(self.bias)
                + usize::from(self.addend)
                + usize::from(self.aux.reads_pre()),
        )
    }

    /// The elements of the output: the products, then the auxiliary result.
    pub(super) fn out_len(&self) -> usize {
        let plane = self.m * self.n;
        match self.aux {
            Aux::None => self.count() * plane,
            Aux::GeluInput => 2 * plane,
            Aux::GeluGrad => plane + self.n,
            Aux::GeluDeriv => plane,
        }
    }

    /// Both operands described and checked against their buffers.
    pub(super) fn operands<B>(
        &self,
        inputs: &[CallInput<'_, B>],
        lens: [usize; 2],
    ) -> Result<[Operand; 2]> {
        let want = 2
            + usize::from(self.bias)
            + usize::from(self.addend)
            + usize::from(self.aux.reads_pre())
            + usize::from(self.post.add);
        if inputs.len() != want {
            return Err(Error::InvalidArgument(format!(
                "matmul takes {want} inputs, was given {}",
                inputs.len()
            )));
        }
        let dims = [(self.m, self.k), (self.k, self.n)];
        let mut out = Vec::with_capacity(2);
        for (i, name) in ["A", "B"].into_iter().enumerate() {
            let x = &inputs[i];
            let nd = x.shape.len();
            if x.dtype != self.dtype || nd < 2 || (x.shape[nd - 2], x.shape[nd - 1]) != dims[i] {
                return Err(Error::InvalidArgument(format!(
                    "matmul made for {} {} × {} {name} was given {:?} of {}",
                    self.dtype, dims[i].0, dims[i].1, x.shape, x.dtype
                )));
            }
            let d = describe(x.shape, x.layout, &self.batch).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "matmul operand {name} of shape {:?} has strides {:?} that are not a matrix \
                     layout",
                    x.shape, x.layout.strides
                ))
            })?;
            let end = d.end(dims[i].0, dims[i].1, self.count());
            if end.is_none_or(|e| e > lens[i]) {
                return Err(Error::InvalidArgument(format!(
                    "matmul operand {name} of shape {:?} through strides {:?} (offset {}) reaches \
                     past its {} elements",
                    x.shape, x.layout.strides, x.layout.offset, lens[i]
                )));
            }
            out.push(d);
        }
        if self.bias {
            let b = &inputs[2];
            if b.dtype != self.dtype || numel(b.shape) != self.n {
                return Err(Error::InvalidArgument(format!(
                    "matmul bias must be {} elements of {}, was {:?} of {}",
                    self.n, self.dtype, b.shape, b.dtype
                )));
            }
        }
        let plane = self.m * self.n;
        for (idx, name) in [
            (self.addend_index(), "C"),
            (self.pre_index(), "pre-activation"),
            (self.post_index(), "post addend"),
        ] {
            let Some(i) = idx else { continue };
            let x = &inputs[i];
            if self.count() != 1
                || x.dtype != self.dtype
                || numel(x.shape) != plane
                || !x.layout.is_contiguous(x.shape)
            {
                return Err(Error::InvalidArgument(format!(
                    "matmul {name} must be a contiguous {} × {} matrix of {} beside one product, \
                     was {:?} of {} (strides {:?}, {} products)",
                    self.m,
                    self.n,
                    self.dtype,
                    x.shape,
                    x.dtype,
                    x.layout.strides,
                    self.count()
                )));
            }
        }
        let b = out.pop().expect("two operands");
        let a = out.pop().expect("two operands");
        Ok([a, b])
    }
}
