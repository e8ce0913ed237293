//! The warm path of small ops on CUDA: one element-wise step over contiguous arrays and
//! constants, launched from a per-thread note of its form once the form has run. Results
//! against the CPU backend for every kind of operand (array, constant on either side, the same
//! array twice, complex constants), offsets that change the vectorised variant, another length
//! under the same note, and a count that shows the path was taken.

use cuprite_array::{Array, Device, Element, c32, s, stats, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::fmt::Debug;

pub fn tests() -> Vec<Test> {
    vec![
        Test::gpu("small::noted_forms_match_cpu", noted_forms_match_cpu),
        Test::cpu("small::operator_scalars_cpu", || {
            operator_scalars(Device::CPU)
        }),
        Test::gpu("small::operator_scalars_cuda", || {
            operator_scalars(Device::cuda(0))
        }),
        Test::gpu_alone("small::parked_results_cuda", parked_results),
    ]
}

/// A dropped small result's storage is parked for the thread's next result of its byte size:
/// the next small op writes the same buffer (another dtype of the same size too), the
/// statistics count it freed when dropped and allocated again when taken, and memory the user
/// locked is never taken. Values checked throughout. Alone: exact statistics of the device.
fn parked_results() -> TestResult {
    let d = Device::cuda(0);
    with_device(d, || {
        let n = 1000;
        let av: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 - 7.0).collect();
        let iv: Vec<i32> = (0..n as i32).map(|i| i * 3 - 500).collect();
        let a = Array::from_slice(&av, &[n])?;
        let b = Array::from_slice(&iv, &[n])?;
        // The address of an evaluated array (the view is dropped at once: nothing kept).
        let addr =
            |x: &Array<f32>| -> cuprite_array::Result<u64> { Ok(x.device_view()?.device_ptr()) };
        let r = &a + 1.0;
        r.eval()?;
        let first = addr(&r)?;
        let before = cuprite_array::mem_stats(d);
        drop(r);
        let dropped = cuprite_array::mem_stats(d);
        assert_eq!(before.bytes_in_use - dropped.bytes_in_use, n * 4);
        assert_eq!(before.buffers_in_use - dropped.buffers_in_use, 1);
        for k in 0..4 {
            let r = &a + (k + 1) as f32;
            r.eval()?;
            assert_eq!(addr(&r)?, first, "result {k} reuses the parked storage");
            let after = cuprite_array::mem_stats(d);
            assert_eq!(after.buffers_in_use, before.buffers_in_use);
            assert_eq!(
                after.buffers_allocated_total - dropped.buffers_allocated_total,
                k + 1
            );
            let want: Vec<f32> = av.iter().map(|x| x + (k + 1) as f32).collect();
            assert_eq!(r.to_vec()?, want);
        }
        // Another dtype of the same byte size takes it too.
        let c = &b * 2;
        assert_eq!(c.to_vec()?, iv.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(c.device_view()?.device_ptr(), first);
        drop(c);
        // Locked by the user: not parked, not reused, still holding its values.
        let r = &a - 2.0;
        let locked = r.device_ptr()?;
        drop(r);
        let q = &a * 3.0;
        q.eval()?;
        assert_ne!(addr(&q)?, locked);
        let stream = cuprite_array::get_stream(0)?;
        let mut back = vec![0f32; n];
        // SAFETY: `locked` addresses `n` f32 of the array library's context that the library
        // never frees or reuses (locked, then dropped); read on the array stream after the
        // kernel that wrote them.
        unsafe {
            cuprite_driver::sys::driver::cuMemcpyDtoHAsync_v2(
                back.as_mut_ptr().cast(),
                locked,
                n * 4,
                stream.raw(),
            )
        }?;
        stream.synchronize()?;
        assert_eq!(back, av.iter().map(|x| x - 2.0).collect::<Vec<_>>());
        assert_eq!(q.to_vec()?, av.iter().map(|x| x * 3.0).collect::<Vec<_>>());
        // After `device_gc` the thread has nothing parked on the device: results stay right.
        drop(q);
        cuprite_array::device_gc(d)?;
        assert_eq!(
            (&a + 0.5).to_vec()?,
            av.iter().map(|x| x + 0.5).collect::<Vec<_>>()
        );
        Ok(())
    })
}

/// An operator's scalar operand (`&a + s`) is made again in place once nothing holds it: each
/// result has its own scalar, bit for bit (signed zeros, NaN), whether the results before it
/// are still lazy, realised and kept, or dropped, across shapes, dtypes and sides.
fn operator_scalars(device: Device) -> TestResult {
    with_device(device, || {
        let zs = [-0.0f32, 0.0, 1.0, -2.5, f32::NAN, 3.0e38];
        let z = Array::from_slice(&zs, &[6])?;
        // Bit patterns, every NaN as one (a device's NaN need not keep the input's payload).
        let bits = |v: &[f32]| {
            v.iter()
                .map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() })
                .collect::<Vec<_>>()
        };
        let want = |f: &dyn Fn(f32) -> f32| bits(&zs.iter().map(|&x| f(x)).collect::<Vec<_>>());
        // One after the other, each dropped before the next: the same node each time.
        for s in [1.0f32, 1.0, -0.0, 0.0, -0.0, 2.5, f32::NAN, 1.0] {
            for _ in 0..3 {
                assert_eq!(bits(&(&z + s).to_vec()?), want(&|x| x + s), "z + {s:?}");
            }
        }
        // Held while the next ones are made: lazy, realised, and the scalar on the left.
        let lazy = &z + 1.0;
        let kept = &z + 2.0;
        kept.eval()?;
        let left = 0.5f32 - &z;
        let again = &z + 1.0;
        let scaled = &z * -0.0;
        assert_eq!(bits(&lazy.to_vec()?), want(&|x| x + 1.0), "lazy z + 1");
        assert_eq!(bits(&kept.to_vec()?), want(&|x| x + 2.0), "kept z + 2");
        assert_eq!(bits(&left.to_vec()?), want(&|x| 0.5 - x), "0.5 - z");
        assert_eq!(bits(&again.to_vec()?), want(&|x| x + 1.0), "again z + 1");
        assert_eq!(bits(&scaled.to_vec()?), want(&|x| x * -0.0), "z * -0");
        // Another shape, dtype and rank in turn with the same value.
        let m = z.reshape(&[2, 3])?;
        let d = Array::from_slice(&[1.5f64, -4.0], &[2])?;
        let i = Array::from_slice(&[7i64, -9, 0], &[3])?;
        for _ in 0..3 {
            assert_eq!(bits(&(&z + 1.0).to_vec()?), want(&|x| x + 1.0), "z + 1");
            assert_eq!(
                bits(&(&m + 1.0).to_vec()?),
                want(&|x| x + 1.0),
                "m + 1 (2 x 3)"
            );
            assert_eq!((&m + 1.0).shape(), &[2, 3]);
            assert_eq!((&d + 1.0).to_vec()?, vec![2.5, -3.0], "f64 + 1");
            assert_eq!((&i + 1).to_vec()?, vec![8, -8, 1], "i64 + 1");
            assert_eq!((&i * 3).to_vec()?, vec![21, -27, 0], "i64 * 3");
        }
        // Shared lazily by two results (the scalar is one node of both graphs).
        let a = &z + 4.0;
        let b = &a * &a;
        assert_eq!(
            bits(&b.to_vec()?),
            want(&|x| (x + 4.0) * (x + 4.0)),
            "(z+4)^2"
        );
        Ok(())
    })
}

/// Inputs made from `x` and `y` (shape `shape`, starting at element `skip` of a longer array so
/// that they are views at an offset), `f` of them on the CPU and on the GPU, each GPU result
/// compared with `same`; the GPU call is repeated (after the first, once the background builds
/// are done: a first use may run on the interpreter, which is not noted) until two evaluations
/// were launched from a note.
fn form<T, R>(
    what: &str,
    x: &[T],
    y: &[T],
    shape: &[usize],
    skip: usize,
    f: impl Fn(&Array<T>, &Array<T>) -> Array<R>,
    same: impl Fn(R, R) -> bool,
) -> TestResult
where
    T: Element,
    R: Element + Debug,
{
    let make = |v: &[T]| -> cuprite_array::Result<Array<T>> {
        let n: usize = shape.iter().product();
        let flat = Array::from_slice(&v[..skip + n], &[skip + n])?;
        flat.slice(&s![skip as isize..])?.reshape(shape)
    };
    let want = with_device(Device::CPU, || f(&make(x)?, &make(y)?).to_vec())?;
    with_device(Device::cuda(0), || {
        let (a, b) = (make(x)?, make(y)?);
        let mut noted = 0;
        for attempt in 0..40 {
            let before = stats::thread_small_op_launches();
            let got = f(&a, &b).to_vec()?;
            assert_eq!(got.len(), want.len(), "{what}");
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    same(g, w),
                    "{what} (skip {skip}, shape {shape:?}, call {attempt}) [{i}]: {g:?} vs {w:?}"
                );
            }
            noted += (stats::thread_small_op_launches() > before) as usize;
            if attempt == 0 {
                cuprite_array::tuning::wait_tier_up();
            }
            if noted >= 2 {
                return Ok(());
            }
        }
        panic!("{what}: no call of this form was launched from a note");
    })
}

fn close32(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * b.abs().max(1.0)
}

fn noted_forms_match_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    // Lengths of one dimensionality share a note (the words carry the extents); offsets of
    // 1 element leave the vectorised variant, of 4 keep it.
    for (shape, skip) in [
        (vec![1000], 0),
        (vec![4099], 0),
        (vec![1000], 1),
        (vec![1000], 4),
        (vec![37, 29], 0),
        (vec![37, 29], 3),
    ] {
        let n = shape.iter().product::<usize>() + skip;
        let x = rng.vec_f32(n, -3.0, 3.0);
        let y: Vec<f32> = rng
            .vec_f32(n, 0.5, 2.0)
            .iter()
            .zip(&x)
            .map(|(m, s)| m * s.signum())
            .collect();
        let sh = &shape[..];
        form("a + 1.5", &x, &y, sh, skip, |a, _| a + 1.5f32, close32)?;
        form("2 - a", &x, &y, sh, skip, |a, _| 2.0f32 - a, close32)?;
        form("a * b", &x, &y, sh, skip, |a, b| a * b, close32)?;
        form("a / b", &x, &y, sh, skip, |a, b| a / b, close32)?;
        form("a * a", &x, &y, sh, skip, |a, _| a * a, close32)?;
        form("exp a", &x, &y, sh, skip, |a, _| a.exp(), close32)?;
        form("a < b", &x, &y, sh, skip, |a, b| a.less(b), |g, w| g == w)?;
        form(
            "a as f64",
            &x,
            &y,
            sh,
            skip,
            |a, _| a.cast::<f64>(),
            |g, w| g == w,
        )?;
        let xi: Vec<i32> = x.iter().map(|v| (v * 1000.0) as i32).collect();
        let yi: Vec<i32> = y.iter().map(|v| (v * 1000.0) as i32).collect();
        form("i + j", &xi, &yi, sh, skip, |a, b| a + b, |g, w| g == w)?;
        form("i % 7", &xi, &yi, sh, skip, |a, _| a.rem(7), |g, w| g == w)?;
        let xc: Vec<c32> = x.iter().zip(&y).map(|(&r, &i)| c32::new(r, i)).collect();
        form(
            "z * (0.5 - 2i)",
            &xc,
            &xc,
            sh,
            skip,
            |a, _| a * c32::new(0.5, -2.0),
            |g, w| close32(g.re, w.re) && close32(g.im, w.im),
        )?;
    }
    Ok(())
}
