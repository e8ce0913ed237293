//! Signed zeros in `min`/`max`, `minimum`/`maximum` and `cummin`/`cummax`: `-0.0` counts as
//! below `+0.0` on both backends, so a parallel reduction returns the same zero whatever order
//! it combines in, and a later order-sensitive step (a stable argsort) sees the same values on
//! the CPU and on CUDA. References are computed on the host from that rule.

use cuprite_array::{Array, Device, bf16, with_device};
use cuprite_testkit::{Rng, Test, TestResult};

type Body = fn(Device) -> TestResult;

const BODIES: &[(&str, Body)] = &[
    ("reductions_order_free", reductions_order_free),
    ("pairwise_and_scans", pairwise_and_scans),
    ("bf16_min_then_argsort", bf16_min_then_argsort),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("signed_zero::cpu::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("signed_zero::cuda::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}

/// Zeros of random signs (at least one of each), `n` of them.
fn zeros(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..n)
        .map(|_| if rng.next_u64() & 1 == 1 { -0.0 } else { 0.0 })
        .collect();
    v[rng.next_u64() as usize % n] = -0.0;
    let j = rng.next_u64() as usize % n;
    if n > 1 && v.iter().filter(|x| x.is_sign_negative()).count() == n {
        v[j] = 0.0;
    }
    v
}

fn reductions_order_free(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        for n in [2usize, 3, 1000, 65_537, (1 << 20) + 3] {
            let v = zeros(&mut rng, n);
            let has_pos = v.iter().any(|x| x.is_sign_positive());
            for rev in [false, true] {
                let mut w = v.clone();
                if rev {
                    w.reverse();
                }
                let a = Array::from_slice(&w, &[n])?;
                let mn = a.min()?.item()?;
                let mx = a.max()?.item()?;
                assert!(
                    mn == 0.0 && mn.is_sign_negative(),
                    "min of {n} zeros gave {mn:?}"
                );
                assert_eq!(
                    mx.is_sign_positive(),
                    has_pos,
                    "max of {n} zeros gave {mx:?}"
                );
                let w64: Vec<f64> = w.iter().map(|&x| x as f64).collect();
                let b = Array::from_slice(&w64, &[n])?;
                assert!(b.min()?.item()?.is_sign_negative(), "f64 min of {n} zeros");
                assert_eq!(
                    b.max()?.item()?.is_sign_positive(),
                    has_pos,
                    "f64 max of {n}"
                );
            }
            // Along an axis: each row's own rule.
            if n % 2 == 1 && n > 3 {
                let rows = 3;
                let cols = (n - 1) / rows;
                let a = Array::from_slice(&v[..rows * cols], &[rows, cols])?;
                let got = a.min_axes(&[1])?.to_vec()?;
                for (r, g) in got.iter().enumerate() {
                    let row = &v[r * cols..(r + 1) * cols];
                    let want_neg = row.iter().any(|x| x.is_sign_negative());
                    assert_eq!(g.is_sign_negative(), want_neg, "row {r} of [{rows},{cols}]");
                }
            }
        }
        Ok(())
    })
}

fn pairwise_and_scans(d: Device) -> TestResult {
    with_device(d, || {
        let x = Array::from_slice(&[0.0f32, -0.0, 0.0, -0.0], &[4])?;
        let y = Array::from_slice(&[-0.0f32, 0.0, 0.0, -0.0], &[4])?;
        let signs = |v: Vec<f32>| -> Vec<bool> { v.iter().map(|x| x.is_sign_negative()).collect() };
        assert_eq!(signs(x.minimum(&y).to_vec()?), [true, true, false, true]);
        assert_eq!(signs(x.maximum(&y).to_vec()?), [false, false, false, true]);
        assert_eq!(signs(y.minimum(&x).to_vec()?), [true, true, false, true]);
        assert_eq!(signs(y.maximum(&x).to_vec()?), [false, false, false, true]);
        // Scans, long enough for several tiles on CUDA: the host reference applies the rule
        // left to right.
        let mut rng = Rng::fresh();
        let n = 70_001;
        let v = zeros(&mut rng, n);
        let a = Array::from_slice(&v, &[n])?;
        let (mut lo, mut hi) = (v[0], v[0]);
        let (mut want_lo, mut want_hi) = (Vec::new(), Vec::new());
        for &e in &v {
            if e.is_sign_negative() {
                lo = e;
            }
            if e.is_sign_positive() {
                hi = e;
            }
            want_lo.push(lo.is_sign_negative());
            want_hi.push(hi.is_sign_negative());
        }
        assert_eq!(signs(a.cummin(0)?.to_vec()?), want_lo, "cummin signs");
        assert_eq!(signs(a.cummax(0)?.to_vec()?), want_hi, "cummax signs");
        Ok(())
    })
}

/// A bf16 minimum over rows of values with many ties and zeros of both signs, then a stable
/// argsort: the order must be the host's (sort by value, `-0.0` first, then by index).
fn bf16_min_then_argsort(d: Device) -> TestResult {
    with_device(d, || {
        let mut rng = Rng::fresh();
        let (rows, cols) = (3usize, 2553usize);
        let host: Vec<f32> = (0..rows * cols)
            .map(|_| {
                let k = (rng.next_u64() % 9) as i32 - 4;
                let z = if rng.next_u64() & 1 == 1 { -0.0 } else { 0.0 };
                if k == 0 { z } else { k as f32 * 0.25 }
            })
            .collect();
        let data: Vec<bf16> = host.iter().map(|&x| bf16::from_f32(x)).collect();
        let a = Array::from_slice(&data, &[rows, cols])?;
        let m = a.min_axes(&[0])?;
        let got = m.argsort(0)?.to_vec()?;
        let col_min: Vec<f32> = (0..cols)
            .map(|c| {
                (0..rows)
                    .map(|r| host[r * cols + c])
                    .fold(f32::INFINITY, |x, y| {
                        if y < x || (y == x && y.is_sign_negative()) {
                            y
                        } else {
                            x
                        }
                    })
            })
            .collect();
        let key = |x: f32| (x, if x.is_sign_negative() { 0 } else { 1 });
        let mut want: Vec<i64> = (0..cols as i64).collect();
        want.sort_by(|&i, &j| {
            let (a, b) = (key(col_min[i as usize]), key(col_min[j as usize]));
            a.partial_cmp(&b).expect("no NaN").then(i.cmp(&j))
        });
        assert_eq!(got, want);
        Ok(())
    })
}
