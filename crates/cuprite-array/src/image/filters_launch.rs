//! What the image filters' library calls share between the graph and their kernels: realised
//! inputs as host slices or checked device views, the dispatch of an element type to its
//! working type, the check of a one-image call's input, a filter kernel's source (the typed
//! header of its element type, the call's constants, its `.cu` body and the entry) and its
//! cache key, and the grid-stride launch over the outputs.

use super::filters_elem::header;
use crate::codegen::{Helpers, KernelParams, KernelSource, ReadBuf, entry};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::CallInput;
use crate::jit::Kernel;
use crate::shape::checked_numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// The `len` contiguous elements of a realised host input from its offset.
pub(crate) fn host<'a, R: bytemuck::Pod>(x: &CallInput<'a, HostBuf>, len: usize) -> &'a [R] {
    let v: &[R] = bytemuck::cast_slice(x.buf.bytes());
    &v[x.layout.offset..x.layout.offset + len]
}

/// The `len` contiguous elements of a realised device input from its offset.
pub(crate) fn part<'a>(x: &CallInput<'a, DevBuf>, d: DType, len: usize) -> Result<ReadBuf<'a>> {
    ReadBuf::part(x.buf, d, x.layout.offset, len)
}

/// The grid of a grid-stride launch over `work` items of `per_block` each.
pub(crate) fn grid_for(sms: u64, blocks_per_sm: u64, work: usize, per_block: usize) -> u32 {
    let blocks = work.div_ceil(per_block.max(1)) as u64;
    let resident = (sms * blocks_per_sm).max(1) * 8;
    blocks.clamp(1, resident.min(i32::MAX as u64)) as u32
}

/// Runs `$f::<T, A>` for the element type `$d` and its working type.
macro_rules! by_dtype {
    ($d:expr, $f:ident ( $($a:expr),* )) => {
        match $d {
            DType::U8 => $f::<u8, f64>($($a),*),
            DType::U16 => $f::<u16, f64>($($a),*),
            DType::F16 => $f::<f16, f32>($($a),*),
            DType::F32 => $f::<f32, f32>($($a),*),
            DType::F64 => $f::<f64, f64>($($a),*),
            d => Err(Error::InvalidArgument(format!(
                "image filters take u8, u16, f16, f32 and f64, not {d}"
            ))),
        }
    };
}
pub(crate) use by_dtype;

/// Checks that the call `what` made for one input of `dtype` and `len` elements (described by
/// `made` in the error) was given exactly that.
pub(crate) fn check_one_input<B>(
    what: &str,
    made: &dyn std::fmt::Debug,
    dtype: DType,
    len: usize,
    inputs: &[CallInput<'_, B>],
) -> Result<()> {
    if inputs.len() != 1 || inputs[0].dtype != dtype || checked_numel(inputs[0].shape)? != len {
        return Err(Error::InvalidArgument(format!(
            "the {what} made for {made:?} was given {:?}",
            inputs
                .iter()
                .map(|x| (x.dtype, x.shape.to_vec()))
                .collect::<Vec<_>>()
        )));
    }
    Ok(())
}

/// A filter kernel `name` for images of `dtype`: the typed header, `defs` (the call's
/// compile-time constants), `body` (its `.cu` text) and the entry calling the device function
/// `func` with `P`'s parameters, launched in blocks of at most `threads`.
pub(crate) fn filter_kernel<'a, P: KernelParams<'a>>(
    name: String,
    dtype: DType,
    defs: &str,
    body: &str,
    func: &str,
    threads: usize,
) -> KernelSource {
    let src = format!(
        "{}{defs}{body}{}",
        header(dtype),
        entry::<P>(&name, &threads.to_string(), func)
    );
    KernelSource::generated(name, &src, Helpers::of_dtype(dtype))
}

/// The cache key of a filter kernel: its family's `seed` and `tag`, the element type and
/// whatever else (`extra`) its source depends on.
pub(crate) fn filter_key(seed: u64, tag: &str, dtype: DType, extra: impl Hash) -> u64 {
    let mut h = KeyHasher(seed);
    tag.hash(&mut h);
    dtype.code().hash(&mut h);
    extra.hash(&mut h);
    h.finish()
}

/// Launches `k` with `params` on `lane` as a grid-stride loop over `n` outputs in blocks of
/// `threads`.
///
/// # Safety
/// Every buffer of `params` is a checked view (`ReadBuf::part`, `WriteBuf::part`), and the
/// kernel, given these parameters, reads and writes only inside those views.
pub(crate) unsafe fn launch_grid_stride<'a, P: KernelParams<'a>>(
    lane: &CudaLane<'_>,
    k: &Kernel,
    params: &P,
    n: usize,
    threads: usize,
) -> Result<()> {
    let grid = grid_for(
        u64::from(lane.st.sms),
        u64::from(k.blocks_per_sm),
        n,
        threads,
    );
    let a = params.args();
    // SAFETY: the caller's contract: the buffers are checked views and the kernel stays inside
    // them for these parameters.
    unsafe {
        lane.stream.launch_packed(
            &k.func,
            (grid, 1, 1),
            (threads as u32, 1, 1),
            0,
            &a.words,
            &a.accesses(),
        )
    }?;
    Ok(())
}
