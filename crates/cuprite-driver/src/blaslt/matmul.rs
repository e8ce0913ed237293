//! One product: the checks of every operand and the translation into cuBLASLt's column-major
//! frame (`resolve`), then the enqueue with the cached plan (`matmul`).

use super::cache::{LtMatrix, PlanKey, Resolved};
use super::epilogue::Epilogue;
use super::handle::BlasLt;
use super::layout::{Layout, Matmul, Order, check_layout};
use super::plan::set_desc;
use crate::blas::{Compute, Element, ScalarBytes, check_context, check_len, invalid};
use crate::error::{Result, check_cublaslt};
use crate::memory::{Access, DeviceRead, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::cublaslt::{
    self as sys, cublasLtEpilogue_t as Epi, cublasLtMatmulDescAttributes_t as DescAttr,
};
use std::ffi::c_void;

fn align_log2(p: u64) -> u8 {
    if p == 0 {
        8
    } else {
        (p.trailing_zeros() as u8).min(8)
    }
}

impl BlasLt {
    /// `D = epilogue(alpha · A · B + beta · C)` for `cfg.batch` products (`cublasLtMatmul`).
    ///
    /// `c` is C with its own layout (same order as D), or `None` for C = D (in place; D is
    /// read when `beta ≠ 0`). Every dimension, leading dimension and batch stride is checked
    /// against the buffers first (checked arithmetic; values beyond cuBLASLt's argument types
    /// are refused), as are the epilogue's buffers; `k = 0` is refused. The first call of a
    /// problem asks cuBLASLt's heuristic for an algorithm and caches it with its descriptors;
    /// later calls of the same problem only enqueue.
    pub fn matmul<T: Element>(
        &self,
        cfg: &Matmul<T::Scalar>,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: Option<(&dyn DeviceRead<T>, Layout)>,
        d: &mut dyn DeviceWrite<T>,
        epilogue: Epilogue<'_, T>,
    ) -> Result<()> {
        self.product::<T, T>(cfg, a, b, c, d, epilogue)
    }

    /// `D = alpha · A · B + beta · D` for `cfg.batch` products of half-precision A and B
    /// (`f16` or `bf16`) into an `f32` D, accumulated in `f32` (`cublasLtMatmul` with C and D
    /// of `CUDA_R_32F`): the products' sums are rounded once, to `f32`. The same checks as
    /// [`matmul`](Self::matmul); element types other than `f16`/`bf16`, and a compute type
    /// other than `f32` accumulation, are refused.
    ///
    /// ```no_run
    /// use cuprite_driver::blaslt::{BlasLt, Matmul};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let lt = BlasLt::new(&s)?;
    /// let one = half::bf16::from_f32(1.0);
    /// let a = s.clone_htod(&vec![one; 2 * 3])?;
    /// let b = s.clone_htod(&vec![one; 3 * 4])?;
    /// let mut d = s.alloc_zeros::<f32>(2 * 4)?;
    /// lt.matmul_wide(&Matmul::row_major(2, 4, 3), &a, &b, &mut d)?;
    /// assert!(s.clone_dtoh(&d)?.iter().all(|&x| x == 3.0));
    /// # Ok(()) }
    /// ```
    pub fn matmul_wide<T: Element>(
        &self,
        cfg: &Matmul<T::Scalar>,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        d: &mut dyn DeviceWrite<f32>,
    ) -> Result<()> {
        use cuprite_sys::cublas::{cublasComputeType_t as CT, cudaDataType};
        let dt = T::DATA_TYPE;
        if dt != cudaDataType::CUDA_R_16F && dt != cudaDataType::CUDA_R_16BF {
            return Err(invalid(format!(
                "matmul_wide: A and B are {} elements; only f16 and bf16 take an f32 D",
                T::NAME
            )));
        }
        let compute = cfg.compute.resolve::<T>()?;
        if compute.raw != CT::CUBLAS_COMPUTE_32F || compute.half_scalars {
            return Err(invalid(format!(
                "matmul_wide: compute type {:?} does not accumulate in f32",
                cfg.compute
            )));
        }
        self.product::<T, f32>(cfg, a, b, None, d, Epilogue::None)
    }

    /// [`matmul`](Self::matmul) with C and D of element type `U` (`T`, or `f32` for
    /// [`matmul_wide`](Self::matmul_wide)).
    fn product<T: Element, U: Element>(
        &self,
        cfg: &Matmul<T::Scalar>,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: Option<(&dyn DeviceRead<U>, Layout)>,
        d: &mut dyn DeviceWrite<U>,
        epilogue: Epilogue<'_, T>,
    ) -> Result<()> {
        let compute = cfg.compute.resolve::<T>()?;
        let r = self.resolve::<T, U>(cfg, compute, a, b, c, &*d, &epilogue)?;
        if cfg.m == 0 || cfg.n == 0 || cfg.batch == 0 {
            return Ok(());
        }
        let alpha = ScalarBytes::new(cfg.alpha, compute);
        let beta = ScalarBytes::new(cfg.beta, compute);

        // The tracked accesses: A, B (and C) read, D written, then the epilogue's buffers.
        let ra = Access::read(a);
        let mut acc = [ra; 8];
        let mut n = 0;
        macro_rules! push {
            ($x:expr) => {{
                acc[n] = $x;
                n += 1;
            }};
        }
        push!(ra);
        push!(Access::read(b));
        if let Some((c, _)) = c {
            push!(Access::read(c));
        }
        push!(Access::write(&*d));
        match &epilogue {
            Epilogue::Bias(x) | Epilogue::BiasRelu(x) | Epilogue::BiasGelu(x) => {
                push!(Access::read(*x))
            }
            Epilogue::GeluAux { bias, aux, .. } => {
                if let Some(x) = bias {
                    push!(Access::read(*x));
                }
                push!(Access::write(&**aux));
            }
            Epilogue::DGelu { aux, bias_grad, .. } => {
                push!(Access::read(*aux));
                if let Some(g) = bias_grad {
                    push!(Access::write(&**g));
                }
            }
            Epilogue::BiasGradA(g) | Epilogue::BiasGradB(g) => push!(Access::write(&**g)),
            Epilogue::None | Epilogue::Relu | Epilogue::Gelu => {}
        }
        // The handle's workspace: cuBLASLt scribbles on it.
        push!(Access::of_tracker(self.workspace.tracker(), true));
        let acc = &acc[..n];

        let mut plans = self
            .plans
            .lock()
            .map_err(|_| invalid("cuBLASLt plan cache lock poisoned".into()))?;
        self.stream.context().bind_to_thread()?;
        let idx = match plans.last {
            Some((k, i)) if k == r.key => i,
            _ => {
                let i = match plans.index.get(&r.key) {
                    Some(&i) => i,
                    None => {
                        let flop = 2.0 * cfg.m as f64 * cfg.n as f64 * cfg.k as f64;
                        let want = match plans.tuning {
                            Some(t) if t.applies(flop * cfg.batch as f64) => t.candidates,
                            _ => 1,
                        };
                        let plan = self.plan::<T>(&r, compute, want as usize)?;
                        plans.list.push(plan);
                        let i = plans.list.len() - 1;
                        plans.index.insert(r.key, i);
                        i
                    }
                };
                plans.last = Some((r.key, i));
                i
            }
        };
        let (tuning_on, margin) = (
            plans.tuning.is_some(),
            plans.tuning.map_or(1.0, |t| t.margin),
        );
        let plan = &mut plans.list[idx];
        // Tuning repeats the product: only where that cannot change the result (see
        // `repeatable`) and outside a capture (it waits for its timings).
        let tunable = tuning_on
            && !plan.pending.is_empty()
            && repeatable(a, b, c, &*d, &epilogue, beta.is_zero_bits());
        let tune = tunable && self.stream.capture_status()? == crate::graph::CaptureStatus::None;
        if tunable && !tune {
            // Captured without the timing a run outside the capture would make.
            crate::graph::note_unprepared_in_capture();
        }
        if r.bias != 0 {
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                &r.bias,
            )?;
        }
        if r.aux != 0 {
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                &r.aux,
            )?;
        }
        let (c_ptr, c_desc) = match plan.c {
            Some(cd) => (r.ptr_c, cd),
            None => (r.ptr_d, plan.d),
        };
        let (desc, da, db, dd) = (plan.desc, plan.a, plan.b, plan.d);
        let run = |algo: &cuprite_sys::cublaslt::cublasLtMatmulAlgo_t, ws: usize| {
            // SAFETY: every operand was checked to lie inside its buffer for the dimensions,
            // leading dimensions and strides the descriptors hold; the epilogue's pointers
            // were checked likewise and set just above; the workspace is the handle's, at
            // least as large as any algorithm the heuristic offered needs (its preference
            // capped the size); the scalars match the scale type.
            unsafe {
                lt!(cublasLtMatmul(
                    self.raw,
                    desc,
                    alpha.ptr(),
                    r.ptr_a as *const c_void,
                    da,
                    r.ptr_b as *const c_void,
                    db,
                    beta.ptr(),
                    c_ptr as *const c_void,
                    c_desc,
                    r.ptr_d as *mut c_void,
                    dd,
                    algo,
                    self.workspace.device_ptr() as *mut c_void,
                    ws,
                    self.stream.raw()
                ))
            }
        };
        self.keep.note_use(&self.stream);
        self.stream.with_access(acc, || {
            if tune {
                self.tune(plan, margin, run)?;
            }
            run(&plan.algo, plan.workspace)
        })
    }

    /// Checks every operand and translates the problem into cuBLASLt's column-major frame.
    #[allow(clippy::too_many_arguments)]
    fn resolve<T: Element, U: Element>(
        &self,
        cfg: &Matmul<T::Scalar>,
        compute: Compute,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        c: Option<(&dyn DeviceRead<U>, Layout)>,
        d: &dyn DeviceWrite<U>,
        epilogue: &Epilogue<'_, T>,
    ) -> Result<Resolved> {
        const CALL: &str = "matmul";
        let s = &*self.stream;
        let (m, n, k, batch) = (cfg.m, cfg.n, cfg.k, cfg.batch);
        check_context(CALL, "A", s, a)?;
        check_context(CALL, "B", s, b)?;
        check_context(CALL, "D", s, d)?;
        if let Some((cb, _)) = &c {
            check_context(CALL, "C", s, *cb)?;
        }
        cfg.checked::<T>(a.len(), b.len(), c.map(|(cb, l)| (cb.len(), l)), d.len())?;
        // The contiguous dimension of D: what bias vectors and aux leading dimensions follow.
        let swap = cfg.d.order == Order::RowMajor;
        let inner = if swap { n } else { m };
        let single = |what: &str| -> Result<()> {
            if batch > 1 {
                return Err(invalid(format!(
                    "{CALL}: the {what} epilogue is for single products (batch = 1), not {batch}"
                )));
            }
            Ok(())
        };
        let aux_layout = |ld: usize| -> Result<Layout> {
            if ld % 8 != 0 || ld < inner {
                return Err(invalid(format!(
                    "{CALL}: the aux leading dimension is {ld}; cuBLASLt needs a multiple of 8 \
                     that is at least D's contiguous size {inner}"
                )));
            }
            Ok(Layout {
                order: cfg.d.order,
                ld,
                batch_stride: 0,
            })
        };
        let (mut bias, mut aux, mut aux_ld) = (0u64, 0u64, 0usize);
        let epi = match epilogue {
            Epilogue::None => Epi::CUBLASLT_EPILOGUE_DEFAULT,
            Epilogue::Relu => Epi::CUBLASLT_EPILOGUE_RELU,
            Epilogue::Gelu => Epi::CUBLASLT_EPILOGUE_GELU,
            Epilogue::Bias(x) => {
                bias = check_vector(s, "bias", *x, inner)?;
                Epi::CUBLASLT_EPILOGUE_BIAS
            }
            Epilogue::BiasRelu(x) => {
                bias = check_vector(s, "bias", *x, inner)?;
                Epi::CUBLASLT_EPILOGUE_RELU_BIAS
            }
            Epilogue::BiasGelu(x) => {
                bias = check_vector(s, "bias", *x, inner)?;
                Epi::CUBLASLT_EPILOGUE_GELU_BIAS
            }
            Epilogue::GeluAux {
                bias: bv,
                aux: x,
                ld,
            } => {
                single("GeluAux")?;
                check_context(CALL, "aux", s, &**x)?;
                check_layout("aux", x.len(), &aux_layout(*ld)?, m, n, 1, false)?;
                aux = x.device_ptr();
                aux_ld = *ld;
                match bv {
                    Some(bv) => {
                        bias = check_vector(s, "bias", *bv, inner)?;
                        Epi::CUBLASLT_EPILOGUE_GELU_AUX_BIAS
                    }
                    None => Epi::CUBLASLT_EPILOGUE_GELU_AUX,
                }
            }
            Epilogue::DGelu {
                aux: x,
                ld,
                bias_grad,
            } => {
                single("DGelu")?;
                check_context(CALL, "aux", s, *x)?;
                check_layout("aux", x.len(), &aux_layout(*ld)?, m, n, 1, false)?;
                aux = x.device_ptr();
                aux_ld = *ld;
                match bias_grad {
                    Some(g) => {
                        bias = check_vector(s, "bias_grad", &**g, inner)?;
                        Epi::CUBLASLT_EPILOGUE_DGELU_BGRAD
                    }
                    None => Epi::CUBLASLT_EPILOGUE_DGELU,
                }
            }
            Epilogue::BiasGradA(g) => {
                single("BiasGradA")?;
                if cfg.a.order != Order::ColMajor {
                    return Err(invalid(format!(
                        "{CALL}: the BiasGradA epilogue needs A column-major (cuBLASLt has no \
                         kernel reducing a row-major A over k)"
                    )));
                }
                bias = check_vector(s, "bias_grad", &**g, m)?;
                if swap {
                    Epi::CUBLASLT_EPILOGUE_BGRADB
                } else {
                    Epi::CUBLASLT_EPILOGUE_BGRADA
                }
            }
            Epilogue::BiasGradB(g) => {
                single("BiasGradB")?;
                if cfg.b.order != Order::RowMajor {
                    return Err(invalid(format!(
                        "{CALL}: the BiasGradB epilogue needs B row-major (cuBLASLt has no \
                         kernel reducing a column-major B over k)"
                    )));
                }
                bias = check_vector(s, "bias_grad", &**g, n)?;
                if swap {
                    Epi::CUBLASLT_EPILOGUE_BGRADA
                } else {
                    Epi::CUBLASLT_EPILOGUE_BGRADB
                }
            }
        };

        // cuBLASLt's frame: column-major D' = A' · B'. For a row-major D, D' = Dᵀ = Bᵀ · Aᵀ.
        let (la, lb, pa, pb, lm, ln) = if swap {
            let ta = Layout {
                order: cfg.b.order.flip(),
                ..cfg.b
            };
            let tb = Layout {
                order: cfg.a.order.flip(),
                ..cfg.a
            };
            (ta, tb, b.device_ptr(), a.device_ptr(), n, m)
        } else {
            (cfg.a, cfg.b, a.device_ptr(), b.device_ptr(), m, n)
        };
        // A logical r × c operand: column-major as is (N), row-major as the column-major c × r
        // matrix it is in memory, transposed (T).
        let lt_matrix = |l: &Layout, r: usize, c: usize| -> (LtMatrix, bool) {
            let (rows, cols, t) = match l.order {
                Order::ColMajor => (r, c, false),
                Order::RowMajor => (c, r, true),
            };
            let m = LtMatrix {
                rows: rows as u64,
                cols: cols as u64,
                // Both fit i64: `Matmul::checked` refused the layouts where they do not.
                ld: l.ld as i64,
                stride: l.batch_stride as i64,
            };
            (m, t)
        };
        let (ma, ta) = lt_matrix(&la, lm, k);
        let (mb, tb) = lt_matrix(&lb, k, ln);
        let d_lt = LtMatrix {
            rows: lm as u64,
            cols: ln as u64,
            ld: cfg.d.ld as i64,
            stride: cfg.d.batch_stride as i64,
        };
        let (c_lt, ptr_c) = match &c {
            Some((cb, cl)) => (
                Some(LtMatrix {
                    rows: lm as u64,
                    cols: ln as u64,
                    ld: cl.ld as i64,
                    stride: cl.batch_stride as i64,
                }),
                cb.device_ptr(),
            ),
            None => (None, 0),
        };
        let ptr_d = d.device_ptr();
        let key = PlanKey {
            dtype: T::DATA_TYPE.0,
            d_dtype: U::DATA_TYPE.0,
            compute: compute.raw.0,
            half_scalars: compute.half_scalars,
            batch: batch as i32,
            trans_a: ta,
            trans_b: tb,
            a: ma,
            b: mb,
            c: c_lt,
            d: d_lt,
            epilogue: epi.0,
            aux_ld: aux_ld as i64,
            align: [
                align_log2(pa),
                align_log2(pb),
                align_log2(if c.is_some() { ptr_c } else { ptr_d }),
                align_log2(ptr_d),
                align_log2(bias),
                align_log2(aux),
            ],
        };
        Ok(Resolved {
            key,
            epilogue: epi,
            ptr_a: pa,
            ptr_b: pb,
            ptr_c,
            ptr_d,
            bias,
            aux,
        })
    }
}

/// The bytes `[start, end)` a view covers.
fn extent<T, B: DeviceRead<T> + ?Sized>(buf: &B) -> (u64, u64) {
    let start = buf.device_ptr();
    (start, start.saturating_add(buf.num_bytes() as u64))
}

/// Whether running the product again leaves every output as one run does: no output (D, the
/// GELU input `GeluAux` stores) overlaps a buffer the call reads (A, B, C unless `beta_zero`,
/// the bias, the GELU input `DGelu` reads), C is a buffer of its own when it is read (not D,
/// in place), and no bias gradient is written (cuBLASLt does not say whether an algorithm
/// that splits `k` accumulates into it).
fn repeatable<T, U>(
    a: &dyn DeviceRead<T>,
    b: &dyn DeviceRead<T>,
    c: Option<(&dyn DeviceRead<U>, Layout)>,
    d: &dyn DeviceWrite<U>,
    epilogue: &Epilogue<'_, T>,
    beta_zero: bool,
) -> bool {
    let mut reads = vec![extent(a), extent(b)];
    if !beta_zero {
        match c {
            Some((c, _)) => reads.push(extent(c)),
            None => return false,
        }
    }
    let mut writes = vec![extent(d)];
    match epilogue {
        Epilogue::None | Epilogue::Relu | Epilogue::Gelu => {}
        Epilogue::Bias(x) | Epilogue::BiasRelu(x) | Epilogue::BiasGelu(x) => reads.push(extent(*x)),
        Epilogue::GeluAux { bias, aux, .. } => {
            if let Some(x) = bias {
                reads.push(extent(*x));
            }
            writes.push(extent(&**aux));
        }
        Epilogue::DGelu {
            aux,
            bias_grad: None,
            ..
        } => reads.push(extent(*aux)),
        Epilogue::DGelu {
            bias_grad: Some(_), ..
        }
        | Epilogue::BiasGradA(_)
        | Epilogue::BiasGradB(_) => return false,
    }
    // Empty views overlap nothing.
    let overlap = |x: (u64, u64), y: (u64, u64)| x.0 < y.1 && y.0 < x.1;
    !writes.iter().any(|&w| reads.iter().any(|&r| overlap(w, r)))
}

/// Checks a vector operand of `len` elements; returns its address.
fn check_vector<T, B: DeviceRead<T> + ?Sized>(
    s: &Stream,
    what: &str,
    buf: &B,
    len: usize,
) -> Result<u64> {
    check_context("matmul", what, s, buf)?;
    check_len("matmul", what, buf, len)?;
    Ok(buf.device_ptr())
}
