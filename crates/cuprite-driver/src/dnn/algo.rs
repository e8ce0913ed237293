//! Choosing a convolution algorithm: measured by cuDNN (`cudnnFind*AlgorithmEx`, which runs
//! every candidate on the call's own buffers and sorts them by time) or cuDNN's heuristics
//! (`cudnnGet*Algorithm_v7`), filtered by cuprite's precision and determinism settings, with
//! the workspace the choice needs, and a small cache of choices per shape.
//!
//! This module owns the choice and its cache. The cache is a plain map the handle keeps under
//! its lock; it holds no device memory (a workspace is allocated per call from the
//! stream-ordered pool), so dropping entries costs nothing. Each entry records whether a
//! measurement was attempted for it: a heuristic entry (made while measuring was off or not
//! possible, as inside a graph capture) is measured again by the first later call that may
//! measure; a measured entry, or one whose measurement fell back to the heuristics, is final.

use super::desc::ConvDescs;
use super::element::{DnnElement, math_allowed, run_math};
use super::engine::Plan;
pub(super) use super::pass::{Pass, Policy};
use super::shape::Geometry;
use crate::error::{Error, Result};
use cuprite_sys::cudnn::{
    cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdDataAlgoPerf_t,
    cudnnConvolutionBwdFilterAlgo_t, cudnnConvolutionBwdFilterAlgoPerf_t,
    cudnnConvolutionFwdAlgo_t, cudnnConvolutionFwdAlgoPerf_t, cudnnDeterminism_t, cudnnHandle_t,
    cudnnMathType_t, cudnnStatus_t,
};
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

/// The most workspace bytes a measurement gives cuDNN's candidates; a candidate that needs
/// more is not timed (cuDNN reports it as failed, and [`fastest_measured`] skips it).
pub(super) const SEARCH_WORKSPACE_LIMIT: usize = 1 << 30;

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

/// The problem of a graph-API plan: a legacy [`Key`]'s fields and the byte alignment the plan
/// may assume of the call's pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct PlanKey {
    pub pass: Pass,
    pub data_type: c_int,
    pub geometry: Geometry,
    pub policy: Policy,
    pub align: i64,
}

/// One heuristic or measured result, whatever the pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Candidate {
    pub algo: c_int,
    pub status: cudnnStatus_t,
    pub determinism: cudnnDeterminism_t,
    pub math: cudnnMathType_t,
    /// Workspace bytes (measured results: what the timed run used).
    pub memory: usize,
    /// Milliseconds (measured results), or cuDNN's estimate.
    pub time: f32,
}

/// What a measurement of a cache miss came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Measured {
    /// The fastest allowed candidate, settled (math type set on the descriptor, workspace
    /// asked).
    Chose(Choice),
    /// Measuring ran or was tried and gave nothing usable (no allowed candidate, the symbol
    /// missing, no room for the workspace): the heuristic choice, for good.
    FellBack,
    /// Measuring is not possible on this call (the stream is capturing): the heuristic
    /// choice, measured again by a later call.
    NotNow,
}

/// A cached choice, whether a measurement was attempted for it, and when it was last used.
#[derive(Clone, Copy, Debug)]
struct Entry {
    choice: Choice,
    searched: bool,
    used: u64,
}

/// Algorithm choices by pass, element type, shape and policy; the least recently used one is
/// dropped beyond [`AlgoCache::CAPACITY`].
#[derive(Default)]
pub(super) struct AlgoCache {
    map: HashMap<Key, Entry>,
    /// Graph-API plans by problem (`None`: no plan keeps the policy here, the legacy API
    /// computes it). Never evicted: a plan owns the kernels its enqueued work runs, so plans
    /// live as long as the handle, and a problem beyond [`AlgoCache::CAPACITY`] plans takes
    /// the legacy API.
    plans: HashMap<PlanKey, Option<Arc<Plan>>>,
    /// Plans whose execution cuDNN refused, kept with the others until the handle goes.
    refused: Vec<Arc<Plan>>,
    /// Which API computes a problem for which the handle times both (`true`: the graph API's
    /// plan ran faster than the legacy API's algorithm on its first call).
    faster: HashMap<PlanKey, bool>,
    tick: u64,
    hits: u64,
    misses: u64,
    searches: u64,
}

impl std::fmt::Debug for AlgoCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlgoCache")
            .field("choices", &self.map.len())
            .field("plans", &self.plans.len())
            .field("hits", &self.hits)
            .field("misses", &self.misses)
            .field("searches", &self.searches)
            .finish()
    }
}

impl AlgoCache {
    /// The most choices kept.
    pub const CAPACITY: usize = 256;

    /// Lookups that found a choice and lookups that did not, so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// How many choices were made by measuring (`cudnnFind*AlgorithmEx`, or timing graph-API
    /// plans).
    pub fn searches(&self) -> u64 {
        self.searches
    }

    /// Whether a plan was made for `key` (or found impossible).
    pub fn planned(&self, key: &PlanKey) -> bool {
        self.plans.contains_key(key)
    }

    /// The plan of `key`, if one was made and keeps the policy (counted as a hit when `hit`).
    pub fn plan(&mut self, key: &PlanKey, hit: bool) -> Option<&Arc<Plan>> {
        let p = self.plans.get(key)?.as_ref()?;
        self.hits += u64::from(hit);
        Some(p)
    }

    /// Marks the plan of `key` as unusable: the legacy API computes its problem from now on.
    /// The plan itself is kept (with the refused ones) for the handle's life.
    pub fn refuse_plan(&mut self, key: &PlanKey) {
        if let Some(p) = self.plans.get_mut(key).and_then(Option::take) {
            self.refused.push(p);
        }
    }

    /// The API that computes `key`'s problem where the handle times both: `Some(true)` the
    /// graph API, `Some(false)` the legacy API, `None` not timed yet.
    pub fn faster_api(&self, key: &PlanKey) -> Option<bool> {
        self.faster.get(key).copied()
    }

    /// Keeps which API computes `key`'s problem from now on (see [`faster_api`](Self::faster_api)).
    pub fn set_faster_api(&mut self, key: PlanKey, graph: bool) {
        self.faster.insert(key, graph);
    }

    /// How many problems the graph API and the legacy API each won (see
    /// [`faster_api`](Self::faster_api)).
    pub fn faster_counts(&self) -> (usize, usize) {
        let graph = self.faster.values().filter(|&&g| g).count();
        (graph, self.faster.len() - graph)
    }

    /// Whether a new plan can be kept.
    pub fn plan_room(&self) -> bool {
        self.plans.len() < Self::CAPACITY
    }

    /// Keeps what was planned for `key`: a plan (counted as a miss, and as a measurement when
    /// `measured`), or `None` (no plan keeps the policy here: the legacy API computes the
    /// problem, and counts its own choice).
    pub fn insert_plan(&mut self, key: PlanKey, plan: Option<Plan>, measured: bool) {
        if plan.is_some() {
            self.misses += 1;
            self.searches += u64::from(measured);
        }
        self.plans.insert(key, plan.map(Arc::new));
    }

    /// How many graph-API plans are kept.
    pub fn plan_count(&self) -> usize {
        self.plans.values().filter(|p| p.is_some()).count()
    }

    /// Whether any graph-API plan is kept.
    pub fn has_plans(&self) -> bool {
        !self.plans.is_empty() || !self.refused.is_empty()
    }

    /// Drops every plan (the handle's work that ran them must be complete).
    pub fn clear_plans(&mut self) {
        self.plans.clear();
        self.refused.clear();
        self.faster.clear();
    }

    /// The choice for `pass` over these descriptors: cached, measured by `measure` (when given:
    /// measuring is on for this call; it runs on a miss, and on a cached entry no measurement
    /// was attempted for), or asked of cuDNN's heuristics. `descs.conv` is left with the
    /// choice's math type set. A measurement that replaces a cached entry counts as a miss.
    pub fn choose<T: DnnElement>(
        &mut self,
        handle: cudnnHandle_t,
        pass: Pass,
        g: &Geometry,
        descs: &ConvDescs,
        policy: Policy,
        measure: Option<&mut dyn FnMut() -> Result<Measured>>,
    ) -> Result<Choice> {
        let key = Key {
            pass,
            data_type: T::DATA_TYPE.0,
            geometry: *g,
            policy,
        };
        self.tick += 1;
        let tick = self.tick;
        if let Some(e) = self.map.get_mut(&key) {
            e.used = tick;
            let cached = e.choice;
            let Some(measure) = measure.filter(|_| !e.searched) else {
                self.hits += 1;
                descs.conv.set_math(cached.math)?;
                return Ok(cached);
            };
            return match measure()? {
                Measured::Chose(c) => {
                    self.misses += 1;
                    self.searches += 1;
                    self.map.insert(
                        key,
                        Entry {
                            choice: c,
                            searched: true,
                            used: tick,
                        },
                    );
                    Ok(c)
                }
                outcome => {
                    if outcome == Measured::FellBack
                        && let Some(e) = self.map.get_mut(&key)
                    {
                        e.searched = true;
                    }
                    self.hits += 1;
                    descs.conv.set_math(cached.math)?;
                    Ok(cached)
                }
            };
        }
        self.misses += 1;
        let (c, searched) = match measure.map(|m| m()).transpose()? {
            Some(Measured::Chose(c)) => {
                self.searches += 1;
                (c, true)
            }
            Some(Measured::FellBack) => (heuristic::<T>(handle, pass, descs, policy)?, true),
            Some(Measured::NotNow) | None => (heuristic::<T>(handle, pass, descs, policy)?, false),
        };
        if self.map.len() >= Self::CAPACITY
            && let Some(oldest) = self.map.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| *k)
        {
            self.map.remove(&oldest);
        }
        self.map.insert(
            key,
            Entry {
                choice: c,
                searched,
                used: tick,
            },
        );
        Ok(c)
    }
}

/// Whether `c` keeps `policy` for `T`: it runs here, keeps `T`'s precision, and is
/// deterministic when that is asked.
fn allowed<T: DnnElement>(c: &Candidate, policy: Policy) -> bool {
    c.status.is_success()
        && math_allowed::<T>(c.math, policy.allow_tf32)
        && (!policy.deterministic || c.determinism == cudnnDeterminism_t::CUDNN_DETERMINISTIC)
}

/// The first `most` of `measured` (cuDNN sorts them fastest first) that `policy` allows and
/// that ran within `workspace_limit` bytes, one per algorithm, in cuDNN's order.
pub(super) fn fastest_measured<T: DnnElement>(
    measured: &[Candidate],
    policy: Policy,
    workspace_limit: usize,
    most: usize,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::with_capacity(most);
    for c in measured {
        if out.len() == most {
            break;
        }
        if allowed::<T>(c, policy)
            && c.memory <= workspace_limit
            && c.time >= 0.0
            && !out.iter().any(|o| o.algo == c.algo)
        {
            out.push(*c);
        }
    }
    out
}

/// Whether a failed measurement should leave the choice to the heuristics rather than fail
/// the call: the function missing from this cuDNN (or cuDNN itself), a "not supported" status
/// (`3000..=3999`), or no device memory for the workspace.
pub(super) fn find_falls_back(e: &Error) -> bool {
    match e {
        Error::LibraryNotFound { .. } | Error::SymbolNotFound { .. } => true,
        Error::OutOfMemory { .. } => true,
        Error::Library {
            library: "libcudnn",
            code,
            ..
        } => (3000..=3999).contains(code),
        _ => false,
    }
}

/// The workspace a measurement of `pass` gives its candidates: the most any algorithm of the
/// pass asks with the descriptor's current math type (algorithms that do not run here are
/// skipped), at most [`SEARCH_WORKSPACE_LIMIT`].
pub(super) fn search_workspace(h: cudnnHandle_t, pass: Pass, d: &ConvDescs) -> usize {
    let mut most = 0usize;
    for algo in 0..pass.algo_count() {
        if let Ok(bytes) = workspace_bytes(h, pass, d, algo) {
            most = most.max(bytes);
        }
    }
    most.min(SEARCH_WORKSPACE_LIMIT)
}

/// The device pointers a measurement runs on: the pass's two inputs (in [`Pass`]' operand
/// order), its output (overwritten by every timed run) and the workspace.
pub(super) struct FindBuffers {
    pub a: *const c_void,
    pub b: *const c_void,
    pub out: *mut c_void,
    pub workspace: *mut c_void,
    pub workspace_bytes: usize,
}

/// Times `pass`'s candidates with cuDNN's `Find*AlgorithmEx` on `bufs` (run on the handle's
/// stream; cuDNN waits for its timings) and returns the `most` fastest that `policy` allows,
/// fastest first (none when none does). Nothing is settled on `d`.
///
/// # Safety
/// `d` describes the checked shape; `bufs.a`, `bufs.b` and `bufs.out` hold the elements their
/// descriptors span (inputs readable, output writable, its contents not needed: every timed
/// run overwrites it); `bufs.workspace` holds `bufs.workspace_bytes` bytes; the handle's
/// context is current and its stream ordered after the buffers' earlier work.
pub(super) unsafe fn find<T: DnnElement>(
    h: cudnnHandle_t,
    pass: Pass,
    d: &ConvDescs,
    bufs: &FindBuffers,
    policy: Policy,
    most: usize,
) -> Result<Vec<Candidate>> {
    let n = pass.algo_count().max(1) as usize;
    let mut returned: c_int = 0;
    let (a, b, out, ws, wsb) = (
        bufs.a,
        bufs.b,
        bufs.out,
        bufs.workspace,
        bufs.workspace_bytes,
    );
    let measured: Vec<Candidate> = match pass {
        Pass::Forward => {
            let mut r = vec![zeroed_fwd(); n];
            // SAFETY: the caller's contract covers the buffers; `r` holds `n` results.
            unsafe {
                cudnn!(cudnnFindConvolutionForwardAlgorithmEx(
                    h,
                    d.x.0,
                    a,
                    d.w.0,
                    b,
                    d.conv.0,
                    d.y.0,
                    out,
                    n as c_int,
                    &mut returned,
                    r.as_mut_ptr(),
                    ws,
                    wsb
                ))
            }?;
            r.iter()
                .map(|p| {
                    candidate(
                        p.algo.0,
                        p.status,
                        p.determinism,
                        p.mathType,
                        p.memory,
                        p.time,
                    )
                })
                .collect()
        }
        Pass::BackwardData => {
            let mut r = vec![zeroed_bwd_data(); n];
            // SAFETY: as above.
            unsafe {
                cudnn!(cudnnFindConvolutionBackwardDataAlgorithmEx(
                    h,
                    d.w.0,
                    a,
                    d.y.0,
                    b,
                    d.conv.0,
                    d.x.0,
                    out,
                    n as c_int,
                    &mut returned,
                    r.as_mut_ptr(),
                    ws,
                    wsb
                ))
            }?;
            r.iter()
                .map(|p| {
                    candidate(
                        p.algo.0,
                        p.status,
                        p.determinism,
                        p.mathType,
                        p.memory,
                        p.time,
                    )
                })
                .collect()
        }
        Pass::BackwardFilter => {
            let mut r = vec![zeroed_bwd_filter(); n];
            // SAFETY: as above.
            unsafe {
                cudnn!(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                    h,
                    d.x.0,
                    a,
                    d.y.0,
                    b,
                    d.conv.0,
                    d.w.0,
                    out,
                    n as c_int,
                    &mut returned,
                    r.as_mut_ptr(),
                    ws,
                    wsb
                ))
            }?;
            r.iter()
                .map(|p| {
                    candidate(
                        p.algo.0,
                        p.status,
                        p.determinism,
                        p.mathType,
                        p.memory,
                        p.time,
                    )
                })
                .collect()
        }
    };
    let returned = (returned.max(0) as usize).min(n);
    Ok(fastest_measured::<T>(
        &measured[..returned],
        policy,
        wsb,
        most,
    ))
}

fn candidate(
    algo: c_int,
    status: cudnnStatus_t,
    determinism: cudnnDeterminism_t,
    math: cudnnMathType_t,
    memory: usize,
    time: f32,
) -> Candidate {
    Candidate {
        algo,
        status,
        determinism,
        math,
        memory,
        time,
    }
}

/// The workspace bytes algorithm `algo` of `pass` needs with the descriptor's math type.
fn workspace_bytes(h: cudnnHandle_t, pass: Pass, d: &ConvDescs, algo: c_int) -> Result<usize> {
    let mut bytes = 0usize;
    // SAFETY: a live handle and descriptors; `bytes` is a valid out-pointer; `algo` is below
    // the pass's algorithm count (cuDNN answers an algorithm it cannot run with a status).
    unsafe {
        match pass {
            Pass::Forward => cudnn!(cudnnGetConvolutionForwardWorkspaceSize(
                h,
                d.x.0,
                d.w.0,
                d.conv.0,
                d.y.0,
                cudnnConvolutionFwdAlgo_t(algo),
                &mut bytes
            )),
            Pass::BackwardData => cudnn!(cudnnGetConvolutionBackwardDataWorkspaceSize(
                h,
                d.w.0,
                d.y.0,
                d.conv.0,
                d.x.0,
                cudnnConvolutionBwdDataAlgo_t(algo),
                &mut bytes
            )),
            Pass::BackwardFilter => cudnn!(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                h,
                d.x.0,
                d.y.0,
                d.conv.0,
                d.w.0,
                cudnnConvolutionBwdFilterAlgo_t(algo),
                &mut bytes
            )),
        }
    }?;
    Ok(bytes)
}

/// Settles `pick`: sets the math type it runs with on `d.conv` (its own, except `f32`
/// without TF32, which stays on FMA arithmetic) and asks the workspace it needs with it.
pub(super) fn settle<T: DnnElement>(
    h: cudnnHandle_t,
    pass: Pass,
    d: &ConvDescs,
    pick: &Candidate,
    policy: Policy,
) -> Result<Choice> {
    let math = run_math::<T>(pick.math, policy.allow_tf32);
    d.conv.set_math(math)?;
    Ok(Choice {
        algo: pick.algo,
        math,
        workspace: workspace_bytes(h, pass, d, pick.algo)?,
    })
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
    let pick = candidates.iter().find(|c| allowed::<T>(c, policy));
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
    settle::<T>(h, pass, d, pick, policy)
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
                .map(|p| {
                    candidate(
                        p.algo.0,
                        p.status,
                        p.determinism,
                        p.mathType,
                        p.memory,
                        p.time,
                    )
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
                .map(|p| {
                    candidate(
                        p.algo.0,
                        p.status,
                        p.determinism,
                        p.mathType,
                        p.memory,
                        p.time,
                    )
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
                .map(|p| {
                    candidate(
                        p.algo.0,
                        p.status,
                        p.determinism,
                        p.mathType,
                        p.memory,
                        p.time,
                    )
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

#[cfg(test)]
mod tests {
    use super::{Candidate, DnnElement, Policy, fastest_measured, find_falls_back};
    use crate::Error;
    use cuprite_sys::cudnn::{cudnnDeterminism_t, cudnnMathType_t, cudnnStatus_t};
    use half::bf16;

    const OK: cudnnStatus_t = cudnnStatus_t::CUDNN_STATUS_SUCCESS;
    const DET: cudnnDeterminism_t = cudnnDeterminism_t::CUDNN_DETERMINISTIC;
    const NONDET: cudnnDeterminism_t = cudnnDeterminism_t::CUDNN_NON_DETERMINISTIC;
    const TC: cudnnMathType_t = cudnnMathType_t::CUDNN_TENSOR_OP_MATH;
    const FMA: cudnnMathType_t = cudnnMathType_t::CUDNN_FMA_MATH;

    fn c(
        algo: i32,
        status: cudnnStatus_t,
        det: cudnnDeterminism_t,
        math: cudnnMathType_t,
        memory: usize,
    ) -> Candidate {
        Candidate {
            algo,
            status,
            determinism: det,
            math,
            memory,
            time: algo as f32 * 0.5,
        }
    }

    const FREE: Policy = Policy {
        allow_tf32: false,
        deterministic: false,
    };

    /// The fastest allowed candidate alone.
    fn pick_measured<T: DnnElement>(
        measured: &[Candidate],
        policy: Policy,
        limit: usize,
    ) -> Option<Candidate> {
        fastest_measured::<T>(measured, policy, limit, 1)
            .first()
            .copied()
    }

    #[test]
    fn measured_few_keep_cudnns_order_once_per_algorithm() {
        // cuDNN's order, one algorithm listed twice (two math types), one refused.
        let results = [
            c(5, OK, DET, FMA, 0),
            c(5, OK, NONDET, FMA, 0),
            c(0, cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED, DET, FMA, 0),
            c(7, OK, DET, FMA, 0),
            c(1, OK, DET, FMA, 0),
            c(2, OK, DET, FMA, 0),
        ];
        let algos = |most: usize| -> Vec<i32> {
            fastest_measured::<f32>(&results, FREE, 0, most)
                .iter()
                .map(|c| c.algo)
                .collect()
        };
        assert_eq!(algos(3), [5, 7, 1]);
        assert_eq!(algos(1), [5]);
        assert_eq!(algos(10), [5, 7, 1, 2]);
        assert!(algos(0).is_empty());
    }

    #[test]
    fn measured_pick_keeps_the_fastest_allowed() {
        // Fastest first, as cuDNN sorts them: a failed run, one over the workspace limit, a
        // TF32 run of f32 data, a non-deterministic one, then one that keeps every rule.
        let results = [
            c(0, cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED, DET, FMA, 0),
            c(1, OK, DET, FMA, 4096),
            c(2, OK, DET, TC, 0),
            c(3, OK, NONDET, FMA, 0),
            c(4, OK, DET, FMA, 1024),
        ];
        let pick =
            |p: Policy, limit: usize| pick_measured::<f32>(&results, p, limit).map(|c| c.algo);
        assert_eq!(pick(FREE, 1024), Some(3));
        assert_eq!(pick(FREE, 4096), Some(1));
        let det = Policy {
            deterministic: true,
            ..FREE
        };
        assert_eq!(pick(det, 1024), Some(4));
        assert_eq!(pick(det, 1023), None);
        let tf32 = Policy {
            allow_tf32: true,
            ..det
        };
        assert_eq!(pick(tf32, 1024), Some(2));
        // Half types run on tensor cores whatever the TF32 setting.
        assert_eq!(
            pick_measured::<bf16>(&results, det, 0).map(|c| c.algo),
            Some(2)
        );
        // f32 is never converted to a half type.
        let conv = [c(
            0,
            OK,
            DET,
            cudnnMathType_t::CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION,
            0,
        )];
        assert_eq!(pick_measured::<f32>(&conv, tf32, 0), None);
        // A result cuDNN did not time (negative time) is not a measurement.
        let mut untimed = c(0, OK, DET, FMA, 0);
        untimed.time = -1.0;
        assert_eq!(pick_measured::<f32>(&[untimed], FREE, 0), None);
        assert_eq!(pick_measured::<f32>(&[], FREE, usize::MAX), None);
    }

    #[test]
    fn measurement_failures_that_fall_back() {
        let missing = Error::SymbolNotFound {
            library: "libcudnn",
            symbol: "cudnnFindConvolutionForwardAlgorithmEx",
            path: "/x/libcudnn.so.9".into(),
        };
        assert!(find_falls_back(&missing));
        let absent = Error::LibraryNotFound {
            library: "libcudnn",
            tried: vec![],
        };
        assert!(find_falls_back(&absent));
        let oom = Error::OutOfMemory {
            requested: 1 << 30,
            free: 0,
            total: 1 << 30,
        };
        assert!(find_falls_back(&oom));
        let status = |library: &'static str, code: i32| Error::Library {
            library,
            call: "cudnnFindConvolutionForwardAlgorithmEx",
            code,
            name: String::new(),
            description: String::new(),
        };
        assert!(find_falls_back(&status("libcudnn", 3000)));
        assert!(find_falls_back(&status("libcudnn", 3999)));
        // Anything else is a real failure, returned to the caller.
        assert!(!find_falls_back(&status("libcudnn", 2000)));
        assert!(!find_falls_back(&status("libcudnn", 5000)));
        assert!(!find_falls_back(&status("libcublas", 3000)));
        assert!(!find_falls_back(&Error::InvalidArgument("x".into())));
    }
}
