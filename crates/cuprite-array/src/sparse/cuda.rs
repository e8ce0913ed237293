//! The CUDA side of the sparse products: a cuSPARSE handle per array stream, and typed views
//! of the component arrays' device buffers for `cuprite_driver::sparse`.

use super::{IndexType, SparseArray, SparseFormat, SparseIndices, SparseValue, Transpose};
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::runtime::{DeviceState, state, stream_of};
use crate::shape::Layout;
use crate::storage::{DevBuf, Storage};
use cuprite_driver::sparse::{Format, SpMat, Sparse, SparseIndex};
use cuprite_driver::{DeviceRead, DeviceViewMut, Stream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// The cuSPARSE handle of this thread's array stream of device `ordinal` (one per stream).
fn handle(ordinal: usize) -> Result<(Arc<Sparse>, &'static DeviceState)> {
    static HANDLES: OnceLock<Mutex<HashMap<usize, Arc<Sparse>>>> = OnceLock::new();
    let st = state(ordinal)?;
    let stream = stream_of(st);
    let stream = stream.get();
    let key = Arc::as_ptr(stream) as usize;
    let mut g = HANDLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(h) = g.get(&key) {
        return Ok((h.clone(), st));
    }
    let h = Arc::new(Sparse::new(stream)?);
    g.insert(key, h.clone());
    Ok((h, st))
}

/// The first `len` elements of a device buffer as `T` (tracked as the whole buffer).
///
/// Invariant: written only through views of buffers this module just allocated for a new
/// array, which no one else reads or writes yet.
type View<'a, T> = DeviceViewMut<'a, T>;

/// A view of `len` elements of `T` of device buffer `d`; an `Err` if it is shorter.
fn view<T>(d: &DevBuf, len: usize) -> Result<View<'_, T>> {
    let buf = d.buffer()?;
    let need = len.checked_mul(std::mem::size_of::<T>());
    if need.is_none_or(|n| n > buf.len()) {
        return Err(Error::InvalidArgument(format!(
            "sparse: a device buffer of {} bytes cannot hold {len} elements of {} bytes",
            buf.len(),
            std::mem::size_of::<T>()
        )));
    }
    // SAFETY: the first `len` elements lie inside `buf` (checked above), device memory alive for
    // the borrow of `d` and tracked by its tracker; writes go only to new arrays' buffers (see
    // `View`).
    Ok(unsafe { DeviceViewMut::from_raw_parts(buf.device_ptr(), len, buf.tracker()) })
}

/// The device buffer behind a realised storage.
fn dev(s: &Storage) -> Result<&DevBuf> {
    match s {
        Storage::Cuda(d) => Ok(d),
        Storage::Host(_) => Err(Error::DeviceMismatch(
            "a sparse product on the CUDA backend met an operand in host memory".into(),
        )),
    }
}

/// A new array of `shape` over `d`.
fn array_of<T: Element>(d: DevBuf, shape: &[usize], ordinal: usize) -> Array<T> {
    Array::from_storage(
        Arc::new(Storage::Cuda(d)),
        Layout::contiguous(shape),
        shape,
        crate::device::Device::cuda(ordinal),
    )
}

fn format_of(f: SparseFormat) -> Format {
    match f {
        SparseFormat::Csr => Format::Csr,
        SparseFormat::Csc => Format::Csc,
        SparseFormat::Coo => Format::Coo,
    }
}

/// `alpha · op(A) · B + beta · C` through cuSPARSE (SpMV when `out_shape` is 1-D).
#[allow(clippy::too_many_arguments)]
pub(super) fn product<T: SparseValue>(
    a: &SparseArray<T>,
    op: Transpose,
    alpha: T,
    b: &Array<T>,
    n: usize,
    beta: T,
    c: Option<&Array<T>>,
    out_shape: &[usize],
) -> Result<Array<T>> {
    let p = Product {
        op,
        alpha,
        b,
        n,
        beta,
        c,
        out_shape,
    };
    match (&a.major, &a.minor) {
        (SparseIndices::I32(ma), SparseIndices::I32(mi)) => p.run(a, ma, mi),
        (SparseIndices::I64(ma), SparseIndices::I64(mi)) => p.run(a, ma, mi),
        _ => Err(Error::InvalidArgument(
            "sparse: offsets and indices of different types".into(),
        )),
    }
}

struct Product<'a, T: SparseValue> {
    op: Transpose,
    alpha: T,
    b: &'a Array<T>,
    n: usize,
    beta: T,
    c: Option<&'a Array<T>>,
    out_shape: &'a [usize],
}

impl<T: SparseValue> Product<'_, T> {
    fn run<I: SparseIndex + Element>(
        &self,
        a: &SparseArray<T>,
        major: &Array<I>,
        minor: &Array<I>,
    ) -> Result<Array<T>> {
        let ordinal = a.device().ordinal;
        let (sp, st) = handle(ordinal)?;
        let s: &Arc<Stream> = sp.stream();
        let (ms, ns, vs, bs) = (
            major.contiguous_storage()?,
            minor.contiguous_storage()?,
            a.values.contiguous_storage()?,
            self.b.contiguous_storage()?,
        );
        let mv = view::<I>(dev(&ms)?, major.len())?;
        let nv = view::<I>(dev(&ns)?, minor.len())?;
        let vv = view::<T>(dev(&vs)?, a.nnz())?;
        let bv = view::<T>(dev(&bs)?, self.b.len())?;
        let len: usize = self.out_shape.iter().product();
        // SAFETY: written in full before anything reads it: by the copy of C below, or by
        // cuSPARSE, which writes every element of its output (and reads none when beta is 0).
        let out = unsafe { DevBuf::alloc(st, s, T::DTYPE, len) }?;
        let mut ov = view::<T>(&out, len)?;
        if let Some(c) = self.c {
            let cs = c.contiguous_storage()?;
            s.memcpy_dtod(&view::<T>(dev(&cs)?, len)?, &mut ov)?;
        }
        let [rows, cols] = a.shape;
        // SAFETY: the component arrays passed every check of the format when the matrix was
        // built (offsets from 0 rising to nnz, indices in bounds, sorted; on the host, or by
        // array work on the device for `from_csr_arrays`, or made so there from bounds-checked
        // triplets by `from_triplet_arrays`), and were not changed since.
        let m = unsafe { SpMat::new(format_of(a.format), rows, cols, &mv, &nv, &vv) }?;
        let beta = if self.c.is_some() { self.beta } else { T::ZERO };
        if self.out_shape.len() == 1 {
            sp.spmv(self.op, self.alpha, &m, &bv, beta, &mut ov)?;
        } else {
            let n = self.n;
            sp.spmm(self.op, self.alpha, &m, &bv, n, n, beta, &mut ov, n)?;
        }
        Ok(array_of(out, self.out_shape, ordinal))
    }
}

/// `A · B` for CSR `A` and `B` of one index type, through cuSPARSE's SpGEMM.
pub(super) fn spgemm<T: SparseValue>(
    a: &SparseArray<T>,
    b: &SparseArray<T>,
) -> Result<SparseArray<T>> {
    match (&a.major, &a.minor, &b.major, &b.minor) {
        (
            SparseIndices::I32(am),
            SparseIndices::I32(an),
            SparseIndices::I32(bm),
            SparseIndices::I32(bn),
        ) => spgemm_idx(a, b, [am, an, bm, bn], IndexType::I32, SparseIndices::I32),
        (
            SparseIndices::I64(am),
            SparseIndices::I64(an),
            SparseIndices::I64(bm),
            SparseIndices::I64(bn),
        ) => spgemm_idx(a, b, [am, an, bm, bn], IndexType::I64, SparseIndices::I64),
        _ => Err(Error::InvalidArgument(
            "sparse matmul: operands of different index types".into(),
        )),
    }
}

fn spgemm_idx<T: SparseValue, I: SparseIndex + Element>(
    a: &SparseArray<T>,
    b: &SparseArray<T>,
    idx: [&Array<I>; 4],
    index: IndexType,
    wrap: fn(Array<I>) -> SparseIndices,
) -> Result<SparseArray<T>> {
    let ordinal = a.device().ordinal;
    let (sp, _) = handle(ordinal)?;
    let st_idx: Vec<Arc<Storage>> = idx
        .iter()
        .map(|x| x.contiguous_storage())
        .collect::<Result<_>>()?;
    let (avs, bvs) = (
        a.values.contiguous_storage()?,
        b.values.contiguous_storage()?,
    );
    let v: Vec<View<'_, I>> = st_idx
        .iter()
        .zip(idx)
        .map(|(s, x)| view::<I>(dev(s)?, x.len()))
        .collect::<Result<_>>()?;
    let av = view::<T>(dev(&avs)?, a.nnz())?;
    let bv = view::<T>(dev(&bvs)?, b.nnz())?;
    let ([m, k], [_, n]) = (a.shape, b.shape);
    // SAFETY: as in `Product::run`: both matrices are canonical CSR, checked on the host.
    let ma = unsafe { SpMat::new(Format::Csr, m, k, &v[0], &v[1], &av) }?;
    // SAFETY: as above.
    let mb = unsafe { SpMat::new(Format::Csr, k, n, &v[2], &v[3], &bv) }?;
    let c = sp.spgemm(T::one(), &ma, &mb)?;
    let nnz = c.values.len();
    // The library's buffers become the arrays' storage, no copy: each holds exactly its
    // array's elements, allocated on the array stream's context.
    let adopt = |buf: cuprite_driver::DeviceBuffer<u8>, dtype, len| {
        DevBuf::adopt(buf, dtype, len, ordinal, None)
    };
    let off = adopt(c.offsets.into_bytes(), I::DTYPE, m + 1);
    let ind = adopt(c.indices.into_bytes(), I::DTYPE, nnz);
    let val = adopt(c.values.into_bytes(), T::DTYPE, nnz);
    Ok(SparseArray {
        format: SparseFormat::Csr,
        shape: [m, n],
        index,
        major: wrap(array_of(off, &[m + 1], ordinal)),
        minor: wrap(array_of(ind, &[nnz], ordinal)),
        values: array_of(val, &[nnz], ordinal),
    })
}

/// `a` in `format` through cuSPARSE's conversions, for 32-bit indices and at least one
/// stored element: CSR → CSC and CSC → CSR (`Csr2cscEx2`, which sorts the new indices within
/// each line), COO → CSR (`Xcoo2csr`; canonical COO is sorted by row) and COO → CSC through
/// CSR. `None` for the conversions it does not cover (those to COO, 64-bit indices).
pub(super) fn convert<T: SparseValue>(
    a: &SparseArray<T>,
    format: SparseFormat,
) -> Result<Option<SparseArray<T>>> {
    let (SparseIndices::I32(major), SparseIndices::I32(minor)) = (&a.major, &a.minor) else {
        return Ok(None);
    };
    let [rows, cols] = a.shape;
    let csr = |major: Array<i32>| SparseArray {
        format: SparseFormat::Csr,
        major: SparseIndices::I32(major),
        ..a.clone()
    };
    Ok(match (a.format, format) {
        (SparseFormat::Csr, SparseFormat::Csc) => Some(transpose_compressed(
            a,
            major,
            minor,
            rows,
            cols,
            SparseFormat::Csc,
        )?),
        (SparseFormat::Csc, SparseFormat::Csr) => Some(transpose_compressed(
            a,
            major,
            minor,
            cols,
            rows,
            SparseFormat::Csr,
        )?),
        (SparseFormat::Coo, SparseFormat::Csr) => Some(csr(coo_offsets(a, major, rows)?)),
        (SparseFormat::Coo, SparseFormat::Csc) => {
            let c = csr(coo_offsets(a, major, rows)?);
            let SparseIndices::I32(off) = &c.major else {
                return Ok(None);
            };
            Some(transpose_compressed(
                &c,
                off,
                minor,
                rows,
                cols,
                SparseFormat::Csc,
            )?)
        }
        _ => None,
    })
}

/// The CSR row offsets of canonical COO row indices (`cusparseXcoo2csr`).
fn coo_offsets<T: SparseValue>(
    a: &SparseArray<T>,
    rows_idx: &Array<i32>,
    rows: usize,
) -> Result<Array<i32>> {
    let ordinal = a.device().ordinal;
    let (sp, st) = handle(ordinal)?;
    let s: &Arc<Stream> = sp.stream();
    let rs = rows_idx.contiguous_storage()?;
    let rv = view::<i32>(dev(&rs)?, rows_idx.len())?;
    // SAFETY: cuSPARSE writes all `rows + 1` offsets.
    let out = unsafe { DevBuf::alloc(st, s, i32::DTYPE, rows + 1) }?;
    let mut ov = view::<i32>(&out, rows + 1)?;
    // SAFETY: canonical COO row indices are sorted and below `rows` (checked on the host when
    // the matrix was built, or sorted on the device from bounds-checked triplets).
    unsafe { sp.coo_to_csr(&rv, rows, &mut ov) }?;
    Ok(array_of(out, &[rows + 1], ordinal))
}

/// The compressed arrays of `a` (an `m × n` CSR, or the CSR of its transpose for CSC) moved
/// to the other compressed format (`cusparseCsr2cscEx2`): the result is `target`.
fn transpose_compressed<T: SparseValue>(
    a: &SparseArray<T>,
    offsets: &Array<i32>,
    indices: &Array<i32>,
    m: usize,
    n: usize,
    target: SparseFormat,
) -> Result<SparseArray<T>> {
    let ordinal = a.device().ordinal;
    let (sp, st) = handle(ordinal)?;
    let s: &Arc<Stream> = sp.stream();
    let nnz = a.nnz();
    let (os, is, vs) = (
        offsets.contiguous_storage()?,
        indices.contiguous_storage()?,
        a.values.contiguous_storage()?,
    );
    let ov = view::<i32>(dev(&os)?, m + 1)?;
    let iv = view::<i32>(dev(&is)?, nnz)?;
    let vv = view::<T>(dev(&vs)?, nnz)?;
    // SAFETY: cuSPARSE writes every element of the three outputs.
    let (o2, i2, v2) = unsafe {
        (
            DevBuf::alloc(st, s, i32::DTYPE, n + 1)?,
            DevBuf::alloc(st, s, i32::DTYPE, nnz)?,
            DevBuf::alloc(st, s, T::DTYPE, nnz)?,
        )
    };
    {
        let (mut ow, mut iw, mut vw) = (
            view::<i32>(&o2, n + 1)?,
            view::<i32>(&i2, nnz)?,
            view::<T>(&v2, nnz)?,
        );
        // SAFETY: the arrays are canonical compressed data of an `m × n` matrix, checked on
        // the host when it was built.
        unsafe { sp.csr_to_csc(m, n, &ov, &iv, &vv, &mut ow, &mut iw, &mut vw) }?;
    }
    Ok(SparseArray {
        format: target,
        major: SparseIndices::I32(array_of(o2, &[n + 1], ordinal)),
        minor: SparseIndices::I32(array_of(i2, &[nnz], ordinal)),
        values: array_of(v2, &[nnz], ordinal),
        ..a.clone()
    })
}

/// The index arrays of `a`, of one type, handed to `f` with `a`.
macro_rules! with_indices {
    ($a:expr, |$ma:ident, $mi:ident| $body:expr) => {
        match (&$a.major, &$a.minor) {
            (SparseIndices::I32($ma), SparseIndices::I32($mi)) => $body,
            (SparseIndices::I64($ma), SparseIndices::I64($mi)) => $body,
            _ => Err(Error::InvalidArgument(
                "sparse: offsets and indices of different types".into(),
            )),
        }
    };
}

/// Solves `op(T) · Y = B` for `Y`, where `T` is one triangle of the square CSR `a`, through
/// cuSPARSE's SpSV (`b` of shape `[n]`, `k` = 1) or SpSM (`b` of shape `[n, k]`).
fn triangular_solve<T: SparseValue, I: SparseIndex + Element>(
    a: &SparseArray<T>,
    major: &Array<I>,
    minor: &Array<I>,
    b: &Array<T>,
    k: Option<usize>,
    op: Transpose,
    triangle: cuprite_driver::sparse::Triangle,
) -> Result<Array<T>> {
    let ordinal = a.device().ordinal;
    let (sp, st) = handle(ordinal)?;
    let s: &Arc<Stream> = sp.stream();
    let (ms, ns, vs, bs) = (
        major.contiguous_storage()?,
        minor.contiguous_storage()?,
        a.values.contiguous_storage()?,
        b.contiguous_storage()?,
    );
    let mv = view::<I>(dev(&ms)?, major.len())?;
    let nv = view::<I>(dev(&ns)?, minor.len())?;
    let vv = view::<T>(dev(&vs)?, a.nnz())?;
    let bv = view::<T>(dev(&bs)?, b.len())?;
    let [rows, cols] = a.shape;
    let len = b.len();
    // SAFETY: written in full by the solve, which reads none of it first.
    let out = unsafe { DevBuf::alloc(st, s, T::DTYPE, len) }?;
    let mut ov = view::<T>(&out, len)?;
    // SAFETY: as in `Product::run`: the components passed every check of the format.
    let m = unsafe { SpMat::new(format_of(a.format), rows, cols, &mv, &nv, &vv) }?;
    match k {
        None => sp.spsv(op, T::one(), &m, triangle, &bv, &mut ov)?,
        Some(k) => sp.spsm(op, T::one(), &m, triangle, &bv, k, k, &mut ov, k)?,
    }
    Ok(array_of(out, b.shape(), ordinal))
}

/// Solves `op(T) · y = b` for `y`, where `T` is one triangle of the square CSR `a`, through
/// cuSPARSE's SpSV.
pub(super) fn spsv<T: SparseValue>(
    a: &SparseArray<T>,
    b: &Array<T>,
    op: Transpose,
    triangle: cuprite_driver::sparse::Triangle,
) -> Result<Array<T>> {
    with_indices!(a, |ma, mi| triangular_solve(
        a, ma, mi, b, None, op, triangle
    ))
}

/// Solves `op(T) · Y = B` for the `[n, k]` `Y`, where `T` is one triangle of the square CSR
/// `a`, through cuSPARSE's SpSM.
pub(super) fn spsm<T: SparseValue>(
    a: &SparseArray<T>,
    b: &Array<T>,
    k: usize,
    op: Transpose,
    triangle: cuprite_driver::sparse::Triangle,
) -> Result<Array<T>> {
    with_indices!(a, |ma, mi| triangular_solve(
        a,
        ma,
        mi,
        b,
        Some(k),
        op,
        triangle
    ))
}

/// The incomplete factorisation (`kind`) of the square canonical CSR `a` with 32-bit
/// indices, in new value storage: the factor on `a`'s pattern, or `Err(row)` for the first
/// zero pivot cuSPARSE met.
pub(super) fn incomplete<T: SparseValue>(
    a: &SparseArray<T>,
    kind: cuprite_driver::sparse::Incomplete,
) -> Result<std::result::Result<SparseArray<T>, usize>> {
    let (SparseIndices::I32(major), SparseIndices::I32(minor)) = (&a.major, &a.minor) else {
        return Err(Error::InvalidArgument(
            "sparse: the incomplete factorisations on CUDA need 32-bit indices".into(),
        ));
    };
    let ordinal = a.device().ordinal;
    let (sp, st) = handle(ordinal)?;
    let s: &Arc<Stream> = sp.stream();
    let n = a.shape[0];
    let nnz = a.nnz();
    let (ms, ns, vs) = (
        major.contiguous_storage()?,
        minor.contiguous_storage()?,
        a.values.contiguous_storage()?,
    );
    let mv = view::<i32>(dev(&ms)?, n + 1)?;
    let nv = view::<i32>(dev(&ns)?, nnz)?;
    // SAFETY: written in full by the copy right after.
    let out = unsafe { DevBuf::alloc(st, s, T::DTYPE, nnz) }?;
    s.memcpy_dtod(&view::<T>(dev(&vs)?, nnz)?, &mut view::<T>(&out, nnz)?)?;
    // The legacy routines exist for f32 and f64; the buffer is viewed as its type.
    let pivot = match T::DTYPE {
        // SAFETY: the arrays are canonical CSR (sorted, in bounds), checked on the host when
        // the matrix was built.
        crate::dtype::DType::F32 => unsafe {
            sp.incomplete::<f32>(kind, n, &mv, &nv, &mut view::<f32>(&out, nnz)?)
        },
        // SAFETY: as above.
        crate::dtype::DType::F64 => unsafe {
            sp.incomplete::<f64>(kind, n, &mv, &nv, &mut view::<f64>(&out, nnz)?)
        },
        other => {
            return Err(Error::InvalidArgument(format!(
                "sparse: no incomplete factorisation of {other:?} values"
            )));
        }
    }?;
    if let Some(row) = pivot {
        return Ok(Err(row));
    }
    Ok(Ok(SparseArray {
        values: array_of(out, &[nnz], ordinal),
        ..a.clone()
    }))
}

/// Repeated triangular solves with one triangle of a square CSR matrix on a GPU, analysed
/// once (`cuprite_driver::sparse::SpsvPlan`): what the incomplete factorisations apply.
pub(super) struct TriangularPlan<T: SparseValue> {
    // Dropped first: the plan waits for its stream, then frees its analysis; the storage it
    // describes is held below and never written (array storage is immutable once shared).
    plan: cuprite_driver::sparse::SpsvPlan<T>,
    sp: Arc<Sparse>,
    ordinal: usize,
    shape: [usize; 2],
    format: SparseFormat,
    storage: [Arc<Storage>; 3],
    lens: [usize; 3],
    index: IndexType,
}

impl<T: SparseValue> std::fmt::Debug for TriangularPlan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TriangularPlan")
            .field("shape", &self.shape)
            .finish()
    }
}

impl<T: SparseValue> TriangularPlan<T> {
    /// Analyses `op(T) · y = x` for the triangle `T` of the square CSR `a`.
    pub(super) fn new(
        a: &SparseArray<T>,
        op: Transpose,
        triangle: cuprite_driver::sparse::Triangle,
    ) -> Result<Self> {
        let ordinal = a.device().ordinal;
        let (sp, _) = handle(ordinal)?;
        let storage = [
            match &a.major {
                SparseIndices::I32(x) => x.contiguous_storage()?,
                SparseIndices::I64(x) => x.contiguous_storage()?,
            },
            match &a.minor {
                SparseIndices::I32(x) => x.contiguous_storage()?,
                SparseIndices::I64(x) => x.contiguous_storage()?,
            },
            a.values.contiguous_storage()?,
        ];
        let lens = [a.shape[0] + 1, a.nnz(), a.nnz()];
        let plan = match a.index {
            IndexType::I32 => Self::with_mat::<i32, _>(&storage, lens, (a.format, a.shape), |m| {
                // SAFETY: the plan holds the storage, which nothing writes while shared.
                unsafe { sp.spsv_plan(op, m, triangle) }
            }),
            IndexType::I64 => Self::with_mat::<i64, _>(&storage, lens, (a.format, a.shape), |m| {
                // SAFETY: as above.
                unsafe { sp.spsv_plan(op, m, triangle) }
            }),
        }?;
        Ok(TriangularPlan {
            plan,
            sp,
            ordinal,
            shape: a.shape,
            format: a.format,
            storage,
            lens,
            index: a.index,
        })
    }

    /// Runs `f` with the matrix of `storage` as a `SpMat`.
    fn with_mat<I: SparseIndex, R>(
        storage: &[Arc<Storage>; 3],
        lens: [usize; 3],
        (format, [rows, cols]): (SparseFormat, [usize; 2]),
        f: impl FnOnce(&SpMat<'_, T, I>) -> cuprite_driver::Result<R>,
    ) -> Result<R> {
        let mv = view::<I>(dev(&storage[0])?, lens[0])?;
        let nv = view::<I>(dev(&storage[1])?, lens[1])?;
        let vv = view::<T>(dev(&storage[2])?, lens[2])?;
        // SAFETY: as in `Product::run`: the components passed every check of the format.
        let m = unsafe { SpMat::new(format_of(format), rows, cols, &mv, &nv, &vv) }?;
        Ok(f(&m)?)
    }

    /// `op(T)⁻¹ · x` for a vector `x` on the plan's device; only enqueues.
    pub(super) fn solve(&self, x: &Array<T>) -> Result<Array<T>> {
        let n = self.shape[0];
        let (_, st) = handle(self.ordinal)?;
        let s: &Arc<Stream> = self.sp.stream();
        let xs = x.contiguous_storage()?;
        let xv = view::<T>(dev(&xs)?, x.len())?;
        // SAFETY: written in full by the solve, which reads none of it first.
        let out = unsafe { DevBuf::alloc(st, s, T::DTYPE, n) }?;
        let mut ov = view::<T>(&out, n)?;
        let shape = (self.format, self.shape);
        match self.index {
            IndexType::I32 => Self::with_mat::<i32, _>(&self.storage, self.lens, shape, |m| {
                self.plan.solve(&self.sp, m, &xv, &mut ov)
            }),
            IndexType::I64 => Self::with_mat::<i64, _>(&self.storage, self.lens, shape, |m| {
                self.plan.solve(&self.sp, m, &xv, &mut ov)
            }),
        }?;
        Ok(array_of(out, &[n], self.ordinal))
    }
}
