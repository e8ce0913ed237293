//! Property tests: random expression trees over random shapes, strided views (transposes,
//! steps, flips, broadcasts) and dtypes, checked against a scalar reference on the CPU and,
//! with a GPU, against the CPU backend.

use cuprite_array::shape::SliceArg;
use cuprite_array::{Array, Device, Element, bf16, f16, s, with_device};
use cuprite_testkit::{Test, TestResult};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

#[derive(Clone, Debug)]
enum Leaf {
    Contig,
    Broadcast(Vec<bool>),
    Transposed,
    Stepped,
    Flipped,
}

#[derive(Clone, Debug)]
enum Expr {
    Leaf(usize),
    Un(u8, Box<Expr>),
    Bin(u8, Box<Expr>, Box<Expr>),
    Sel(Box<Expr>, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug)]
struct Case {
    shape: Vec<usize>,
    leaves: Vec<(Leaf, Vec<f64>)>,
    expr: Expr,
    reduce_axis: Option<usize>,
}

fn expr_strategy(n_leaves: usize) -> impl Strategy<Value = Expr> {
    let leaf = (0..n_leaves).prop_map(Expr::Leaf);
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (0u8..6, inner.clone()).prop_map(|(o, e)| Expr::Un(o, Box::new(e))),
            (0u8..6, inner.clone(), inner.clone()).prop_map(|(o, a, b)| Expr::Bin(
                o,
                Box::new(a),
                Box::new(b)
            )),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| Expr::Sel(
                Box::new(c),
                Box::new(a),
                Box::new(b)
            )),
        ]
    })
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (proptest::collection::vec(1usize..6, 1..4), 1usize..4).prop_flat_map(|(shape, nl)| {
        let n: usize = shape.iter().product();
        let nd = shape.len();
        let leaf = prop_oneof![
            Just(Leaf::Contig),
            proptest::collection::vec(any::<bool>(), nd).prop_map(Leaf::Broadcast),
            Just(Leaf::Transposed),
            Just(Leaf::Stepped),
            Just(Leaf::Flipped),
        ];
        let leaves =
            proptest::collection::vec((leaf, proptest::collection::vec(-3.0f64..3.0, 2 * n)), nl);
        (
            Just(shape),
            leaves,
            expr_strategy(nl),
            proptest::option::of(0usize..nd),
        )
            .prop_map(|(shape, leaves, expr, reduce_axis)| Case {
                shape,
                leaves,
                expr,
                reduce_axis,
            })
    })
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |a, (i, s)| a * s + i)
}

/// The reference value of a leaf at a multi-index of the output shape.
fn leaf_ref(leaf: &Leaf, data: &[f64], shape: &[usize], idx: &[usize]) -> f64 {
    match leaf {
        Leaf::Contig => data[ravel(idx, shape)],
        Leaf::Broadcast(b) => {
            let s: Vec<usize> = shape
                .iter()
                .zip(b)
                .map(|(&n, &x)| if x { 1 } else { n })
                .collect();
            let i: Vec<usize> = idx
                .iter()
                .zip(b)
                .map(|(&i, &x)| if x { 0 } else { i })
                .collect();
            data[ravel(&i, &s)]
        }
        Leaf::Transposed => {
            let s: Vec<usize> = shape.iter().rev().copied().collect();
            let i: Vec<usize> = idx.iter().rev().copied().collect();
            data[ravel(&i, &s)]
        }
        Leaf::Stepped => {
            let mut s = shape.to_vec();
            *s.last_mut().unwrap() *= 2;
            let mut i = idx.to_vec();
            *i.last_mut().unwrap() *= 2;
            data[ravel(&i, &s)]
        }
        Leaf::Flipped => {
            let mut i = idx.to_vec();
            i[0] = shape[0] - 1 - i[0];
            data[ravel(&i, shape)]
        }
    }
}

/// Scalar element type the properties run on.
trait PropElem: Element + Copy + RefOps {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn tol() -> f64;
}

/// The reference's arithmetic: plain for floats, wrapping for integers (the library's
/// documented integer semantics; plain `*` would panic on overflow in debug builds).
trait RefOps: Sized {
    fn r_add(self, b: Self) -> Self;
    fn r_sub(self, b: Self) -> Self;
    fn r_mul(self, b: Self) -> Self;
    fn r_neg(self) -> Self;
}
macro_rules! float_ref_ops {
    ($($t:ty),*) => {$(
        impl RefOps for $t {
            fn r_add(self, b: Self) -> Self { self + b }
            fn r_sub(self, b: Self) -> Self { self - b }
            fn r_mul(self, b: Self) -> Self { self * b }
            fn r_neg(self) -> Self { -self }
        }
    )*};
}
// The half types compute each operation in f32 and round once, as the library does.
float_ref_ops!(f32, f64, f16, bf16);
macro_rules! int_ref_ops {
    ($($t:ty),*) => {$(
        impl RefOps for $t {
            fn r_add(self, b: Self) -> Self { self.wrapping_add(b) }
            fn r_sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            fn r_mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            fn r_neg(self) -> Self { self.wrapping_neg() }
        }
    )*};
}
int_ref_ops!(i16, i32, i64);
impl PropElem for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn tol() -> f64 {
        1e-9
    }
}
impl PropElem for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn tol() -> f64 {
        2e-3
    }
}
impl PropElem for i32 {
    fn from_f64(x: f64) -> Self {
        (x * 1000.0) as i32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn tol() -> f64 {
        0.0
    }
}

/// Integers: the leaf values scaled by `$scale` (so that they are not all small).
macro_rules! int_elem {
    ($($t:ty: $scale:expr),*) => {$(
        impl PropElem for $t {
            fn from_f64(x: f64) -> Self { (x * $scale) as $t }
            fn to_f64(self) -> f64 { self as f64 }
            fn tol() -> f64 { 0.0 }
        }
    )*};
}
int_elem!(i16: 1000.0, i64: 1.0e6);
/// The half types, with a tolerance of a few units of their precision.
macro_rules! half_elem {
    ($($t:ty: $tol:expr),*) => {$(
        impl PropElem for $t {
            fn from_f64(x: f64) -> Self { <$t>::from_f64(x) }
            fn to_f64(self) -> f64 { <$t>::to_f64(self) }
            fn tol() -> f64 { $tol }
        }
    )*};
}
half_elem!(f16: 4e-3, bf16: 3e-2);

/// Whether `got` is within `tol` (relative to `1 + |want|`) of `want`; NaN only matches NaN.
fn near(got: f64, want: f64, tol: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    got == want || (got - want).abs() <= tol * (1.0 + want.abs())
}

fn leaf_array<T: PropElem>(
    leaf: &Leaf,
    data: &[f64],
    shape: &[usize],
) -> Result<Array<T>, cuprite_array::Error> {
    let n: usize = shape.iter().product();
    let v = |k: usize| -> Vec<T> { data[..k].iter().map(|&x| T::from_f64(x)).collect() };
    Ok(match leaf {
        Leaf::Contig => Array::from_slice(&v(n), shape)?,
        Leaf::Broadcast(b) => {
            let s: Vec<usize> = shape
                .iter()
                .zip(b)
                .map(|(&n, &x)| if x { 1 } else { n })
                .collect();
            let k: usize = s.iter().product();
            Array::from_slice(&v(k), &s)?.broadcast_to(shape)?
        }
        Leaf::Transposed => {
            let s: Vec<usize> = shape.iter().rev().copied().collect();
            Array::from_slice(&v(n), &s)?.t()
        }
        Leaf::Stepped => {
            let mut s = shape.to_vec();
            *s.last_mut().unwrap() *= 2;
            let mut args: Vec<SliceArg> = vec![(..).into(); shape.len() - 1];
            args.push(s![..;2][0]);
            Array::from_slice(&v(2 * n), &s)?.slice(&args)?
        }
        Leaf::Flipped => Array::from_slice(&v(n), shape)?.flip(&[0])?,
    })
}

fn build<
    T: PropElem
        + cuprite_array::Numeric
        + cuprite_array::Ordered
        + cuprite_array::Signed
        + cuprite_array::Promote<T, Output = T>,
>(
    e: &Expr,
    leaves: &[Array<T>],
) -> Array<T> {
    match e {
        Expr::Leaf(i) => leaves[*i].clone(),
        Expr::Un(o, a) => {
            let a = build(a, leaves);
            match o % 3 {
                0 => -&a,
                1 => a.abs(),
                _ => a.minimum(T::from_f64(1.0)),
            }
        }
        Expr::Bin(o, a, b) => {
            let (a, b) = (build(a, leaves), build(b, leaves));
            match o {
                0 => &a + &b,
                1 => &a - &b,
                2 => (&a * &b)
                    .minimum(T::from_f64(4.0))
                    .maximum(T::from_f64(-4.0)),
                3 => a.minimum(&b),
                4 => a.maximum(&b),
                _ => &a + &b * T::from_f64(0.5),
            }
        }
        Expr::Sel(c, a, b) => {
            let c = build(c, leaves).greater(T::from_f64(0.0));
            Array::select(&c, build(a, leaves), build(b, leaves)).expect("same shapes")
        }
    }
}

fn reference<T>(e: &Expr, at: &dyn Fn(usize) -> T) -> T
where
    T: PropElem
        + std::ops::Neg<Output = T>
        + PartialOrd
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>,
{
    let min = |a: T, b: T| if b < a { b } else { a };
    let max = |a: T, b: T| if b > a { b } else { a };
    match e {
        Expr::Leaf(i) => at(*i),
        Expr::Un(o, a) => {
            let a = reference(a, at);
            match o % 3 {
                0 => a.r_neg(),
                1 => {
                    if a < T::from_f64(0.0) {
                        a.r_neg()
                    } else {
                        a
                    }
                }
                _ => min(a, T::from_f64(1.0)),
            }
        }
        Expr::Bin(o, a, b) => {
            let (a, b) = (reference(a, at), reference(b, at));
            match o {
                0 => a.r_add(b),
                1 => a.r_sub(b),
                2 => max(min(a.r_mul(b), T::from_f64(4.0)), T::from_f64(-4.0)),
                3 => min(a, b),
                4 => max(a, b),
                _ => a.r_add(b.r_mul(T::from_f64(0.5))),
            }
        }
        Expr::Sel(c, a, b) => {
            if reference(c, at) > T::from_f64(0.0) {
                reference(a, at)
            } else {
                reference(b, at)
            }
        }
    }
}

fn check_case<T>(c: &Case, dev: Device) -> Result<(), String>
where
    T: PropElem
        + cuprite_array::Numeric
        + cuprite_array::Ordered
        + cuprite_array::Signed
        + cuprite_array::Promote<T, Output = T>
        + std::ops::Neg<Output = T>
        + PartialOrd
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>,
    T::Accum: Into64,
{
    with_device(dev, || {
        let leaves: Vec<Array<T>> = c
            .leaves
            .iter()
            .map(|(l, d)| leaf_array::<T>(l, d, &c.shape))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let out = build(&c.expr, &leaves);
        let got = out.to_vec().map_err(|e| e.to_string())?;
        let n: usize = c.shape.iter().product();
        let want: Vec<T> = (0..n)
            .map(|i| {
                let idx = unravel(i, &c.shape);
                reference(&c.expr, &|k| {
                    T::from_f64(leaf_ref(&c.leaves[k].0, &c.leaves[k].1, &c.shape, &idx))
                })
            })
            .collect();
        for i in 0..n {
            let (g, w) = (got[i].to_f64(), want[i].to_f64());
            if !near(g, w, T::tol()) {
                return Err(format!("{:?} element {i}: got {g}, expected {w}", T::DTYPE));
            }
        }
        // The same expression fused into a reduction along an axis.
        if let Some(ax) = c.reduce_axis {
            let s = out.sum_axes(&[ax as isize]).map_err(|e| e.to_string())?;
            let sv = s.to_vec().map_err(|e| e.to_string())?;
            let mut rs = c.shape.clone();
            rs.remove(ax);
            let mut acc = vec![0.0f64; rs.iter().product()];
            for (i, w) in want.iter().enumerate() {
                let mut idx = unravel(i, &c.shape);
                idx.remove(ax);
                acc[ravel(&idx, &rs)] += w.to_f64();
            }
            for (i, (g, w)) in sv.iter().zip(&acc).enumerate() {
                let g = <T::Accum as Into64>::into64(*g);
                if !near(g, *w, T::tol().max(1e-12) * 10.0) {
                    return Err(format!("reduced element {i}: got {g}, expected {w}"));
                }
            }
        }
        Ok(())
    })
}

trait Into64 {
    fn into64(self) -> f64;
}
impl Into64 for f64 {
    fn into64(self) -> f64 {
        self
    }
}
impl Into64 for f32 {
    fn into64(self) -> f64 {
        self as f64
    }
}
impl Into64 for f16 {
    fn into64(self) -> f64 {
        self.to_f64()
    }
}
impl Into64 for bf16 {
    fn into64(self) -> f64 {
        self.to_f64()
    }
}
impl Into64 for i64 {
    fn into64(self) -> f64 {
        self as f64
    }
}

fn run_props(dev: Device, cases: u32) -> TestResult {
    let mut runner = TestRunner::new(Config {
        cases,
        max_shrink_iters: 200,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(case_strategy(), 0u8..7), |(c, t)| {
            let r = match t {
                0 => check_case::<f64>(&c, dev),
                1 => check_case::<f32>(&c, dev),
                2 => check_case::<i32>(&c, dev),
                3 => check_case::<i64>(&c, dev),
                4 => check_case::<i16>(&c, dev),
                5 => check_case::<f16>(&c, dev),
                _ => check_case::<bf16>(&c, dev),
            };
            r.map_err(TestCaseError::fail)
        })
        .map_err(|e| e.to_string().into())
}

/// GPU results equal CPU results on the same random trees.
fn gpu_matches_cpu() -> TestResult {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&case_strategy(), |c| {
            let f = |d: Device| -> Result<Vec<f64>, String> {
                with_device(d, || {
                    let leaves: Vec<Array<f32>> = c
                        .leaves
                        .iter()
                        .map(|(l, x)| leaf_array::<f32>(l, x, &c.shape))
                        .collect::<Result<_, _>>()
                        .map_err(|e| e.to_string())?;
                    let out = build(&c.expr, &leaves).sin().exp();
                    let v = out.to_vec().map_err(|e| e.to_string())?;
                    Ok(v.into_iter().map(|x| x as f64).collect())
                })
            };
            let (a, b) = (
                f(Device::CPU).map_err(TestCaseError::fail)?,
                f(Device::cuda(0)).map_err(TestCaseError::fail)?,
            );
            for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                if (x - y).abs() > 1e-5 * (1.0 + x.abs()) {
                    return Err(TestCaseError::fail(format!(
                        "element {i}: cpu {x}, gpu {y}"
                    )));
                }
            }
            Ok(())
        })
        .map_err(|e| e.to_string().into())
}

/// A few fixed cases (used by the codegen test to record their kernels).
pub fn fixed_cases() -> Vec<(String, Box<dyn Fn() -> TestResult>)> {
    let mut runner = TestRunner::deterministic();
    let mut v: Vec<(String, Box<dyn Fn() -> TestResult>)> = Vec::new();
    for k in 0..12 {
        let c = case_strategy()
            .new_tree(&mut runner)
            .expect("tree")
            .current();
        v.push((
            format!("fixed case {k}"),
            Box::new(move || {
                check_case::<f32>(&c, Device::CPU)?;
                check_case::<i32>(&c, Device::CPU)?;
                check_case::<i64>(&c, Device::CPU)?;
                check_case::<i16>(&c, Device::CPU)?;
                check_case::<f16>(&c, Device::CPU)?;
                check_case::<bf16>(&c, Device::CPU)?;
                check_case::<f64>(&c, Device::CPU).map_err(|e| e.into())
            }),
        ));
    }
    v
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("props::cpu_matches_scalar_reference", || {
            run_props(Device::CPU, 112)
        }),
        Test::gpu("props::cuda_matches_scalar_reference", || {
            run_props(Device::cuda(0), 84)
        }),
        Test::gpu("props::cuda_matches_cpu", gpu_matches_cpu),
    ]
}
