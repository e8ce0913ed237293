//! Library calls as graph nodes (cumsum is the first), the device every operation's result
//! lands on, and the JIT's disk key. Bodies run on every backend present.

use crate::common::{Body, close};
use cuprite_array::{Array, Device, bf16, c32, f16, s};
use cuprite_testkit::{Rng, Test, TestResult};

/// Inclusive scan along `axis` of a contiguous `shape`, in f64 (the reference).
fn scan_ref(x: &[f64], shape: &[usize], axis: usize) -> Vec<f64> {
    let outer: usize = shape[..axis].iter().product();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = x.to_vec();
    for o in 0..outer {
        for j in 0..inner {
            let mut acc = 0.0;
            for i in 0..n {
                let k = (o * n + i) * inner + j;
                acc += x[k];
                out[k] = acc;
            }
        }
    }
    out
}

fn cumsum_values(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        // Integers: exact, every axis, sizes around the kernel's tile (2048) and warp (32).
        for shape in [
            vec![1],
            vec![31],
            vec![33],
            vec![2049],
            vec![3 * 2048 + 5],
            vec![4, 37, 3],
            vec![5, 1],
        ] {
            let n: usize = shape.iter().product();
            let x: Vec<i32> = rng
                .vec_u32(n)
                .iter()
                .map(|&v| (v % 2001) as i32 - 1000)
                .collect();
            let a = Array::from_slice(&x, &shape)?;
            let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
            for axis in 0..shape.len() {
                let got = a.cumsum(axis as isize)?;
                assert_eq!(got.shape(), &shape[..]);
                assert_eq!(got.device(), d);
                let want: Vec<i64> = scan_ref(&xf, &shape, axis)
                    .iter()
                    .map(|&v| v as i64)
                    .collect();
                assert_eq!(got.to_vec()?, want, "i32 cumsum of {shape:?} along {axis}");
            }
        }
        // f32 against an f64 reference: bound c * n * eps * sum |x|.
        let n = 100_003;
        let x = rng.vec_f32(n, -1.0, 1.0);
        let got: Vec<f64> = Array::from_slice(&x, &[n])?
            .cumsum(0)?
            .to_vec()?
            .iter()
            .map(|&v| v as f64)
            .collect();
        let xf: Vec<f64> = x.iter().map(|&v| v as f64).collect();
        let want = scan_ref(&xf, &[n], 0);
        let bound = 4.0 * (n as f64).log2() * f32::EPSILON as f64 * n as f64;
        close(&got, &want, 0.0, bound, "f32 cumsum")?;
        // f64 along the last axis of a 2-D array, negative axis.
        let x: Vec<f64> = rng
            .vec_f32(6 * 500, -1.0, 1.0)
            .iter()
            .map(|&v| v as f64)
            .collect();
        let got = Array::from_slice(&x, &[6, 500])?.cumsum(-1)?.to_vec()?;
        close(
            &got,
            &scan_ref(&x, &[6, 500], 1),
            1e-12,
            1e-12,
            "f64 cumsum",
        )?;
        // f16 and bf16 accumulate in f32 and round each output once.
        let x = rng.vec_f32(3000, 0.0, 0.01);
        let xf: Vec<f64> = x.iter().map(|&v| f16::from_f32(v).to_f64()).collect();
        let h: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
        let got: Vec<f64> = Array::from_slice(&h, &[3000])?
            .cumsum(0)?
            .to_vec()?
            .iter()
            .map(|v| v.to_f64())
            .collect();
        close(&got, &scan_ref(&xf, &[3000], 0), 2e-3, 1e-3, "f16 cumsum")?;
        let b: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
        let xb: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
        let got: Vec<f64> = Array::from_slice(&b, &[3000])?
            .cumsum(0)?
            .to_vec()?
            .iter()
            .map(|v| v.to_f64())
            .collect();
        close(&got, &scan_ref(&xb, &[3000], 0), 1e-2, 1e-2, "bf16 cumsum")?;
        // A mask counts (as u8); unsigned integers scan in u64.
        let m = Array::from_slice(&[true, false, true, true], &[4])?;
        assert_eq!(m.cast::<u8>().cumsum(0)?.to_vec()?, [1u64, 1, 2, 3]);
        let u = Array::from_slice(&[u32::MAX, 1, 2], &[3])?;
        assert_eq!(
            u.cumsum(0)?.to_vec()?,
            [u32::MAX as u64, 1 << 32, (1 << 32) + 2]
        );
        // Empty arrays and scalars.
        let e = Array::<f32>::from_slice(&[], &[0, 3])?;
        assert_eq!(e.cumsum(1)?.shape(), &[0, 3]);
        assert!(e.cumsum(0)?.to_vec()?.is_empty());
        assert_eq!(Array::scalar(2.5f32).cumsum(0)?.to_vec()?, [2.5]);
        Ok(())
    })
}

/// A loop that evaluates its state every pass and builds the next pass on it: each pass stays
/// one fused evaluation however many passes came before (what a realised value weighed when
/// it was lazy does not count against the graph built on it).
fn loop_passes_stay_fused(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let mut rng = Rng::fresh();
        let host: Vec<f64> = (0..64).map(|_| rng.f32_in(-2.0, 2.0) as f64).collect();
        let mut x = Array::from_slice(&host, &[64])?;
        let mut want = host.clone();
        for pass in 0..300 {
            let before = cuprite_array::stats::thread_evaluations();
            // Five operations a pass: more than the size limit after a few dozen passes if
            // realised values kept their old weight.
            x = ((&x * 0.5 + 1.0) * &x - 0.25) / 2.0;
            x.eval()?;
            assert_eq!(
                cuprite_array::stats::thread_evaluations() - before,
                1,
                "pass {pass}: one evaluation"
            );
            for w in &mut want {
                *w = ((*w * 0.5 + 1.0) * *w - 0.25) / 2.0;
            }
        }
        close(&x.to_vec()?, &want, 1e-9, 1e-12, "300 passes")?;
        Ok(())
    })
}

fn cumsum_fuses_and_errs(d: Device) -> TestResult {
    cuprite_array::with_device(d, || {
        let a = Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4])?;
        let b = Array::from_slice(&[2.0f32, 2.0, 2.0, 2.0], &[4])?;
        // The call reads its producer fused (one evaluation), the consumer is one more.
        let before = cuprite_array::stats::thread_evaluations();
        let y = (((&a * &b) + 1.0).cumsum(0)? * 2.0) - 1.0;
        assert_eq!(
            cuprite_array::stats::thread_evaluations(),
            before,
            "lazy until read"
        );
        assert_eq!(y.to_vec()?, [5.0, 15.0, 29.0, 47.0]);
        assert_eq!(cuprite_array::stats::thread_evaluations() - before, 2);
        // A strided view as input (the call reads it in place).
        let m = Array::from_slice(&[1i64, 2, 3, 4, 5, 6], &[2, 3])?;
        assert_eq!(m.t().cumsum(0)?.to_vec()?, [1i64, 4, 3, 9, 6, 15]);
        assert_eq!(
            m.slice(&s![.., 1..])?.cumsum(1)?.to_vec()?,
            [2i64, 5, 5, 11]
        );
        // A call below element-wise work below a reduction or a concatenation (the reduction
        // and the pieces are linearised on their own: the call is realised first).
        let c = Array::from_slice(&[1.0f64, 2.0, 3.0], &[3])?;
        assert_eq!((c.cumsum(0)? - &c).sum()?.item()?, 4.0);
        assert_eq!(((c.cumsum(0)? * 2.0).max()?).item()?, 12.0);
        let joined = Array::concat(&[&(c.cumsum(0)? + 0.5), &c], 0)?;
        assert_eq!(joined.to_vec()?, [1.5, 3.5, 6.5, 1.0, 2.0, 3.0]);
        // Bad input: an Err naming the axis; complex is refused.
        let e = m.cumsum(2).unwrap_err().to_string();
        assert!(e.contains("axis 2"), "{e}");
        let z = Array::from_slice(&[c32::new(1.0, 0.0)], &[1])?;
        let e = z.cumsum(0).unwrap_err().to_string();
        assert!(e.contains("complex"), "{e}");
        Ok(())
    })
}

/// Every kind of operation gives its result on its input's device, not on the thread's
/// current device (an empty slice once landed on the current device).
fn results_stay_on_input_device(d: Device) -> TestResult {
    let a = cuprite_array::with_device(d, || Array::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]))?;
    let other = if d == Device::CPU {
        Device::cuda(0)
    } else {
        Device::CPU
    };
    // Build everything while another device is current.
    cuprite_array::with_device(other, || -> TestResult {
        let results: Vec<(&str, Array<f32>)> = vec![
            ("add", &a + 1.0),
            ("exp", a.exp()),
            ("slice", a.slice(&s![0..1, ..])?),
            ("empty slice", a.slice(&s![0..0, ..])?),
            ("reshape", a.reshape(&[4])?),
            ("transpose", a.t()),
            ("flip", a.flip(&[0])?),
            ("tile", a.tile(&[2, 1])?),
            ("pad", a.pad(&[(1, 0), (0, 1)], 0.0)?),
            ("concat", Array::concat(&[&a, &a], 0)?),
            ("broadcast", a.broadcast_to(&[3, 2, 2])?),
            ("sum", a.sum_axes(&[0])?),
            ("cumsum", a.cumsum(0)?),
            ("contiguous", a.t().contiguous()?),
        ];
        for (name, r) in results {
            assert_eq!(r.device(), d, "{name}");
            r.eval()?;
            assert_eq!(r.device(), d, "{name} after eval");
        }
        Ok(())
    })
}

const BODIES: &[(&str, Body)] = &[
    ("cumsum_values", cumsum_values),
    ("cumsum_fuses_and_errs", cumsum_fuses_and_errs),
    ("loop_passes_stay_fused", loop_passes_stay_fused),
    ("results_stay_on_input_device", results_stay_on_input_device),
];

/// The disk key of a kernel changes with any option passed to NVRTC.
fn disk_key_follows_options() -> TestResult {
    let src = "extern \"C\" __global__ void k(float *x) { x[0] = 1.0f; }";
    let base = cuprite_array::tuning::compiler::compile_options(90, true);
    let k0 = cuprite_array::tuning::compiler::cache_key(src, &base)?;
    assert_eq!(
        k0,
        cuprite_array::tuning::compiler::cache_key(src, &base)?,
        "stable"
    );
    let k1 = cuprite_array::tuning::compiler::cache_key(src, &base.clone().option("-lineinfo"))?;
    let k2 = cuprite_array::tuning::compiler::cache_key(
        src,
        &cuprite_array::tuning::compiler::compile_options(80, true),
    )?;
    let k3 = cuprite_array::tuning::compiler::cache_key(&format!("{src}\n"), &base)?;
    assert!(
        k0 != k1 && k0 != k2 && k0 != k3 && k1 != k2,
        "{k0:x} {k1:x} {k2:x} {k3:x}"
    );
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::library::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::library::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::nvrtc(
        "jit::disk_key_follows_options",
        disk_key_follows_options,
    ));
    v
}
