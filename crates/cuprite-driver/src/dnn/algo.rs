//! Choosing a convolution algorithm: cuDNN's heuristics (`cudnnGet*Algorithm_v7`), filtered
//! by cuprite's precision and determinism settings, with the workspace the choice needs, and a
//! small cache of choices per shape.
//!
//! This module owns the choice and its cache. The cache is a plain map the handle keeps under
//! its lock; it holds no device memory (a workspace is allocated per call from the
//! stream-ordered pool), so dropping entries costs nothing.

use super::desc::ConvDescs;
use super::element::{DnnElement, math_allowed, run_math};
use super::shape::Geometry;
use crate::error::Result;
use cuprite_sys::cudnn::{
    cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdDataAlgoPerf_t,
    cudnnConvolutionBwdFilterAlgo_t, cudnnConvolutionBwdFilterAlgoPerf_t,
    cudnnConvolutionFwdAlgo_t, cudnnConvolutionFwdAlgoPerf_t, cudnnDeterminism_t, cudnnHandle_t,
    cudnnMathType_t, cudnnStatus_t,
};
use std::collections::HashMap;
use std::ffi::c_int;

/// Which of the three convolution computations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Pass {
    /// `y` from `x` and the filters.
    Forward,
    /// The gradient of `x` from that of `y` and the filters.
    BackwardData,
    /// The gradient of the filters from `x` and that of `y`.
    BackwardFilter,
}

impl Pass {
    fn name(self) -> &'static str {
        match self {
            Pass::Forward => "forward",
            Pass::BackwardData => "backward-data",
            Pass::BackwardFilter => "backward-filter",
        }
    }

    /// The heuristics call that ranks this pass's algorithms.
    fn heuristic_call(self) -> &'static str {
        match self {
            Pass::Forward => "cudnnGetConvolutionForwardAlgorithm_v7",
            Pass::BackwardData => "cudnnGetConvolutionBackwardDataAlgorithm_v7",
            Pass::BackwardFilter => "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
        }
    }
}

/// What the handle allows an algorithm to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Policy {
    /// `f32` convolutions may run on TF32 tensor cores.
    pub allow_tf32: bool,
    /// Only algorithms whose results are reproducible run to run.
    pub deterministic: bool,
}

/// A chosen algorithm: its number in the pass's enum, the math type to run it with, and the
/// workspace bytes it needs with that math type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Choice {
    pub algo: c_int,
    pub math: cudnnMathType_t,
    pub workspace: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    pass: Pass,
    data_type: c_int,
    geometry: Geometry,
    policy: Policy,
}

/// One heuristic result, whatever the pass.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    algo: c_int,
    status: cudnnStatus_t,
    determinism: cudnnDeterminism_t,
    math: cudnnMathType_t,
}

/// Algorithm choices by pass, element type, shape and policy; the least recently used one is
/// dropped beyond [`AlgoCache::CAPACITY`].
#[derive(Debug, Default)]
pub(super) struct AlgoCache {
    map: HashMap<Key, (Choice, u64)>,
    tick: u64,
    hits: u64,
    misses: u64,
}

impl AlgoCache {
    /// The most choices kept.
    pub const CAPACITY: usize = 256;

    /// Lookups that found a choice and lookups that did not, so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// The choice for `pass` over these descriptors, cached or asked of cuDNN's heuristics;
    /// `descs.conv` is left with the choice's math type set.
    pub fn choose<T: DnnElement>(
        &mut self,
        handle: cudnnHandle_t,
        pass: Pass,
        g: &Geometry,
        descs: &ConvDescs,
        policy: Policy,
    ) -> Result<Choice> {
        let key = Key {
            pass,
            data_type: T::DATA_TYPE.0,
            geometry: *g,
            policy,
        };
        self.tick += 1;
        let tick = self.tick;
        if let Some((c, used)) = self.map.get_mut(&key) {
            *used = tick;
            self.hits += 1;
            let c = *c;
            descs.conv.set_math(c.math)?;
            return Ok(c);
        }
        self.misses += 1;
        let c = heuristic::<T>(handle, pass, descs, policy)?;
        if self.map.len() >= Self::CAPACITY
            && let Some(oldest) = self
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| *k)
        {
            self.map.remove(&oldest);
        }
        self.map.insert(key, (c, tick));
        Ok(c)
    }
}

/// Asks cuDNN's heuristics for `pass`, keeps the first algorithm that runs here and that
/// `policy` allows, sets its math type on `descs.conv` and asks its workspace size.
fn heuristic<T: DnnElement>(
    h: cudnnHandle_t,
    pass: Pass,
    d: &ConvDescs,
    policy: Policy,
) -> Result<Choice> {
    let candidates = candidates(h, pass, d)?;
    let pick = candidates.iter().find(|c| {
        c.status.is_success()
            && math_allowed::<T>(c.math, policy.allow_tf32)
            && (!policy.deterministic || c.determinism == cudnnDeterminism_t::CUDNN_DETERMINISTIC)
    });
    let Some(pick) = pick else {
        let seen: Vec<String> = candidates
            .iter()
            .map(|c| format!("algo {} {:?} {:?}", c.algo, c.status, c.math))
            .collect();
        let status = cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED;
        return Err(crate::Error::Library {
            library: "libcudnn",
            call: pass.heuristic_call(),
            code: status.0,
            name: "CUDNN_STATUS_NOT_SUPPORTED".to_string(),
            description: format!(
                "not supported: cuDNN offers no {} convolution algorithm for {} data of this \
                 shape that keeps {policy:?}; its heuristics returned: [{}]",
                pass.name(),
                T::NAME,
                seen.join(", ")
            ),
        });
    };
    let math = run_math::<T>(pick.math, policy.allow_tf32);
    d.conv.set_math(math)?;
    let mut bytes = 0usize;
    // SAFETY: a live handle and descriptors; `bytes` is a valid out-pointer; the algorithm
    // number came from cuDNN's own enumeration for this pass.
    unsafe {
        match pass {
            Pass::Forward => cudnn!(cudnnGetConvolutionForwardWorkspaceSize(
                h,
                d.x.0,
                d.w.0,
                d.conv.0,
                d.y.0,
                cudnnConvolutionFwdAlgo_t(pick.algo),
                &mut bytes
            )),
            Pass::BackwardData => cudnn!(cudnnGetConvolutionBackwardDataWorkspaceSize(
                h,
                d.w.0,
                d.y.0,
                d.conv.0,
                d.x.0,
                cudnnConvolutionBwdDataAlgo_t(pick.algo),
                &mut bytes
            )),
            Pass::BackwardFilter => cudnn!(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                h,
                d.x.0,
                d.y.0,
                d.conv.0,
                d.w.0,
                cudnnConvolutionBwdFilterAlgo_t(pick.algo),
                &mut bytes
            )),
        }
    }?;
    Ok(Choice {
        algo: pick.algo,
        math,
        workspace: bytes,
    })
}

/// Every algorithm cuDNN's heuristics rank for `pass`, best first.
fn candidates(h: cudnnHandle_t, pass: Pass, d: &ConvDescs) -> Result<Vec<Candidate>> {
    let mut max: c_int = 0;
    // SAFETY: a live handle and a valid out-pointer.
    unsafe {
        match pass {
            Pass::Forward => cudnn!(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &mut max)),
            Pass::BackwardData => {
                cudnn!(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(
                    h, &mut max
                ))
            }
            Pass::BackwardFilter => {
                cudnn!(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(
                    h, &mut max
                ))
            }
        }
    }?;
    let n = max.clamp(1, 64) as usize;
    let mut returned: c_int = 0;
    let mut out: Vec<Candidate> = match pass {
        Pass::Forward => {
            let mut r = vec![zeroed_fwd(); n];
            // SAFETY: live handle and descriptors; `r` holds `n` results.
            unsafe {
                cudnn!(cudnnGetConvolutionForwardAlgorithm_v7(
                    h,
                    d.x.0,
                    d.w.0,
                    d.conv.0,
                    d.y.0,
                    n as c_int,
                    &mut returned,
                    r.as_mut_ptr()
                ))
            }?;
            r.iter()
                .map(|p| Candidate {
                    algo: p.algo.0,
                    status: p.status,
                    determinism: p.determinism,
                    math: p.mathType,
                })
                .collect()
        }
        Pass::BackwardData => {
            let mut r = vec![zeroed_bwd_data(); n];
            // SAFETY: as above.
            unsafe {
                cudnn!(cudnnGetConvolutionBackwardDataAlgorithm_v7(
                    h,
                    d.w.0,
                    d.y.0,
                    d.conv.0,
                    d.x.0,
                    n as c_int,
                    &mut returned,
                    r.as_mut_ptr()
                ))
            }?;
            r.iter()
                .map(|p| Candidate {
                    algo: p.algo.0,
                    status: p.status,
                    determinism: p.determinism,
                    math: p.mathType,
                })
                .collect()
        }
        Pass::BackwardFilter => {
            let mut r = vec![zeroed_bwd_filter(); n];
            // SAFETY: as above.
            unsafe {
                cudnn!(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                    h,
                    d.x.0,
                    d.y.0,
                    d.conv.0,
                    d.w.0,
                    n as c_int,
                    &mut returned,
                    r.as_mut_ptr()
                ))
            }?;
            r.iter()
                .map(|p| Candidate {
                    algo: p.algo.0,
                    status: p.status,
                    determinism: p.determinism,
                    math: p.mathType,
                })
                .collect()
        }
    };
    out.truncate((returned.max(0) as usize).min(n));
    Ok(out)
}

/// A result slot cuDNN overwrites; its status says "not supported" until then.
fn zeroed_fwd() -> cudnnConvolutionFwdAlgoPerf_t {
    cudnnConvolutionFwdAlgoPerf_t {
        algo: cudnnConvolutionFwdAlgo_t(0),
        status: cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED,
        time: -1.0,
        memory: 0,
        determinism: cudnnDeterminism_t::CUDNN_NON_DETERMINISTIC,
        mathType: cudnnMathType_t::CUDNN_DEFAULT_MATH,
        reserved: [0; 3],
    }
}

fn zeroed_bwd_data() -> cudnnConvolutionBwdDataAlgoPerf_t {
    cudnnConvolutionBwdDataAlgoPerf_t {
        algo: cudnnConvolutionBwdDataAlgo_t(0),
        status: cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED,
        time: -1.0,
        memory: 0,
        determinism: cudnnDeterminism_t::CUDNN_NON_DETERMINISTIC,
        mathType: cudnnMathType_t::CUDNN_DEFAULT_MATH,
        reserved: [0; 3],
    }
}

fn zeroed_bwd_filter() -> cudnnConvolutionBwdFilterAlgoPerf_t {
    cudnnConvolutionBwdFilterAlgoPerf_t {
        algo: cudnnConvolutionBwdFilterAlgo_t(0),
        status: cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED,
        time: -1.0,
        memory: 0,
        determinism: cudnnDeterminism_t::CUDNN_NON_DETERMINISTIC,
        mathType: cudnnMathType_t::CUDNN_DEFAULT_MATH,
        reserved: [0; 3],
    }
}

/// The forward algorithm the fused bias-and-identity convolution must use (cuDNN runs that
/// fusion with the implicit precomputed GEMM only), with `math` set on `descs.conv` and the
/// workspace that algorithm needs.
pub(super) fn precomp_gemm(
    h: cudnnHandle_t,
    descs: &ConvDescs,
    math: cudnnMathType_t,
) -> Result<Choice> {
    let algo = cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    descs.conv.set_math(math)?;
    let mut bytes = 0usize;
    // SAFETY: a live handle and descriptors; a valid out-pointer.
    unsafe {
        cudnn!(cudnnGetConvolutionForwardWorkspaceSize(
            h,
            descs.x.0,
            descs.w.0,
            descs.conv.0,
            descs.y.0,
            algo,
            &mut bytes
        ))
    }?;
    Ok(Choice {
        algo: algo.0,
        math,
        workspace: bytes,
    })
}
