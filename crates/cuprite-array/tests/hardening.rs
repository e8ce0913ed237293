//! Regression tests of bad and unusual input (issue: soundness and hardening): every case is
//! an `Err` naming what was wrong, or the documented value, never a panic, a wrapped size or a
//! dead context; afterwards a small good operation still works. Bodies run on every backend.

use crate::common::Body;
use cuprite_array::{Array, Device, Error, s};
use cuprite_testkit::{Test, TestResult};

/// A small good operation: the process and device are still usable.
fn still_usable() -> TestResult {
    let a = Array::from_slice(&[1.0f32, 2.0, 3.0], &[3])?;
    assert_eq!((&a * 2.0).sum()?.item()?, 12.0);
    Ok(())
}

fn expect_err<T: std::fmt::Debug>(
    r: cuprite_array::Result<T>,
    needle: &str,
    what: &str,
) -> TestResult {
    match r {
        Ok(v) => {
            Err(format!("{what}: expected an Err mentioning {needle:?}, got Ok({v:?})").into())
        }
        Err(e) => {
            let m = e.to_string();
            if !m.contains(needle) {
                return Err(format!("{what}: the Err {m:?} does not mention {needle:?}").into());
            }
            Ok(())
        }
    }
}

fn overflowing_shapes(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let big = [1usize << 32, 1 << 32];
        expect_err(
            Array::<f32>::from_slice(&[], &big),
            "shape",
            "from_slice of 2^64 elements",
        )?;
        let four = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
        expect_err(
            four.reshape(&[(1usize << 62) + 1, 4]),
            "shape",
            "reshape to a wrapping count",
        )?;
        expect_err(
            Array::<f32>::zeros(&big).sum(),
            "shape",
            "zeros(2^64).sum()",
        )?;
        expect_err(
            Array::<f32>::rand_uniform(&big, 1),
            "shape",
            "rand_uniform(2^64)",
        )?;
        expect_err(
            Array::<u8>::ones(&[usize::MAX, usize::MAX]).to_vec(),
            "shape",
            "ones([MAX, MAX]).to_vec()",
        )?;
        expect_err(
            Array::<f32>::zeros(&[usize::MAX, 2]).eval(),
            "shape",
            "zeros([MAX, 2])",
        )?;
        expect_err(four.tile(&[usize::MAX, 2]), "shape", "tile by MAX")?;
        expect_err(
            four.broadcast_to(&[usize::MAX, 3]),
            "shape",
            "broadcast_to([MAX, 3])",
        )?;
        expect_err(four.pad(&[(usize::MAX, 0)], 0.0), "overflow", "pad by MAX")?;
        expect_err(
            Array::arange(0.0f64, f64::INFINITY, 1.0),
            "elements",
            "arange to infinity",
        )?;
        expect_err(Array::arange(0.0f64, f64::NAN, 1.0), "NaN", "arange to NaN")?;
        still_usable()
    })
}

fn empty_inputs(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let e = Array::<f32>::from_slice(&[], &[0])?;
        expect_err(e.max(), "empty", "max of empty f32")?;
        expect_err(e.min(), "empty", "min of empty f32")?;
        expect_err(e.argmax(), "empty", "argmax of empty")?;
        let ei = Array::<i32>::from_slice(&[], &[2, 0])?;
        expect_err(ei.max(), "empty", "max of empty i32")?;
        expect_err(ei.min_axes(&[1]), "empty", "min along an empty axis")?;
        // Along a non-empty axis of an empty array: an empty result, as NumPy.
        assert_eq!(ei.max_axes(&[0])?.shape(), &[0]);
        // Sums of nothing are zero.
        assert_eq!(ei.sum()?.item()?, 0);
        // Evaluated empty arrays reshape and tile.
        let z = Array::<f32>::from_slice(&[], &[2, 0])?;
        z.eval()?;
        assert_eq!(z.flatten()?.shape(), &[0]);
        assert_eq!(Array::<f32>::zeros(&[0, 3]).tile(&[2, 1])?.shape(), &[0, 3]);
        // gather along an axis of extent 0.
        let idx = Array::from_slice(&[0i64], &[1])?;
        expect_err(
            Array::<f32>::zeros(&[0, 3]).gather(0, &idx),
            "extent 0",
            "gather",
        )?;
        still_usable()
    })
}

fn creation_edges(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        assert_eq!(Array::linspace(0.0f64, 1.0, 1)?.to_vec()?, [0.0]);
        assert_eq!(Array::linspace(0.0f64, 1.0, 2)?.to_vec()?, [0.0, 1.0]);
        assert!(Array::linspace(0.0f64, 1.0, 0)?.to_vec()?.is_empty());
        let a = Array::from_slice(&[1i32, 2, 3, 4, 5], &[5])?;
        for step in [isize::MAX, isize::MIN + 1, isize::MIN] {
            let v = a.slice(&s![..;step])?.to_vec()?;
            let want = if step > 0 { [1] } else { [5] };
            assert_eq!(v, want, "step {step}");
        }
        still_usable()
    })
}

fn bad_devices(_: Device) -> TestResult {
    // Ordinals far beyond any machine: an Err, never an index panic or an abort.
    for ord in [usize::MAX, 1 << 45, 4096] {
        let r =
            cuprite_array::with_device(Device::cuda(ord), || Array::from_slice(&[1.0f32], &[1]));
        match r {
            Err(Error::InvalidArgument(m)) | Err(Error::DeviceMismatch(m)) => {
                assert!(m.contains(&ord.to_string()) || m.contains("device"), "{m}")
            }
            Err(e) => assert!(e.to_string().contains("device"), "{e}"),
            Ok(_) => return Err(format!("CUDA device {ord} made an array").into()),
        }
    }
    still_usable()
}

/// `erf` and `erfc` at 0, -0 and subnormal arguments: the CPU series summed zeros forever
/// (found by `cuprite fuzz`); the values are the documented ones on both backends.
fn erf_at_zero(d: Device) -> TestResult {
    let r: TestResult = cuprite_array::with_device(d, || {
        let x = [0.0f64, -0.0, 5e-324, -1e-310, 1e-300];
        let a = Array::from_slice(&x, &[5])?;
        let e = a.erf().to_vec()?;
        let c = a.erfc().to_vec()?;
        for i in 0..5 {
            // erf(x) = 2x/√π + O(x³): exactly representable as that product at these sizes.
            let want = x[i] * std::f64::consts::FRAC_2_SQRT_PI;
            assert!(
                (e[i] - want).abs() <= 1e-320,
                "erf({:e}) = {:e}",
                x[i],
                e[i]
            );
            assert_eq!(c[i], 1.0, "erfc({:e})", x[i]);
        }
        let h = Array::from_slice(&[0.0f32, -0.0], &[2])?.erf().to_vec()?;
        assert_eq!(h, [0.0, 0.0]);
        Ok(())
    });
    r?;
    still_usable()
}

/// `min`/`max` of `bool` arrays (along an axis and whole): CUDA code generation had no limits
/// for `bool` and panicked (found by `cuprite fuzz`).
fn bool_min_max(d: Device) -> TestResult {
    let r: TestResult = cuprite_array::with_device(d, || {
        let v = [true, false, false, false, true, true];
        let a = Array::from_slice(&v, &[2, 3])?;
        assert_eq!(a.max_axes(&[0])?.to_vec()?, [true, true, true]);
        assert_eq!(a.min_axes(&[1])?.to_vec()?, [false, false]);
        assert!(a.max()?.item()?);
        assert!(!a.min()?.item()?);
        assert_eq!(a.argmax_axis(1)?.to_vec()?, [0, 1]);
        Ok(())
    });
    r?;
    still_usable()
}

pub const BODIES: &[(&str, Body)] = &[
    ("bool_min_max", bool_min_max),
    ("erf_at_zero", erf_at_zero),
    ("overflowing_shapes", overflowing_shapes),
    ("empty_inputs", empty_inputs),
    ("creation_edges", creation_edges),
    ("bad_devices", bad_devices),
];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::hardening::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::hardening::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
