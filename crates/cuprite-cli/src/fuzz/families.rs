//! The operation families beyond the element-wise core, as tables: one [`Family`] per family
//! of the public API, one [`Row`] per operation. A row says how to generate a node giving a
//! dtype and shape (its parameters and children), the node's error model ([`Info`]), how to
//! evaluate it, and how to print it in a reproducer. A new operation joins its family by a new
//! row; the generator, the evaluator, the shrinker and the per-family counts find it there.
//!
//! Operations whose result has a data-dependent length (compaction, `unique`, the set
//! operations) are generated reduced to a scalar of known shape (their count, or the sum of
//! their integer values), so that every node's shape is known before it runs.
//!
//! Tolerances (each a bound on `|cuda − cpu|`, propagated like the core's; `ε` of the dtype,
//! `n` the extent of the axis worked on, `m` the input's magnitude bound, `δ` its error):
//!
//! | family | rows | bound |
//! |---|---|---|
//! | scans | `cumprod`, `cummin`, `cumsum_exclusive`, `diff` | integers and `cummin` exact (in `δ`); `cumprod` `(n δ + 2(n+1)ε)·mₚ` with `mₚ` the product bound; `cumsum_exclusive` as `cumsum`; `diff` `2δ + 2ε·2m` |
//! | compaction | `masked_select` summed, `nonzero` counted | integers exact; a float sum as `sum` |
//! | search | `searchsorted` (left, right) | exact (exact inputs only) |
//! | index | `take` (wrap, checked), `index_select`, `take_along_axis`, `scatter` (distinct targets), `scatter_add`, `index_add`, `put` (distinct targets), `masked_fill` | moves are exact (in `δ`); an accumulation of `k` values: `k δ + 2(k+1)ε·k·m` |
//! | linalg | `solve`, `inv`, `cholesky`, `eigh` eigenvalues | matrices built as `I + S` with `‖S‖∞ ≤ ½` (condition ≤ 3): `64 n ε` of the result bound plus `4 n` times the inputs' error |
//! | fft | `ifft` | as `fft`: `8 (log₂ n + 2) ε` of the output bound (inputs finite: which outputs a NaN reaches depends on the algorithm) |
//! | rows | `layer_norm`, `rms_norm`, `normalize`, `one_hot`, `cross_entropy` | inputs scaled into ±1 and `eps` of ¼ keep the derivative bounded: see each row's `info`; `one_hot` exact |
//! | statistics | `topk`, `kthvalue`, `median`, `quantile`, `ptp`, `unique` counted, `union1d`/`intersect1d` counted | selections move values (`δ`); `median`/`quantile` one rounding more (`δ + 2ε m`); `ptp` `2δ + 4ε m`; counts exact |
//! | sampling | `randint`, `permutation`, `exponential` | the same seed gives the same draws on both backends: integers exact, `exponential` 8 ulp of its bound (`log` of two libraries) |
//! | signal | `convolve` (a `k`-tap box, `same`, direct or FFT), `lfilter` (`y = x/2 + y₋₁/2`), `savgol_filter` (5 taps, quadratic, interp edges), `convolve2d` (a 3 x 3 box, `same`, each of SciPy's boundaries), `cspline1d` (1-D, interpolating) | inputs scaled into ±1: direct `δ + 2(k+1)ε`, FFT `δ + 8(log₂N + 2)√N ε`; `lfilter` `2δ + 16ε` (its gain is 1, its rounding a geometric sum); `savgol_filter` `1.5 (δ + 10ε)` plus the weights' rounding (its gain is at most 1.46); `convolve2d` `δ + 20ε`; `cspline1d` `3δ + 100ε` (its gain is at most 3) |
//! | sparse | a dense child made sparse (`from_dense` keeping every nonzero, in CSR, CSC or COO, 32- or 64-bit indices): back to dense, row sums (`sum_axes`, an SpMV), `A·Aᵀ` (SpGEMM), `A·B` with a dense child (SpMM); a dense child's positions as device triplets, each twice, through `from_triplet_arrays` (sorted, duplicates summed) back to dense | inputs scaled into ±1; a value dropped on one backend only is at most `δ`: the round trip `δ`; a sum or product over `n` terms `2nδ + 2(n+1)ε·n` (`n(δa + δb + δaδb)` for two children); the triplets `1.5δ + 4ε` |
//! | image | `gaussian_filter`, `uniform_filter`, `sobel` (every axis, a mode each), `median_filter` (the last two axes); `shift`, `zoom`, `affine_transform` (order 0 or 1), `rotate` (order 1, the last two axes); grey and binary dilation, erosion, opening, closing | inputs scaled into ±1, `r` filtered axes of `k` taps: each pass `2(k+1)ε` plus its storage rounding; Sobel's gain `g = 2·4^(r-1)` scales `δ` and the rounding; the median and grey morphology exact (in `δ`), binary morphology exact; transforms compute coordinates alike on both backends: order 0 exact (in `δ`), order 1 `δ` plus one pass of `2^r + r` taps |

use super::arr::{Arr, IntoArr, api, on, on_all, on2};
use super::expr::{Draw, Expr, Family, Info, Row, eps, inexact_kind, int_max};
use super::rng::Rng;
use cuprite_array::ops::NormOpts;
use cuprite_array::ops::TopkOpts;
use cuprite_array::ops::fft::FftOpts;
use cuprite_array::ops::{AxisOpts, QuantileOpts};
use cuprite_array::ops::{IndexMode, ScatterOpts};
use cuprite_array::{Array, DType, Side, linalg};

/// Every table family.
pub static FAMILIES: &[Family] = &[
    Family {
        name: "scans",
        rows: SCANS,
    },
    Family {
        name: "compaction",
        rows: COMPACTION,
    },
    Family {
        name: "search",
        rows: SEARCH,
    },
    Family {
        name: "index",
        rows: INDEX,
    },
    Family {
        name: "linalg",
        rows: LINALG,
    },
    Family {
        name: "fft",
        rows: FFT,
    },
    Family {
        name: "rows",
        rows: ROWS,
    },
    Family {
        name: "statistics",
        rows: STATS,
    },
    Family {
        name: "sampling",
        rows: SAMPLING,
    },
    Family {
        name: "signal",
        rows: SIGNAL,
    },
    Family {
        name: "sparse",
        rows: SPARSE,
    },
    Family {
        name: "image",
        rows: IMAGE,
    },
];

/// The element type `d` as Rust names it.
fn rust_type(d: DType) -> String {
    format!("{d:?}").to_lowercase()
}

/// A random element of `v` (from the structure stream).
fn pick<T: Copy>(g: &mut dyn Draw, v: &[T]) -> T {
    v[g.s_below(v.len() as u64) as usize]
}

/// The row named `name` and its family's name.
pub fn row(name: &str) -> Option<(&'static Family, &'static Row)> {
    FAMILIES
        .iter()
        .find_map(|f| f.rows.iter().find(|r| r.name == name).map(|r| (f, r)))
}

/// Every row, with its family.
pub fn all_rows() -> impl Iterator<Item = (&'static Family, &'static Row)> {
    FAMILIES
        .iter()
        .flat_map(|f| f.rows.iter().map(move |r| (f, r)))
}

/// The node's own dtype and shape, which [`params`] appends after the row's `k` parameters.
fn out(p: &[i64], k: usize) -> (DType, Vec<usize>) {
    let d = DType::ALL[p.get(k).copied().unwrap_or(0) as usize % DType::ALL.len()];
    (
        d,
        p.get(k + 1..)
            .unwrap_or(&[])
            .iter()
            .map(|&n| n as usize)
            .collect(),
    )
}

/// `match` over the listed variants of one [`Arr`], the body giving any value.
macro_rules! on_n {
    ($x:expr; $a:ident => $body:expr) => {
        match $x {
            Arr::Bool($a) => $body,
            Arr::U8($a) => $body,
            Arr::U16($a) => $body,
            Arr::U32($a) => $body,
            Arr::U64($a) => $body,
            Arr::I8($a) => $body,
            Arr::I16($a) => $body,
            Arr::I32($a) => $body,
            Arr::I64($a) => $body,
            Arr::F16($a) => $body,
            Arr::BF16($a) => $body,
            Arr::F32($a) => $body,
            Arr::F64($a) => $body,
            Arr::C32($a) => $body,
            Arr::C64($a) => $body,
        }
    };
}

/// `match` over two [`Arr`]s of the same real variant, the body giving any value.
macro_rules! on2_n {
    ($x:expr, $y:expr; $a:ident, $b:ident => $body:expr) => {
        match ($x, $y) {
            (Arr::U8($a), Arr::U8($b)) => $body,
            (Arr::I32($a), Arr::I32($b)) => $body,
            (Arr::I64($a), Arr::I64($b)) => $body,
            (Arr::F32($a), Arr::F32($b)) => $body,
            (Arr::F64($a), Arr::F64($b)) => $body,
            (p, q) => {
                return Err(format!(
                    "fuzzer bug: {:?} and {:?} given to a set operation",
                    p.dtype(),
                    q.dtype()
                ))
            }
        }
    };
}

fn info(dtype: DType, shape: Vec<usize>, err: f64, mag: f64) -> Info {
    Info {
        dtype,
        shape,
        err,
        mag,
    }
}

fn norm(ax: i64, rank: usize) -> usize {
    if ax < 0 {
        (ax + rank as i64) as usize
    } else {
        ax as usize
    }
}

fn real_kinds(d: DType) -> bool {
    !d.is_complex() && d != DType::Bool
}

/// Index values for an axis of `extent`: `mode` 0 in `[0, extent)`, 1 anywhere (wrapped),
/// 2 in `[-extent, extent)` (checked).
fn indices(len: usize, seed: u64, extent: usize, mode: i64) -> Vec<i64> {
    let mut r = Rng::new(seed);
    let n = extent.max(1) as u64;
    (0..len)
        .map(|_| match mode {
            0 => r.below(n) as i64,
            1 => r.below(4 * n + 8) as i64 - 2 * n as i64 - 4,
            _ => r.below(2 * n) as i64 - n as i64,
        })
        .collect()
}

/// `k` distinct values of `[0, extent)` per line: a shuffled prefix.
fn distinct(k: usize, extent: usize, r: &mut Rng) -> Vec<i64> {
    let mut v: Vec<i64> = (0..extent as i64).collect();
    for i in 0..k.min(extent) {
        let j = i + r.below((extent - i) as u64) as usize;
        v.swap(i, j);
    }
    v.truncate(k);
    v
}

fn i64s(v: Vec<i64>, shape: &[usize]) -> Result<Array<i64>, String> {
    Array::from_vec(v, shape).map_err(api)
}

fn one(mut v: Vec<Arr>) -> Result<Arr, String> {
    v.pop()
        .ok_or_else(|| "fuzzer bug: a child missing".to_string())
}

fn two(mut v: Vec<Arr>) -> Result<(Arr, Arr), String> {
    let b = v.pop().ok_or("fuzzer bug: a child missing")?;
    let a = v.pop().ok_or("fuzzer bug: a child missing")?;
    Ok((a, b))
}

fn count(n: usize) -> Arr {
    Array::<i64>::scalar(n as i64).into_arr()
}

// ---------------------------------------------------------------------------------- scans

fn scan_gen(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    if shape.is_empty() || !real_kinds(d) {
        return None;
    }
    let ax = g.s_below(shape.len() as u64) as i64;
    Some((vec![ax], vec![g.node(d, shape, depth - 1)]))
}

static SCANS: &[Row] = &[
    Row {
        name: "cumprod",
        generate: |g, d, shape, depth| {
            if shape.is_empty() || !matches!(d, DType::F32 | DType::F64 | DType::I64) {
                return None;
            }
            let ax = g.s_below(shape.len() as u64) as usize;
            if shape[ax] > 12 {
                return None;
            }
            let x = g.node(d, shape, depth - 1);
            let x = if d.is_float() {
                g.clamped(x, d, 0.5, 1.5)
            } else {
                x
            };
            Some((vec![ax as i64], vec![x]))
        },
        info: |p, c| {
            let i = &c[0];
            let n = i.shape[norm(p[0], i.shape.len())] as f64;
            if !inexact_kind(i.dtype) {
                return info(i.dtype, i.shape.clone(), 0.0, 0.0);
            }
            let mag = i.mag.max(1.0).powf(n);
            let err = (i.err * n + 2.0 * (n + 1.0) * eps(i.dtype)) * mag;
            info(i.dtype, i.shape.clone(), err, mag)
        },
        eval: |p, c| on!(one(c)?; [I64, F32, F64]; x => x.cumprod(p[0] as isize).map_err(api)?),
        rust: |p, c| format!("{}.cumprod({})?", c[0], p[0]),
    },
    Row {
        name: "cummin",
        generate: scan_gen,
        info: |_, c| c[0].clone(),
        eval: |p, c| {
            on!(one(c)?; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
                x => x.cummin(p[0] as isize).map_err(api)?)
        },
        rust: |p, c| format!("{}.cummin({})?", c[0], p[0]),
    },
    Row {
        name: "cumsum_exclusive",
        generate: |g, d, shape, depth| {
            if shape.is_empty() || !matches!(d, DType::I64 | DType::U64 | DType::F32 | DType::F64) {
                return None;
            }
            let ax = g.s_below(shape.len() as u64) as i64;
            Some((vec![ax], vec![g.node(d, shape, depth - 1)]))
        },
        info: |p, c| {
            let i = &c[0];
            let n = i.shape[norm(p[0], i.shape.len())] as f64;
            let err = if inexact_kind(i.dtype) {
                i.err * n + 2.0 * (n + 1.0) * eps(i.dtype) * n * i.mag
            } else {
                0.0
            };
            info(i.dtype, i.shape.clone(), err, n * i.mag)
        },
        eval: |p, c| on!(one(c)?; [I64, U64, F32, F64]; x => x.cumsum_exclusive(p[0] as isize).map_err(api)?),
        rust: |p, c| format!("{}.cumsum_exclusive({})?", c[0], p[0]),
    },
    Row {
        name: "diff",
        generate: |g, d, shape, depth| {
            if shape.is_empty() || !real_kinds(d) || !(d.is_float() || d.is_signed_int()) {
                return None;
            }
            let ax = g.s_below(shape.len() as u64) as usize;
            let mut cs = shape.to_vec();
            cs[ax] += 1;
            Some((vec![ax as i64], vec![g.node(d, &cs, depth - 1)]))
        },
        info: |p, c| {
            let i = &c[0];
            let mut shape = i.shape.clone();
            let k = norm(p[0], shape.len());
            shape[k] = shape[k].saturating_sub(1);
            if !inexact_kind(i.dtype) {
                return info(i.dtype, shape, 0.0, 0.0);
            }
            let err = if i.err > 0.0 {
                2.0 * i.err + 4.0 * eps(i.dtype) * i.mag
            } else {
                0.0
            };
            info(i.dtype, shape, err, 2.0 * i.mag)
        },
        eval: |p, c| on!(one(c)?; [I8, I16, I32, I64, F16, BF16, F32, F64]; x => x.diff(1, p[0] as isize).map_err(api)?),
        rust: |p, c| format!("{}.diff(1, {})?", c[0], p[0]),
    },
];

// ----------------------------------------------------------------------------- compaction

static COMPACTION: &[Row] = &[
    Row {
        name: "masked_select_sum",
        generate: |g, d, shape, depth| {
            if !shape.is_empty() || !matches!(d, DType::I64 | DType::U64) {
                return None;
            }
            let t = pick(
                g,
                &[DType::I64, DType::U64, DType::I32, DType::U8, DType::I16],
            );
            if super::expr::accum(t) != d {
                return None;
            }
            let rank = 1 + g.s_below(3) as usize;
            let cs = g.shape(rank);
            let x = g.node(t, &cs, depth - 1);
            let m = g.node(DType::Bool, &cs, depth - 1);
            let m = g.exact(m);
            Some((vec![], vec![x, m]))
        },
        info: |_, c| info(super::expr::accum(c[0].dtype), vec![], 0.0, 0.0),
        eval: |_, c| {
            let (x, m) = two(c)?;
            let Arr::Bool(m) = m else {
                return Err("fuzzer bug: a mask not bool".into());
            };
            on!(x; [U8, I16, I32, I64, U64]; y => y.masked_select(&m).map_err(api)?.sum().map_err(api)?)
        },
        rust: |_, c| format!("{}.masked_select(&{})?.sum()?", c[0], c[1]),
    },
    Row {
        name: "nonzero_count",
        generate: |g, d, shape, depth| {
            if !shape.is_empty() || d != DType::I64 {
                return None;
            }
            let t = pick(g, &[DType::Bool, DType::I32, DType::F32, DType::U8]);
            let rank = 1 + g.s_below(3) as usize;
            let cs = g.shape(rank);
            let x = g.node(t, &cs, depth - 1);
            Some((vec![], vec![g.exact(x)]))
        },
        info: |_, _| info(DType::I64, vec![], 0.0, 0.0),
        eval: |_, c| {
            let x = one(c)?;
            let n = on_n!(x; y => y.nonzero().map_err(api)?.first().map_or(0, |a| a.shape()[0]));
            Ok(count(n))
        },
        rust: |_, c| {
            format!(
                "Array::<i64>::scalar({}.nonzero()?[0].shape()[0] as i64)",
                c[0]
            )
        },
    },
];

// --------------------------------------------------------------------------------- search

static SEARCH: &[Row] = &[Row {
    name: "searchsorted",
    generate: |g, d, shape, depth| {
        if d != DType::I64 {
            return None;
        }
        let t = pick(
            g,
            &[DType::I32, DType::F32, DType::F64, DType::U8, DType::I64],
        );
        let n = g.extent(true);
        let sorted = g.node(t, &[n], depth - 1);
        let values = g.node(t, shape, depth - 1);
        Some((
            vec![g.s_below(2) as i64],
            vec![g.exact(sorted), g.exact(values)],
        ))
    },
    info: |_, c| info(DType::I64, c[1].shape.clone(), 0.0, 0.0),
    eval: |p, c| {
        let (a, v) = two(c)?;
        let side = if p[0] == 0 { Side::Left } else { Side::Right };
        on2!(a, v; [U8, I32, I64, F32, F64];
            x, y => x.sort(0).map_err(api)?.searchsorted(&y, side).map_err(api)?)
    },
    rust: |p, c| {
        let side = if p[0] == 0 { "Left" } else { "Right" };
        format!("{}.sort(0)?.searchsorted(&{}, Side::{side})?", c[0], c[1])
    },
}];

// ---------------------------------------------------------------------------------- index

/// A child giving `shape` with axis `ax` of another extent, for the index rows.
fn along(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(usize, Vec<usize>, Expr)> {
    if shape.is_empty() || d.is_complex() {
        return None;
    }
    let ax = g.s_below(shape.len() as u64) as usize;
    let mut cs = shape.to_vec();
    cs[ax] = 1 + g.v_below(6) as usize;
    let x = g.node(d, &cs, depth - 1);
    Some((ax, cs, x))
}

fn take_info(p: &[i64], c: &[Info]) -> Info {
    let mut i = c[0].clone();
    let k = norm(p[0], i.shape.len());
    i.shape[k] = p[1] as usize;
    i
}

macro_rules! take_mode {
    ($name:literal, $mode:expr, $m:literal) => {
        Row {
            name: $name,
            generate: |g, d, shape, depth| {
                let (ax, _, x) = along(g, d, shape, depth)?;
                Some((vec![ax as i64, shape[ax] as i64, g.v_next() as i64], vec![x]))
            },
            info: take_info,
            eval: |p, c| {
                let x = one(c)?;
                let k = norm(p[0], x.shape().len());
                let idx = i64s(indices(p[1] as usize, p[2] as u64, x.shape()[k], $m), &[p[1] as usize])?;
                on_all!(x; y => y.take_with(&idx, cuprite_array::ops::TakeOpts::new().axis(p[0] as isize).mode($mode)).map_err(api)?)
            },
            rust: |p, c| {
                format!(
                    "{}.take_with(&Array::from_vec(vec!{:?}, &[{}])?, cuprite_array::ops::TakeOpts::new().axis({}).mode(IndexMode::{:?}))?",
                    c[0],
                    indices(p[1] as usize, p[2] as u64, 0, $m),
                    p[1],
                    p[0],
                    $mode
                )
            },
        }
    };
}

static INDEX: &[Row] = &[
    take_mode!("take_wrap", IndexMode::Wrap, 1),
    take_mode!("take_checked", IndexMode::Error, 2),
    Row {
        name: "index_select",
        generate: |g, d, shape, depth| {
            let (ax, _, x) = along(g, d, shape, depth)?;
            Some((
                vec![ax as i64, shape[ax] as i64, g.v_next() as i64],
                vec![x],
            ))
        },
        info: take_info,
        eval: |p, c| {
            let x = one(c)?;
            let k = norm(p[0], x.shape().len());
            let idx = i64s(
                indices(p[1] as usize, p[2] as u64, x.shape()[k], 0),
                &[p[1] as usize],
            )?;
            on_all!(x; y => y.index_select(p[0] as isize, &idx).map_err(api)?)
        },
        rust: |p, c| {
            format!(
                "{}.index_select({}, &index_{})?",
                c[0],
                p[0],
                p[2] as u64 % 1000
            )
        },
    },
    Row {
        name: "take_along_axis",
        generate: |g, d, shape, depth| {
            let (ax, _, x) = along(g, d, shape, depth)?;
            Some((vec![ax as i64, g.v_next() as i64], vec![x]))
        },
        // The index has the output's shape: the child's, with the output's extent on the axis.
        info: |p, c| {
            let (_, shape) = out(p, 2);
            info(c[0].dtype, shape, c[0].err, c[0].mag)
        },
        eval: |p, c| {
            let x = one(c)?;
            let (_, shape) = out(p, 2);
            let k = norm(p[0], shape.len());
            let n: usize = shape.iter().product();
            let idx = i64s(indices(n, p[1] as u64, x.shape()[k], 0), &shape)?;
            on_all!(x; y => y.take_along_axis(&idx, p[0] as isize).map_err(api)?)
        },
        rust: |p, c| {
            format!(
                "{}.take_along_axis(&index_{}, {})?",
                c[0],
                p[1] as u64 % 1000,
                p[0]
            )
        },
    },
    Row {
        name: "scatter",
        generate: scatter_gen,
        info: |_, c| {
            let (x, s) = (&c[0], &c[1]);
            info(x.dtype, x.shape.clone(), x.err.max(s.err), x.mag.max(s.mag))
        },
        eval: |p, c| scatter_eval(p, c, 0),
        rust: |p, c| {
            format!(
                "{}.scatter({}, &index_{}, &{}, ScatterOpts::default())?",
                c[0],
                p[0],
                p[1] as u64 % 1000,
                c[1]
            )
        },
    },
    Row {
        name: "scatter_add",
        generate: scatter_gen,
        info: accumulate_info,
        eval: |p, c| scatter_eval(p, c, 1),
        rust: |p, c| {
            format!(
                "{}.scatter_add({}, &index_{}, &{}, ScatterOpts::default())?",
                c[0],
                p[0],
                p[1] as u64 % 1000,
                c[1]
            )
        },
    },
    Row {
        name: "index_add",
        generate: |g, d, shape, depth| {
            if shape.is_empty() || !(d.is_float() || matches!(d, DType::I32 | DType::I64)) {
                return None;
            }
            let ax = g.s_below(shape.len() as u64) as usize;
            let mut cs = shape.to_vec();
            cs[ax] = g.v_below(7) as usize;
            let x = g.node(d, shape, depth - 1);
            let src = g.node(d, &cs, depth - 1);
            Some((vec![ax as i64, g.v_next() as i64], vec![x, src]))
        },
        info: accumulate_info,
        eval: |p, c| {
            let (x, src) = two(c)?;
            let k = norm(p[0], x.shape().len());
            let len = src.shape()[k];
            let idx = i64s(indices(len, p[1] as u64, x.shape()[k], 0), &[len])?;
            on2!(x, src; [I32, I64, F16, BF16, F32, F64];
                a, b => a.index_add(p[0] as isize, &idx, &b, ScatterOpts::default()).map_err(api)?)
        },
        rust: |p, c| {
            format!(
                "{}.index_add({}, &index_{}, &{}, ScatterOpts::default())?",
                c[0],
                p[0],
                p[1] as u64 % 1000,
                c[1]
            )
        },
    },
    Row {
        name: "put",
        generate: |g, d, shape, depth| {
            if d.is_complex() {
                return None;
            }
            let n: usize = shape.iter().product();
            let k = g.v_below(n.min(8) as u64 + 1) as usize;
            let x = g.node(d, shape, depth - 1);
            let vals = g.node(d, &[k], depth - 1);
            Some((vec![g.v_next() as i64], vec![x, vals]))
        },
        info: |_, c| {
            let (x, s) = (&c[0], &c[1]);
            info(x.dtype, x.shape.clone(), x.err.max(s.err), x.mag.max(s.mag))
        },
        eval: |p, c| {
            let (x, vals) = two(c)?;
            let n: usize = x.shape().iter().product();
            let k = vals.shape()[0];
            let idx = i64s(distinct(k, n, &mut Rng::new(p[0] as u64)), &[k])?;
            on2!(x, vals; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
                a, b => { let mut a = a.clone(); a.put(&idx, &b).map_err(api)?; a })
        },
        rust: |p, c| {
            format!(
                "{{ let mut t = {}.clone(); t.put(&index_{}, &{})?; t }}",
                c[0],
                p[0] as u64 % 1000,
                c[1]
            )
        },
    },
    Row {
        name: "masked_fill",
        generate: |g, d, shape, depth| {
            if d.is_complex() {
                return None;
            }
            let x = g.node(d, shape, depth - 1);
            let m = g.node(DType::Bool, shape, depth - 1);
            let v = if d == DType::Bool {
                1
            } else {
                g.v_below(9) as i64 - 4
            };
            let v = if d.is_int() && !d.is_signed_int() {
                v.abs()
            } else {
                v
            };
            Some((vec![v], vec![x, g.exact(m)]))
        },
        info: |p, c| {
            let x = &c[0];
            info(
                x.dtype,
                x.shape.clone(),
                x.err,
                x.mag.max(p[0].abs() as f64),
            )
        },
        eval: |p, c| {
            let (x, m) = two(c)?;
            let Arr::Bool(m) = m else {
                return Err("fuzzer bug: a mask not bool".into());
            };
            on!(x; [Bool, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
                a => a.masked_fill(&m, super::elem::FuzzElem::from_f64(p[0] as f64)).map_err(api)?)
        },
        rust: |p, c| format!("{}.masked_fill(&{}, {} as _)?", c[0], c[1], p[0]),
    },
];

fn scatter_gen(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    if shape.is_empty() || !(d.is_float() || matches!(d, DType::I32 | DType::I64)) {
        return None;
    }
    let ax = g.s_below(shape.len() as u64) as usize;
    // The source (and index) is no larger than the destination along every axis.
    let cs: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            if k == ax {
                g.v_below(n as u64 + 1) as usize
            } else {
                n
            }
        })
        .collect();
    let x = g.node(d, shape, depth - 1);
    let src = g.node(d, &cs, depth - 1);
    Some((vec![ax as i64, g.v_next() as i64], vec![x, src]))
}

/// `x` plus up to `k` accumulated source values per element (`k` the source's extent along
/// the axis).
fn accumulate_info(p: &[i64], c: &[Info]) -> Info {
    let (x, s) = (&c[0], &c[1]);
    let k = s.shape[norm(p[0], s.shape.len())] as f64;
    let mag = x.mag + k * s.mag;
    let err = if inexact_kind(x.dtype) {
        x.err + k * s.err + 2.0 * (k + 2.0) * eps(x.dtype) * mag
    } else {
        0.0
    };
    info(x.dtype, x.shape.clone(), err, mag)
}

/// `scatter` (`add` 0: distinct targets per line) or `scatter_add` (`add` 1: any targets).
fn scatter_eval(p: &[i64], c: Vec<Arr>, add: u8) -> Result<Arr, String> {
    let (x, src) = two(c)?;
    let (xs, ss) = (x.shape(), src.shape());
    let k = norm(p[0], xs.len());
    let mut r = Rng::new(p[1] as u64);
    let outer: usize = ss[..k].iter().product();
    let inner: usize = ss[k + 1..].iter().product();
    let mut idx = vec![0i64; ss.iter().product()];
    for o in 0..outer {
        for i in 0..inner {
            let line = if add == 0 {
                distinct(ss[k], xs[k], &mut r)
            } else {
                (0..ss[k])
                    .map(|_| r.below(xs[k].max(1) as u64) as i64)
                    .collect()
            };
            for (j, v) in line.into_iter().enumerate() {
                idx[(o * ss[k] + j) * inner + i] = v;
            }
        }
    }
    let idx = i64s(idx, &ss)?;
    let opts = ScatterOpts::default();
    if add == 0 {
        on2!(x, src; [I32, I64, F16, BF16, F32, F64]; a, b => a.scatter(p[0] as isize, &idx, &b, opts).map_err(api)?)
    } else {
        on2!(x, src; [I32, I64, F16, BF16, F32, F64]; a, b => a.scatter_add(p[0] as isize, &idx, &b, opts).map_err(api)?)
    }
}

// --------------------------------------------------------------------------------- linalg

/// `I + x · s` with `s = 1 / (2 n m)` (`‖x s‖∞ ≤ ½`), symmetric (`(x + xᵀ) s / 2`) with
/// `sym`, for a square `x` of magnitude bound `m`.
fn conditioned<T>(x: &Array<T>, m: f64, sym: bool) -> Result<Array<T>, String>
where
    T: linalg::Scalar + super::elem::FuzzElem + cuprite_array::Numeric,
{
    let n = x.shape()[0];
    let s = T::from_f64(1.0 / (2.0 * n.max(1) as f64 * m.max(1.0)));
    let x = if sym {
        x.try_add(x.t())
            .map_err(api)?
            .try_mul(Array::scalar(T::from_f64(0.5)))
            .map_err(api)?
    } else {
        x.clone()
    };
    let eye = Array::<T>::eye(n).map_err(api)?;
    x.try_mul(Array::scalar(s))
        .map_err(api)?
        .try_add(&eye)
        .map_err(api)
}

fn square_gen(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    if shape.len() != 2
        || shape[0] != shape[1]
        || !matches!(d, DType::F32 | DType::F64)
        || shape[0] > 48
    {
        return None;
    }
    let _ = depth;
    let x = g.finite_leaf(d, shape);
    let m = x.info().mag;
    Some((vec![m.to_bits() as i64], vec![x]))
}

/// The error of a result of magnitude bound `mag` of an `n`×`n` system of condition ≤ 3 whose
/// input `i` was scaled by `1 / (2 n m)`.
fn solve_err(i: &Info, n: f64, mag: f64) -> f64 {
    let scaled = i.err / (2.0 * n.max(1.0) * i.mag.max(1.0));
    4.0 * n * scaled * mag + 64.0 * (n + 1.0) * eps(i.dtype) * mag
}

static LINALG: &[Row] = &[
    Row {
        name: "inv",
        generate: square_gen,
        info: |_, c| {
            let i = &c[0];
            let n = i.shape[0] as f64;
            info(i.dtype, i.shape.clone(), solve_err(i, n, 2.0), 2.0)
        },
        eval: |p, c| {
            let m = f64::from_bits(p[0] as u64);
            on!(one(c)?; [F32, F64]; x => linalg::inv(&conditioned(&x, m, false)?).map_err(api)?)
        },
        rust: |p, c| {
            format!(
                "linalg::inv(&(&{}.try_mul(&Array::scalar({:e} as _))? + &Array::eye({}.shape()[0])?))?",
                c[0],
                1.0 / f64::from_bits(p[0] as u64),
                c[0]
            )
        },
    },
    Row {
        name: "solve",
        generate: |g, d, shape, depth| {
            if shape.len() != 2 || !matches!(d, DType::F32 | DType::F64) || shape[0] > 48 {
                return None;
            }
            let n = shape[0];
            let _ = depth;
            let a = g.finite_leaf(d, &[n, n]);
            let b = g.finite_leaf(d, shape);
            let b = g.clamped(b, d, -4.0, 4.0);
            Some((vec![a.info().mag.to_bits() as i64], vec![a, b]))
        },
        info: |_, c| {
            let (a, b) = (&c[0], &c[1]);
            let n = a.shape[0] as f64;
            let mag = 2.0 * b.mag;
            info(
                b.dtype,
                b.shape.clone(),
                solve_err(a, n, mag) + 2.0 * b.err,
                mag,
            )
        },
        eval: |p, c| {
            let m = f64::from_bits(p[0] as u64);
            let (a, b) = two(c)?;
            on2!(a, b; [F32, F64]; x, y => linalg::solve(&conditioned(&x, m, false)?, &y).map_err(api)?)
        },
        rust: |_, c| format!("linalg::solve(&{}, &{})?", c[0], c[1]),
    },
    Row {
        name: "cholesky",
        generate: square_gen,
        info: |_, c| {
            let i = &c[0];
            let n = i.shape[0] as f64;
            info(i.dtype, i.shape.clone(), solve_err(i, n, 1.5), 1.5)
        },
        eval: |p, c| {
            let m = f64::from_bits(p[0] as u64);
            on!(one(c)?; [F32, F64]; x => linalg::cholesky(&conditioned(&x, m, true)?).map_err(api)?)
        },
        rust: |_, c| format!("linalg::cholesky(&{})?", c[0]),
    },
    Row {
        name: "eigh_values",
        generate: |g, d, shape, depth| {
            if shape.len() != 1 || !matches!(d, DType::F32 | DType::F64) || shape[0] > 32 {
                return None;
            }
            let _ = depth;
            let x = g.finite_leaf(d, &[shape[0], shape[0]]);
            Some((vec![x.info().mag.to_bits() as i64], vec![x]))
        },
        // Weyl: each eigenvalue moves by at most the perturbation's norm.
        info: |_, c| {
            let i = &c[0];
            let n = i.shape[0] as f64;
            info(i.dtype, vec![i.shape[0]], solve_err(i, n, 1.5), 1.5)
        },
        eval: |p, c| {
            let m = f64::from_bits(p[0] as u64);
            on!(one(c)?; [F32, F64]; x => linalg::eigh(&conditioned(&x, m, true)?).map_err(api)?.0)
        },
        rust: |_, c| format!("linalg::eigh(&{})?.0", c[0]),
    },
];

// ------------------------------------------------------------------------------------ fft

/// `x` (real floats of `shape`) with its NaNs and infinities replaced by 0 (`masked_fill` where
/// not `isfinite`): the input of a transform, whose NaN propagation depends on the algorithm
/// (an FFT need not multiply a value by a twiddle factor of exactly 0 or 1, so a NaN reaches
/// an unspecified part of its line's outputs).
pub(super) fn finite_part(x: Expr, d: DType, shape: &[usize]) -> Expr {
    use cuprite_array::ops::UnaryOp;
    let Some(fill) = INDEX.iter().find(|r| r.name == "masked_fill") else {
        return x;
    };
    let bad = Expr::Unary(
        UnaryOp::Not,
        Box::new(Expr::Unary(UnaryOp::IsFinite, Box::new(x.clone()))),
    );
    Expr::Op(fill, d, shape.to_vec(), vec![0], vec![x, bad])
}

static FFT: &[Row] = &[Row {
    name: "ifft",
    generate: |g, d, shape, depth| {
        if shape.is_empty() || !d.is_complex() {
            return None;
        }
        let ax = g.s_below(shape.len() as u64) as usize;
        if shape[ax] == 0 || shape[ax] > 64 {
            return None;
        }
        // Finite values only (see `finite_part`).
        let _ = depth;
        let x = g.finite_leaf(d, shape);
        Some((vec![ax as i64], vec![x]))
    },
    info: |p, c| {
        let i = &c[0];
        let n = i.shape[norm(p[0], i.shape.len())] as f64;
        let mag = i.mag * 1.5;
        let err = i.err * 1.5 + 8.0 * (n.log2().max(1.0) + 2.0) * eps(i.dtype) * mag;
        info(i.dtype, i.shape.clone(), err, mag)
    },
    eval: |p, c| on!(one(c)?; [C32, C64]; x => x.ifft_with(FftOpts::new().axis(p[0] as isize)).map_err(api)?),
    rust: |p, c| format!("{}.ifft_with(FftOpts::new().axis({}))?", c[0], p[0]),
}];

// ----------------------------------------------------------------------------------- rows

/// A float child giving `shape`, scaled into ±1 (`bounded` to ±16, then divided by 16).
fn unit_child(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    if shape.is_empty() || !d.is_float() || shape[shape.len() - 1] > 64 {
        return None;
    }
    let x = g.node(d, shape, depth - 1);
    let x = g.unit(x, d);
    Some((vec![], vec![x]))
}

fn last(i: &Info) -> f64 {
    i.shape.last().copied().unwrap_or(1).max(1) as f64
}

static ROWS: &[Row] = &[
    Row {
        name: "layer_norm",
        generate: unit_child,
        // (x − μ) / sqrt(σ² + ¼) with |x| ≤ 1: ∂/∂x ≤ 2·2, ∂/∂σ² ≤ √n / (2 · ¼) = 2√n,
        // σ² within 4δ + 8(n+1)ε.
        info: |_, c| {
            let i = &c[0];
            let (n, e) = (last(i), eps(i.dtype));
            let err = 4.0 * i.err
                + 2.0 * n.sqrt() * (4.0 * i.err + 8.0 * (n + 1.0) * e)
                + 8.0 * (n + 2.0) * e;
            info(i.dtype, i.shape.clone(), err, 2.0 * n.sqrt())
        },
        eval: |_, c| on!(one(c)?; [F16, BF16, F32, F64]; x => x.layer_norm_with(-1, NormOpts::new().eps(0.25)).map_err(api)?),
        rust: |_, c| {
            format!(
                "{}.layer_norm_with(-1, cuprite_array::ops::NormOpts::new().eps(0.25))?",
                c[0]
            )
        },
    },
    Row {
        name: "rms_norm",
        generate: unit_child,
        // x / sqrt(mean(x²) + ¼): ∂/∂x ≤ 2, ∂/∂ms ≤ 4, ms within 2δ + 2(n+1)ε.
        info: |_, c| {
            let i = &c[0];
            let (n, e) = (last(i), eps(i.dtype));
            let err = 2.0 * i.err + 4.0 * (2.0 * i.err + 2.0 * (n + 1.0) * e) + 8.0 * e;
            info(i.dtype, i.shape.clone(), err, 2.0)
        },
        eval: |_, c| on!(one(c)?; [F16, BF16, F32, F64]; x => x.rms_norm_with(-1, NormOpts::new().eps(0.25)).map_err(api)?),
        rust: |_, c| {
            format!(
                "{}.rms_norm_with(-1, cuprite_array::ops::NormOpts::new().eps(0.25))?",
                c[0]
            )
        },
    },
    Row {
        name: "normalize",
        generate: unit_child,
        // x / max(‖x‖₂, ¼): ∂/∂x ≤ 8√n, the norm within nδ + 2(n+1)ε √n.
        info: |_, c| {
            let i = &c[0];
            let (n, e) = (last(i), eps(i.dtype));
            let err = 8.0 * n.sqrt() * i.err
                + 8.0 * (n * i.err + 2.0 * (n + 1.0) * e * n.sqrt())
                + 8.0 * e;
            info(i.dtype, i.shape.clone(), err, 1.0)
        },
        eval: |_, c| on!(one(c)?; [F16, BF16, F32, F64]; x => x.normalize(-1, 2.0, 0.25).map_err(api)?),
        rust: |_, c| format!("{}.normalize(-1, 2.0, 0.25)?", c[0]),
    },
    Row {
        name: "one_hot",
        generate: |g, d, shape, _| {
            if shape.is_empty() || d.is_complex() || shape.iter().product::<usize>() > 1 << 16 {
                return None;
            }
            Some((vec![g.v_next() as i64], vec![]))
        },
        info: |p, _| {
            let (d, shape) = out(p, 1);
            info(d, shape, 0.0, 1.0)
        },
        eval: |p, _| {
            let (d, shape) = out(p, 1);
            let classes = shape[shape.len() - 1];
            let lead = &shape[..shape.len() - 1];
            let n: usize = lead.iter().product();
            let idx = i64s(indices(n, p[0] as u64, classes, 0), lead)?;
            super::eval::cast(&idx.one_hot::<i64>(classes).map_err(api)?.into_arr(), d)
        },
        rust: |p, _| {
            let (d, shape) = out(p, 1);
            format!(
                "index_{}.one_hot::<{}>({})?",
                p[0] as u64 % 1000,
                rust_type(d),
                shape[shape.len() - 1]
            )
        },
    },
    Row {
        name: "cross_entropy",
        generate: |g, d, shape, depth| {
            if !shape.is_empty() || !matches!(d, DType::F32 | DType::F64) {
                return None;
            }
            let n = 1 + g.v_below(8) as usize;
            let classes = 1 + g.v_below(12) as usize;
            let x = g.node(d, &[n, classes], depth - 1);
            let x = g.bounded16(x, d);
            Some((vec![g.v_next() as i64], vec![x]))
        },
        // A mean of logsumexp(x) − x_t: per row the logsumexp's bound (1-Lipschitz, plus its
        // own roundings) and the picked logit's.
        info: |_, c| {
            let i = &c[0];
            let (n, e) = (last(i), eps(i.dtype));
            let mag = 2.0 * i.mag + n.ln() + 1.0;
            let rows = i.shape[0] as f64;
            let err = 2.0 * i.err
                + 8.0 * (n.log2() + 2.0) * e * (mag + 1.0)
                + 2.0 * (rows + 1.0) * e * mag;
            info(i.dtype, vec![], err, mag)
        },
        eval: |p, c| {
            let x = one(c)?;
            let s = x.shape();
            let t = i64s(indices(s[0], p[0] as u64, s[1], 0), &[s[0]])?;
            on!(x; [F32, F64]; y => y.cross_entropy(&t).map_err(api)?)
        },
        rust: |p, c| format!("{}.cross_entropy(&targets_{})?", c[0], p[0] as u64 % 1000),
    },
];

// ----------------------------------------------------------------------------- statistics

/// The child of a selection along `axis` giving `shape`: an axis inserted with extent `n`.
fn select_gen(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
    keep: bool,
) -> Option<(usize, usize, Expr)> {
    if !real_kinds(d) || d.is_complex() {
        return None;
    }
    let n = 1 + g.v_below(12) as usize;
    let ax = g.s_below(shape.len() as u64 + if keep { 0 } else { 1 }) as usize;
    if keep && shape.is_empty() {
        return None;
    }
    let mut cs = shape.to_vec();
    if keep {
        cs[ax] = shape[ax] + g.v_below(6) as usize;
    } else {
        cs.insert(ax, n);
    }
    let x = g.node(d, &cs, depth - 1);
    Some((ax, cs[ax], x))
}

fn mean_dtype(d: DType) -> DType {
    super::expr::red_dtype(super::expr::Red::Mean, d)
}

fn removed(i: &Info, ax: usize) -> Vec<usize> {
    let mut s = i.shape.clone();
    s.remove(ax);
    s
}

static STATS: &[Row] = &[
    Row {
        name: "topk",
        generate: |g, d, shape, depth| {
            let (ax, n, x) = select_gen(g, d, shape, depth, true)?;
            let k = shape[ax];
            if k > n {
                return None;
            }
            Some((vec![ax as i64, k as i64, g.s_below(2) as i64], vec![x]))
        },
        info: |p, c| {
            let mut i = c[0].clone();
            i.shape[p[0] as usize] = p[1] as usize;
            i
        },
        eval: |p, c| {
            on!(one(c)?; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
                x => x.topk_with(p[1] as usize, p[0] as isize, TopkOpts::new().largest(p[2] == 1)).map_err(api)?.0)
        },
        rust: |p, c| {
            format!(
                "{}.topk_with({}, {}, TopkOpts::new().largest({}))?.0",
                c[0],
                p[1],
                p[0],
                p[2] == 1
            )
        },
    },
    Row {
        name: "kthvalue",
        generate: |g, d, shape, depth| {
            let (ax, n, x) = select_gen(g, d, shape, depth, false)?;
            Some((vec![ax as i64, 1 + g.v_below(n as u64) as i64], vec![x]))
        },
        info: |p, c| {
            let i = &c[0];
            info(i.dtype, removed(i, p[0] as usize), i.err, i.mag)
        },
        eval: |p, c| {
            on!(one(c)?; [U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64];
                x => x.kthvalue(p[1] as usize, p[0] as isize).map_err(api)?.0)
        },
        rust: |p, c| format!("{}.kthvalue({}, {})?.0", c[0], p[1], p[0]),
    },
    Row {
        name: "median",
        generate: |g, d, shape, depth| {
            let t = pick(
                g,
                &[DType::I32, DType::U8, DType::F32, DType::F64, DType::I64],
            );
            if mean_dtype(t) != d {
                return None;
            }
            let (ax, _, x) = select_gen(g, t, shape, depth, false)?;
            Some((vec![ax as i64], vec![x]))
        },
        info: |p, c| {
            let i = &c[0];
            let d = mean_dtype(i.dtype);
            let m = if inexact_kind(i.dtype) {
                i.mag
            } else {
                int_max(i.dtype)
            };
            let err = if inexact_kind(i.dtype) {
                i.err + 2.0 * eps(d) * m
            } else {
                2.0 * eps(d) * m
            };
            info(d, removed(i, p[0] as usize), err, m)
        },
        eval: |p, c| on!(one(c)?; [U8, I32, I64, F32, F64]; x => x.median_with(AxisOpts::new().axis(p[0] as isize)).map_err(api)?),
        rust: |p, c| format!("{}.median_with(AxisOpts::new().axis({}))?", c[0], p[0]),
    },
    Row {
        name: "quantile",
        generate: |g, d, shape, depth| {
            if !matches!(d, DType::F32 | DType::F64) {
                return None;
            }
            let (ax, _, x) = select_gen(g, d, shape, depth, false)?;
            Some((vec![ax as i64, g.v_below(5) as i64], vec![x]))
        },
        info: |p, c| {
            let i = &c[0];
            info(
                i.dtype,
                removed(i, p[0] as usize),
                i.err + 2.0 * eps(i.dtype) * i.mag,
                i.mag,
            )
        },
        eval: |p, c| {
            let q = p[1] as f64 / 4.0;
            on!(one(c)?; [F32, F64]; x => x.quantile_with(q, QuantileOpts::new().axis(p[0] as isize)).map_err(api)?)
        },
        rust: |p, c| {
            format!(
                "{}.quantile_with({}, QuantileOpts::new().axis({}))?",
                c[0],
                p[1] as f64 / 4.0,
                p[0]
            )
        },
    },
    Row {
        name: "ptp",
        generate: |g, d, shape, depth| {
            if !matches!(d, DType::F32 | DType::F64 | DType::I32 | DType::I64) {
                return None;
            }
            let (ax, n, x) = select_gen(g, d, shape, depth, false)?;
            if n == 0 {
                return None;
            }
            Some((vec![ax as i64], vec![x]))
        },
        info: |p, c| {
            let i = &c[0];
            let err = if inexact_kind(i.dtype) && i.err > 0.0 {
                2.0 * i.err + 4.0 * eps(i.dtype) * i.mag
            } else {
                0.0
            };
            info(i.dtype, removed(i, p[0] as usize), err, 2.0 * i.mag)
        },
        eval: |p, c| on!(one(c)?; [I32, I64, F32, F64]; x => x.ptp_axes(&[p[0] as isize]).map_err(api)?),
        rust: |p, c| format!("{}.ptp_axes(&[{}])?", c[0], p[0]),
    },
    Row {
        name: "unique_count",
        generate: count_gen,
        info: |_, _| info(DType::I64, vec![], 0.0, 0.0),
        eval: |_, c| {
            Ok(count(
                on_n!(one(c)?; x => x.unique_values().map_err(api)?.shape()[0]),
            ))
        },
        rust: |_, c| {
            format!(
                "Array::<i64>::scalar({}.unique_values()?.shape()[0] as i64)",
                c[0]
            )
        },
    },
    Row {
        name: "union1d_count",
        generate: count2_gen,
        info: |_, _| info(DType::I64, vec![], 0.0, 0.0),
        eval: |_, c| {
            let (a, b) = two(c)?;
            Ok(count(
                on2_n!(a, b; x, y => cuprite_array::union1d(&x, &y).map_err(api)?.shape()[0]),
            ))
        },
        rust: |_, c| {
            format!(
                "Array::<i64>::scalar(union1d(&{}, &{})?.shape()[0] as i64)",
                c[0], c[1]
            )
        },
    },
    Row {
        name: "intersect1d_count",
        generate: count2_gen,
        info: |_, _| info(DType::I64, vec![], 0.0, 0.0),
        eval: |_, c| {
            let (a, b) = two(c)?;
            Ok(count(
                on2_n!(a, b; x, y => cuprite_array::intersect1d(&x, &y).map_err(api)?.shape()[0]),
            ))
        },
        rust: |_, c| {
            format!(
                "Array::<i64>::scalar(intersect1d(&{}, &{})?.shape()[0] as i64)",
                c[0], c[1]
            )
        },
    },
];

/// An exact integer or float child of any shape, counted into an `i64` scalar.
fn count_gen(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    if !shape.is_empty() || d != DType::I64 {
        return None;
    }
    let t = pick(
        g,
        &[DType::I32, DType::U8, DType::F32, DType::I64, DType::F64],
    );
    let rank = 1 + g.s_below(2) as usize;
    let cs = g.shape(rank);
    let x = g.node(t, &cs, depth - 1);
    Some((vec![], vec![g.exact(x)]))
}

fn count2_gen(
    g: &mut dyn Draw,
    d: DType,
    shape: &[usize],
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    let (_, mut a) = count_gen(g, d, shape, depth)?;
    let t = a[0].info().dtype;
    let n = g.extent(false);
    let b = g.node(t, &[n], depth - 1);
    a.push(g.exact(b));
    Some((vec![], a))
}

// ------------------------------------------------------------------------------- sampling

static SAMPLING: &[Row] = &[
    Row {
        name: "randint",
        generate: |g, d, shape, _| {
            if !matches!(d, DType::I32 | DType::I64 | DType::U8)
                || shape.iter().product::<usize>() > 1 << 16
            {
                return None;
            }
            let lo = g.v_below(50) as i64;
            Some((
                vec![lo, lo + 1 + g.v_below(200) as i64, g.v_next() as i64],
                vec![],
            ))
        },
        info: |p, _| {
            let (d, shape) = out(p, 3);
            info(d, shape, 0.0, 0.0)
        },
        eval: |p, _| {
            let (d, shape) = out(p, 3);
            let x = Array::<i64>::randint(p[0], p[1], &shape, p[2] as u64).map_err(api)?;
            super::eval::cast(&x.into_arr(), d)
        },
        rust: |p, _| {
            let (_, shape) = out(p, 3);
            format!(
                "Array::<i64>::randint({}, {}, &{shape:?}, {})?",
                p[0], p[1], p[2] as u64
            )
        },
    },
    Row {
        name: "permutation",
        generate: |g, d, shape, _| {
            if d != DType::I64 || shape.len() != 1 || shape[0] > 1 << 16 {
                return None;
            }
            Some((vec![g.v_next() as i64], vec![]))
        },
        info: |p, _| {
            let (d, shape) = out(p, 1);
            info(d, shape, 0.0, 0.0)
        },
        eval: |p, _| {
            let (_, shape) = out(p, 1);
            Ok(Array::<i64>::permutation(shape[0], p[0] as u64)
                .map_err(api)?
                .into_arr())
        },
        rust: |p, _| {
            let (_, shape) = out(p, 1);
            format!("Array::<i64>::permutation({}, {})?", shape[0], p[0] as u64)
        },
    },
    Row {
        name: "exponential",
        generate: |g, d, shape, _| {
            if !matches!(d, DType::F32 | DType::F64) || shape.iter().product::<usize>() > 1 << 16 {
                return None;
            }
            Some((vec![g.v_next() as i64], vec![]))
        },
        // −ln(u) of the same uniform u on both backends: ln of two libraries, a few ulp of
        // the bound (−ln of the smallest uniform: 17 in f32, 37 in f64).
        info: |p, _| {
            let (d, shape) = out(p, 1);
            let mag = if d == DType::F32 { 17.0 } else { 37.0 };
            info(d, shape, 8.0 * eps(d) * mag, mag)
        },
        eval: |p, _| {
            let (d, shape) = out(p, 1);
            let seed = p[0] as u64;
            Ok(match d {
                DType::F32 => Array::<f32>::exponential(&shape, 1.0, seed)
                    .map_err(api)?
                    .into_arr(),
                _ => Array::<f64>::exponential(&shape, 1.0, seed)
                    .map_err(api)?
                    .into_arr(),
            })
        },
        rust: |p, _| {
            let (d, shape) = out(p, 1);
            format!(
                "Array::<{}>::exponential(&{shape:?}, 1.0, {})?",
                rust_type(d),
                p[0] as u64
            )
        },
    },
];

// ----------------------------------------------------------------------------------- signal

/// A float child of `shape` scaled into ±1, and an axis of extent 1..=512 to work along.
fn signal_child(g: &mut dyn Draw, d: DType, shape: &[usize], depth: u32) -> Option<(usize, Expr)> {
    if shape.is_empty() || !d.is_float() {
        return None;
    }
    let ax = g.s_below(shape.len() as u64) as usize;
    if shape[ax] == 0 || shape[ax] > 512 {
        return None;
    }
    let x = g.node(d, shape, depth - 1);
    Some((ax, g.unit(x, d)))
}

/// The method of a `convolve` row's parameter.
fn conv_method(p: i64) -> cuprite_array::signal::ConvMethod {
    if p == 1 {
        cuprite_array::signal::ConvMethod::Fft
    } else {
        cuprite_array::signal::ConvMethod::Direct
    }
}

/// `x` convolved along `ax` with the `k`-tap box `1/k`, `same`.
fn box_conv<T: cuprite_array::signal::SignalElement>(
    x: &Array<T>,
    ax: i64,
    k: i64,
    method: i64,
) -> Result<Array<T>, String> {
    use cuprite_array::signal::{ConvMode, convolve_axes};
    let k = k as usize;
    let h = cuprite_array::with_device(x.device(), || {
        Array::<f64>::full(&[k], 1.0 / k as f64).cast::<T>()
    });
    convolve_axes(x, &h, &[ax as isize], ConvMode::Same, conv_method(method)).map_err(api)
}

/// A unit float child of a 4-d `shape` (`N, C, H, W`, at most 8 channels and 2^14 values) for
/// the neural-network rows.
fn nn_child(g: &mut dyn Draw, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
    if shape.len() != 4
        || !d.is_float()
        || !(1..=8).contains(&shape[1])
        || shape.contains(&0)
        || shape.iter().product::<usize>() > 1 << 14
    {
        return None;
    }
    let x = g.node(d, shape, depth - 1);
    Some(g.unit(x, d))
}

/// `x` (`[N, C, H, W]`) convolved (`conv2d`, padding `"same"`) with `C` filters of `k x k`
/// taps, each `1 / (C k k)`: the mean of each window, zeros beyond the edges.
fn box_conv2d<T: cuprite_array::dtype::Float>(x: &Array<T>, k: i64) -> Result<Array<T>, String> {
    use cuprite_array::signal::{Conv2dOpts, conv2d_with};
    let (c, k) = (x.shape()[1], k as usize);
    let w = cuprite_array::with_device(x.device(), || {
        Array::<f64>::full(&[c, c, k, k], 1.0 / (c * k * k) as f64).cast::<T>()
    });
    conv2d_with(x, &w, Conv2dOpts::new().padding_same()).map_err(api)
}

static SIGNAL: &[Row] = &[
    Row {
        name: "convolve",
        generate: |g, d, shape, depth| {
            let (ax, x) = signal_child(g, d, shape, depth)?;
            let k = 1 + g.s_below(9) as i64;
            let method = g.s_below(2) as i64;
            Some((vec![ax as i64, k, method], vec![x]))
        },
        // Taps of 1/k, |x| <= 1: the output within 1; direct sums k products, FFT rounds over
        // the transform of N = n + k - 1 points.
        info: |p, c| {
            let i = &c[0];
            let e = eps(i.dtype).max(2f64.powi(-23));
            let n = i.shape[norm(p[0], i.shape.len())] as f64 + p[1] as f64 - 1.0;
            let round = if p[2] == 1 {
                8.0 * (n.log2().max(1.0) + 2.0) * n.sqrt() * e
            } else {
                2.0 * (p[1] as f64 + 1.0) * e
            };
            info(i.dtype, i.shape.clone(), i.err + round + eps(i.dtype), 1.0)
        },
        eval: |p, c| on!(one(c)?; [F16, BF16, F32, F64]; x => box_conv(&x, p[0], p[1], p[2])?),
        rust: |p, c| {
            let m = if p[2] == 1 { "Fft" } else { "Direct" };
            format!(
                "cuprite_array::signal::convolve_axes(&{}, &Array::<f64>::full(&[{}], 1.0 / {}.0).cast(), &[{}], cuprite_array::signal::ConvMode::Same, cuprite_array::signal::ConvMethod::{m})?",
                c[0], p[1], p[1], p[0]
            )
        },
    },
    Row {
        name: "conv2d",
        generate: |g, d, shape, depth| {
            let x = nn_child(g, d, shape, depth)?;
            let k = 1 + 2 * g.s_below(2) as i64;
            Some((vec![k], vec![x]))
        },
        // Weights 1/(C k k) (rounded to the element type), |x| <= 1: |y| <= 1; the sum of
        // C k k products rounds once a term, and the weights' rounding adds one more.
        info: |p, c| {
            let i = &c[0];
            let e = eps(i.dtype).max(2f64.powi(-23));
            let terms = (i.shape[1] as i64 * p[0] * p[0]) as f64;
            info(
                i.dtype,
                i.shape.clone(),
                i.err + (terms + 2.0) * e + eps(i.dtype),
                1.0,
            )
        },
        eval: |p, c| on!(one(c)?; [F16, BF16, F32, F64]; x => box_conv2d(&x, p[0])?),
        rust: |p, c| {
            format!(
                "{{ let x = {}; let c = x.shape()[1]; cuprite_array::signal::conv2d_with(&x, &Array::<f64>::full(&[c, c, {k}, {k}], 1.0 / (c * {k} * {k}) as f64).cast(), cuprite_array::signal::Conv2dOpts::new().padding_same())? }}",
                c[0],
                k = p[0]
            )
        },
    },
    Row {
        name: "max_pool2d",
        generate: |g, d, shape, depth| {
            let x = nn_child(g, d, shape, depth)?;
            let k = 1 + 2 * g.s_below(2) as i64;
            Some((vec![k], vec![x]))
        },
        // Stride 1, padding k / 2 (k odd): the input's shape; a maximum of inputs, exact.
        info: |_, c| {
            let i = &c[0];
            info(i.dtype, i.shape.clone(), i.err, 1.0)
        },
        eval: |p, c| {
            on!(one(c)?; [F16, BF16, F32, F64]; x => {
                let o = cuprite_array::signal::Pool2dOpts::new().stride(1).padding(p[0] as usize / 2);
                cuprite_array::signal::max_pool2d_with(&x, p[0] as usize, o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::signal::max_pool2d_with(&{}, {k}, cuprite_array::signal::Pool2dOpts::new().stride(1).padding({}))?",
                c[0],
                p[0] / 2,
                k = p[0]
            )
        },
    },
    Row {
        name: "lfilter",
        generate: |g, d, shape, depth| {
            let (ax, x) = signal_child(g, d, shape, depth)?;
            Some((vec![ax as i64], vec![x]))
        },
        // y = x/2 + y_prev/2 from rest, |x| <= 1: |y| <= 1; an input error δ gives at most 2δ
        // (the gain), each step's rounding decays geometrically.
        info: |_, c| {
            let i = &c[0];
            let e = eps(i.dtype).max(2f64.powi(-23));
            info(
                i.dtype,
                i.shape.clone(),
                2.0 * i.err + 16.0 * e + eps(i.dtype),
                1.0,
            )
        },
        eval: |p, c| {
            on!(one(c)?; [F16, BF16, F32, F64]; x => {
                cuprite_array::signal::lfilter(&[0.5], &[1.0, -0.5], &x, p[0] as isize, None)
                    .map_err(api)?
                    .0
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::signal::lfilter(&[0.5], &[1.0, -0.5], &{}, {}, None)?.0",
                c[0], p[0]
            )
        },
    },
    Row {
        name: "savgol_filter",
        generate: |g, d, shape, depth| {
            // The image filters' element types (no bf16).
            if d == DType::BF16 {
                return None;
            }
            let (ax, x) = signal_child(g, d, shape, depth)?;
            // The interp edges fit the first and last 5 samples.
            if shape[ax] < 5 {
                return None;
            }
            Some((vec![ax as i64], vec![x]))
        },
        // A window of 5, a quadratic: every output (interior or interp edge) is a fixed
        // combination of 5 inputs whose absolute weights sum to at most 1.46 (the edges'; the
        // interior's 1.34), |x| <= 1: |y| <= 1.5; an input error δ gives at most 1.5 δ, the
        // sum of 5 products rounds a term each, and the weights' rounding to the element type
        // one more.
        info: |_, c| {
            let i = &c[0];
            let e = eps(i.dtype).max(2f64.powi(-23));
            info(
                i.dtype,
                i.shape.clone(),
                1.5 * i.err + 1.5 * (10.0 * e + 2.0 * eps(i.dtype)) + eps(i.dtype),
                1.5,
            )
        },
        eval: |p, c| {
            on!(one(c)?; [F16, F32, F64]; x => {
                let o = cuprite_array::signal::SavgolOpts::new().axis(p[0] as isize);
                cuprite_array::signal::savgol_filter(&x, 5, 2, o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::signal::savgol_filter(&{}, 5, 2, cuprite_array::signal::SavgolOpts::new().axis({}))?",
                c[0], p[0]
            )
        },
    },
    Row {
        name: "convolve2d",
        generate: |g, d, shape, depth| {
            if shape.len() != 2 || !d.is_float() || shape.iter().any(|&n| n == 0 || n > 512) {
                return None;
            }
            let x = g.node(d, shape, depth - 1);
            Some((vec![g.s_below(4) as i64], vec![g.unit(x, d)]))
        },
        // A 3 x 3 box of 1/9 (rounded to the element type), `same`, the input extended by 0,
        // 0.5, periodically or mirrored: |x| <= 1 gives |y| <= 1; 9 products and their sum
        // round a term each, the taps' rounding one more.
        info: |_, c| {
            let i = &c[0];
            let e = eps(i.dtype).max(2f64.powi(-23));
            info(
                i.dtype,
                i.shape.clone(),
                i.err + 20.0 * e + 2.0 * eps(i.dtype),
                1.0,
            )
        },
        eval: |p, c| {
            on!(one(c)?; [F16, BF16, F32, F64]; x => {
                let k = cuprite_array::with_device(x.device(), || {
                    Array::<f64>::full(&[3, 3], 1.0 / 9.0).cast()
                });
                cuprite_array::signal::convolve2d(&x, &k, cuprite_array::signal::ConvMode::Same, boundary2d(p[0]))
                    .map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::signal::convolve2d(&{}, &Array::<f64>::full(&[3, 3], 1.0 / 9.0).cast(), cuprite_array::signal::ConvMode::Same, cuprite_array::signal::ConvBoundary::{:?})?",
                c[0],
                boundary2d(p[0])
            )
        },
    },
    Row {
        name: "cspline1d",
        generate: |g, d, shape, depth| {
            if shape.len() != 1 || !matches!(d, DType::F32 | DType::F64) {
                return None;
            }
            let (_, x) = signal_child(g, d, shape, depth)?;
            Some((vec![], vec![x]))
        },
        // The interpolating cubic spline's coefficients: a causal pole at z = √3 - 2 (gain at
        // most 1 / (1 - |z|)), an anti-causal one (gain |z| / (1 - |z|)) and the factor 6:
        // |y| <= 3 for |x| <= 1 and an input error δ gives 3δ; each pass's rounding decays
        // geometrically, the mirror sums that start them round over a few dozen terms.
        info: |_, c| {
            let i = &c[0];
            let e = eps(i.dtype).max(2f64.powi(-23));
            info(
                i.dtype,
                i.shape.clone(),
                3.0 * i.err + 100.0 * e + 3.0 * eps(i.dtype),
                3.0,
            )
        },
        eval: |_, c| on!(one(c)?; [F32, F64]; x => cuprite_array::signal::cspline1d(&x, 0.0).map_err(api)?),
        rust: |_, c| format!("cuprite_array::signal::cspline1d(&{}, 0.0)?", c[0]),
    },
];

/// The boundary of a `convolve2d` row's parameter.
fn boundary2d(p: i64) -> cuprite_array::signal::ConvBoundary {
    use cuprite_array::signal::ConvBoundary;
    match p {
        1 => ConvBoundary::Fill(0.5),
        2 => ConvBoundary::Wrap,
        3 => ConvBoundary::Symm,
        _ => ConvBoundary::Fill(0.0),
    }
}

// ----------------------------------------------------------------------------------- sparse

/// A unit float child of `[rows, cols]` (f32 or f64, at most 2^14 elements), and the format
/// and index-type parameters of a sparse row.
fn sparse_child(
    g: &mut dyn Draw,
    d: DType,
    rows: usize,
    cols: usize,
    depth: u32,
) -> Option<(Vec<i64>, Vec<Expr>)> {
    if !matches!(d, DType::F32 | DType::F64) || rows.checked_mul(cols)? > 1 << 14 {
        return None;
    }
    let x = g.node(d, &[rows, cols], depth - 1);
    let x = g.unit(x, d);
    Some((vec![g.s_below(3) as i64, g.s_below(2) as i64], vec![x]))
}

/// The format and index type of a sparse row's parameters.
fn sparse_layout(
    fmt: i64,
    idx: i64,
) -> (
    cuprite_array::sparse::SparseFormat,
    cuprite_array::sparse::IndexType,
) {
    use cuprite_array::sparse::{IndexType, SparseFormat};
    let f = [SparseFormat::Csr, SparseFormat::Csc, SparseFormat::Coo][fmt.rem_euclid(3) as usize];
    let i = if idx == 1 {
        IndexType::I64
    } else {
        IndexType::I32
    };
    (f, i)
}

/// `x` as a sparse matrix keeping every nonzero, in the layout of `p[0]`, `p[1]`.
fn sparse_of<T: cuprite_array::sparse::SparseValue>(
    x: &Array<T>,
    p: &[i64],
) -> Result<cuprite_array::sparse::SparseArray<T>, String> {
    let (f, i) = sparse_layout(p[0], p[1]);
    cuprite_array::sparse::SparseArray::from_dense(x, 0.0)
        .and_then(|a| a.to_format(f))
        .and_then(|a| a.with_index_type(i))
        .map_err(api)
}

/// The reproducer text of `sparse_of`.
fn sparse_rust(p: &[i64], x: &str) -> String {
    let (f, i) = sparse_layout(p[0], p[1]);
    format!(
        "cuprite_array::sparse::SparseArray::from_dense(&{x}, 0.0)?.to_format(cuprite_array::sparse::SparseFormat::{f:?})?.with_index_type(cuprite_array::sparse::IndexType::{i:?})?"
    )
}

/// `x` (`[rows, cols]`) as triplets in device arrays, every position twice (first all of them
/// in reverse order with `x`'s values, then in order with half of them), built by
/// `from_triplet_arrays` with `i32` (`p[0] == 0`) or `i64` indices: the CSR of `1.5 · x`, each
/// sum `x + x/2` in that order.
fn triplets_of<T: cuprite_array::sparse::SparseValue>(
    x: &Array<T>,
    p: &[i64],
) -> Result<cuprite_array::sparse::SparseArray<T>, String> {
    use cuprite_array::sparse::SparseArray;
    let &[r, c] = x.shape() else {
        return Err(format!("fuzzer bug: triplets of shape {:?}", x.shape()));
    };
    let n = r * c;
    cuprite_array::with_device(x.device(), || {
        let pos = Array::<i64>::arange(0, n as i64, 1)?;
        let flip = pos.try_mul(-1i64)?.try_add(n as i64 - 1)?;
        let idx = Array::concat(&[&flip, &pos], 0)?;
        let xf = x.reshape(&[n])?;
        let v = Array::concat(
            &[&xf.index_select(0, &flip)?, &xf.try_mul(T::from_f64(0.5))?],
            0,
        )?;
        let (ri, ci) = (idx.try_div(c as i64)?, idx.try_rem(c as i64)?);
        if p[0] == 1 {
            SparseArray::from_triplet_arrays([r, c], ri, ci, &v)
        } else {
            SparseArray::from_triplet_arrays([r, c], ri.cast::<i32>(), ci.cast::<i32>(), &v)
        }
    })
    .map_err(api)
}

/// The reproducer text of `triplets_of`.
fn triplets_rust(p: &[i64], x: &str) -> String {
    let cast = if p[0] == 1 { "" } else { ".cast::<i32>()" };
    format!(
        "{{ let x = {x}; let n = x.len(); let pos = Array::<i64>::arange(0, n as i64, 1)?; \
         let flip = pos.try_mul(-1i64)?.try_add(n as i64 - 1)?; \
         let idx = Array::concat(&[&flip, &pos], 0)?; let xf = x.reshape(&[n])?; \
         let v = Array::concat(&[&xf.index_select(0, &flip)?, &xf.try_mul(0.5)?], 0)?; \
         let c = x.shape()[1] as i64; \
         cuprite_array::sparse::SparseArray::from_triplet_arrays([x.shape()[0], x.shape()[1]], \
         idx.try_div(c)?{cast}, idx.try_rem(c)?{cast}, &v)?.to_dense()? }}"
    )
}

/// The bound of a sum over `n` unit terms with input error `δ`.
fn sparse_sum_err(i: &Info, n: f64) -> f64 {
    let e = eps(i.dtype);
    2.0 * n * i.err + 2.0 * (n + 1.0) * e * n + e
}

static SPARSE: &[Row] = &[
    Row {
        name: "sparse_roundtrip",
        generate: |g, d, shape, depth| match shape {
            &[r, c] => sparse_child(g, d, r, c, depth),
            _ => None,
        },
        // Values move unchanged; a value kept on one backend and dropped on the other (zero
        // there) differs by at most δ.
        info: |_, c| {
            let i = &c[0];
            info(i.dtype, i.shape.clone(), i.err, 1.0)
        },
        eval: |p, c| on!(one(c)?; [F32, F64]; x => sparse_of(&x, p)?.to_dense().map_err(api)?),
        rust: |p, c| format!("{}.to_dense()?", sparse_rust(p, &c[0])),
    },
    Row {
        name: "sparse_row_sums",
        generate: |g, d, shape, depth| {
            let &[r] = shape else { return None };
            let cols = 1 + g.s_below(48) as usize;
            sparse_child(g, d, r, cols, depth)
        },
        info: |_, c| {
            let i = &c[0];
            let n = i.shape[1] as f64;
            info(i.dtype, vec![i.shape[0]], sparse_sum_err(i, n), n)
        },
        eval: |p, c| on!(one(c)?; [F32, F64]; x => sparse_of(&x, p)?.sum_axes(&[1]).map_err(api)?),
        rust: |p, c| format!("{}.sum_axes(&[1])?", sparse_rust(p, &c[0])),
    },
    Row {
        name: "sparse_gram",
        generate: |g, d, shape, depth| {
            let &[r, r2] = shape else { return None };
            if r != r2 {
                return None;
            }
            let cols = 1 + g.s_below(32) as usize;
            sparse_child(g, d, r, cols, depth)
        },
        // A·Aᵀ: each element a sum of n products of unit values, each within 2δ.
        info: |_, c| {
            let i = &c[0];
            let n = i.shape[1] as f64;
            let m = i.shape[0];
            info(i.dtype, vec![m, m], sparse_sum_err(i, n), n)
        },
        eval: |p, c| {
            on!(one(c)?; [F32, F64]; x => {
                let a = sparse_of(&x, p)?;
                a.transpose()
                    .and_then(|t| a.matmul(&t))
                    .and_then(|g| g.to_dense())
                    .map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "{{ let a = {}; a.matmul(&a.transpose()?)?.to_dense()? }}",
                sparse_rust(p, &c[0])
            )
        },
    },
    Row {
        name: "sparse_spmm",
        generate: |g, d, shape, depth| {
            let &[r, n] = shape else { return None };
            let k = 1 + g.s_below(32) as usize;
            if k.checked_mul(n)? > 1 << 14 {
                return None;
            }
            let (p, mut kids) = sparse_child(g, d, r, k, depth)?;
            let b = g.node(d, &[k, n], depth - 1);
            kids.push(g.unit(b, d));
            Some((p, kids))
        },
        // A·B: each element a sum of k products of unit values, each within δa + δb + δa·δb.
        info: |_, c| {
            let (a, b) = (&c[0], &c[1]);
            let k = a.shape[1] as f64;
            let e = eps(a.dtype);
            let err = k * (a.err + b.err + a.err * b.err) + 2.0 * (k + 1.0) * e * k + e;
            info(a.dtype, vec![a.shape[0], b.shape[1]], err, k)
        },
        eval: |p, c| {
            let (a, b) = two(c)?;
            on2!(a, b; [F32, F64]; x, y => sparse_of(&x, p)?.spmm(&y).map_err(api)?)
        },
        rust: |p, c| format!("{}.spmm(&{})?", sparse_rust(p, &c[0]), c[1]),
    },
    Row {
        name: "sparse_triplets",
        generate: |g, d, shape, depth| match shape {
            &[r, c] => {
                let (_, kids) = sparse_child(g, d, r, c, depth)?;
                Some((vec![g.s_below(2) as i64], kids))
            }
            _ => None,
        },
        // x + x/2 from the same inputs on both backends: within 1.5·δ, plus two roundings of
        // a value of at most 1.5.
        info: |_, c| {
            let i = &c[0];
            info(
                i.dtype,
                i.shape.clone(),
                1.5 * i.err + 4.0 * eps(i.dtype),
                1.5,
            )
        },
        eval: |p, c| on!(one(c)?; [F32, F64]; x => triplets_of(&x, p)?.to_dense().map_err(api)?),
        rust: |p, c| triplets_rust(p, &c[0]),
    },
];

// ------------------------------------------------------------------------------------ image

/// The boundary of an image row's parameter.
fn img_mode(p: i64) -> cuprite_array::image::Boundary {
    use cuprite_array::image::Boundary;
    [
        Boundary::Reflect,
        Boundary::Constant(0.5),
        Boundary::Nearest,
        Boundary::Mirror,
        Boundary::Wrap,
    ][p.rem_euclid(5) as usize]
}

/// The reproducer's text of [`img_mode`].
fn img_mode_rust(p: i64) -> &'static str {
    ["Reflect", "Constant(0.5)", "Nearest", "Mirror", "Wrap"][p.rem_euclid(5) as usize]
}

/// A float child of `shape` (rank 1 to 3, extents at most 256) scaled into ±1.
fn image_child(g: &mut dyn Draw, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
    let ok = (1..=3).contains(&shape.len()) && shape.iter().all(|&n| (1..=256).contains(&n));
    if !ok || !matches!(d, DType::F16 | DType::F32 | DType::F64) {
        return None;
    }
    let x = g.node(d, shape, depth - 1);
    Some(g.unit(x, d))
}

/// The bound of `passes` passes of `k` taps of gain at most `gain` on an input within 1 and
/// off by `i.err`.
fn img_info(i: &Info, passes: usize, k: f64, gain: f64) -> Info {
    let e = eps(i.dtype).max(2f64.powi(-23));
    let round = passes as f64 * (2.0 * (k + 1.0) * e + 2.0 * eps(i.dtype));
    info(i.dtype, i.shape.clone(), gain * (i.err + round), gain)
}

/// The boundary of a geometric transform's parameter: the modes whose interpolation is
/// continuous across the image's edge (a coordinate a rounding away from the edge gives a
/// value close to the one at the edge).
fn geo_mode(p: i64) -> cuprite_array::image::Boundary {
    use cuprite_array::image::Boundary;
    [
        Boundary::Reflect,
        Boundary::Nearest,
        Boundary::Mirror,
        Boundary::GridWrap,
        Boundary::GridConstant(0.5),
    ][p.rem_euclid(5) as usize]
}

/// The reproducer's text of [`geo_mode`].
fn geo_mode_rust(p: i64) -> &'static str {
    [
        "Reflect",
        "Nearest",
        "Mirror",
        "GridWrap",
        "GridConstant(0.5)",
    ][p.rem_euclid(5) as usize]
}

/// The bound of an interpolation of order 0 or 1 over `r` axes of an input within 1 and off by
/// `i.err`: order 0 moves values; order 1 takes a convex combination of `2^r` values with
/// weights products of `r` factors, each rounded in the working type (the coordinates are
/// computed alike on both backends).
fn geo_info(i: &Info, order: i64, r: usize) -> Info {
    if order == 0 {
        return i.clone();
    }
    img_info(i, 1, (1usize << r) as f64 + r as f64, 1.0)
}

/// An image row's child of `shape` for selections (grey morphology): `u8` and `u16` any
/// subtree, floats a leaf of finite values (where NaN falls in a window's order is left open);
/// `None` for other dtypes, ranks beyond 3 or extents beyond 256.
fn image_sel_child(g: &mut dyn Draw, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
    let ok = (1..=3).contains(&shape.len()) && shape.iter().all(|&n| (1..=256).contains(&n));
    if !ok
        || !matches!(
            d,
            DType::U8 | DType::U16 | DType::F16 | DType::F32 | DType::F64
        )
    {
        return None;
    }
    Some(if d.is_float() {
        g.finite_leaf(d, shape)
    } else {
        g.node(d, shape, depth - 1)
    })
}

/// The affine map of an `affine_transform` row over `r` axes: `p[2..11]` holds a 3 x 3 matrix
/// (row-major) whose leading `r x r` block is used, `p[11..14]` three offsets; each in eighths
/// (so coordinates are exact in `f64`).
fn geo_affine_parts(p: &[i64], r: usize) -> (Vec<Vec<f64>>, Vec<f64>) {
    let v = |k: usize| p.get(2 + k).copied().unwrap_or(0) as f64 / 8.0;
    let m = (0..r)
        .map(|a| (0..r).map(|b| v(a * 3 + b)).collect())
        .collect();
    let o = (0..r).map(|a| v(9 + a)).collect();
    (m, o)
}

/// `affine_transform_with` of `x` over its `r` trailing axes (1 to 3) with the row's map.
fn geo_affine<T: cuprite_array::image::ImageElement>(
    x: &Array<T>,
    p: &[i64],
    r: usize,
) -> Result<Array<T>, String> {
    use cuprite_array::image::{AffineOpts, affine_transform_with};
    let (m, o) = geo_affine_parts(p, r);
    let opts = AffineOpts::new()
        .offset(&o)
        .order(p[0] as usize)
        .mode(geo_mode(p[1]));
    let row = |a: usize| -> [f64; 3] {
        [
            m[a][0],
            *m[a].get(1).unwrap_or(&0.0),
            *m[a].get(2).unwrap_or(&0.0),
        ]
    };
    match r {
        1 => affine_transform_with(x, &[[m[0][0]]], opts),
        2 => affine_transform_with(x, &[[m[0][0], m[0][1]], [m[1][0], m[1][1]]], opts),
        _ => affine_transform_with(x, &[row(0), row(1), row(2)], opts),
    }
    .map_err(api)
}

/// The binary morphology of a row's parameter: dilation, erosion, opening or closing, with the
/// structure of connectivity `p[1]`, `p[2]` iterations and border value `p[3]`.
fn binary_morph<T: cuprite_array::image::BinaryElement>(
    x: &Array<T>,
    p: &[i64],
) -> Result<Array<bool>, String> {
    use cuprite_array::image as im;
    let s = im::generate_binary_structure(x.ndim(), p[1] as usize).map_err(api)?;
    let o = im::BinaryOpts::new()
        .structure(s)
        .iterations(p[2] as usize)
        .border_value(p[3] != 0);
    match p[0] {
        0 => im::binary_dilation_with(x, o),
        1 => im::binary_erosion_with(x, o),
        2 => im::binary_opening_with(x, o),
        _ => im::binary_closing_with(x, o),
    }
    .map_err(api)
}

/// The grey morphology of a row's parameter: dilation, erosion, opening or closing over a box
/// of extent `p[1]` on each axis, mode `p[2]`.
fn grey_morph<T: cuprite_array::image::MorphElement>(
    x: &Array<T>,
    p: &[i64],
) -> Result<Array<T>, String> {
    use cuprite_array::image as im;
    let fp = im::Footprint::size(&vec![p[1] as usize; x.ndim()]).map_err(api)?;
    let o = im::MorphOpts::new().mode(img_mode(p[2]));
    match p[0] {
        0 => im::grey_dilation_with(x, &fp, o),
        1 => im::grey_erosion_with(x, &fp, o),
        2 => im::grey_opening_with(x, &fp, o),
        _ => im::grey_closing_with(x, &fp, o),
    }
    .map_err(api)
}

/// The names of [`grey_morph`]'s and [`binary_morph`]'s operations.
const MORPH_OPS: [&str; 4] = ["dilation", "erosion", "opening", "closing"];

static IMAGE: &[Row] = &[
    Row {
        name: "gaussian_filter",
        generate: |g, d, shape, depth| {
            let x = image_child(g, d, shape, depth)?;
            Some((vec![1 + g.s_below(4) as i64, g.s_below(5) as i64], vec![x]))
        },
        // Weights of sum 1 (all positive): the output within 1; each axis one pass of
        // 2 int(2 sigma + 0.5) + 1 taps.
        info: |p, c| {
            let k = (2 * ((4.0 * 0.5 * p[0] as f64 + 0.5) as usize) + 1) as f64;
            img_info(&c[0], c[0].shape.len(), k, 1.0)
        },
        eval: |p, c| {
            on!(one(c)?; [F16, F32, F64]; x => {
                let o = cuprite_array::image::GaussianOpts::new().boundary(img_mode(p[1]));
                cuprite_array::image::gaussian_filter_with(&x, &[0.5 * p[0] as f64], o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::image::gaussian_filter_with(&{}, &[{:?}], cuprite_array::image::GaussianOpts::new().boundary(cuprite_array::image::Boundary::{}))?",
                c[0],
                0.5 * p[0] as f64,
                img_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "uniform_filter",
        generate: |g, d, shape, depth| {
            let x = image_child(g, d, shape, depth)?;
            Some((vec![1 + g.s_below(7) as i64, g.s_below(5) as i64], vec![x]))
        },
        // Means of k values within 1: the output within 1.
        info: |p, c| img_info(&c[0], c[0].shape.len(), p[0] as f64, 1.0),
        eval: |p, c| {
            on!(one(c)?; [F16, F32, F64]; x => {
                let o = cuprite_array::image::FilterOpts::new().boundary(img_mode(p[1]));
                cuprite_array::image::uniform_filter_with(&x, &[p[0] as usize], o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::image::uniform_filter_with(&{}, &[{}], cuprite_array::image::FilterOpts::new().boundary(cuprite_array::image::Boundary::{}))?",
                c[0],
                p[0],
                img_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "sobel",
        generate: |g, d, shape, depth| {
            let x = image_child(g, d, shape, depth)?;
            let ax = g.s_below(shape.len() as u64) as i64;
            Some((vec![ax, g.s_below(5) as i64], vec![x]))
        },
        // The difference doubles the bound, each smoothing pass quadruples it.
        info: |_, c| {
            let r = c[0].shape.len();
            img_info(&c[0], r, 4.0, 2.0 * 4f64.powi(r as i32 - 1))
        },
        eval: |p, c| {
            on!(one(c)?; [F16, F32, F64]; x => {
                let o = cuprite_array::image::FilterOpts::new().boundary(img_mode(p[1]));
                cuprite_array::image::sobel_with(&x, p[0] as isize, o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::image::sobel_with(&{}, {}, cuprite_array::image::FilterOpts::new().boundary(cuprite_array::image::Boundary::{}))?",
                c[0],
                p[0],
                img_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "median_filter",
        generate: |g, d, shape, depth| {
            let ok =
                (1..=3).contains(&shape.len()) && shape.iter().all(|&n| (1..=256).contains(&n));
            if !ok
                || !matches!(
                    d,
                    DType::U8 | DType::U16 | DType::F16 | DType::F32 | DType::F64
                )
            {
                return None;
            }
            // Floats: a leaf of finite values (where NaNs fall in a window's order is left
            // open).
            let x = if d.is_float() {
                g.finite_leaf(d, shape)
            } else {
                g.node(d, shape, depth - 1)
            };
            Some((vec![1 + g.s_below(5) as i64, g.s_below(5) as i64], vec![x]))
        },
        // A selection moves values: exact, in the input's error.
        info: |_, c| c[0].clone(),
        eval: |p, c| {
            on!(one(c)?; [U8, U16, F16, F32, F64]; x => {
                let o = cuprite_array::image::FilterOpts::new()
                    .boundary(img_mode(p[1]))
                    .axes(if x.ndim() >= 2 { &[-2, -1] } else { &[-1] });
                let fp = cuprite_array::image::FilterWindow::size(&[p[0] as usize]);
                cuprite_array::image::median_filter_with(&x, &fp, o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::image::median_filter_with(&{0}, &cuprite_array::image::FilterWindow::size(&[{1}]), cuprite_array::image::FilterOpts::new().boundary(cuprite_array::image::Boundary::{2}).axes(if {0}.ndim() >= 2 {{ &[-2, -1] }} else {{ &[-1] }}))?",
                c[0],
                p[0],
                img_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "shift",
        generate: |g, d, shape, depth| {
            let x = image_child(g, d, shape, depth)?;
            // Shifts of odd eighths (three, one an axis of the image used): coordinates exact,
            // never halfway between two pixels.
            let mut p = vec![g.s_below(2) as i64, g.s_below(5) as i64];
            p.extend((0..3).map(|_| g.s_below(81) as i64 - 40));
            Some((p, vec![x]))
        },
        info: |p, c| geo_info(&c[0], p[0], c[0].shape.len()),
        eval: |p, c| {
            let r = out(p, 5).1.len();
            let s: Vec<f64> = p[2..2 + r]
                .iter()
                .map(|&q| (2 * q + 1) as f64 / 8.0)
                .collect();
            on!(one(c)?; [F16, F32, F64]; x => {
                let o = cuprite_array::image::InterpOpts::new().order(p[0] as usize).mode(img_mode(p[1]));
                cuprite_array::image::shift_with(&x, &s, o).map_err(api)?
            })
        },
        rust: |p, c| {
            let r = out(p, 5).1.len();
            let s: Vec<f64> = p[2..2 + r]
                .iter()
                .map(|&q| (2 * q + 1) as f64 / 8.0)
                .collect();
            format!(
                "cuprite_array::image::shift_with(&{}, &{s:?}, cuprite_array::image::InterpOpts::new().order({}).mode(cuprite_array::image::Boundary::{}))?",
                c[0],
                p[0],
                img_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "zoom",
        generate: |g, d, shape, depth| {
            // A child of extents at most the output's, zoomed by `n / m` onto `shape`.
            if !(1..=3).contains(&shape.len()) || shape.iter().any(|&n| !(1..=256).contains(&n)) {
                return None;
            }
            let cs: Vec<usize> = shape
                .iter()
                .map(|&n| 1 + g.s_below(n as u64) as usize)
                .collect();
            let x = image_child(g, d, &cs, depth)?;
            Some((vec![g.s_below(2) as i64, g.s_below(5) as i64], vec![x]))
        },
        info: |p, c| {
            let mut i = geo_info(&c[0], p[0], c[0].shape.len());
            i.shape = out(p, 2).1;
            i
        },
        eval: |p, c| {
            let n = out(p, 2).1;
            on!(one(c)?; [F16, F32, F64]; x => {
                let z: Vec<f64> = n.iter().zip(x.shape()).map(|(&n, &m)| n as f64 / m as f64).collect();
                let o = cuprite_array::image::ZoomOpts::new().order(p[0] as usize).mode(geo_mode(p[1]));
                cuprite_array::image::zoom_with(&x, &z, o).map_err(api)?
            })
        },
        rust: |p, c| {
            let n = out(p, 2).1;
            format!(
                "cuprite_array::image::zoom_with(&{0}, &{n:?}.iter().zip({0}.shape()).map(|(&n, &m)| n as f64 / m as f64).collect::<Vec<_>>(), cuprite_array::image::ZoomOpts::new().order({1}).mode(cuprite_array::image::Boundary::{2}))?",
                c[0],
                p[0],
                geo_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "rotate",
        generate: |g, d, shape, depth| {
            if shape.len() < 2 {
                return None;
            }
            let x = image_child(g, d, shape, depth)?;
            Some((vec![g.s_below(360) as i64, g.s_below(5) as i64], vec![x]))
        },
        // Order 1 in the plane of the last two axes.
        info: |_, c| geo_info(&c[0], 1, 2),
        eval: |p, c| {
            on!(one(c)?; [F16, F32, F64]; x => {
                let o = cuprite_array::image::RotateOpts::new()
                    .axes(-2, -1)
                    .reshape(false)
                    .order(1)
                    .mode(geo_mode(p[1]));
                cuprite_array::image::rotate_with(&x, p[0] as f64, o).map_err(api)?
            })
        },
        rust: |p, c| {
            format!(
                "cuprite_array::image::rotate_with(&{}, {:?}, cuprite_array::image::RotateOpts::new().axes(-2, -1).reshape(false).order(1).mode(cuprite_array::image::Boundary::{}))?",
                c[0],
                p[0] as f64,
                geo_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "affine_transform",
        generate: |g, d, shape, depth| {
            let x = image_child(g, d, shape, depth)?;
            let mut p = vec![g.s_below(2) as i64, g.s_below(5) as i64];
            // Entries in eighths: the diagonal 4 to 12 (a zoom of 1/2 to 3/2), the rest -4 to
            // 4; offsets -32 to 32 (4 pixels).
            for a in 0..3 {
                for b in 0..3 {
                    p.push(if a == b {
                        4 + g.s_below(9) as i64
                    } else {
                        g.s_below(9) as i64 - 4
                    });
                }
            }
            p.extend((0..3).map(|_| g.s_below(65) as i64 - 32));
            Some((p, vec![x]))
        },
        info: |p, c| geo_info(&c[0], p[0], c[0].shape.len()),
        eval: |p, c| on!(one(c)?; [F16, F32, F64]; x => { let r = x.ndim(); geo_affine(&x, p, r)? }),
        rust: |p, c| {
            let r = out(p, 14).1.len();
            let (m, o) = geo_affine_parts(p, r);
            let rows: Vec<String> = m.iter().map(|row| format!("{row:?}")).collect();
            format!(
                "cuprite_array::image::affine_transform_with(&{}, &[{}], cuprite_array::image::AffineOpts::new().offset(&{o:?}).order({}).mode(cuprite_array::image::Boundary::{}))?",
                c[0],
                rows.join(", "),
                p[0],
                geo_mode_rust(p[1])
            )
        },
    },
    Row {
        name: "grey_morphology",
        generate: |g, d, shape, depth| {
            let x = image_sel_child(g, d, shape, depth)?;
            Some((
                vec![
                    g.s_below(4) as i64,
                    1 + g.s_below(4) as i64,
                    g.s_below(5) as i64,
                ],
                vec![x],
            ))
        },
        // Minima and maxima move values: exact, in the input's error.
        info: |_, c| c[0].clone(),
        eval: |p, c| on!(one(c)?; [U8, U16, F16, F32, F64]; x => grey_morph(&x, p)?),
        rust: |p, c| {
            format!(
                "cuprite_array::image::grey_{}_with(&{1}, &cuprite_array::image::Footprint::size(&vec![{2}; {1}.ndim()])?, cuprite_array::image::MorphOpts::new().mode(cuprite_array::image::Boundary::{3}))?",
                MORPH_OPS[p[0] as usize % 4],
                c[0],
                p[1],
                img_mode_rust(p[2])
            )
        },
    },
    Row {
        name: "binary_morphology",
        generate: |g, d, shape, depth| {
            let ok =
                (1..=3).contains(&shape.len()) && shape.iter().all(|&n| (1..=256).contains(&n));
            if !ok || d != DType::Bool {
                return None;
            }
            let t = pick(g, &[DType::Bool, DType::U8]);
            let x = g.node(t, shape, depth - 1);
            let x = g.exact(x);
            let conn = 1 + g.s_below(shape.len() as u64) as i64;
            Some((
                vec![
                    g.s_below(4) as i64,
                    conn,
                    1 + g.s_below(2) as i64,
                    g.s_below(2) as i64,
                ],
                vec![x],
            ))
        },
        info: |_, c| info(DType::Bool, c[0].shape.clone(), 0.0, 0.0),
        eval: |p, c| on!(one(c)?; [Bool, U8]; x => binary_morph(&x, p)?),
        rust: |p, c| {
            format!(
                "cuprite_array::image::binary_{}_with(&{1}, cuprite_array::image::BinaryOpts::new().structure(cuprite_array::image::generate_binary_structure({1}.ndim(), {2})?).iterations({3}).border_value({4}))?",
                MORPH_OPS[p[0] as usize % 4],
                c[0],
                p[1],
                p[2],
                p[3] != 0
            )
        },
    },
];
