//! The (batched) matrix product as a library call: cuBLASLt on CUDA, faer on the CPU, with the
//! epilogue (scale, bias, ReLU, GELU) folded in when the lazy graph asks for it.
//!
//! Owns the call node [`Gemm`], how an operand's realised layout maps to a leading dimension
//! and a batch stride (so transposed, padded and broadcast operands are read in place), and
//! the per-stream cuBLASLt handles. Shapes and NumPy semantics are decided by `products`.

use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::graph::{CallInput, Epilogue, LibraryCall, Node};
use crate::runtime::DeviceState;
use crate::shape::{Layout, numel};
use crate::storage::{DevBuf, HostBuf};
use cuprite::blaslt::{self, BlasLt, Order};
use cuprite::{DeviceBuffer, DeviceRead, DeviceWrite, Stream, Tracker};
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

static ALLOW_TF32: AtomicBool = AtomicBool::new(false);

/// Lets `f32` (and `c32`) matrix products on CUDA use TF32 tensor cores (inputs rounded to a
/// 10-bit mantissa, `f32` accumulation), like PyTorch's `allow_tf32`. Off by default: products
/// are computed in full `f32`. Applies to products built after the call.
///
/// ```
/// cuprite_array::linalg::set_allow_tf32(true);
/// assert!(cuprite_array::linalg::allow_tf32());
/// cuprite_array::linalg::set_allow_tf32(false);
/// ```
pub fn set_allow_tf32(on: bool) {
    ALLOW_TF32.store(on, Ordering::Relaxed);
}

/// Whether TF32 is allowed for `f32` products (see [`set_allow_tf32`]).
///
/// ```
/// assert!(!cuprite_array::linalg::allow_tf32());
/// ```
pub fn allow_tf32() -> bool {
    ALLOW_TF32.load(Ordering::Relaxed)
}

/// The activation of an epilogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Act {
    None,
    Relu,
    GeluTanh,
}

/// `out[b] = act(alpha · A[b] · B[b] + bias)` for every index `b` of the output batch shape.
///
/// Inputs: A (`[..., m, k]`), B (`[..., k, n]`), then the bias (`n` elements) when `bias` is
/// set. The batch dimensions of A and B broadcast to `batch` (right-aligned); the output is
/// `batch × m × n` elements, row-major, under whatever shape the node has.
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
}

/// How one operand's matrices lie: the order, leading dimension, and the offset (in elements)
/// of each product's matrix.
#[derive(Clone, Debug)]
struct Operand {
    order: Order,
    ld: usize,
    offset: usize,
    /// One stride for the whole flattened batch, when the batch collapses to one.
    batch_stride: Option<usize>,
    /// Otherwise the offset of every product's matrix.
    offsets: Vec<usize>,
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
fn describe(shape: &[usize], layout: &Layout, batch: &[usize]) -> Option<Operand> {
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
    fn at(&self, b: usize) -> usize {
        match self.batch_stride {
            Some(s) => self.offset + b * s,
            None => self.offsets[b],
        }
    }

    /// The last element (exclusive) any product reads, for an `r × c` matrix; `None` on
    /// overflow.
    fn end(&self, r: usize, c: usize, count: usize) -> Option<usize> {
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
    fn count(&self) -> usize {
        numel(&self.batch)
    }

    fn has_epilogue(&self) -> bool {
        self.bias || self.act != Act::None || self.alpha != 1.0
    }

    /// Both operands described and checked against their buffers.
    fn operands<B>(&self, inputs: &[CallInput<'_, B>], lens: [usize; 2]) -> Result<[Operand; 2]> {
        let want = if self.bias { 3 } else { 2 };
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
        let b = out.pop().expect("two operands");
        let a = out.pop().expect("two operands");
        Ok([a, b])
    }
}

// ---------------------------------------------------------------------------------------------
// CPU: faer (or a plain loop without the `faer` feature).

/// Element types the CPU product handles natively.
trait CpuElem: Copy + Send + Sync + bytemuck::Pod + 'static {
    fn from_f64(x: f64) -> Self;
    fn plus(self, o: Self) -> Self;
    /// The epilogue (bias already added): activation.
    fn act(self, a: Act) -> Self;
}

macro_rules! real_elem {
    ($t:ty) => {
        impl CpuElem for $t {
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn plus(self, o: Self) -> Self {
                self + o
            }
            fn act(self, a: Act) -> Self {
                match a {
                    Act::None => self,
                    // max(x, 0) keeping NaN (as the element-wise maximum does).
                    Act::Relu => {
                        if self < 0.0 {
                            0.0
                        } else {
                            self
                        }
                    }
                    Act::GeluTanh => {
                        // sqrt(2 / pi)
                        const C: f64 = 0.797_884_560_802_865_4;
                        let c = C as $t;
                        let x = self;
                        0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
                    }
                }
            }
        }
    };
}
real_elem!(f32);
real_elem!(f64);

macro_rules! complex_elem {
    ($t:ty, $r:ty) => {
        impl CpuElem for $t {
            fn from_f64(x: f64) -> Self {
                <$t>::new(x as $r, 0.0)
            }
            fn plus(self, o: Self) -> Self {
                self + o
            }
            fn act(self, _: Act) -> Self {
                self
            }
        }
    };
}
complex_elem!(num_complex::Complex<f32>, f32);
complex_elem!(num_complex::Complex<f64>, f64);

#[cfg(feature = "faer")]
trait Kernel: CpuElem + faer::traits::ComplexField {}
#[cfg(feature = "faer")]
impl<T: CpuElem + faer::traits::ComplexField> Kernel for T {}
#[cfg(not(feature = "faer"))]
trait Kernel: CpuElem + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self> {}
#[cfg(not(feature = "faer"))]
impl<T: CpuElem + std::ops::Mul<Output = T> + std::ops::Add<Output = T>> Kernel for T {}

/// The strides (row, column) of an operand's matrix.
fn strides(o: &Operand) -> (isize, isize) {
    match o.order {
        Order::RowMajor => (o.ld as isize, 1),
        Order::ColMajor => (1, o.ld as isize),
    }
}

/// One product `dst = alpha · a · b` (row-major `m × n` dst).
#[allow(clippy::too_many_arguments)]
fn product<T: Kernel>(
    a: &[T],
    oa: (usize, (isize, isize)),
    b: &[T],
    ob: (usize, (isize, isize)),
    dst: &mut [T],
    (m, n, k): (usize, usize, usize),
    alpha: T,
    parallel: bool,
) {
    if m == 0 || n == 0 {
        return;
    }
    #[cfg(feature = "faer")]
    {
        use faer::{Accum, MatMut, MatRef, Par};
        // SAFETY: `Gemm::operands` checked that every element the strides reach from these
        // offsets lies inside the input slices; `dst` is a row-major `m × n` block of the
        // output, exclusively borrowed; faer reads and writes only through these views.
        let (av, bv, dv) = unsafe {
            (
                MatRef::<T>::from_raw_parts(a.as_ptr().add(oa.0), m, k, oa.1.0, oa.1.1),
                MatRef::<T>::from_raw_parts(b.as_ptr().add(ob.0), k, n, ob.1.0, ob.1.1),
                MatMut::<T>::from_raw_parts_mut(dst.as_mut_ptr(), m, n, n as isize, 1),
            )
        };
        let par = if parallel { Par::rayon(0) } else { Par::Seq };
        faer::linalg::matmul::matmul(dv, Accum::Replace, av, bv, alpha, par);
    }
    #[cfg(not(feature = "faer"))]
    {
        let _ = parallel;
        let at = |i: usize, p: usize| {
            a[(oa.0 as isize + i as isize * oa.1.0 + p as isize * oa.1.1) as usize]
        };
        let bt = |p: usize, j: usize| {
            b[(ob.0 as isize + p as isize * ob.1.0 + j as isize * ob.1.1) as usize]
        };
        for i in 0..m {
            for j in 0..n {
                let mut acc = T::from_f64(0.0);
                for p in 0..k {
                    acc = acc + at(i, p) * bt(p, j);
                }
                dst[i * n + j] = alpha * acc;
            }
        }
    }
}

impl Gemm {
    /// The product in `T` (f32, f64, c32, c64): inputs as `T` slices, output written in place.
    fn cpu_typed<T: Kernel>(
        &self,
        ops: &[Operand; 2],
        a: &[T],
        b: &[T],
        bias: Option<&[T]>,
        out: &mut [T],
    ) {
        use rayon::prelude::*;
        let (m, n, k) = (self.m, self.n, self.k);
        let plane = m * n;
        if plane == 0 {
            return;
        }
        let alpha = T::from_f64(self.alpha);
        let (oa, ob) = (&ops[0], &ops[1]);
        let count = self.count();
        let epilogue = |d: &mut [T]| {
            if bias.is_none() && self.act == Act::None {
                return;
            }
            for row in d.chunks_mut(n) {
                match bias {
                    Some(bs) => {
                        for (x, b) in row.iter_mut().zip(bs) {
                            *x = x.plus(*b).act(self.act);
                        }
                    }
                    None => row.iter_mut().for_each(|x| *x = x.act(self.act)),
                }
            }
        };
        // Many small products: one per rayon task; few large ones: faer's own parallelism.
        let work = m.saturating_mul(n).saturating_mul(k.max(1));
        let by_batch = count > 1 && work < 1 << 21;
        let run = |bi: usize, d: &mut [T], par: bool| {
            if k == 0 {
                d.iter_mut().for_each(|x| *x = T::from_f64(0.0));
            } else {
                product(
                    a,
                    (oa.at(bi), strides(oa)),
                    b,
                    (ob.at(bi), strides(ob)),
                    d,
                    (m, n, k),
                    alpha,
                    par,
                );
            }
            epilogue(d);
        };
        if by_batch {
            out.par_chunks_mut(plane)
                .enumerate()
                .for_each(|(bi, d)| run(bi, d, false));
        } else {
            for (bi, d) in out.chunks_mut(plane).enumerate() {
                run(bi, d, true);
            }
        }
    }
}

/// `x` as `f32` values (for the half types).
fn widen(dtype: DType, x: &[u8]) -> Vec<f32> {
    match dtype {
        DType::F16 => bytemuck::cast_slice::<u8, half::f16>(x)
            .iter()
            .map(|v| v.to_f32())
            .collect(),
        _ => bytemuck::cast_slice::<u8, half::bf16>(x)
            .iter()
            .map(|v| v.to_f32())
            .collect(),
    }
}

impl LibraryCall for Gemm {
    fn name(&self) -> &str {
        "matmul"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        let lens = [
            inputs.first().map_or(0, |i| i.buf.len()),
            inputs.get(1).map_or(0, |i| i.buf.len()),
        ];
        let ops = self.operands(inputs, lens)?;
        let want = self.count() * self.m * self.n;
        if out.len() != want {
            return Err(Error::InvalidArgument(format!(
                "matmul output holds {} elements, {want} expected",
                out.len()
            )));
        }
        if self.has_epilogue() {
            crate::stats::note_fused_epilogue();
        }
        let (a, b) = (inputs[0].buf.bytes(), inputs[1].buf.bytes());
        let bias = inputs.get(2).map(|x| x.buf.bytes());
        macro_rules! native {
            ($t:ty) => {
                self.cpu_typed::<$t>(
                    &ops,
                    bytemuck::cast_slice(a),
                    bytemuck::cast_slice(b),
                    bias.map(bytemuck::cast_slice),
                    bytemuck::cast_slice_mut(out.bytes_mut()),
                )
            };
        }
        match self.dtype {
            DType::F32 => native!(f32),
            DType::F64 => native!(f64),
            DType::C32 => native!(num_complex::Complex<f32>),
            DType::C64 => native!(num_complex::Complex<f64>),
            DType::F16 | DType::BF16 => {
                // Products of the half types accumulate in f32 and round once (as cuBLASLt's
                // default compute type does).
                let (a, b) = (widen(self.dtype, a), widen(self.dtype, b));
                let bias = bias.map(|x| widen(self.dtype, x));
                let mut o = vec![0f32; want];
                self.cpu_typed::<f32>(&ops, &a, &b, bias.as_deref(), &mut o);
                let dst = out.bytes_mut();
                if self.dtype == DType::F16 {
                    let d: &mut [half::f16] = bytemuck::cast_slice_mut(dst);
                    d.iter_mut()
                        .zip(&o)
                        .for_each(|(d, x)| *d = half::f16::from_f32(*x));
                } else {
                    let d: &mut [half::bf16] = bytemuck::cast_slice_mut(dst);
                    d.iter_mut()
                        .zip(&o)
                        .for_each(|(d, x)| *d = half::bf16::from_f32(*x));
                }
            }
            d => {
                return Err(Error::InvalidArgument(format!(
                    "matmul of {d} is not supported"
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
        let lens = [
            inputs.first().map_or(0, |i| i.buf.len()),
            inputs.get(1).map_or(0, |i| i.buf.len()),
        ];
        let ops = self.operands(inputs, lens)?;
        let want = self.count() * self.m * self.n;
        if out.len() != want {
            return Err(Error::InvalidArgument(format!(
                "matmul output holds {} elements, {want} expected",
                out.len()
            )));
        }
        fn live(b: &DevBuf) -> Result<&DeviceBuffer<u8>> {
            b.live().ok_or_else(|| {
                Error::InvalidArgument("matmul on a buffer that was handed back".into())
            })
        }
        if want == 0 {
            return Ok(());
        }
        let o = live(out)?;
        if self.k == 0 {
            // An empty inner dimension: the product is zero (cuBLASLt refuses k = 0).
            let mut z = Span::<u8>::new(o, 0, out.len() * self.dtype.size())?;
            stream.memset_zeros(&mut z)?;
            return Ok(());
        }
        let (a, b) = (live(inputs[0].buf)?, live(inputs[1].buf)?);
        let bias = match inputs.get(2) {
            Some(x) => Some((live(x.buf)?, x.layout.offset)),
            None => None,
        };
        if self.has_epilogue() {
            crate::stats::note_fused_epilogue();
        }
        let lt = handle(st, stream)?;
        macro_rules! typed {
            ($t:ty, $alpha:expr) => {
                self.cuda_typed::<$t>(&lt, &ops, a, b, bias, o, $alpha)
            };
        }
        let al = self.alpha;
        match self.dtype {
            DType::F32 => typed!(f32, al as f32),
            DType::F64 => typed!(f64, al),
            DType::F16 => typed!(half::f16, al as f32),
            DType::BF16 => typed!(half::bf16, al as f32),
            DType::C32 => typed!(
                num_complex::Complex<f32>,
                num_complex::Complex::new(al as f32, 0.0)
            ),
            DType::C64 => typed!(
                num_complex::Complex<f64>,
                num_complex::Complex::new(al, 0.0)
            ),
            d => Err(Error::InvalidArgument(format!(
                "matmul of {d} is not supported"
            ))),
        }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        Vec::new()
    }

    fn absorb_epilogue(
        &self,
        e: Epilogue<'_>,
        inputs: &[Arc<Node>],
    ) -> Option<crate::graph::Absorbed> {
        if self.dtype.is_complex() {
            return None;
        }
        // cuBLASLt's f64 products take a bias or a ReLU, not GELU nor the two together.
        let limited = self.dtype == DType::F64
            && inputs[0].device.backend == crate::device::Backend::Cuda
            && (self.bias || self.act != Act::None);
        if limited && !matches!(e, Epilogue::Scale(_)) {
            return None;
        }
        if self.dtype == DType::F64
            && inputs[0].device.backend == crate::device::Backend::Cuda
            && matches!(e, Epilogue::GeluTanh)
        {
            return None;
        }
        let mut next = self.clone();
        let mut ins = inputs.to_vec();
        match e {
            Epilogue::Scale(c) => {
                if self.bias || self.act != Act::None {
                    return None;
                }
                next.alpha *= match c {
                    Scalar::F32(x) => x as f64,
                    Scalar::F64(x) => x,
                    _ => return None,
                };
            }
            Epilogue::Add(bias) => {
                // A bias over the last axis (one value per output column), of the product's
                // dtype and device, not a constant.
                if self.bias
                    || self.act != Act::None
                    || bias.dtype != self.dtype
                    || bias.device != inputs[0].device
                    || bias.is_const().is_some()
                    || bias.shape.last().copied() != Some(self.n)
                    || numel(&bias.shape) != self.n
                {
                    return None;
                }
                next.bias = true;
                ins.push(bias.clone());
            }
            Epilogue::Relu | Epilogue::GeluTanh => {
                if self.act != Act::None {
                    return None;
                }
                next.act = if matches!(e, Epilogue::Relu) {
                    Act::Relu
                } else {
                    Act::GeluTanh
                };
            }
        }
        Some((Arc::new(next), ins))
    }

    fn accepts_view(
        &self,
        index: usize,
        shape: &[usize],
        layout: &Layout,
        storage_len: usize,
    ) -> bool {
        if index > 1 {
            return false;
        }
        let dims = if index == 0 {
            (self.m, self.k)
        } else {
            (self.k, self.n)
        };
        let Some(d) = describe(shape, layout, &self.batch) else {
            return false;
        };
        // cuBLASLt's batch is one stride per operand: a batch that does not collapse is copied.
        d.batch_stride.is_some()
            && d.end(dims.0, dims.1, self.count())
                .is_some_and(|e| e <= storage_len)
    }
}

// ---------------------------------------------------------------------------------------------
// CUDA: cuBLASLt.

/// A typed window of a byte buffer (its elements from `offset`), tracked as the buffer.
pub(super) struct Span<'a, T> {
    buf: &'a DeviceBuffer<u8>,
    ptr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<'a, T> Span<'a, T> {
    /// Elements `[offset, offset + len)` of `buf` as `T`; `Err` when past its end.
    pub(super) fn new(buf: &'a DeviceBuffer<u8>, offset: usize, len: usize) -> Result<Self> {
        let size = std::mem::size_of::<T>();
        let end = offset
            .checked_add(len)
            .and_then(|e| e.checked_mul(size))
            .filter(|&e| e <= buf.len())
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "matmul: elements {offset}..+{len} of {size} bytes lie past a buffer of {} \
                     bytes",
                    buf.len()
                ))
            })?;
        let _ = end;
        Ok(Span {
            buf,
            ptr: buf.device_ptr() + (offset * size) as u64,
            len,
            _t: PhantomData,
        })
    }
}

impl<T> DeviceRead<T> for Span<'_, T> {
    fn device_ptr(&self) -> u64 {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn tracker(&self) -> &Tracker {
        self.buf.tracker()
    }
}

// The output span is a new array's buffer, which no one else reads or writes yet.
impl<T> DeviceWrite<T> for Span<'_, T> {}

type Handles = Mutex<HashMap<usize, Arc<BlasLt>>>;

/// The cuBLASLt handle of `stream` (made on first use, kept for the stream's life).
fn handle(_st: &'static DeviceState, stream: &Arc<Stream>) -> Result<Arc<BlasLt>> {
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    let key = Arc::as_ptr(stream) as usize;
    let map = HANDLES.get_or_init(Default::default);
    let mut g = map.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(h) = g.get(&key) {
        return Ok(h.clone());
    }
    let h = Arc::new(BlasLt::new(stream)?);
    g.insert(key, h.clone());
    Ok(h)
}

impl Gemm {
    #[allow(clippy::too_many_arguments)]
    fn cuda_typed<T: blaslt_elem::Elem>(
        &self,
        lt: &BlasLt,
        ops: &[Operand; 2],
        a: &DeviceBuffer<u8>,
        b: &DeviceBuffer<u8>,
        bias: Option<(&DeviceBuffer<u8>, usize)>,
        o: &DeviceBuffer<u8>,
        alpha: T::Scalar,
    ) -> Result<()> {
        let (m, n, k) = (self.m, self.n, self.k);
        let count = self.count();
        let size = std::mem::size_of::<T>();
        let elems = |buf: &DeviceBuffer<u8>| buf.len() / size;
        let bias_span = match bias {
            Some((buf, off)) => Some(Span::<T>::new(buf, off, n)?),
            None => None,
        };
        let bias_ref = bias_span.as_ref().map(|s| s as &dyn DeviceRead<T>);
        let epi = || match (bias_ref, self.act) {
            (None, Act::None) => blaslt::Epilogue::None,
            (None, Act::Relu) => blaslt::Epilogue::Relu,
            (None, Act::GeluTanh) => blaslt::Epilogue::Gelu,
            (Some(x), Act::None) => blaslt::Epilogue::Bias(x),
            (Some(x), Act::Relu) => blaslt::Epilogue::BiasRelu(x),
            (Some(x), Act::GeluTanh) => blaslt::Epilogue::BiasGelu(x),
        };
        let layout = |o: &Operand, stride: usize| blaslt::Layout {
            order: o.order,
            ld: o.ld,
            batch_stride: stride,
        };
        let mut cfg = blaslt::Matmul::<T::Scalar>::row_major(m, n, k);
        cfg.alpha = alpha;
        cfg.compute = if self.tf32 && matches!(self.dtype, DType::F32 | DType::C32) {
            cuprite::blas::ComputeType::Tf32
        } else {
            cuprite::blas::ComputeType::Default
        };
        if let (Some(sa), Some(sb)) = (ops[0].batch_stride, ops[1].batch_stride) {
            // One (strided-batched) call.
            cfg.batch = count;
            cfg.a = layout(&ops[0], sa);
            cfg.b = layout(&ops[1], sb);
            cfg.d = blaslt::Layout::row_major(n.max(1)).with_batch_stride(m * n);
            let av = Span::<T>::new(a, ops[0].offset, elems(a) - ops[0].offset.min(elems(a)))?;
            let bv = Span::<T>::new(b, ops[1].offset, elems(b) - ops[1].offset.min(elems(b)))?;
            let mut dv = Span::<T>::new(o, 0, count * m * n)?;
            lt.matmul(&cfg, &av, &bv, None, &mut dv, epi())?;
            return Ok(());
        }
        // A batch that does not collapse to one stride: one call per product.
        cfg.a = layout(&ops[0], 0);
        cfg.b = layout(&ops[1], 0);
        for bi in 0..count {
            let (oa, ob) = (ops[0].at(bi), ops[1].at(bi));
            let av = Span::<T>::new(a, oa, elems(a) - oa.min(elems(a)))?;
            let bv = Span::<T>::new(b, ob, elems(b) - ob.min(elems(b)))?;
            let mut dv = Span::<T>::new(o, bi * m * n, m * n)?;
            lt.matmul(&cfg, &av, &bv, None, &mut dv, epi())?;
        }
        Ok(())
    }
}

mod blaslt_elem {
    /// The element types of the CUDA product.
    pub(super) trait Elem: cuprite::blas::Element {}
    impl Elem for f32 {}
    impl Elem for f64 {}
    impl Elem for half::f16 {}
    impl Elem for half::bf16 {}
    impl Elem for num_complex::Complex<f32> {}
    impl Elem for num_complex::Complex<f64> {}
}
