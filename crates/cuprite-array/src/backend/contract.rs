//! The contract every backend implements ([`Executor`]) and the inputs of library calls; a
//! leaf of `backend`, so that the implementations depend on it and not on the dispatcher.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{FusedCall, LibraryCall, Node, Program};
use crate::op::ReduceOp;
use crate::shape::Layout;
use crate::storage::Storage;
use std::sync::Arc;

/// One input of a library call: realised storage read through a layout.
pub(crate) struct LibraryInput {
    pub storage: Arc<Storage>,
    pub layout: Layout,
    pub shape: Vec<usize>,
    pub dtype: DType,
}

/// What a backend does. Every method runs on `device`, which belongs to the backend.
pub(crate) trait Executor: Sync {
    /// New storage holding `bytes` (`len` elements of `dtype`).
    fn upload(
        &self,
        device: Device,
        dtype: DType,
        len: usize,
        bytes: &[u8],
    ) -> Result<Arc<Storage>>;
    /// All bytes of `s`, on the host.
    fn download(&self, s: &Storage) -> Result<Vec<u8>>;
    /// Evaluates `prog` into fresh contiguous storage, one per output.
    fn eval(&self, device: Device, prog: &Program) -> Result<Vec<Arc<Storage>>>;
    /// [`eval`](Self::eval) of a program of one output.
    fn eval_one(&self, device: Device, prog: &Program) -> Result<Arc<Storage>>;
    /// Evaluates `node` into fresh contiguous storage when it is one step over contiguous
    /// leaves and constants ([`Node::small_form`]) and the backend has a faster way to do so
    /// than linearising it; `None` otherwise (the caller then builds its program).
    fn eval_small(&self, device: Device, node: &Arc<Node>) -> Result<Option<Arc<Storage>>> {
        let _ = (device, node);
        Ok(None)
    }
    /// New contiguous storage of `len` elements, filled by evaluating each one-output program
    /// into its layout (disjoint views of the new buffer), in order.
    fn eval_into_views(
        &self,
        device: Device,
        dtype: DType,
        len: usize,
        pieces: &[(Program, Layout)],
    ) -> Result<Arc<Storage>>;
    /// Reduces the single output of `prog`, viewed as `outer x inner`, along `inner`.
    fn reduce(
        &self,
        device: Device,
        prog: &Program,
        op: ReduceOp,
        outer: usize,
        inner: usize,
        out: DType,
    ) -> Result<Arc<Storage>>;
    /// Runs a library call on realised inputs, into new storage of `len` elements of `out`.
    fn library(
        &self,
        device: Device,
        call: &dyn LibraryCall,
        inputs: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>>;
    /// Runs a fused library call: its leading inputs as the program `prog`, the `rest`
    /// realised, into new storage of `len` elements of `out`.
    fn library_fused(
        &self,
        device: Device,
        call: &dyn FusedCall,
        prog: &Program,
        rest: &[LibraryInput],
        out: DType,
        len: usize,
    ) -> Result<Arc<Storage>>;
    /// Waits until all array work queued on `device` is done.
    fn sync(&self, device: Device) -> Result<()>;
    /// `(free, total)` bytes of `device`.
    fn mem_info(&self, device: Device) -> Result<(usize, usize)>;
    /// Releases memory cached for `device` back to the system.
    fn gc(&self, device: Device) -> Result<()>;
}
