//! The keyword-style options (`*_with(.., Opts)`): each non-default option checked against a
//! host reference computed here, in `f64` (descending sorts against the reversed stable host
//! sort, `keepdims` shapes and values against host sums, `ddof` against the formula, `n`,
//! `axis`, `s`, `axes` and `norm` against a direct DFT).

use crate::common::{Body, close as close_tol};
use cuprite_array::linalg::RankOpts;
use cuprite_array::ops::fft::{FftOpts, FftnOpts};
use cuprite_array::ops::{
    AxesOpts, AxisOpts, ChoiceOpts, CloseOpts, DigitizeOpts, HistogramOpts, IndexMode, NormOpts,
    QuantileOpts, ReduceOpts, SortOpts, TakeOpts, TopkOpts, VarOpts,
};
use cuprite_array::{Array, Device, FftNorm, QuantileMethod, c64, linalg, sort_by_key_with};
use cuprite_testkit::{Rng, Test, TestResult};

/// `rows × n` values with many ties (small integers as `f64`).
fn tied(r: &mut Rng, len: usize) -> Vec<f64> {
    (0..len).map(|_| (r.next_u64() % 7) as f64 - 3.0).collect()
}

/// The stable permutation sorting `row` (descending: larger first, ties in input order).
fn host_perm(row: &[f64], descending: bool) -> Vec<usize> {
    let mut p: Vec<usize> = (0..row.len()).collect();
    if descending {
        p.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
    } else {
        p.sort_by(|&a, &b| row[a].total_cmp(&row[b]));
    }
    p
}

fn sort_descending(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    let (rows, n) = (3usize, 257usize);
    let x = tied(&mut r, rows * n);
    let a = Array::from_slice_on(d, &x, &[rows, n])?;
    let desc = SortOpts::new().descending(true);
    let v = a.sort_with(-1, desc)?.to_vec()?;
    let i = a.argsort_with(1, desc)?.to_vec()?;
    let (v2, i2) = a.sort_with_indices_with(-1, desc)?;
    let (v2, i2) = (v2.to_vec()?, i2.to_vec()?);
    for row in 0..rows {
        let src = &x[row * n..(row + 1) * n];
        let mut want = src.to_vec();
        want.sort_by(f64::total_cmp);
        want.reverse();
        assert_eq!(&v[row * n..(row + 1) * n], &want[..], "sort_with row {row}");
        assert_eq!(&v2[row * n..(row + 1) * n], &want[..]);
        let perm: Vec<i64> = host_perm(src, true).iter().map(|&p| p as i64).collect();
        assert_eq!(
            &i[row * n..(row + 1) * n],
            &perm[..],
            "argsort_with row {row}"
        );
        assert_eq!(&i2[row * n..(row + 1) * n], &perm[..]);
    }
    // The default (`new()`) is NumPy's ascending order, the short form's.
    assert_eq!(
        a.sort_with(0, SortOpts::new())?.to_vec()?,
        a.sort(0)?.to_vec()?
    );
    // Keys sorted descending carry their values along.
    let keys = Array::from_slice_on(d, &x[..n], &[n])?;
    let vals: Vec<i64> = (0..n as i64).collect();
    let va = Array::from_slice_on(d, &vals, &[n])?;
    let (sk, sv) = sort_by_key_with(&keys, &va, 0, desc)?;
    let perm = host_perm(&x[..n], true);
    let want_k: Vec<f64> = perm.iter().map(|&p| x[p]).collect();
    let want_v: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
    assert_eq!((sk.to_vec()?, sv.to_vec()?), (want_k, want_v));
    Ok(())
}

fn topk_smallest(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    let n = 100usize;
    let x = tied(&mut r, n);
    let a = Array::from_slice_on(d, &x, &[n])?;
    for k in [1usize, 5, 100] {
        let (v, i) = a.topk_with(k, 0, TopkOpts::new().largest(false))?;
        let perm = host_perm(&x, false);
        let want_v: Vec<f64> = perm[..k].iter().map(|&p| x[p]).collect();
        let want_i: Vec<i64> = perm[..k].iter().map(|&p| p as i64).collect();
        assert_eq!(v.to_vec()?, want_v, "k = {k}");
        assert_eq!(i.to_vec()?, want_i, "k = {k}");
        let (v, _) = a.topk(k, -1)?;
        let top: Vec<f64> = host_perm(&x, true)[..k].iter().map(|&p| x[p]).collect();
        assert_eq!(v.to_vec()?, top, "largest k = {k}");
    }
    Ok(())
}

/// Host sums of a `[p, q, s]` array over `axes` (each of 0..3), as a flat row-major vector.
fn host_sum(x: &[f64], dims: [usize; 3], axes: &[usize]) -> Vec<f64> {
    let out: Vec<usize> = (0..3)
        .map(|a| if axes.contains(&a) { 1 } else { dims[a] })
        .collect();
    let mut r = vec![0.0; out.iter().product()];
    for i in 0..dims[0] {
        for j in 0..dims[1] {
            for k in 0..dims[2] {
                let o = [i, j, k];
                let idx: Vec<usize> = (0..3)
                    .map(|a| if axes.contains(&a) { 0 } else { o[a] })
                    .collect();
                r[(idx[0] * out[1] + idx[1]) * out[2] + idx[2]] +=
                    x[(i * dims[1] + j) * dims[2] + k];
            }
        }
    }
    r
}

fn close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "{what}: {g} vs {w}"
        );
    }
}

fn keepdims(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    let dims = [3usize, 4, 5];
    let x: Vec<f64> = (0..60).map(|_| r.f32_in(-2.0, 2.0) as f64).collect();
    let a = Array::from_slice_on(d, &x, &dims)?;
    let keep = ReduceOpts::new().keepdims(true);
    for axes in [vec![1usize], vec![0, 2], vec![0, 1, 2]] {
        let ax: Vec<isize> = axes.iter().map(|&v| v as isize).collect();
        let kept: Vec<usize> = (0..3)
            .map(|i| if axes.contains(&i) { 1 } else { dims[i] })
            .collect();
        let dropped: Vec<usize> = (0..3)
            .filter(|i| !axes.contains(i))
            .map(|i| dims[i])
            .collect();
        let want = host_sum(&x, dims, &axes);
        let s = a.sum_axes_with(&ax, keep)?;
        assert_eq!(s.shape(), &kept[..], "sum keepdims {axes:?}");
        close(&s.to_vec()?, &want, "sum keepdims");
        let s = a.sum_axes(&ax)?;
        assert_eq!(s.shape(), &dropped[..], "sum {axes:?}");
        close(&s.to_vec()?, &want, "sum");
        let count: usize = axes.iter().map(|&i| dims[i]).product();
        let m = a.mean_axes_with(&ax, keep)?;
        assert_eq!(m.shape(), &kept[..]);
        let want_m: Vec<f64> = want.iter().map(|v| v / count as f64).collect();
        close(&m.to_vec()?, &want_m, "mean keepdims");
        // ddof and keepdims together: sum of squared deviations / (N - ddof).
        let sq: Vec<f64> = {
            let mut dev = x.clone();
            let kept_mean = |i: usize, j: usize, k: usize| {
                let o = [i, j, k];
                let idx: Vec<usize> = (0..3)
                    .map(|a| if axes.contains(&a) { 0 } else { o[a] })
                    .collect();
                want_m[(idx[0] * kept[1] + idx[1]) * kept[2] + idx[2]]
            };
            for i in 0..3 {
                for j in 0..4 {
                    for k in 0..5 {
                        let f = (i * 4 + j) * 5 + k;
                        dev[f] = (x[f] - kept_mean(i, j, k)).powi(2);
                    }
                }
            }
            host_sum(&dev, dims, &axes)
        };
        let v = a.var_axes_with(&ax, VarOpts::new().ddof(1).keepdims(true))?;
        assert_eq!(v.shape(), &kept[..]);
        let want_v: Vec<f64> = sq.iter().map(|s| s / (count - 1) as f64).collect();
        close(&v.to_vec()?, &want_v, "var ddof=1 keepdims");
        let sd = a.std_axes_with(&ax, VarOpts::new().ddof(1))?;
        assert_eq!(sd.shape(), &dropped[..]);
        let want_sd: Vec<f64> = want_v.iter().map(|v| v.sqrt()).collect();
        close(&sd.to_vec()?, &want_sd, "std ddof=1");
        let nm = a.nanmean_axes_with(&ax, keep)?;
        assert_eq!(nm.shape(), &kept[..]);
        close(&nm.to_vec()?, &want_m, "nanmean keepdims");
    }
    // argmax along an axis keeps it with extent 1; the host picks the first largest.
    let am = a.argmax_axis_with(1, keep)?;
    assert_eq!(am.shape(), &[3, 1, 5]);
    let am = am.to_vec()?;
    for i in 0..3 {
        for k in 0..5 {
            let col: Vec<f64> = (0..4).map(|j| x[(i * 4 + j) * 5 + k]).collect();
            let best = (0..4).fold(0, |b, j| if col[j] > col[b] { j } else { b });
            assert_eq!(am[i * 5 + k], best as i64);
        }
    }
    // The whole-array variance with ddof.
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let ss: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    close(&[a.var()?.item()?], &[ss / n], "var");
    close(
        &[a.var_with(VarOpts::new().ddof(1))?.item()?],
        &[ss / (n - 1.0)],
        "var ddof=1",
    );
    let whole = a.var_with(VarOpts::new().keepdims(true))?;
    assert_eq!(whole.shape(), &[1, 1, 1]);
    Ok(())
}

fn isclose_opts(d: Device) -> TestResult {
    let a: Vec<f64> = vec![1.0, 1.0, 100.0, f64::NAN, 0.0, f64::INFINITY];
    let b: Vec<f64> = vec![1.0 + 1e-6, 1.001, 100.05, f64::NAN, 1e-9, f64::INFINITY];
    let (x, y) = (
        Array::from_slice_on(d, &a, &[6])?,
        Array::from_slice_on(d, &b, &[6])?,
    );
    // NumPy's rule, computed here: |a - b| <= atol + rtol |b|, NaN == NaN only with equal_nan.
    let host = |rtol: f64, atol: f64, equal_nan: bool| -> Vec<bool> {
        a.iter()
            .zip(&b)
            .map(|(&p, &q)| {
                if p.is_nan() || q.is_nan() {
                    equal_nan && p.is_nan() && q.is_nan()
                } else if p.is_infinite() || q.is_infinite() {
                    p == q
                } else {
                    (p - q).abs() <= atol + rtol * q.abs()
                }
            })
            .collect()
    };
    assert_eq!(x.isclose(&y)?.to_vec()?, host(1e-5, 1e-8, false));
    let o = CloseOpts::new().rtol(1e-3).atol(0.0).equal_nan(true);
    assert_eq!(x.isclose_with(&y, o)?.to_vec()?, host(1e-3, 0.0, true));
    let o = CloseOpts::new().atol(1e-2);
    assert_eq!(x.isclose_with(&y, o)?.to_vec()?, host(1e-5, 1e-2, false));
    assert!(!x.allclose(&y)?);
    let o = CloseOpts::new().rtol(1e-2).equal_nan(true);
    assert!(x.allclose_with(&y, o)?);
    Ok(())
}

/// The DFT of `x` along its only axis, of `n` points (cropped or zero-padded), scaled by
/// `scale`.
fn host_dft(x: &[f64], n: usize, inverse: bool, scale: f64) -> Vec<c64> {
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            let mut acc = c64::new(0.0, 0.0);
            for (j, &v) in x.iter().take(n).enumerate() {
                let t = sign * 2.0 * std::f64::consts::PI * (j * k) as f64 / n as f64;
                acc += c64::new(v * t.cos(), v * t.sin());
            }
            acc * scale
        })
        .collect()
}

fn cclose(got: &[c64], want: &[c64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).norm() <= 1e-10 * (1.0 + w.norm()),
            "{what}: {g} vs {w}"
        );
    }
}

fn fft_opts(d: Device) -> TestResult {
    let x: Vec<f64> = (0..6).map(|i| (i as f64 * 0.7).sin() + 0.25).collect();
    let a = Array::from_slice_on(d, &x, &[6])?;
    cclose(&a.fft()?.to_vec()?, &host_dft(&x, 6, false, 1.0), "fft");
    for (n, norm, scale) in [
        (8usize, FftNorm::Ortho, 1.0 / 8f64.sqrt()),
        (4, FftNorm::Forward, 0.25),
        (6, FftNorm::Backward, 1.0),
    ] {
        let got = a.fft_with(FftOpts::new().n(n).norm(norm))?.to_vec()?;
        cclose(&got, &host_dft(&x, n, false, scale), "fft_with n/norm");
        let got = a.ifft_with(FftOpts::new().n(n).norm(norm))?.to_vec()?;
        let inv = match norm {
            FftNorm::Backward => 1.0 / n as f64,
            FftNorm::Forward => 1.0,
            FftNorm::Ortho => 1.0 / (n as f64).sqrt(),
        };
        cclose(&got, &host_dft(&x, n, true, inv), "ifft_with n/norm");
    }
    // `axis`: the rows of a [2, 6] array's transpose are transformed along axis 0.
    let two: Vec<f64> = x.iter().copied().chain(x.iter().map(|v| v * 2.0)).collect();
    let m = Array::from_slice_on(d, &two, &[2, 6])?.t();
    let got = m.fft_with(FftOpts::new().axis(0))?.t().to_vec()?;
    let mut want = host_dft(&x, 6, false, 1.0);
    want.extend(host_dft(&two[6..], 6, false, 1.0));
    cclose(&got, &want, "fft_with axis");
    // `s` and `axes`: a 1-axis fftn over axis 1 padded to 8 equals the host DFT of each row.
    let m = Array::from_slice_on(d, &two, &[2, 6])?;
    let got = m.fftn_with(FftnOpts::new().s(&[8]).axes(&[1]))?;
    assert_eq!(got.shape(), &[2, 8]);
    let mut want = host_dft(&x, 8, false, 1.0);
    want.extend(host_dft(&two[6..], 8, false, 1.0));
    cclose(&got.to_vec()?, &want, "fftn_with s/axes");
    // The default axes of fft2 are the last two; rfft keeps n / 2 + 1 points.
    let r = a.rfft_with(FftOpts::new().n(8))?.to_vec()?;
    cclose(&r, &host_dft(&x, 8, false, 1.0)[..5], "rfft_with n");
    Ok(())
}

fn axis_and_method(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    let (rows, n) = (4usize, 9usize);
    let x: Vec<f64> = (0..rows * n).map(|_| r.f32_in(-5.0, 5.0) as f64).collect();
    let a = Array::from_slice_on(d, &x, &[rows, n])?;
    // Per row, sorted on the host: the median is the middle element (n odd), the 0.3
    // quantile by `Lower` the element at floor(0.3 (n - 1)), by `Higher` at its ceiling.
    let h = 0.3 * (n - 1) as f64;
    let (mut med, mut lo, mut hi) = (vec![], vec![], vec![]);
    for row in 0..rows {
        let mut s = x[row * n..(row + 1) * n].to_vec();
        s.sort_by(f64::total_cmp);
        med.push(s[n / 2]);
        lo.push(s[h.floor() as usize]);
        hi.push(s[h.ceil() as usize]);
    }
    assert_eq!(a.median_with(AxisOpts::new().axis(1))?.to_vec()?, med);
    assert_eq!(a.median_with(AxisOpts::new().axis(-1))?.to_vec()?, med);
    let o = QuantileOpts::new().axis(1).method(QuantileMethod::Lower);
    assert_eq!(a.quantile_with(0.3, o)?.to_vec()?, lo);
    let o = o.method(QuantileMethod::Higher);
    assert_eq!(a.percentile_with(30.0, o)?.to_vec()?, hi);
    let both = a.quantiles_with(&[0.3, 0.5], o)?;
    assert_eq!(both.shape(), &[2, rows]);
    // Whole-array forms: the median of all `rows * n` (even) values averages the middle two.
    let mut all = x.clone();
    all.sort_by(f64::total_cmp);
    let m = rows * n / 2;
    assert_eq!(a.median()?.item()?, (all[m - 1] + all[m]) / 2.0);
    assert_eq!(a.quantile(1.0)?.item()?, all[rows * n - 1]);
    // `right` moves a value equal to an edge into the bin below.
    let bins = Array::from_slice_on(d, &[-1.0f64, 0.0, 1.0], &[3])?;
    let v = Array::from_slice_on(d, &[-1.0f64, 0.0, 0.5, 1.0], &[4])?;
    assert_eq!(v.digitize(&bins)?.to_vec()?, vec![1, 2, 2, 3]);
    let right = v.digitize_with(&bins, DigitizeOpts::new().right(true))?;
    assert_eq!(right.to_vec()?, vec![0, 1, 2, 2]);
    // Vector norms with keepdims: the Euclidean norm of each row, kept as a column.
    let nrm = linalg::norm_axes_with(&a, 2.0, &[1], ReduceOpts::new().keepdims(true))?;
    assert_eq!(nrm.shape(), &[rows, 1]);
    let want: Vec<f64> = (0..rows)
        .map(|row| {
            x[row * n..(row + 1) * n]
                .iter()
                .map(|v| v * v)
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    close(&nrm.to_vec()?, &want, "norm_axes keepdims");
    Ok(())
}

fn axis_opts_movement(d: Device) -> TestResult {
    let x: Vec<i32> = (0..6).collect();
    let a = Array::from_slice_on(d, &x, &[2, 3])?;
    // Host references: each element twice, flattened or along axis 0 (rows repeated).
    let flat: Vec<i32> = x.iter().flat_map(|&v| [v, v]).collect();
    assert_eq!(a.repeat(2)?.to_vec()?, flat);
    let rows: Vec<i32> = x
        .chunks(3)
        .flat_map(|r| r.iter().chain(r.iter()).copied().collect::<Vec<_>>())
        .collect();
    let r = a.repeat_with(2, AxisOpts::new().axis(0))?;
    assert_eq!(r.shape(), &[4, 3]);
    assert_eq!(r.to_vec()?, rows);
    let b = Array::from_slice_on(d, &[9i32, 9, 9], &[1, 3])?;
    assert_eq!(a.append(&b)?.shape(), &[9]);
    assert_eq!(a.append_with(&b, AxisOpts::new().axis(0))?.shape(), &[3, 3]);
    assert_eq!(a.delete(&[0, 5])?.to_vec()?, vec![1, 2, 3, 4]);
    let del = a.delete_with(&[1], AxisOpts::new().axis(-1))?;
    assert_eq!(del.to_vec()?, vec![0, 2, 3, 5]);
    // fftshift of [0..5) along the last axis only: a roll by 5 / 2 = 2 of each row.
    let m = Array::from_slice_on(d, &(0..10).collect::<Vec<i32>>(), &[2, 5])?;
    let s = m.fftshift_with(AxesOpts::new().axes(&[1]))?.to_vec()?;
    assert_eq!(s, vec![3, 4, 0, 1, 2, 8, 9, 5, 6, 7]);
    assert_eq!(
        m.fftshift_with(AxesOpts::new().axes(&[1]))?
            .ifftshift_with(AxesOpts::new().axes(&[-1]))?
            .to_vec()?,
        (0..10).collect::<Vec<i32>>()
    );
    let z = Array::<f32>::from_slice_on(d, &[0.0, 0.0], &[1, 2, 1])?;
    assert_eq!(z.squeeze()?.shape(), &[2]);
    assert_eq!(
        z.squeeze_with(AxesOpts::new().axes(&[-1]))?.shape(),
        &[1, 2]
    );
    Ok(())
}

fn take_opts(d: Device) -> TestResult {
    let (rows, cols) = (3usize, 4usize);
    let x: Vec<i32> = (0..(rows * cols) as i32).map(|v| 100 + v).collect();
    let a = Array::from_slice_on(d, &x, &[rows, cols])?;
    let raw = [-6i64, -1, 0, 3, 4, 9];
    let i = Array::from_slice_on(d, &raw, &[raw.len()])?;
    // NumPy's clip clamps into [0, n) (negative indices do not count from the end); wrap
    // takes the Euclidean remainder.
    let clip = |v: i64, n: usize| v.clamp(0, n as i64 - 1) as usize;
    let wrap = |v: i64, n: usize| v.rem_euclid(n as i64) as usize;
    let n = rows * cols;
    let flat_clip: Vec<i32> = raw.iter().map(|&v| x[clip(v, n)]).collect();
    let flat_wrap: Vec<i32> = raw.iter().map(|&v| x[wrap(v, n)]).collect();
    let o = TakeOpts::new().mode(IndexMode::Clamp);
    assert_eq!(a.take_with(&i, o)?.to_vec()?, flat_clip);
    let o = TakeOpts::new().mode(IndexMode::Wrap);
    assert_eq!(a.take_with(&i, o)?.to_vec()?, flat_wrap);
    // Along axis 1: each row gathered at the normalised columns.
    for (mode, f) in [
        (IndexMode::Clamp, &clip as &dyn Fn(i64, usize) -> usize),
        (IndexMode::Wrap, &wrap),
    ] {
        let got = a.take_with(&i, TakeOpts::new().axis(1).mode(mode))?;
        assert_eq!(got.shape(), &[rows, raw.len()]);
        let want: Vec<i32> = (0..rows)
            .flat_map(|r| raw.iter().map(move |&v| (r, v)))
            .map(|(r, v)| x[r * cols + f(v, cols)])
            .collect();
        assert_eq!(got.to_vec()?, want, "axis 1, {mode:?}");
    }
    // The defaults: flattened, out-of-range an error (NumPy's raise); in range, negative
    // indices count from the end.
    let past = Array::from_slice_on(d, &[n as i64], &[1])?;
    let before = Array::from_slice_on(d, &[-(n as i64) - 1], &[1])?;
    assert!(a.take(&past).is_err() && a.take(&before).is_err());
    assert!(a.take_with(&i, TakeOpts::new().axis(-1)).is_err());
    let ok = Array::from_slice_on(d, &[-1i64, 0, 5], &[3])?;
    assert_eq!(a.take(&ok)?.to_vec()?, [x[n - 1], x[0], x[5]]);
    assert_eq!(
        a.take_with(&ok, TakeOpts::new())?.to_vec()?,
        a.take(&ok)?.to_vec()?
    );
    let first_two = Array::from_slice_on(d, &[-1i64, 0], &[2])?;
    let rows_at = a.take_with(&first_two, TakeOpts::new().axis(0))?;
    let mut want = x[(rows - 1) * cols..].to_vec();
    want.extend_from_slice(&x[..cols]);
    assert_eq!(rows_at.to_vec()?, want);
    Ok(())
}

fn histogram_opts(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    let n = 2000usize;
    let x: Vec<f64> = (0..n).map(|_| f64::from(r.f32_in(-1.0, 3.0))).collect();
    let a = Array::from_slice_on(d, &x, &[n])?;
    let (lo, hi, bins) = (0.0f64, 2.0f64, 8usize);
    let width = (hi - lo) / bins as f64;
    // Host counts over [lo, hi], the last bin closed.
    let bin_of = |v: f64| -> Option<usize> {
        (lo..=hi)
            .contains(&v)
            .then(|| (((v - lo) / width) as usize).min(bins - 1))
    };
    let mut counts = vec![0.0f64; bins];
    for &v in &x {
        if let Some(k) = bin_of(v) {
            counts[k] += 1.0;
        }
    }
    let range = HistogramOpts::new().range(lo, hi);
    let (c, e) = a.histogram_with(bins, range)?;
    assert_eq!(c.to_vec()?, counts);
    let edges = e.to_vec()?;
    // Density: counts / (total in range · width), integrating to 1 over the range.
    let total: f64 = counts.iter().sum();
    let want: Vec<f64> = counts.iter().map(|c| c / (total * width)).collect();
    let (dens, _) = a.histogram_with(bins, range.density(true))?;
    let dens = dens.to_vec()?;
    close_tol(&dens, &want, 1e-12, 0.0, "density")?;
    let integral: f64 = dens
        .iter()
        .zip(edges.windows(2))
        .map(|(h, w)| h * (w[1] - w[0]))
        .sum();
    assert!(
        (integral - 1.0).abs() < 1e-12,
        "density integrates to {integral}"
    );
    // Integer weights count as that many repeated samples.
    let w: Vec<f64> = (0..n).map(|i| (i % 4) as f64).collect();
    let wa = Array::from_slice_on(d, &w, &[n])?;
    let rep: Vec<f64> = x
        .iter()
        .zip(&w)
        .flat_map(|(&v, &k)| std::iter::repeat_n(v, k as usize))
        .collect();
    let ra = Array::from_slice_on(d, &rep, &[rep.len()])?;
    let (ws, _) = a.histogram_with(bins, range.weights(&wa))?;
    let (rc, _) = ra.histogram_with(bins, range)?;
    assert_eq!(
        ws.to_vec()?,
        rc.to_vec()?,
        "weights against repeated samples"
    );
    let (wd, _) = a.histogram_with(bins, range.weights(&wa).density(true))?;
    let (rd, _) = ra.histogram_with(bins, range.density(true))?;
    close_tol(&wd.to_vec()?, &rd.to_vec()?, 1e-12, 0.0, "weighted density")?;
    // The defaults: the data's min and max, counts as the short form's.
    let (c0, e0) = a.histogram_with(bins, HistogramOpts::new())?;
    let (c1, e1) = a.histogram(bins)?;
    let c1: Vec<f64> = c1.to_vec()?.iter().map(|&v| v as f64).collect();
    assert_eq!((c0.to_vec()?, e0.to_vec()?), (c1, e1.to_vec()?));
    let bad = Array::from_slice_on(d, &[1.0f64], &[1])?;
    assert!(
        a.histogram_with(bins, HistogramOpts::new().weights(&bad))
            .is_err()
    );
    assert!(
        a.histogram_with(bins, HistogramOpts::new().range(1.0, 1.0))
            .is_err()
    );
    Ok(())
}

/// Host layer/RMS norm of each row of `x` (`rows × n`), in `f64`.
fn host_norm(x: &[f64], n: usize, eps: f64, rms: bool, w: &[f64], b: &[f64]) -> Vec<f64> {
    x.chunks(n)
        .flat_map(|row| {
            let mean = if rms {
                0.0
            } else {
                row.iter().sum::<f64>() / n as f64
            };
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
            let s = 1.0 / (var + eps).sqrt();
            row.iter()
                .enumerate()
                .map(|(j, v)| (v - mean) * s * w[j] + b[j])
                .collect::<Vec<_>>()
        })
        .collect()
}

fn norm_opts(d: Device) -> TestResult {
    let mut r = Rng::fresh();
    let (rows, n) = (5usize, 37usize);
    // Small values, so that the default eps shows in the result.
    let x: Vec<f64> = (0..rows * n)
        .map(|_| f64::from(r.f32_in(-1e-3, 1e-3)))
        .collect();
    let a = Array::from_slice_on(d, &x, &[rows, n])?;
    let w: Vec<f64> = (0..n).map(|j| 0.5 + j as f64 / n as f64).collect();
    let b: Vec<f64> = (0..n).map(|j| j as f64 * 0.01 - 0.1).collect();
    let (ones, zeros) = (vec![1.0; n], vec![0.0; n]);
    let (wa, ba) = (
        Array::from_slice_on(d, &w, &[n])?,
        Array::from_slice_on(d, &b, &[n])?,
    );
    // layer_norm: eps 1e-5 by default.
    let got = a.layer_norm(-1)?.to_vec()?;
    close_tol(
        &got,
        &host_norm(&x, n, 1e-5, false, &ones, &zeros),
        1e-10,
        1e-12,
        "layer_norm",
    )?;
    let o = NormOpts::new().eps(1e-7).weight(&wa).bias(&ba);
    let got = a.layer_norm_with(1, o)?.to_vec()?;
    close_tol(
        &got,
        &host_norm(&x, n, 1e-7, false, &w, &b),
        1e-10,
        1e-12,
        "layer_norm_with",
    )?;
    // rms_norm: the dtype's machine epsilon by default.
    let got = a.rms_norm(1)?.to_vec()?;
    let want = host_norm(&x, n, f64::EPSILON, true, &ones, &zeros);
    close_tol(&got, &want, 1e-10, 1e-12, "rms_norm")?;
    let got = a
        .rms_norm_with(-1, NormOpts::new().eps(1e-6).weight(&wa))?
        .to_vec()?;
    close_tol(
        &got,
        &host_norm(&x, n, 1e-6, true, &w, &zeros),
        1e-10,
        1e-12,
        "rms_norm_with",
    )?;
    let a32 = a.cast::<f32>();
    let got: Vec<f64> = a32
        .rms_norm(1)?
        .to_vec()?
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    let x32: Vec<f64> = a32.to_vec()?.iter().map(|&v| f64::from(v)).collect();
    let want = host_norm(&x32, n, f64::from(f32::EPSILON), true, &ones, &zeros);
    close_tol(&got, &want, 1e-4, 1e-6, "rms_norm f32")?;
    assert!(a.rms_norm_with(1, NormOpts::new().bias(&ba)).is_err());
    assert!(a.layer_norm_with(1, NormOpts::new().eps(f64::NAN)).is_err());
    Ok(())
}

fn choice_opts(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        // The default draws with replacement: more draws than items, each in range.
        let c = Array::choice(3, 50, 4)?.to_vec()?;
        assert!(c.iter().all(|&i| (0..3).contains(&i)));
        assert!(Array::choice_with(3, 50, 4, ChoiceOpts::new().replace(false)).is_err());
        // Without replacement: n draws of n items are a permutation.
        let mut p = Array::choice_with(9, 9, 4, ChoiceOpts::new().replace(false))?.to_vec()?;
        p.sort();
        assert_eq!(p, (0..9).collect::<Vec<i64>>());
        // p: only the items of non-zero probability are drawn.
        let pr = [0.0, 0.5, 0.0, 0.5];
        let c = Array::choice_with(4, 200, 4, ChoiceOpts::new().p(&pr))?.to_vec()?;
        assert!(c.iter().all(|&i| i == 1 || i == 3));
        let mut c =
            Array::choice_with(4, 2, 4, ChoiceOpts::new().p(&pr).replace(false))?.to_vec()?;
        c.sort();
        assert_eq!(c, [1, 3]);
        assert_eq!(ChoiceOpts::new(), ChoiceOpts::default());
        let mut g = cuprite_array::random::default_rng(11);
        let mut p = g
            .choice_with(6, 6, ChoiceOpts::new().replace(false))?
            .to_vec()?;
        p.sort();
        assert_eq!(p, (0..6).collect::<Vec<i64>>());
        let c = g.choice(2, 40)?.to_vec()?;
        assert!(c.iter().all(|&i| i == 0 || i == 1));
        Ok(())
    })
}

fn rank_opts(d: Device) -> TestResult {
    // Singular values 4, 1e-3 and 1e-9 (a diagonal matrix: its own SVD), and a symmetric
    // matrix of eigenvalues 3 and -1e-4.
    let g = Array::from_slice_on(
        d,
        &[4.0f64, 0.0, 0.0, 0.0, 1e-3, 0.0, 0.0, 0.0, 1e-9],
        &[3, 3],
    )?;
    let rank = |a: &Array<f64>, o| -> Result<i64, cuprite_array::Error> {
        linalg::matrix_rank_with(a, o)?.item()
    };
    // Default threshold: 4 · 3 · eps, about 2.7e-15: all three count.
    assert_eq!(rank(&g, RankOpts::new())?, 3);
    assert_eq!(rank(&g, RankOpts::new().tol(1e-6))?, 2);
    assert_eq!(rank(&g, RankOpts::new().tol(1e-2))?, 1);
    // rtol: relative to 4, so 1e-4 (a threshold of 4e-4) keeps 1e-3 and drops 1e-9.
    assert_eq!(rank(&g, RankOpts::new().rtol(1e-4))?, 2);
    assert_eq!(rank(&g, RankOpts::new().rtol(1e-3))?, 1);
    // The last of tol and rtol set applies.
    assert_eq!(rank(&g, RankOpts::new().rtol(1e-3).tol(1e-6))?, 2);
    // (a + b)/2 ± (a − b)/2 with a = 3 − 1e-4... built from its eigenvectors by hand:
    // [[1.5 - e, 1.5 + e], [1.5 + e, 1.5 - e]] with e = 5e-5 has eigenvalues 3 and -1e-4.
    let e = 5e-5;
    let s = Array::from_slice_on(d, &[1.5 - e, 1.5 + e, 1.5 + e, 1.5 - e], &[2, 2])?;
    assert_eq!(rank(&s, RankOpts::new().hermitian(true))?, 2);
    assert_eq!(rank(&s, RankOpts::new().hermitian(true).tol(1e-3))?, 1);
    assert_eq!(rank(&s, RankOpts::new().tol(1e-3))?, 1);
    assert!(linalg::matrix_rank_with(&g, RankOpts::new().tol(f64::NAN)).is_err());
    Ok(())
}

pub const BODIES: &[(&str, Body)] = &[
    ("sort_descending", sort_descending),
    ("topk_smallest", topk_smallest),
    ("keepdims", keepdims),
    ("isclose_opts", isclose_opts),
    ("fft_opts", fft_opts),
    ("axis_and_method", axis_and_method),
    ("axis_opts_movement", axis_opts_movement),
    ("take_opts", take_opts),
    ("histogram_opts", histogram_opts),
    ("norm_opts", norm_opts),
    ("choice_opts", choice_opts),
    ("rank_opts", rank_opts),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::options::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::options::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
