//! The CUDA side: the cuSOLVER handle of each device's array stream, and the device buffers a
//! routine works on.

use super::real::Scalar;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::ops::linalg::span::{Span, SpanNew as _};
use crate::runtime::{state, stream_of};
use crate::shape::Layout;
use crate::storage::{DevBuf, Storage};
use cuprite_driver::DeviceBuffer;
use cuprite_driver::blas::Blas;
use cuprite_driver::solver::Solver;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Library handles, one per array stream (keyed by the stream's address).
type Handles<H> = Mutex<HashMap<usize, Arc<H>>>;

/// The handle in `cache` of the array stream of device `ordinal`, made by `make` on first use.
fn handle_of<H>(
    cache: &'static OnceLock<Handles<H>>,
    ordinal: usize,
    make: impl FnOnce(&Arc<cuprite_driver::Stream>) -> cuprite_driver::Result<H>,
) -> Result<(Arc<H>, &'static crate::runtime::DeviceState)> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let key = Arc::as_ptr(stream) as usize;
    let mut g = cache
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = g.get(&key) {
        return Ok((h.clone(), st));
    }
    let h = Arc::new(make(stream)?);
    g.insert(key, h.clone());
    Ok((h, st))
}

/// The cuSOLVER handle of the array stream of device `ordinal`. Refused inside a compiled
/// program: every decomposition reads its status word back to the host after it runs, and
/// cuSOLVER's own calls may synchronise, neither of which a graph can hold.
pub(super) fn solver(
    ordinal: usize,
) -> Result<(Arc<Solver>, &'static crate::runtime::DeviceState)> {
    crate::runtime::refuse_in_capture_because(
        "a cuSOLVER decomposition (solve, inv, det, slogdet, cholesky, qr, svd, eig, eigh, \
         lstsq, pinv, matrix_rank)",
        "it reads its status back to the host after running; run it outside the compiled \
         closure",
    )?;
    static SOLVERS: OnceLock<Handles<Solver>> = OnceLock::new();
    handle_of(&SOLVERS, ordinal, Solver::new)
}

/// The cuBLAS handle of the array stream of device `ordinal` (triangular solves).
pub(super) fn blas(ordinal: usize) -> Result<Arc<Blas>> {
    static HANDLES: OnceLock<Handles<Blas>> = OnceLock::new();
    Ok(handle_of(&HANDLES, ordinal, Blas::new)?.0)
}

/// A fresh device buffer holding the row-major elements of `a` (a copy: cuSOLVER overwrites it).
pub(super) fn fresh<T: Scalar>(a: &Array<T>) -> Result<DevBuf> {
    copy_of::<T>(&*a.contiguous_storage()?)
}

/// A new device buffer holding a copy of the elements of `s` (of type `T`).
fn copy_of<T: Scalar>(s: &Storage) -> Result<DevBuf> {
    let Storage::Cuda(src) = s else {
        return Err(Error::DeviceMismatch(
            "a device matrix was expected on the CUDA backend".into(),
        ));
    };
    let st = state(src.ordinal())?;
    let stream = stream_of(st);
    let stream = stream.get();
    // SAFETY: written in full by the copy below before anything reads it.
    let d = unsafe { DevBuf::alloc(st, stream, T::DTYPE, src.len()) }?;
    if src.len() > 0 {
        let (Some(from), Some(to)) = (src.live(), d.live()) else {
            return Err(Error::InvalidArgument(
                "a matrix buffer was handed back".into(),
            ));
        };
        // Exactly the matrix's bytes (a buffer may be larger than its array).
        let bytes = src.len() * T::DTYPE.size();
        stream.memcpy_dtod(
            &Span::<u8>::new(from, 0, bytes)?,
            &mut Span::<u8>::new(to, 0, bytes)?,
        )?;
    }
    Ok(d)
}

/// A device buffer holding the row-major elements of `a` that the caller may overwrite: the
/// buffer a strided view's copy-out made when nothing else holds it (no second copy), else a
/// copy of the storage already realised (not realised again).
pub(super) fn owned<T: Scalar>(a: &Array<T>) -> Result<DevBuf> {
    let s = a.contiguous_storage()?;
    match Arc::try_unwrap(s) {
        Ok(Storage::Cuda(d)) if d.len() == a.len() => Ok(d),
        Ok(s) => copy_of::<T>(&s),
        Err(shared) => copy_of::<T>(&shared),
    }
}

/// A new uninitialised device buffer of `len` elements of `dtype` on the array stream.
pub(super) fn scratch(ordinal: usize, dtype: DType, len: usize) -> Result<DevBuf> {
    let st = state(ordinal)?;
    let stream = stream_of(st);
    // SAFETY: each caller has cuSOLVER write every element before anything reads it.
    unsafe { DevBuf::alloc(st, stream.get(), dtype, len) }
}

pub(super) fn buf(d: &DevBuf) -> Result<&DeviceBuffer<u8>> {
    d.live()
        .ok_or_else(|| Error::InvalidArgument("a matrix buffer was handed back".into()))
}

/// A span of all of `d` as `T`.
pub(super) fn span<T>(d: &DevBuf) -> Result<Span<'_, T>> {
    Span::new(buf(d)?, 0, d.len())
}

pub(super) fn dev_array<T: Element>(d: DevBuf, shape: &[usize], device: Device) -> Array<T> {
    Array::from_storage(
        Arc::new(Storage::Cuda(d)),
        Layout::contiguous(shape),
        shape,
        device,
    )
}

/// Ones on and above the diagonal of a `rows × cols` matrix (`upper`), or on and below.
pub(super) fn tri_mask(
    rows: usize,
    cols: usize,
    upper: bool,
    device: Device,
) -> Result<Array<bool>> {
    let mut v = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            v.push(if upper { j >= i } else { j <= i });
        }
    }
    Array::from_slice_on(device, &v, &[rows, cols])
}
