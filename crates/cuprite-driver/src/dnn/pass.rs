//! The three convolution computations and what the handle allows an algorithm to do: the
//! vocabulary shared by the legacy algorithm choice (`algo`) and the graph-API plans (`engine`).

use cuprite_sys::cudnn::{
    cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdFilterAlgo_t, cudnnConvolutionFwdAlgo_t,
};
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
    pub(super) fn name(self) -> &'static str {
        match self {
            Pass::Forward => "forward",
            Pass::BackwardData => "backward-data",
            Pass::BackwardFilter => "backward-filter",
        }
    }

    /// How many algorithms this pass's enum numbers (`CUDNN_CONVOLUTION_*_ALGO_COUNT`).
    pub(super) fn algo_count(self) -> c_int {
        match self {
            Pass::Forward => cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_COUNT.0,
            Pass::BackwardData => {
                cudnnConvolutionBwdDataAlgo_t::CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT.0
            }
            Pass::BackwardFilter => {
                cudnnConvolutionBwdFilterAlgo_t::CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT.0
            }
        }
    }

    /// The heuristics call that ranks this pass's algorithms.
    pub(super) fn heuristic_call(self) -> &'static str {
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
