//! What a product applies before it stores D, with the buffers each epilogue reads or writes.

use crate::memory::{DeviceRead, DeviceWrite};
use std::fmt;

/// What is applied to `alpha · A · B + beta · C` before it is stored in D, with the buffers each
/// epilogue reads or writes.
///
/// **Bias vectors** have one element per index of D's *contiguous* dimension: one per column
/// for a row-major D (NumPy's `a @ b + bias`), one per row for a column-major D. They are
/// shared by every product of a batch. **GELU** is the tanh approximation
/// `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`, as cuBLASLt computes it.
///
/// The gradient epilogues serve a backward pass: [`GeluAux`](Self::GeluAux) stores the GELU
/// input (the pre-activation) beside the output, [`DGelu`](Self::DGelu) multiplies the product
/// by GELU's derivative at that stored input (and can reduce the result into a bias gradient),
/// [`BiasGradA`](Self::BiasGradA) / [`BiasGradB`](Self::BiasGradB) reduce an input over `k`.
/// They are for single products (`batch = 1`); cuBLASLt supports them for some element types
/// only, and answers `CUBLAS_STATUS_NOT_SUPPORTED` for the others.
#[non_exhaustive]
pub enum Epilogue<'a, T> {
    /// `D = x`.
    None,
    /// `D = max(x, 0)`.
    Relu,
    /// `D = gelu(x)`.
    Gelu,
    /// `D = x + bias`.
    Bias(&'a dyn DeviceRead<T>),
    /// `D = max(x + bias, 0)`.
    BiasRelu(&'a dyn DeviceRead<T>),
    /// `D = gelu(x + bias)`.
    BiasGelu(&'a dyn DeviceRead<T>),
    /// `D = gelu(x + bias)` (bias optional), and `aux = x + bias`, stored in D's order with
    /// leading dimension `ld` (a multiple of 8, at least D's contiguous size).
    GeluAux {
        /// The optional bias.
        bias: Option<&'a dyn DeviceRead<T>>,
        /// Where the GELU input goes.
        aux: &'a mut dyn DeviceWrite<T>,
        /// Its leading dimension.
        ld: usize,
    },
    /// `D = x · gelu'(aux)` with `aux` as [`GeluAux`](Self::GeluAux) stored it; with
    /// `bias_grad`, also the sum of the result over D's non-contiguous dimension (one element
    /// per index of D's contiguous dimension).
    DGelu {
        /// The GELU input of the forward pass.
        aux: &'a dyn DeviceRead<T>,
        /// Its leading dimension (a multiple of 8).
        ld: usize,
        /// Where the bias gradient goes, if wanted.
        bias_grad: Option<&'a mut dyn DeviceWrite<T>>,
    },
    /// `D = x`, and `bias_grad[i] = Σ_k A[i, k]` (`m` elements). A must be column-major
    /// (cuBLASLt reduces it only so).
    BiasGradA(&'a mut dyn DeviceWrite<T>),
    /// `D = x`, and `bias_grad[j] = Σ_k B[k, j]` (`n` elements). B must be row-major (cuBLASLt
    /// reduces it only so).
    BiasGradB(&'a mut dyn DeviceWrite<T>),
}

impl<T> fmt::Debug for Epilogue<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Epilogue::None => "None",
            Epilogue::Relu => "Relu",
            Epilogue::Gelu => "Gelu",
            Epilogue::Bias(_) => "Bias",
            Epilogue::BiasRelu(_) => "BiasRelu",
            Epilogue::BiasGelu(_) => "BiasGelu",
            Epilogue::GeluAux { bias: None, .. } => "GeluAux",
            Epilogue::GeluAux { bias: Some(_), .. } => "BiasGeluAux",
            Epilogue::DGelu {
                bias_grad: None, ..
            } => "DGelu",
            Epilogue::DGelu {
                bias_grad: Some(_), ..
            } => "DGeluBiasGrad",
            Epilogue::BiasGradA(_) => "BiasGradA",
            Epilogue::BiasGradB(_) => "BiasGradB",
        };
        f.write_str(name)
    }
}
