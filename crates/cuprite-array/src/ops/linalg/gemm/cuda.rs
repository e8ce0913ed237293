//! The product on CUDA: the per-stream cuBLASLt handles and the calls into them.

use super::desc::{Act, Aux, Gemm, Operand};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::linalg::span::{Span, SpanNew as _};
use crate::runtime::DeviceState;
use cuprite_driver::blaslt::{self, BlasLt};
use cuprite_driver::{DeviceBuffer, DeviceRead, DeviceWrite, Stream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Each stream's handle, and whether its tuning is on.
type Handles = Mutex<HashMap<usize, (Arc<BlasLt>, bool)>>;

/// The cuBLASLt handle of `stream` (made on first use, kept for the stream's life), tuning
/// large products when [`super::gemm_tuning`] says so.
pub(super) fn handle(_st: &'static DeviceState, stream: &Arc<Stream>) -> Result<Arc<BlasLt>> {
    static HANDLES: OnceLock<Handles> = OnceLock::new();
    let key = Arc::as_ptr(stream) as usize;
    let map = HANDLES.get_or_init(Default::default);
    let tune = super::gemm_tuning();
    let mut g = map.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((h, on)) = g.get_mut(&key) {
        if *on != tune {
            h.set_tuning(tune.then(super::tune::policy));
            *on = tune;
        }
        return Ok(h.clone());
    }
    let h = Arc::new(BlasLt::new(stream)?);
    h.set_tuning(tune.then(super::tune::policy));
    g.insert(key, (h.clone(), tune));
    Ok(h)
}

/// The realised inputs of a product beyond A and B, each a buffer and the element offset
/// where its values start.
pub(super) struct Extra<'a> {
    pub(super) bias: Option<(&'a DeviceBuffer<u8>, usize)>,
    pub(super) addend: Option<(&'a DeviceBuffer<u8>, usize)>,
    pub(super) pre: Option<(&'a DeviceBuffer<u8>, usize)>,
}

impl Gemm {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cuda_typed<T: blaslt_elem::Elem>(
        &self,
        lt: &BlasLt,
        ops: &[Operand; 2],
        a: &DeviceBuffer<u8>,
        b: &DeviceBuffer<u8>,
        extra: &Extra<'_>,
        o: &DeviceBuffer<u8>,
        alpha: T::Scalar,
        beta: T::Scalar,
    ) -> Result<()> {
        if self.needs_small() {
            return Err(crate::error::Error::InvalidArgument(format!(
                "cuBLASLt has no epilogue for {:?} followed by {:?}: such a product runs the \
                 small kernel",
                self.act, self.post
            )));
        }
        let (m, n, k) = (self.m, self.n, self.k);
        let count = self.count();
        let plane = m * n;
        let size = std::mem::size_of::<T>();
        let elems = |buf: &DeviceBuffer<u8>| buf.len() / size;
        let bias_span = match extra.bias {
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
            // Refused above (`needs_small`).
            (_, Act::Tanh) => blaslt::Epilogue::None,
        };
        let layout = |o: &Operand, stride: usize| blaslt::Layout {
            order: o.order,
            ld: o.ld,
            batch_stride: stride,
        };
        let mut cfg = blaslt::Matmul::<T::Scalar>::row_major(m, n, k);
        cfg.alpha = alpha;
        cfg.compute = if self.tf32 && matches!(self.dtype, DType::F32 | DType::C32) {
            cuprite_driver::blas::ComputeType::Tf32
        } else {
            cuprite_driver::blas::ComputeType::Default
        };
        if self.addend || self.aux != Aux::None {
            // One product (checked by `operands`), C and the auxiliary result row-major
            // `m × n` beside D.
            let (Some(sa), Some(sb)) = (ops[0].batch_stride, ops[1].batch_stride) else {
                return Err(crate::error::Error::InvalidArgument(
                    "matmul with an addend or an auxiliary result takes one product".into(),
                ));
            };
            cfg.a = layout(&ops[0], sa);
            cfg.b = layout(&ops[1], sb);
            let av = Span::<T>::new(a, ops[0].offset, elems(a) - ops[0].offset.min(elems(a)))?;
            let bv = Span::<T>::new(b, ops[1].offset, elems(b) - ops[1].offset.min(elems(b)))?;
            let c_span = match extra.addend {
                Some((buf, off)) => Some(Span::<T>::new(buf, off, plane)?),
                None => None,
            };
            let c = c_span
                .as_ref()
                .map(|s| (s as &dyn DeviceRead<T>, blaslt::Layout::row_major(n.max(1))));
            if c.is_some() {
                cfg.beta = beta;
            }
            let mut dv = Span::<T>::new(o, 0, plane)?;
            match self.aux {
                Aux::None => lt.matmul(&cfg, &av, &bv, c, &mut dv, epi())?,
                Aux::GeluInput => {
                    let mut pre = Span::<T>::new(o, plane, plane)?;
                    let e = blaslt::Epilogue::GeluAux {
                        bias: bias_ref,
                        aux: &mut pre,
                        ld: n,
                    };
                    lt.matmul(&cfg, &av, &bv, c, &mut dv, e)?;
                }
                Aux::GeluGrad | Aux::GeluDeriv => {
                    let Some((buf, off)) = extra.pre else {
                        return Err(crate::error::Error::InvalidArgument(
                            "matmul with GELU's gradient needs the pre-activation".into(),
                        ));
                    };
                    let pre = Span::<T>::new(buf, off, plane)?;
                    let mut grad = match self.aux {
                        Aux::GeluGrad => Some(Span::<T>::new(o, plane, n)?),
                        _ => None,
                    };
                    let e = blaslt::Epilogue::DGelu {
                        aux: &pre,
                        ld: n,
                        bias_grad: grad.as_mut().map(|g| g as &mut dyn DeviceWrite<T>),
                    };
                    lt.matmul(&cfg, &av, &bv, c, &mut dv, e)?;
                }
            }
            return Ok(());
        }
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
    pub(in crate::ops::linalg::gemm) trait Elem:
        cuprite_driver::blas::Element
    {
    }
    impl Elem for f32 {}
    impl Elem for f64 {}
    impl Elem for half::f16 {}
    impl Elem for half::bf16 {}
    impl Elem for num_complex::Complex<f32> {}
    impl Elem for num_complex::Complex<f64> {}
}
