//! Planning a problem: creating its descriptors and asking cuBLASLt's heuristic for an
//! algorithm.

use super::cache::{LtMatrix, Plan, Resolved};
use super::handle::BlasLt;
use crate::blas::{Compute, Element, Scalar};
use crate::error::{Error, Result, check_cublaslt, cublas_error};
use cuprite_sys::cublas::{cublasOperation_t, cublasStatus_t, cudaDataType};
use cuprite_sys::cublaslt::{
    self as sys, cublasLtMatmulAlgo_t, cublasLtMatmulDesc_t,
    cublasLtMatmulDescAttributes_t as DescAttr, cublasLtMatmulHeuristicResult_t,
    cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t as PrefAttr,
    cublasLtMatrixLayout_t, cublasLtMatrixLayoutAttribute_t as LayoutAttr,
};
use std::ffi::c_void;

impl BlasLt {
    /// Creates the descriptors of `r`'s problem and asks the heuristic for its algorithm; with
    /// `want > 1`, also for up to `want` candidates, kept in the plan to be timed.
    pub(super) fn plan<T: Element>(
        &self,
        r: &Resolved,
        compute: Compute,
        want: usize,
    ) -> Result<Plan> {
        let key = &r.key;
        let scale = if compute.half_scalars {
            cudaDataType::CUDA_R_16F
        } else {
            <T::Scalar as Scalar>::DATA_TYPE
        };
        let mut plan = Plan {
            desc: std::ptr::null_mut(),
            a: std::ptr::null_mut(),
            b: std::ptr::null_mut(),
            c: None,
            d: std::ptr::null_mut(),
            algo: cublasLtMatmulAlgo_t::default(),
            workspace: 0,
            pending: Vec::new(),
            tuned: false,
        };
        let want = want.clamp(1, 32);
        let r2 = (|| -> Result<()> {
            // SAFETY: valid out-pointers and plain values; each descriptor is destroyed by
            // `Plan::destroy` on failure or with the handle.
            unsafe { lt!(cublasLtMatmulDescCreate(&mut plan.desc, compute.raw, scale)) }?;
            let op = |t: bool| {
                if t {
                    cublasOperation_t::CUBLAS_OP_T
                } else {
                    cublasOperation_t::CUBLAS_OP_N
                }
                .0
            };
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_TRANSA,
                &op(key.trans_a),
            )?;
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_TRANSB,
                &op(key.trans_b),
            )?;
            set_desc(
                plan.desc,
                DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE,
                &r.epilogue.0,
            )?;
            if r.bias != 0 {
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                    &r.bias,
                )?;
                let bt = T::DATA_TYPE.0;
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                    &bt,
                )?;
            }
            if r.aux != 0 {
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                    &r.aux,
                )?;
                set_desc(
                    plan.desc,
                    DescAttr::CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                    &key.aux_ld,
                )?;
            }
            plan.a = layout(T::DATA_TYPE, &key.a, key.batch)?;
            plan.b = layout(T::DATA_TYPE, &key.b, key.batch)?;
            let dd = cudaDataType(key.d_dtype);
            plan.d = layout(dd, &key.d, key.batch)?;
            if let Some(c) = &key.c {
                plan.c = Some(layout(dd, c, key.batch)?);
            }
            let mut pref: cublasLtMatmulPreference_t = std::ptr::null_mut();
            // SAFETY: a valid out-pointer.
            unsafe { lt!(cublasLtMatmulPreferenceCreate(&mut pref)) }?;
            let found = (|| -> Result<Vec<cublasLtMatmulHeuristicResult_t>> {
                let ws = self.workspace.len() as u64;
                set_pref(
                    pref,
                    PrefAttr::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                    &ws,
                )?;
                for (attr, lg) in [
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                        key.align[0],
                    ),
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                        key.align[1],
                    ),
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                        key.align[2],
                    ),
                    (
                        PrefAttr::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                        key.align[3],
                    ),
                ] {
                    set_pref(pref, attr, &(1u32 << lg))?;
                }
                // Split-k partial sums in the compute type first (the precision the compute
                // type promises); an output-type reduction only when nothing else exists.
                let mut results = Vec::new();
                for mask in [
                    sys::CUBLASLT_REDUCTION_SCHEME_INPLACE
                        | sys::CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                    sys::CUBLASLT_REDUCTION_SCHEME_INPLACE
                        | sys::CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE
                        | sys::CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
                ] {
                    set_pref(
                        pref,
                        PrefAttr::CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                        &mask,
                    )?;
                    results = vec![cublasLtMatmulHeuristicResult_t::default(); want];
                    let mut count = 0;
                    // SAFETY: live descriptors; room for `want` results.
                    let r = unsafe {
                        lt!(cublasLtMatmulAlgoGetHeuristic(
                            self.raw,
                            plan.desc,
                            plan.a,
                            plan.b,
                            plan.c.unwrap_or(plan.d),
                            plan.d,
                            pref,
                            want as i32,
                            results.as_mut_ptr(),
                            &mut count
                        ))
                    };
                    if r.is_err() {
                        count = 0;
                    }
                    results.truncate(count.clamp(0, want as i32) as usize);
                    results.retain(|x| x.state.is_success());
                    if !results.is_empty() {
                        break;
                    }
                }
                if results.is_empty() {
                    let mut e = cublas_error(
                        "libcublasLt",
                        cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
                        "cublasLtMatmulAlgoGetHeuristic",
                    );
                    if let Error::Library { description, .. } = &mut e {
                        *description = format!(
                            "no algorithm for a {} product {} × {} × {} (batch {}) with the {:?} \
                             epilogue and compute type {:?}",
                            T::NAME,
                            key.d.rows,
                            key.d.cols,
                            if key.trans_a { key.a.rows } else { key.a.cols },
                            key.batch,
                            r.epilogue,
                            compute.raw
                        );
                    }
                    return Err(e);
                }
                Ok(results)
            })();
            // SAFETY: created above, destroyed once.
            unsafe {
                let _ = sys::cublasLtMatmulPreferenceDestroy(pref);
            }
            let results = found?;
            plan.algo = results[0].algo;
            plan.workspace = results[0].workspaceSize;
            if results.len() > 1 {
                plan.pending = results.iter().map(|x| (x.algo, x.workspaceSize)).collect();
            }
            Ok(())
        })();
        match r2 {
            Ok(()) => Ok(plan),
            Err(e) => {
                plan.destroy();
                Err(e)
            }
        }
    }
}

pub(super) fn set_desc<V>(desc: cublasLtMatmulDesc_t, attr: DescAttr, v: &V) -> Result<()> {
    // SAFETY: `v` is a live value of the size the attribute takes (the callers pass the C type
    // each attribute is documented with).
    unsafe {
        lt!(cublasLtMatmulDescSetAttribute(
            desc,
            attr,
            (v as *const V).cast(),
            std::mem::size_of::<V>()
        ))
    }
}

fn set_pref<V>(pref: cublasLtMatmulPreference_t, attr: PrefAttr, v: &V) -> Result<()> {
    // SAFETY: as for `set_desc`.
    unsafe {
        lt!(cublasLtMatmulPreferenceSetAttribute(
            pref,
            attr,
            (v as *const V).cast(),
            std::mem::size_of::<V>()
        ))
    }
}

/// A column-major layout descriptor for `m`, batched when `batch > 1`.
fn layout(dt: cudaDataType, m: &LtMatrix, batch: i32) -> Result<cublasLtMatrixLayout_t> {
    let mut l: cublasLtMatrixLayout_t = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and plain values.
    unsafe { lt!(cublasLtMatrixLayoutCreate(&mut l, dt, m.rows, m.cols, m.ld)) }?;
    if batch > 1 {
        let set = |attr: LayoutAttr, p: *const c_void, size: usize| {
            // SAFETY: a live layout; `p` points at `size` bytes of the attribute's type.
            unsafe { lt!(cublasLtMatrixLayoutSetAttribute(l, attr, p, size)) }
        };
        let r = set(
            LayoutAttr::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
            (&batch as *const i32).cast(),
            4,
        )
        .and_then(|()| {
            set(
                LayoutAttr::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                (&m.stride as *const i64).cast(),
                8,
            )
        });
        if let Err(e) = r {
            // SAFETY: created above, destroyed once.
            unsafe {
                let _ = sys::cublasLtMatrixLayoutDestroy(l);
            }
            return Err(e);
        }
    }
    Ok(l)
}
