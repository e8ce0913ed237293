//! The product on the CPU: faer (or a plain loop without the `faer` feature), with the
//! epilogue applied per output row.

use super::desc::{Act, Gemm, Operand};
use crate::dtype::DType;
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
