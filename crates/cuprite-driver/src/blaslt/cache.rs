//! The plan cache: what a problem's plan depends on (its key, in cuBLASLt's column-major
//! frame), and the descriptors and algorithm kept for it.

use cuprite_sys::cublaslt::{
    self as sys, cublasLtEpilogue_t as Epi, cublasLtMatmulAlgo_t, cublasLtMatmulDesc_t,
    cublasLtMatrixLayout_t,
};
use std::collections::HashMap;

/// One operand in cuBLASLt's column-major frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct LtMatrix {
    pub(super) rows: u64,
    pub(super) cols: u64,
    pub(super) ld: i64,
    pub(super) stride: i64,
}

/// Everything the descriptors and the heuristic depend on: the plan cache's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct PlanKey {
    /// The element type of A and B.
    pub(super) dtype: i32,
    /// The element type of C and D (A's, or `f32` for half A and B).
    pub(super) d_dtype: i32,
    pub(super) compute: i32,
    pub(super) half_scalars: bool,
    pub(super) batch: i32,
    pub(super) trans_a: bool,
    pub(super) trans_b: bool,
    pub(super) a: LtMatrix,
    pub(super) b: LtMatrix,
    pub(super) c: Option<LtMatrix>,
    pub(super) d: LtMatrix,
    pub(super) epilogue: u32,
    pub(super) aux_ld: i64,
    /// log2 of the alignment (capped at 256 bytes) of A, B, C, D, bias, aux.
    pub(super) align: [u8; 6],
}

/// Cached descriptors and the chosen algorithm of one problem.
pub(super) struct Plan {
    pub(super) desc: cublasLtMatmulDesc_t,
    pub(super) a: cublasLtMatrixLayout_t,
    pub(super) b: cublasLtMatrixLayout_t,
    pub(super) c: Option<cublasLtMatrixLayout_t>,
    pub(super) d: cublasLtMatrixLayout_t,
    pub(super) algo: cublasLtMatmulAlgo_t,
    pub(super) workspace: usize,
    /// The heuristic's candidates (algorithm, workspace bytes), best first, still to be timed
    /// by [`BlasLt::tune`](super::handle::BlasLt); empty once the algorithm is settled.
    pub(super) pending: Vec<(cublasLtMatmulAlgo_t, usize)>,
    /// Whether the algorithm was chosen by timing the candidates.
    pub(super) tuned: bool,
}

impl Plan {
    pub(super) fn destroy(&mut self) {
        // SAFETY: each descriptor was created by this plan and is destroyed once (then nulled).
        unsafe {
            if !self.desc.is_null() {
                let _ = sys::cublasLtMatmulDescDestroy(self.desc);
            }
            for l in [Some(self.a), Some(self.b), self.c, Some(self.d)]
                .into_iter()
                .flatten()
            {
                if !l.is_null() {
                    let _ = sys::cublasLtMatrixLayoutDestroy(l);
                }
            }
        }
        self.desc = std::ptr::null_mut();
        self.a = std::ptr::null_mut();
        self.b = std::ptr::null_mut();
        self.c = None;
        self.d = std::ptr::null_mut();
    }
}

#[derive(Default)]
pub(super) struct Plans {
    pub(super) list: Vec<Plan>,
    pub(super) index: HashMap<PlanKey, usize>,
    /// The last plan used: a repeated call skips the hash.
    pub(super) last: Option<(PlanKey, usize)>,
    /// How new plans choose their algorithm (`None`: the heuristic's first choice).
    pub(super) tuning: Option<super::tuning::Tuning>,
}

/// The operands of one call, in cuBLASLt's frame.
pub(super) struct Resolved {
    pub(super) key: PlanKey,
    pub(super) epilogue: Epi,
    /// A and B as cuBLASLt sees them (swapped for a row-major D).
    pub(super) ptr_a: u64,
    pub(super) ptr_b: u64,
    pub(super) ptr_c: u64,
    pub(super) ptr_d: u64,
    pub(super) bias: u64,
    pub(super) aux: u64,
}
