//! Sparse matrices built from unsorted triplets that live on a device
//! (`SparseArray::from_triplet_arrays`, `from_coo_arrays`), against a reference built here: the
//! triplets summed per position in a `BTreeMap`, in their input order and in the value type
//! (so that the sums of runs of at most 256 duplicates must match bit for bit), or in f64 with
//! a rounding bound for longer runs. Duplicates, unsorted input, empty rows, empty matrices,
//! both index types in and out, shapes whose positions overflow 64 bits, and out-of-bounds
//! indices (an `Err` naming the first). Bodies run on every backend; on a GPU, the CUDA result
//! is also compared with the CPU backend's, bit for bit.

use crate::common::{Body, assert_err};
use crate::sparse::{C, V, canonical};
use cuprite_array::sparse::{IndexType, SparseArray, SparseFormat, SparseIndices};
use cuprite_array::{Array, Device, c32, c64, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::collections::BTreeMap;

/// Triplets of a `rows × cols` matrix in random order: about `n` entries at positions drawn
/// from a pool of `n / 3` (so most positions repeat), every third row left empty.
fn triplets<T: V>(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    n: usize,
) -> (Vec<i64>, Vec<i64>, Vec<T>) {
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    if rows == 0 || cols == 0 {
        return (r, c, v);
    }
    let pool: Vec<(i64, i64)> = (0..(n / 3).max(1))
        .map(|_| {
            let mut i = rng.next_u64() as usize % rows;
            if i % 3 == 1 {
                i -= 1;
            }
            (i as i64, (rng.next_u64() as usize % cols) as i64)
        })
        .collect();
    for _ in 0..n {
        let (i, j) = pool[rng.next_u64() as usize % pool.len()];
        r.push(i);
        c.push(j);
        v.push(T::draw(rng));
    }
    (r, c, v)
}

/// The canonical triplets: each position once, sorted by row then column, its values added in
/// input order in `T`.
fn reference<T: V>(r: &[i64], c: &[i64], v: &[T]) -> BTreeMap<(i64, i64), T> {
    let mut m: BTreeMap<(i64, i64), T> = BTreeMap::new();
    for k in 0..v.len() {
        m.entry((r[k], c[k]))
            .and_modify(|s| *s = *s + v[k])
            .or_insert(v[k]);
    }
    m
}

/// The components of CSR `a` as triplets in storage order.
fn csr_triplets<T: V>(a: &SparseArray<T>) -> Result<Vec<((i64, i64), T)>, String> {
    let off = a
        .offsets()
        .ok_or("a CSR matrix without offsets")?
        .to_i64()
        .to_vec()
        .map_err(|e| e.to_string())?;
    let idx = a.indices().to_i64().to_vec().map_err(|e| e.to_string())?;
    let val = a.values().to_vec().map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for row in 0..off.len().saturating_sub(1) {
        for p in off[row] as usize..off[row + 1] as usize {
            out.push(((row as i64, idx[p]), val[p]));
        }
    }
    Ok(out)
}

/// `a` holds exactly the triplets of `want`, in order, with the same bits.
fn same<T: V>(what: &str, a: &SparseArray<T>, want: &BTreeMap<(i64, i64), T>) -> TestResult {
    let got = csr_triplets(a)?;
    let want: Vec<((i64, i64), T)> = want.iter().map(|(&k, &v)| (k, v)).collect();
    if got.len() != want.len() {
        return Err(format!("{what}: {} stored, expected {}", got.len(), want.len()).into());
    }
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let (x, y) = (g.1.to_c64(), w.1.to_c64());
        let bits = |z: C| (z.re.to_bits(), z.im.to_bits());
        if g.0 != w.0 || bits(x) != bits(y) {
            return Err(format!(
                "{what}: element {k}: got {:?} = {}, expected {:?} = {}",
                g.0, x, w.0, y
            )
            .into());
        }
    }
    Ok(())
}

fn idx_arrays(r: &[i64], c: &[i64], ty: IndexType) -> cuprite_array::Result<[SparseIndices; 2]> {
    let n = [r.len()];
    Ok(match ty {
        IndexType::I32 => {
            let f = |x: &[i64]| x.iter().map(|&v| v as i32).collect::<Vec<_>>();
            [
                SparseIndices::I32(Array::from_slice(&f(r), &n)?),
                SparseIndices::I32(Array::from_slice(&f(c), &n)?),
            ]
        }
        IndexType::I64 => [
            SparseIndices::I64(Array::from_slice(r, &n)?),
            SparseIndices::I64(Array::from_slice(c, &n)?),
        ],
    })
}

/// Random triplets with many duplicates in both index types, as CSR and COO, against the
/// `BTreeMap` reference and against the host constructor `from_triplets`.
fn triplet_arrays_t<T: V>(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for &(rows, cols, n) in &[
            (23, 17, 200),
            (40, 7, 90),
            (5, 33, 31),
            (1, 9, 12),
            (300, 2, 1000),
            (7, 7, 1),
        ] {
            let (r, c, v) = triplets::<T>(&mut rng, rows, cols, n);
            let want = reference(&r, &c, &v);
            let vals = Array::from_slice(&v, &[v.len()])?;
            for ty in [IndexType::I32, IndexType::I64] {
                let [ri, ci] = idx_arrays(&r, &c, ty)?;
                let a =
                    SparseArray::from_triplet_arrays([rows, cols], ri.clone(), ci.clone(), &vals)?;
                assert_eq!(
                    (a.format(), a.index_type(), a.device()),
                    (SparseFormat::Csr, IndexType::I32, d)
                );
                canonical(&a)?;
                same("from_triplet_arrays", &a, &want)?;
                let b = SparseArray::from_coo_arrays([rows, cols], ri, ci, &vals)?;
                assert_eq!(b.format(), SparseFormat::Coo);
                canonical(&b)?;
                same("from_coo_arrays", &b.to_csr()?, &want)?;
                // The host constructor adds in the same order.
                let h = SparseArray::from_triplets([rows, cols], &r, &c, &v)?;
                same("from_triplets", &h, &want)?;
            }
            // The product of the new matrix with a vector of ones: the row sums.
            let a = SparseArray::from_triplet_arrays(
                [rows, cols],
                Array::from_slice(&r, &[r.len()])?,
                Array::from_slice(&c, &[c.len()])?,
                &vals,
            )?;
            if rows > 0 && cols > 0 {
                let ones = Array::from_slice(&vec![T::one(); cols], &[cols])?;
                let y = a.spmv(&ones)?.to_vec()?;
                let mut sums = vec![C::new(0.0, 0.0); rows];
                let mut mags = vec![0.0f64; rows];
                for (&(i, _), s) in &want {
                    sums[i as usize] += s.to_c64();
                    mags[i as usize] += s.to_c64().norm();
                }
                for i in 0..rows {
                    let e = (y[i].to_c64() - sums[i]).norm();
                    let bound = 4.0 * cols as f64 * T::U * mags[i];
                    if e > bound {
                        return Err(format!("row sum {i}: error {e:e} > {bound:e}").into());
                    }
                }
            }
        }
        Ok(())
    })
}

fn triplet_arrays(d: Device) -> TestResult {
    triplet_arrays_t::<f32>(d)?;
    triplet_arrays_t::<f64>(d)?;
    triplet_arrays_t::<c32>(d)?;
    triplet_arrays_t::<c64>(d)
}

/// Runs longer than 256 entries (summed lane by lane): within the rounding of a sum of their
/// length of the f64 sum; every other position exact.
fn long_runs(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let (rows, cols) = (9, 5);
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        // 1000 entries at (4, 2), 257 at (0, 0), 256 at (8, 4), and a few single ones.
        for (i, j, k) in [
            (4i64, 2i64, 1000usize),
            (0, 0, 257),
            (8, 4, 256),
            (3, 1, 1),
            (5, 3, 2),
        ] {
            for _ in 0..k {
                r.push(i);
                c.push(j);
                v.push(rng.f32_in(-1.0, 1.0));
            }
        }
        for k in (1..v.len()).rev() {
            let o = (rng.next_u64() % (k as u64 + 1)) as usize;
            r.swap(k, o);
            c.swap(k, o);
            v.swap(k, o);
        }
        let vals = Array::from_slice(&v, &[v.len()])?;
        let a = SparseArray::from_triplet_arrays(
            [rows, cols],
            Array::from_slice(&r, &[r.len()])?,
            Array::from_slice(&c, &[c.len()])?,
            &vals,
        )?;
        canonical(&a)?;
        let exact = reference(&r, &c, &v);
        let mut f64sum: BTreeMap<(i64, i64), (f64, f64, usize)> = BTreeMap::new();
        for k in 0..v.len() {
            let e = f64sum.entry((r[k], c[k])).or_insert((0.0, 0.0, 0));
            e.0 += v[k] as f64;
            e.1 += (v[k] as f64).abs();
            e.2 += 1;
        }
        let got = csr_triplets(&a)?;
        assert_eq!(got.len(), exact.len());
        for ((pos, g), (wpos, (s, mag, count))) in got.iter().zip(&f64sum) {
            assert_eq!(pos, wpos);
            if *count <= 256 {
                assert_eq!(g.to_bits(), exact[pos].to_bits(), "position {pos:?}");
            } else {
                let bound = 2.0 * *count as f64 * f32::U * mag;
                let e = (*g as f64 - s).abs();
                assert!(e <= bound, "position {pos:?}: error {e:e} > {bound:e}");
            }
        }
        Ok(())
    })
}

/// No triplets, matrices with an empty extent, a single position, and shapes whose positions
/// do not fit 32 bits (the result takes 64-bit indices) or 64 bits (sorted in two passes).
fn edges(d: Device) -> TestResult {
    with_device(d, || {
        let none = Array::<i64>::from_slice(&[], &[0])?;
        let nov = Array::<f64>::from_slice(&[], &[0])?;
        for shape in [[0, 0], [0, 5], [5, 0], [4, 3]] {
            let a = SparseArray::from_triplet_arrays(shape, none.clone(), none.clone(), &nov)?;
            canonical(&a)?;
            assert_eq!(a.nnz(), 0);
            let off = a.offsets().ok_or("no offsets")?.to_i64().to_vec()?;
            assert_eq!(off, vec![0; shape[0] + 1]);
            assert_eq!(a.to_dense()?.to_vec()?, vec![0.0; shape[0] * shape[1]]);
            let b = SparseArray::from_coo_arrays(shape, none.clone(), none.clone(), &nov)?;
            assert_eq!((b.nnz(), b.format()), (0, SparseFormat::Coo));
        }
        // Every entry at one position: one stored element, the sum in input order.
        let v = [0.5f64, -0.25, 1.0, 2.0];
        let a = SparseArray::from_triplet_arrays(
            [3, 3],
            Array::from_slice(&[2i32; 4], &[4])?,
            Array::from_slice(&[1i32; 4], &[4])?,
            &Array::from_slice(&v, &[4])?,
        )?;
        assert_eq!(
            a.offsets().ok_or("no offsets")?.to_i64().to_vec()?,
            [0, 0, 0, 1]
        );
        assert_eq!(a.indices().to_i64().to_vec()?, [1]);
        assert_eq!(a.values().to_vec()?, [((0.5 - 0.25) + 1.0) + 2.0]);
        // Columns beyond 32 bits: 64-bit indices out; row-major positions still fit 64 bits.
        let wide = 1usize << 40;
        let (r, c) = (
            [2i64, 0, 2, 3, 0],
            [wide as i64 - 1, 7, wide as i64 - 1, 0, 1 << 35],
        );
        let v = [1.0f64, 2.0, 3.0, 4.0, 5.0];
        let vals = Array::from_slice(&v, &[5])?;
        for shape in [[4, wide], [3 + 1, 1 << 62]] {
            let a = SparseArray::from_triplet_arrays(
                shape,
                Array::from_slice(&r, &[5])?,
                Array::from_slice(&c, &[5])?,
                &vals,
            )?;
            assert_eq!(a.index_type(), IndexType::I64);
            same(&format!("shape {shape:?}"), &a, &reference(&r, &c, &v))?;
            let b = SparseArray::from_coo_arrays(
                shape,
                Array::from_slice(&r, &[5])?,
                Array::from_slice(&c, &[5])?,
                &vals,
            )?;
            assert_eq!(b.row_indices()?.to_vec()?, [0, 0, 2, 3]);
            assert_eq!(b.col_indices()?.to_vec()?, [7, 1 << 35, wide as i64 - 1, 0]);
            assert_eq!(b.values().to_vec()?, [2.0, 5.0, 4.0, 4.0]);
        }
        Ok(())
    })
}

/// Indices out of bounds (the first one named, whatever comes later), bad lengths and shapes.
fn bad_triplets(d: Device) -> TestResult {
    with_device(d, || {
        let v = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
        let i32s = |x: &[i32]| Array::from_slice(x, &[x.len()]);
        let i64s = |x: &[i64]| Array::from_slice(x, &[x.len()]);
        let cases: [(&[i64], &[i64], &str); 5] = [
            (
                &[0, 1, 2, 1],
                &[0, 1, 0, 1],
                "entry 2 at (2, 0) is out of bounds for shape [2, 3]",
            ),
            (
                &[0, 1, 1, 1],
                &[0, 3, 0, 9],
                "entry 1 at (1, 3) is out of bounds for shape [2, 3]",
            ),
            (
                &[0, 1, -1, 1],
                &[0, 1, 0, -5],
                "entry 2 at (-1, 0) is out of bounds",
            ),
            (
                &[0, 1, 1, 0],
                &[0, 1, 2, -1],
                "entry 3 at (0, -1) is out of bounds",
            ),
            (
                &[5, 5, 5, 5],
                &[0, 0, 0, 0],
                "entry 0 at (5, 0) is out of bounds",
            ),
        ];
        for (r, c, msg) in cases {
            assert_err(
                SparseArray::from_triplet_arrays([2, 3], i64s(r)?, i64s(c)?, &v),
                "InvalidArgument",
                msg,
            );
            let (r32, c32): (Vec<i32>, Vec<i32>) = (
                r.iter().map(|&x| x as i32).collect(),
                c.iter().map(|&x| x as i32).collect(),
            );
            assert_err(
                SparseArray::from_coo_arrays([2, 3], i32s(&r32)?, i32s(&c32)?, &v),
                "InvalidArgument",
                msg,
            );
        }
        // Any entry is out of bounds of an empty extent.
        assert_err(
            SparseArray::from_triplet_arrays([0, 3], i64s(&[0; 4])?, i64s(&[0; 4])?, &v),
            "InvalidArgument",
            "entry 0 at (0, 0) is out of bounds for shape [0, 3]",
        );
        assert_err(
            SparseArray::from_triplet_arrays([2, 3], i64s(&[0, 1, 1])?, i64s(&[0; 4])?, &v),
            "Shape",
            "row indices of shape [3] and column indices of shape [4] for 4 values",
        );
        let v2 = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
        assert_err(
            SparseArray::from_triplet_arrays([2, 3], i64s(&[0; 4])?, i64s(&[0; 4])?, &v2),
            "Shape",
            "the values must be 1-D, not of shape [2, 2]",
        );
        assert_err(
            SparseArray::from_triplet_arrays([usize::MAX, 3], i64s(&[0; 4])?, i64s(&[0; 4])?, &v),
            "Shape",
            "exceeds the 64-bit index limit",
        );
        Ok(())
    })
}

/// On a GPU: the CUDA result's components equal the CPU backend's bit for bit (runs short
/// and long, every value type), and triplets on another device are refused.
fn cuda_matches_cpu() -> TestResult {
    fn one<T: V>(rng: &mut Rng) -> TestResult {
        let (rows, cols, n) = (2000, 300, 60_000);
        let (mut r, mut c, mut v) = triplets::<T>(rng, rows, cols, n);
        for _ in 0..700 {
            r.push(11);
            c.push(13);
            v.push(T::draw(rng));
        }
        let on = |d: Device| -> Result<(Vec<i64>, Vec<i64>, Vec<C>), cuprite_array::Error> {
            let a = SparseArray::from_triplet_arrays(
                [rows, cols],
                Array::from_slice_on(d, &r, &[r.len()])?,
                Array::from_slice_on(d, &c, &[c.len()])?,
                &Array::from_slice_on(d, &v, &[v.len()])?,
            )?;
            let off = a
                .offsets()
                .ok_or(cuprite_array::Error::InvalidArgument("no offsets".into()))?;
            Ok((
                off.to_i64().to_vec()?,
                a.indices().to_i64().to_vec()?,
                a.values().to_vec()?.iter().map(|x| x.to_c64()).collect(),
            ))
        };
        let (g, h) = (on(Device::cuda(0))?, on(Device::CPU)?);
        assert_eq!(g.0, h.0, "offsets");
        assert_eq!(g.1, h.1, "indices");
        assert_eq!(g.2.len(), h.2.len());
        for (k, (x, y)) in g.2.iter().zip(&h.2).enumerate() {
            assert!(
                x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits(),
                "value {k}: CUDA {x}, CPU {y}"
            );
        }
        Ok(())
    }
    let mut rng = Rng::fresh();
    one::<f32>(&mut rng)?;
    one::<f64>(&mut rng)?;
    one::<c32>(&mut rng)?;
    one::<c64>(&mut rng)?;
    let v = Array::from_slice_on(Device::CPU, &[1.0f32], &[1])?;
    let g = Array::from_slice_on(Device::cuda(0), &[0i32], &[1])?;
    assert_err(
        SparseArray::from_triplet_arrays([1, 1], g.clone(), g, &v),
        "DeviceMismatch",
        "the row indices are on",
    );
    Ok(())
}

/// The run-sum kernels compile with NVRTC (no GPU): the sources the bodies would build on
/// CUDA, recorded by the dry-run backend.
fn sparse_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [triplet_arrays(Device::CPU), long_runs(Device::CPU)];
    let sources: Vec<String> = cuprite_array::tuning::compiler::take_recorded()
        .into_iter()
        .filter(|s| s.contains("cuprite_sparse_"))
        .collect();
    for r in runs {
        r?;
    }
    for want in ["cuprite_sparse_run_sums_f32", "cuprite_sparse_run_sums_f64"] {
        if !sources.iter().any(|s| s.contains(want)) {
            return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
        }
    }
    crate::codegen::compile_each(&sources)
}

const BODIES: &[(&str, Body)] = &[
    ("triplet_arrays", triplet_arrays),
    ("long_runs", long_runs),
    ("edges", edges),
    ("bad_triplets", bad_triplets),
];

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc("codegen::sparse_kernels_compile", sparse_kernels_compile),
        Test::gpu("cuda::sparse_device::cuda_matches_cpu", cuda_matches_cpu),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(
            format!("cpu::sparse_device::{name}"),
            move || body(Device::CPU),
        ));
        v.push(Test::gpu(
            format!("cuda::sparse_device::{name}"),
            move || body(Device::cuda(0)),
        ));
    }
    v
}
