//! The product on the CPU: faer (or a plain loop without the `faer` feature), with the
//! epilogue applied per output row.

use super::desc::{Act, Aux, Gemm, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::CallInput;
use crate::storage::HostBuf;
use cuprite_driver::blaslt::Order;

/// Element types the CPU product handles natively.
pub(super) trait CpuElem: Copy + Send + Sync + bytemuck::Pod + 'static {
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
                    Act::Tanh => self.tanh(),
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
pub(super) trait Kernel: CpuElem + faer::traits::ComplexField {}
#[cfg(feature = "faer")]
impl<T: CpuElem + faer::traits::ComplexField> Kernel for T {}
#[cfg(not(feature = "faer"))]
pub(super) trait Kernel:
    CpuElem + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self>
{
}
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
    pub(super) fn cpu_typed<T: Kernel>(
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
pub(super) fn widen(dtype: DType, x: &[u8]) -> Vec<f32> {
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

/// `x` (elements of `dtype`: f16, bf16, f32 or f64) as `f64` values.
pub(crate) fn widen_f64(dtype: DType, x: &[u8]) -> Vec<f64> {
    match dtype {
        DType::F64 => bytemuck::cast_slice::<u8, f64>(x).to_vec(),
        DType::F32 => bytemuck::cast_slice::<u8, f32>(x)
            .iter()
            .map(|&v| f64::from(v))
            .collect(),
        _ => widen(dtype, x).into_iter().map(f64::from).collect(),
    }
}

/// Rounds `v` once into `dst` (elements of `dtype`: f16, bf16, f32 or f64).
pub(crate) fn narrow_f64(dtype: DType, v: &[f64], dst: &mut [u8]) {
    match dtype {
        DType::F64 => bytemuck::cast_slice_mut::<u8, f64>(dst).copy_from_slice(v),
        DType::F32 => bytemuck::cast_slice_mut::<u8, f32>(dst)
            .iter_mut()
            .zip(v)
            .for_each(|(d, x)| *d = *x as f32),
        DType::F16 => bytemuck::cast_slice_mut::<u8, half::f16>(dst)
            .iter_mut()
            .zip(v)
            .for_each(|(d, x)| *d = half::f16::from_f64(*x)),
        _ => bytemuck::cast_slice_mut::<u8, half::bf16>(dst)
            .iter_mut()
            .zip(v)
            .for_each(|(d, x)| *d = half::bf16::from_f64(*x)),
    }
}

/// GELU's derivative (tanh form) at `z`: with `t = tanh(c·(z + a·z³))`,
/// `½·(1 + t) + ½·z·(1 − t²)·c·(1 + 3a·z²)`.
pub(crate) fn gelu_grad(z: f64) -> f64 {
    const C: f64 = 0.797_884_560_802_865_4;
    const A: f64 = 0.044_715;
    let t = (C * (z + A * z * z * z)).tanh();
    0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * C * (1.0 + 3.0 * A * z * z)
}

impl Gemm {
    /// A single product with C or an auxiliary result ([`Aux`]), computed in `f64` from the
    /// inputs and rounded once into `out` (f16, bf16, f32 or f64).
    pub(super) fn cpu_extended(
        &self,
        ops: &[Operand; 2],
        inputs: &[CallInput<'_, HostBuf>],
        out: &mut HostBuf,
    ) -> Result<()> {
        if !matches!(
            self.dtype,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64
        ) || self.count() != 1
        {
            return Err(Error::InvalidArgument(format!(
                "matmul with an addend or an auxiliary result takes one real product, was {} \
                 products of {}",
                self.count(),
                self.dtype
            )));
        }
        let (m, n) = (self.m, self.n);
        let plane = m * n;
        let size = self.dtype.size();
        // The `len` values of input `i` from its layout's offset.
        let values = |i: usize, len: usize| -> Result<Vec<f64>> {
            let x = &inputs[i];
            let start = x.layout.offset * size;
            let bytes = x.buf.bytes();
            let part = bytes.get(start..start + len * size).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "matmul input {i} holds {} bytes, {} needed from offset {}",
                    bytes.len(),
                    len * size,
                    x.layout.offset
                ))
            })?;
            Ok(widen_f64(self.dtype, part))
        };
        let a = widen_f64(self.dtype, inputs[0].buf.bytes());
        let b = widen_f64(self.dtype, inputs[1].buf.bytes());
        let bias = if self.bias { Some(values(2, n)?) } else { None };
        let mut plain = self.clone();
        plain.act = Act::None;
        let mut o = vec![0f64; plane];
        plain.cpu_typed::<f64>(ops, &a, &b, bias.as_deref(), &mut o);
        if let Some(i) = self.addend_index() {
            let c = values(i, plane)?;
            o.iter_mut().zip(&c).for_each(|(x, c)| *x += self.beta * c);
        }
        let dst = out.bytes_mut();
        let (head, tail) = dst.split_at_mut(plane * size);
        match self.aux {
            Aux::None => {
                o.iter_mut().for_each(|x| *x = x.act(self.act));
                narrow_f64(self.dtype, &o, head);
            }
            Aux::GeluInput => {
                let h: Vec<f64> = o.iter().map(|x| x.act(Act::GeluTanh)).collect();
                narrow_f64(self.dtype, &h, head);
                narrow_f64(self.dtype, &o, tail);
            }
            Aux::GeluGrad | Aux::GeluDeriv => {
                let Some(i) = self.pre_index() else {
                    return Err(Error::InvalidArgument(
                        "matmul with GELU's gradient needs the pre-activation".into(),
                    ));
                };
                let pre = values(i, plane)?;
                o.iter_mut()
                    .zip(&pre)
                    .for_each(|(x, z)| *x *= gelu_grad(*z));
                narrow_f64(self.dtype, &o, head);
                if self.aux == Aux::GeluGrad {
                    let mut sums = vec![0f64; n];
                    for row in o.chunks_exact(n.max(1)) {
                        sums.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                    }
                    narrow_f64(self.dtype, &sums, tail);
                }
            }
        }
        Ok(())
    }
}
