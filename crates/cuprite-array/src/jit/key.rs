//! Kernel keys: what, beside a program's structure ([`Program::structure_hash`]), decides the
//! source of a kernel generated for that program. Two launches share a kernel exactly when
//! their programs have the same structure and their [`KernelKind`]s are equal; every field
//! here must therefore be one that the emitter reads.
//!
//! [`Program::structure_hash`]: crate::graph::Program::structure_hash

use crate::codegen::{Finish, RowAxes, ScanForm, ScanSpec, Variant};
use crate::dtype::DType;
use crate::op::ReduceOp;

/// The kind of a kernel generated for a program, with the choices its source depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum KernelKind {
    /// An element-wise kernel (`codegen::elementwise`).
    Elementwise(Variant),
    /// A reduction along rows (`codegen::reduction`).
    Reduction {
        variant: Variant,
        op: ReduceOp,
        /// The dtype partials are kept in between passes.
        pass: DType,
        /// The dtype the kernel writes.
        written: DType,
        /// Whether the last block of a row combines the partials in the same launch.
        combine: bool,
        /// Lanes per row where rows are reduced by lanes of a warp
        /// (`codegen::reduction_warp_rows`), 0 where by blocks.
        row_lanes: u8,
        /// Outputs a block where the block's threads take consecutive outputs
        /// (`codegen::reduction_columns`), 0 otherwise.
        col_lanes: u16,
        /// Which trailing axes of the program the rows run over, which inputs are constant
        /// along them, and the rows reduced together along a short kept axis with the inputs
        /// that vary along it or share another's reads (`codegen::RowAxes`).
        axes: RowAxes,
        /// What a row's write holds (`codegen::Finish`).
        finish: Finish,
    },
    /// A scan or compaction reading the program fused (`codegen::scan`).
    Scan { spec: ScanSpec, form: ScanForm },
    /// `searchsorted` with queries from the program, over sorted rows of `dtype`.
    Search { dtype: DType },
    /// A row kernel (softmax, norms) whose input the program produces along `axis`.
    RowProducer { axis: usize },
}
