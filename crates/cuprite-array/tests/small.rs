//! The warm path of small ops on CUDA: one element-wise step over contiguous arrays and
//! constants, launched from a per-thread note of its form once the form has run. Results
//! against the CPU backend for every kind of operand (array, constant on either side, the same
//! array twice, complex constants), offsets that change the vectorised variant, another length
//! under the same note, and a count that shows the path was taken.

use cuprite_array::{Array, Device, Element, c32, s, stats, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::fmt::Debug;

pub fn tests() -> Vec<Test> {
    vec![Test::gpu(
        "small::noted_forms_match_cpu",
        noted_forms_match_cpu,
    )]
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
                cuprite_array::wait_tier_up();
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
