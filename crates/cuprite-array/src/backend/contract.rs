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

/// An eager operation's two implementations, of which the backend runs one
/// ([`Executor::run_eager`]): the operation (in `ops/`) writes both halves and never asks which
/// device it is on. Built by [`eager`](super::eager) from two closures.
pub(crate) trait EagerWork {
    /// The host twin (CPU backend, dry run).
    fn host(&mut self) -> Result<()>;
    /// The CUDA path on the device of this `ordinal`.
    fn cuda(&mut self, ordinal: usize) -> Result<()>;
}

/// [`EagerWork`] over two closures, keeping the result of the one that ran. Each closure is
/// taken when it runs: a second call of either side is an `Err`, never a second run.
pub(crate) struct EagerPair<H, C, R> {
    pub host: Option<H>,
    pub cuda: Option<C>,
    pub out: Option<R>,
}

impl<H, C, R> EagerWork for EagerPair<H, C, R>
where
    H: FnOnce() -> Result<R>,
    C: FnOnce(usize) -> Result<R>,
{
    fn host(&mut self) -> Result<()> {
        let f = self.host.take().ok_or_else(ran_twice)?;
        self.cuda = None;
        self.out = Some(f()?);
        Ok(())
    }

    fn cuda(&mut self, ordinal: usize) -> Result<()> {
        let f = self.cuda.take().ok_or_else(ran_twice)?;
        self.host = None;
        self.out = Some(f(ordinal)?);
        Ok(())
    }
}

/// The error of an [`EagerPair`] asked to run a second time.
pub(crate) fn ran_twice() -> crate::error::Error {
    crate::error::Error::InvalidArgument(
        "an eager operation's backend ran it twice or not at all".into(),
    )
}

/// Facts about a backend's libraries that decide how an operation is planned (the operation's
/// result is the same on every backend; only the route to it differs).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Limits {
    /// The real-to-complex and complex-to-real FFTs run along the last axis only (the library
    /// needs its real and complex pointers aligned to the complex type, which the interleaved
    /// signals of an inner axis are not): other axes are moved last first.
    pub fft_real_last_axis: bool,
    /// A complex-to-real FFT reads the imaginary parts of the zero-frequency and Nyquist points
    /// of its input (which NumPy ignores): a one-axis inverse zeroes them in a copy first.
    pub fft_c2r_reads_edges: bool,
    /// An `f64` matrix product folds in a scale, or a bias or ReLU epilogue, but no GELU and
    /// no bias together with an activation.
    pub gemm_f64_epilogues_limited: bool,
}

/// A one-word flag that kernels raise (a failed index check), made zero on its device.
pub(crate) struct FlagWord {
    /// The word, as a one-element `u32` buffer of the device.
    pub storage: Arc<Storage>,
    /// The host address of the word when it is mapped host memory, which the host reads after
    /// a synchronisation without a copy; the storage's keeper hands it back after its last use.
    pub mapped: Option<*const u32>,
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
    /// Sums the single output of `prog`, viewed as `outer x inner`, along `inner` into `out` (a
    /// real float dtype), for a caller that then divides every sum by `divisor` (a value `out`
    /// holds exactly: a mean's count). The flag says whether the backend made the division
    /// already, with the values the sum followed by an element-wise division gives; where it
    /// did not (the default), the caller divides.
    fn sum_then_divide(
        &self,
        device: Device,
        prog: &Program,
        (outer, inner): (usize, usize),
        out: DType,
        divisor: f64,
    ) -> Result<(Arc<Storage>, bool)> {
        let _ = divisor;
        Ok((
            self.reduce(device, prog, ReduceOp::Sum, outer, inner, out)?,
            false,
        ))
    }
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
    /// A copy of the contiguous buffer `src` on `device`, when this backend reads `src`'s
    /// memory directly (another GPU of the same backend); `None` when the copy has to go
    /// through the host (the caller then downloads and uploads).
    fn copy_from(&self, device: Device, src: &Storage) -> Result<Option<Arc<Storage>>> {
        let _ = (device, src);
        Ok(None)
    }
    /// A new zeroed flag word on `device`.
    fn flag_word(&self, device: Device) -> Result<FlagWord> {
        let storage = self.upload(device, DType::U32, 1, &[0; 4])?;
        Ok(FlagWord {
            storage,
            mapped: None,
        })
    }
    /// Whether a kernel raised `flag` since it was made (on a GPU a synchronisation).
    fn flag_raised(&self, flag: &FlagWord) -> Result<bool> {
        Ok(self.download(&flag.storage)?.iter().any(|&b| b != 0))
    }
    /// The facts of this backend's libraries that operations plan by.
    fn limits(&self) -> Limits {
        Limits::default()
    }
    /// Runs one eager operation that has a host twin and a CUDA path (sorts, selections,
    /// solver calls) on `device`: the backend picks the side, as it picks a library call's
    /// `run_cpu` or `run_cuda`. A backend that runs such work on the host (the default) calls
    /// [`EagerWork::host`]; the CUDA backend calls [`EagerWork::cuda`] with the device's
    /// ordinal. Exactly one side runs, once.
    fn run_eager(&self, device: Device, work: &mut dyn EagerWork) -> Result<()> {
        let _ = device;
        work.host()
    }
    /// Waits until all array work queued on `device` is done.
    fn sync(&self, device: Device) -> Result<()>;
    /// `(free, total)` bytes of `device`.
    fn mem_info(&self, device: Device) -> Result<(usize, usize)>;
    /// Releases memory cached for `device` back to the system.
    fn gc(&self, device: Device) -> Result<()>;
}
