//! A fuzz program: a tree of array operations whose every node knows its dtype and shape, and
//! the error model ([`Info`]) that says how far the CUDA and CPU results of a node may lie
//! apart.
//!
//! The model: an operation that is correctly rounded on both backends (IEEE `+ - * /`, `sqrt`,
//! conversions, comparisons, movement, integer arithmetic) gives bit-identical results from
//! bit-identical inputs, so a node made only of those is *exact* (`err == 0`) and compared bit
//! for bit. Operations whose two implementations differ (transcendentals from two math
//! libraries, sums in a different order, a GPU `fma` contracting `a * b + c`) add an absolute
//! error bound of a few units in the last place of the node's magnitude bound `mag`, and every
//! consumer propagates its inputs' bounds through its derivative bound. Discontinuous
//! operations (rounding, comparisons, casts to integers, `argmax`, `fmod`...) are only ever
//! applied to exact inputs, so a difference of one ulp can never become a difference of one.

use super::arr::Arr;
use cuprite_array::DType;
use cuprite_array::ops::{BinaryOp, UnaryOp};

/// How a leaf's data is laid out before it becomes the leaf's value.
#[derive(Clone, Debug, PartialEq)]
pub enum View {
    /// A contiguous array of the leaf's shape.
    Contig,
    /// The transpose (all axes reversed) of a contiguous array of the reversed shape.
    Transposed,
    /// Every `step`-th element of the last axis of a larger array, from `offset`.
    Stepped {
        /// Distance between elements taken (≥ 1).
        step: usize,
        /// First element taken.
        offset: usize,
    },
    /// The last axis read backwards (a negative step) of a larger array, from `offset` from the
    /// end.
    Reversed {
        /// Elements skipped at the end of the larger array.
        offset: usize,
    },
    /// A contiguous array with extent 1 on the masked axes, broadcast to the leaf's shape.
    Broadcast(Vec<bool>),
}

/// Reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Red {
    /// `sum`.
    Sum,
    /// `prod`.
    Prod,
    /// `mean`.
    Mean,
    /// `min` (an error on an empty reduction).
    Min,
    /// `max` (an error on an empty reduction).
    Max,
    /// `argmin` (an error on an empty reduction).
    ArgMin,
    /// `argmax` (an error on an empty reduction).
    ArgMax,
    /// `any`.
    Any,
    /// `all`.
    All,
    /// The count of non-zero elements (`count`).
    Count,
    /// `var` with this many delta degrees of freedom.
    Var(usize),
    /// `std` with this many delta degrees of freedom.
    Std(usize),
    /// `nansum`.
    NanSum,
}

/// One axis of a slice: `Ok((start, end, step))` or `Err(index)` (see [`Move::Slice`]).
pub type SliceAxis = Result<(isize, Option<isize>, isize), isize>;

/// Movement operations (the result's dtype is the input's).
#[derive(Clone, Debug, PartialEq)]
pub enum Move {
    /// `reshape` to this shape.
    Reshape(Vec<usize>),
    /// `permute` by this axis order.
    Permute(Vec<usize>),
    /// `(start, end, step)` per axis (`None` end: to the end in the step's direction), or an
    /// index (`Err(i)`: the axis kept with extent 1).
    Slice(Vec<SliceAxis>),
    /// `broadcast_to` this shape.
    BroadcastTo(Vec<usize>),
    /// `flip` these axes.
    Flip(Vec<isize>),
    /// `pad` each axis by `(before, after)` with this value.
    Pad(Vec<(usize, usize)>, f64),
    /// `tile` by these repetitions.
    Tile(Vec<usize>),
    /// `roll` by `shift` along `axis`.
    Roll(isize, isize),
    /// `expand_dims` at this axis.
    ExpandDims(isize),
}

/// One node of a program.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Data from `seed` (values of `dtype`), laid out by `view`, of shape `shape`.
    Leaf {
        /// The element type.
        dtype: DType,
        /// The leaf's shape (of the view).
        shape: Vec<usize>,
        /// How the data is laid out.
        view: View,
        /// The seed of the values.
        seed: u64,
        /// Whether NaN and infinities may appear among float values.
        special: bool,
    },
    /// A rank-0 constant.
    Const(DType, f64),
    /// An element-wise unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// An element-wise binary operation (broadcasting).
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// A cast to this dtype.
    Cast(DType, Box<Expr>),
    /// `select(condition, if_true, if_false)`.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A reduction over `axes` (`None`: all axes), keeping reduced axes with extent 1 or not.
    Reduce(Red, Option<Vec<isize>>, bool, Box<Expr>),
    /// A movement operation.
    Move(Move, Box<Expr>),
    /// `concat` along this axis.
    Concat(isize, Vec<Expr>),
    /// `gather(axis, index)` with a 1-D index of `len` values from `seed` (of dtype `idx`).
    Gather(isize, DType, usize, u64, Box<Expr>),
    /// `cumsum` along this axis.
    Cumsum(isize, Box<Expr>),
    /// `matmul`.
    Matmul(Box<Expr>, Box<Expr>),
    /// `fft` (complex result of the same extent) or, with `true`, `rfft` of a real input.
    Fft(isize, bool, Box<Expr>),
    /// `softmax` along this axis.
    Softmax(isize, Box<Expr>),
    /// `sort` along this axis, descending with `true`.
    Sort(isize, bool, Box<Expr>),
    /// `argsort` (stable, ascending) along this axis: generated over exact values only, where
    /// the two backends' orders must agree index for index.
    ArgSort(isize, Box<Expr>),
    /// `cummax` along this axis.
    Cummax(isize, Box<Expr>),
    /// `logsumexp` along this axis, keeping it with extent 1 with `true`.
    LogSumExp(isize, bool, Box<Expr>),
    /// `log_softmax` along this axis.
    LogSoftmax(isize, Box<Expr>),
    /// An operation of a family table ([`super::families`]): the row's name, the node's dtype
    /// and shape, the row's parameters and the children.
    Op(&'static Row, DType, Vec<usize>, Vec<i64>, Vec<Expr>),
}

/// What a row's generator makes: the row's parameters and the node's children.
pub type Generated = (Vec<i64>, Vec<Expr>);

/// What a table row's generator may draw on (the program generator implements it): the two
/// random streams and subtrees of a given dtype and shape.
pub trait Draw {
    /// A value of `[0, n)` from the structure stream (0 for `n == 0`).
    fn s_below(&mut self, n: u64) -> u64;
    /// A value of `[0, n)` from the value stream (0 for `n == 0`).
    fn v_below(&mut self, n: u64) -> u64;
    /// 64 bits of the value stream.
    fn v_next(&mut self) -> u64;
    /// A subtree giving `d` and `shape`, at most `depth` levels deep.
    fn node(&mut self, d: DType, shape: &[usize], depth: u32) -> Expr;
    /// `e` when it is exact, else a leaf of its dtype and shape.
    fn exact(&mut self, e: Expr) -> Expr;
    /// A leaf of finite values.
    fn finite_leaf(&mut self, d: DType, shape: &[usize]) -> Expr;
    /// `x` clamped to `[lo, hi]`.
    fn clamped(&mut self, x: Expr, d: DType, lo: f64, hi: f64) -> Expr;
    /// A real float `x` scaled and clamped into `[-1, 1]`.
    fn unit(&mut self, x: Expr, d: DType) -> Expr;
    /// A real float `x` scaled and clamped into `[-16, 16]`.
    fn bounded16(&mut self, x: Expr, d: DType) -> Expr;
    /// A shape of `rank` axes.
    fn shape(&mut self, rank: usize) -> Vec<usize>;
    /// An extent (large ones with `big`).
    fn extent(&mut self, big: bool) -> usize;
}

/// One operation of a family.
pub struct Row {
    /// The operation's name (unique over all families).
    pub name: &'static str,
    /// A node giving `dtype` and `shape`: its parameters and children (`None`: not for these).
    pub generate: fn(&mut dyn Draw, DType, &[usize], u32) -> Option<Generated>,
    /// The node's dtype, shape and error model from its parameters and children's.
    pub info: fn(&[i64], &[Info]) -> Info,
    /// The node's value from its parameters and children's values.
    pub eval: fn(&[i64], Vec<Arr>) -> Result<Arr, String>,
    /// The call in a reproducer, from the parameters and the children's variable names.
    pub rust: fn(&[i64], &[String]) -> String,
}

/// A family of operations.
#[derive(Debug)]
pub struct Family {
    /// The family's name (as the counts print it).
    pub name: &'static str,
    /// Its operations.
    pub rows: &'static [Row],
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)
    }
}

impl PartialEq for Row {
    fn eq(&self, other: &Row) -> bool {
        self.name == other.name
    }
}

/// A row's parameters followed by the node's dtype (its index in [`DType::ALL`]) and shape:
/// what `info`, `eval` and `rust` are given.
pub fn params(own: &[i64], dtype: DType, shape: &[usize]) -> Vec<i64> {
    let di = DType::ALL.iter().position(|&x| x == dtype).unwrap_or(0) as i64;
    own.iter()
        .copied()
        .chain([di])
        .chain(shape.iter().map(|&n| n as i64))
        .collect()
}

/// What a node is: dtype, shape, and the error model.
#[derive(Clone, Debug)]
pub struct Info {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// Bound on the absolute difference between the backends' values (0: bit-identical).
    pub err: f64,
    /// Bound on the magnitude of the node's finite values (for floats and complex).
    pub mag: f64,
}

/// Machine epsilon of a float or complex dtype (of its parts); 0 for integers and `bool`.
pub fn eps(d: DType) -> f64 {
    match d {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 | DType::C32 => 2f64.powi(-23),
        DType::F64 | DType::C64 => 2f64.powi(-52),
        _ => 0.0,
    }
}

/// Magnitude above which an inexact value is not generated (so that no rounding difference
/// can overflow on one backend only).
pub fn mag_limit(d: DType) -> f64 {
    match d {
        DType::F16 => 4.0e3,
        DType::BF16 | DType::F32 | DType::C32 => 1.0e30,
        _ => 1.0e200,
    }
}

/// The largest magnitude of an integer or `bool` dtype.
pub fn int_max(d: DType) -> f64 {
    match d {
        DType::Bool => 1.0,
        DType::U8 => 255.0,
        DType::I8 => 128.0,
        DType::U16 => 65535.0,
        DType::I16 => 32768.0,
        DType::U32 => 4.3e9,
        DType::I32 => 2.2e9,
        _ => 1.9e19,
    }
}

/// Whether `d` is a float or complex dtype.
pub fn inexact_kind(d: DType) -> bool {
    d.is_float() || d.is_complex()
}

/// Units in the last place a math-library function may differ by between CUDA's libdevice and
/// the host's libm (the CUDA Programming Guide's table gives at most 4 for single precision
/// outside the gamma functions, up to 6 ulp for them; the host adds its own, and a half type
/// rounds the single-precision result once more).
fn ulps(op: UnaryOp) -> f64 {
    use UnaryOp::*;
    match op {
        Lgamma | Tgamma => 64.0,
        Tan | Erfc | Sinh | Cosh | Expm1 | Acosh | Asinh | Atanh => 16.0,
        _ => 8.0,
    }
}

/// The derivative bound of a guarded transcendental on its (guarded) input of magnitude `m`.
fn slope(op: UnaryOp, m: f64) -> f64 {
    use UnaryOp::*;
    match op {
        Exp | Exp2 | Expm1 | Sinh | Cosh | I0 => 1.0 + m.exp2().max(m.exp()),
        Tan => 8.0,
        Lgamma | Tgamma => 64.0 * (1.0 + m.exp2()),
        Sqrt | Rsqrt | Cbrt | Log | Log2 | Log10 | Log1p | Acosh => 1.5,
        Asin | Acos | Atanh => 2.0,
        _ => 1.2,
    }
}

/// Reduced axes of `shape` as `usize` (all for `None`).
pub fn axes_of(axes: &Option<Vec<isize>>, rank: usize) -> Vec<usize> {
    match axes {
        None => (0..rank).collect(),
        Some(v) => v
            .iter()
            .map(|&a| {
                if a < 0 {
                    (a + rank as isize) as usize
                } else {
                    a as usize
                }
            })
            .collect(),
    }
}

fn norm_axis(a: isize, rank: usize) -> usize {
    if a < 0 {
        (a + rank as isize) as usize
    } else {
        a as usize
    }
}

/// The dtype a reduction gives for an input of dtype `d`.
pub fn red_dtype(r: Red, d: DType) -> DType {
    match r {
        Red::Sum | Red::Prod => accum(d),
        Red::Mean | Red::Var(_) | Red::Std(_) => {
            if d.is_int() || d == DType::Bool {
                DType::F64
            } else {
                d
            }
        }
        Red::ArgMin | Red::ArgMax | Red::Count => DType::I64,
        Red::Any | Red::All => DType::Bool,
        _ => d,
    }
}

/// `Element::Accum` of a dtype.
pub fn accum(d: DType) -> DType {
    match d {
        DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 => DType::I64,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => DType::U64,
        d => d,
    }
}

/// The real dtype of a complex one (and the complex dtype of a real one for `complex_of`).
pub fn complex_of(d: DType) -> DType {
    match d {
        DType::F64 | DType::C64 => DType::C64,
        _ => DType::C32,
    }
}

impl Expr {
    /// The node's dtype, shape and error bounds.
    pub fn info(&self) -> Info {
        match self {
            Expr::Op(r, d, shape, p, kids) => {
                let infos: Vec<Info> = kids.iter().map(|k| k.info()).collect();
                (r.info)(&params(p, *d, shape), &infos)
            }
            Expr::Leaf {
                dtype,
                shape,
                special: _,
                ..
            } => Info {
                dtype: *dtype,
                shape: shape.clone(),
                err: 0.0,
                mag: if inexact_kind(*dtype) { 16.0 } else { 0.0 },
            },
            Expr::Const(d, v) => Info {
                dtype: *d,
                shape: vec![],
                err: 0.0,
                mag: v.abs(),
            },
            Expr::Unary(op, a) => unary_info(*op, a.info()),
            Expr::Binary(op, a, b) => binary_info(*op, a, b),
            Expr::Cast(d, a) => {
                let i = a.info();
                let err = if i.err > 0.0 {
                    i.err + eps(*d) * i.mag
                } else {
                    0.0
                };
                let mag = if inexact_kind(i.dtype) {
                    i.mag
                } else {
                    int_max(i.dtype)
                };
                Info {
                    dtype: *d,
                    shape: i.shape,
                    err,
                    mag,
                }
            }
            Expr::Select(_, a, b) => {
                let (a, b) = (a.info(), b.info());
                Info {
                    dtype: a.dtype,
                    shape: broadcast(&broadcast(&a.shape, &b.shape), &[]),
                    err: a.err.max(b.err),
                    mag: a.mag.max(b.mag),
                }
                .with_shape_of(self)
            }
            Expr::Reduce(r, axes, keep, a) => {
                let mut i = a.info();
                if !inexact_kind(i.dtype) {
                    i.mag = int_max(i.dtype);
                }
                let rank = i.shape.len();
                let ax = axes_of(axes, rank);
                let n: f64 = ax.iter().map(|&k| i.shape[k] as f64).product();
                let mut shape = Vec::new();
                for (k, &e) in i.shape.iter().enumerate() {
                    if !ax.contains(&k) {
                        shape.push(e);
                    } else if *keep {
                        shape.push(1);
                    }
                }
                let d = red_dtype(*r, i.dtype);
                let e = eps(d).max(eps(i.dtype));
                let (err, mag) = match r {
                    Red::Sum | Red::NanSum | Red::Mean => {
                        let mag = if *r == Red::Mean { i.mag } else { n * i.mag };
                        let err = if inexact_kind(d) {
                            i.err * n.max(1.0) + 2.0 * (n + 1.0) * e * n.max(1.0) * i.mag
                        } else {
                            0.0
                        };
                        (err, mag)
                    }
                    Red::Prod => {
                        // A complex factor's modulus is up to √2 times its components' bound, and
                        // each complex product rounds up to √5 units (Brent, Percival, Zimmermann).
                        let (grow, units) = if d.is_complex() {
                            (std::f64::consts::SQRT_2, 3.0)
                        } else {
                            (1.0, 1.0)
                        };
                        let mag = (i.mag * grow).max(1.0).powf(n);
                        let err = if inexact_kind(d) {
                            (i.err * grow * n + 2.0 * units * (n + 1.0) * e) * mag
                        } else {
                            0.0
                        };
                        (err, mag)
                    }
                    Red::Var(_) | Red::Std(_) => {
                        let mag = 4.0 * i.mag * i.mag;
                        let err = 4.0 * i.mag * i.err * n.max(1.0)
                            + 4.0 * (n + 1.0) * e * mag * n.max(1.0);
                        if matches!(r, Red::Std(_)) {
                            (err.sqrt() * 2.0 + err, 2.0 * i.mag)
                        } else {
                            (err, mag)
                        }
                    }
                    Red::Min | Red::Max => (i.err, i.mag),
                    _ => (0.0, 0.0),
                };
                Info {
                    dtype: d,
                    shape,
                    err,
                    mag,
                }
            }
            Expr::Move(m, a) => {
                let i = a.info();
                let shape = move_shape(m, &i.shape);
                let mag = match m {
                    Move::Pad(_, v) => i.mag.max(v.abs()),
                    _ => i.mag,
                };
                Info { shape, mag, ..i }
            }
            Expr::Concat(ax, parts) => {
                let infos: Vec<Info> = parts.iter().map(|p| p.info()).collect();
                let mut shape = infos[0].shape.clone();
                let a = norm_axis(*ax, shape.len());
                shape[a] = infos.iter().map(|i| i.shape[a]).sum();
                Info {
                    dtype: infos[0].dtype,
                    shape,
                    err: infos.iter().map(|i| i.err).fold(0.0, f64::max),
                    mag: infos.iter().map(|i| i.mag).fold(0.0, f64::max),
                }
            }
            Expr::Gather(ax, _, len, _, a) => {
                let mut i = a.info();
                let k = norm_axis(*ax, i.shape.len());
                i.shape[k] = *len;
                i
            }
            Expr::Cumsum(ax, a) => {
                let i = a.info();
                let n = i.shape[norm_axis(*ax, i.shape.len())] as f64;
                let d = accum(i.dtype);
                let err = if inexact_kind(d) {
                    i.err * n + 2.0 * (n + 1.0) * eps(d) * n * i.mag
                } else {
                    0.0
                };
                Info {
                    dtype: d,
                    shape: i.shape,
                    err,
                    mag: n * i.mag,
                }
            }
            Expr::Matmul(a, b) => {
                let (a, b) = (a.info(), b.info());
                let k = a.shape[a.shape.len() - 1] as f64;
                let mut shape =
                    broadcast(&a.shape[..a.shape.len() - 2], &b.shape[..b.shape.len() - 2]);
                shape.push(a.shape[a.shape.len() - 2]);
                shape.push(b.shape[b.shape.len() - 1]);
                let mag = k * a.mag * b.mag;
                // Half types accumulate in f32; the result rounds once to the half type.
                let e = eps(a.dtype).min(eps(DType::F32)).max(eps(DType::F64));
                let err = k * (a.err * b.mag + b.err * a.mag)
                    + 4.0 * (k + 2.0) * e.max(eps(a.dtype) / 8.0) * k * a.mag * b.mag
                    + 2.0 * eps(a.dtype) * mag;
                Info {
                    dtype: a.dtype,
                    shape,
                    err,
                    mag,
                }
            }
            Expr::Fft(ax, real, a) => {
                let i = a.info();
                let k = norm_axis(*ax, i.shape.len());
                let n = i.shape[k] as f64;
                let mut shape = i.shape.clone();
                if *real {
                    shape[k] = i.shape[k] / 2 + 1;
                }
                let d = complex_of(i.dtype);
                let mag = n * i.mag * 1.5;
                Info {
                    dtype: d,
                    shape,
                    err: i.err * n * 1.5 + 8.0 * (n.log2().max(1.0) + 2.0) * eps(d) * mag,
                    mag,
                }
            }
            Expr::Softmax(_, a) => {
                let i = a.info();
                Info {
                    dtype: i.dtype,
                    shape: i.shape,
                    err: 2.0 * i.err + 16.0 * eps(i.dtype),
                    mag: 1.0,
                }
            }
            // Sorting moves values: each output is within the inputs' error of the value at
            // its rank (sorting is 1-Lipschitz in the largest difference).
            Expr::Sort(_, _, a) => a.info(),
            Expr::ArgSort(_, a) => Info {
                dtype: DType::I64,
                err: 0.0,
                mag: 0.0,
                ..a.info()
            },
            // x − logsumexp(x) along the axis: twice the inputs' error, and the logsumexp's.
            Expr::LogSoftmax(ax, a) => {
                let i = a.info();
                let n = i.shape[norm_axis(*ax, i.shape.len())].max(1) as f64;
                let mag = 2.0 * i.mag + n.ln();
                Info {
                    dtype: i.dtype,
                    shape: i.shape,
                    err: 2.0 * i.err + 8.0 * (n.log2() + 2.0) * eps(i.dtype) * (mag + 1.0),
                    mag,
                }
            }
            // A running maximum moves values too (1-Lipschitz in the largest difference).
            Expr::Cummax(_, a) => a.info(),
            // max + log Σ exp(x − max): 1-Lipschitz in the inputs; the sum of n terms in [0, 1]
            // and the exp and log each round (half types accumulate in f32 and round once).
            Expr::LogSumExp(ax, keep, a) => {
                let i = a.info();
                let k = norm_axis(*ax, i.shape.len());
                let n = i.shape[k].max(1) as f64;
                let mut shape = i.shape.clone();
                if *keep {
                    shape[k] = 1;
                } else {
                    shape.remove(k);
                }
                let mag = i.mag + n.ln();
                Info {
                    dtype: i.dtype,
                    shape,
                    err: i.err + 8.0 * (n.log2() + 2.0) * eps(i.dtype) * (mag + 1.0),
                    mag,
                }
            }
        }
    }

    /// The node's children, in order.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Leaf { .. } | Expr::Const(..) => vec![],
            Expr::Unary(_, a)
            | Expr::Cast(_, a)
            | Expr::Reduce(_, _, _, a)
            | Expr::Move(_, a)
            | Expr::Gather(_, _, _, _, a)
            | Expr::Cumsum(_, a)
            | Expr::Fft(_, _, a)
            | Expr::Softmax(_, a)
            | Expr::Sort(_, _, a)
            | Expr::ArgSort(_, a)
            | Expr::Cummax(_, a)
            | Expr::LogSumExp(_, _, a)
            | Expr::LogSoftmax(_, a) => vec![a],
            Expr::Binary(_, a, b) | Expr::Matmul(a, b) => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
            Expr::Concat(_, v) | Expr::Op(.., v) => v.iter().collect(),
        }
    }

    /// Mutable children, in the order of [`Expr::children`].
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Leaf { .. } | Expr::Const(..) => vec![],
            Expr::Unary(_, a)
            | Expr::Cast(_, a)
            | Expr::Reduce(_, _, _, a)
            | Expr::Move(_, a)
            | Expr::Gather(_, _, _, _, a)
            | Expr::Cumsum(_, a)
            | Expr::Fft(_, _, a)
            | Expr::Softmax(_, a)
            | Expr::Sort(_, _, a)
            | Expr::ArgSort(_, a)
            | Expr::Cummax(_, a)
            | Expr::LogSumExp(_, _, a)
            | Expr::LogSoftmax(_, a) => vec![a],
            Expr::Binary(_, a, b) | Expr::Matmul(a, b) => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
            Expr::Concat(_, v) | Expr::Op(.., v) => v.iter_mut().collect(),
        }
    }

    /// Number of nodes.
    pub fn size(&self) -> usize {
        1 + self.children().iter().map(|c| c.size()).sum::<usize>()
    }

    /// Structural fingerprint (operations and dtypes, not shapes or data): programs with the
    /// same fingerprint mostly share their kernels.
    pub fn fingerprint(&self, out: &mut String) {
        use std::fmt::Write;
        match self {
            Expr::Leaf { dtype, view, .. } => {
                let _ = write!(
                    out,
                    "L{dtype:?}{}",
                    std::mem::discriminant(view) == std::mem::discriminant(&View::Contig)
                );
            }
            Expr::Const(d, _) => {
                let _ = write!(out, "K{d:?}");
            }
            Expr::Unary(o, _) => {
                let _ = write!(out, "U{o:?}");
            }
            Expr::Binary(o, _, _) => {
                let _ = write!(out, "B{o:?}");
            }
            Expr::Cast(d, _) => {
                let _ = write!(out, "C{d:?}");
            }
            Expr::Reduce(r, _, _, _) => {
                let _ = write!(out, "R{r:?}");
            }
            Expr::Move(m, _) => {
                let _ = write!(out, "M{:?}", std::mem::discriminant(m));
            }
            Expr::Op(r, d, ..) => {
                let _ = write!(out, "O{}{d:?}", r.name);
            }
            other => {
                let _ = write!(out, "{:?}", std::mem::discriminant(other));
            }
        }
        out.push('(');
        for c in self.children() {
            c.fingerprint(out);
        }
        out.push(')');
    }
}

impl Info {
    fn with_shape_of(mut self, e: &Expr) -> Info {
        if let Expr::Select(c, a, b) = e {
            self.shape = broadcast(
                &broadcast(&c.info().shape, &a.info().shape),
                &b.info().shape,
            );
        }
        self
    }
}

/// NumPy broadcasting of two shapes known to be compatible.
pub fn broadcast(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let y = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            if x == 1 { y } else { x }
        })
        .collect()
}

/// The shape a movement gives.
pub fn move_shape(m: &Move, s: &[usize]) -> Vec<usize> {
    match m {
        Move::Reshape(t) | Move::BroadcastTo(t) => t.clone(),
        Move::Permute(p) => p.iter().map(|&k| s[k]).collect(),
        Move::Slice(args) => args
            .iter()
            .zip(s)
            .map(|(a, &n)| match a {
                Err(_) => 1,
                Ok((start, end, step)) => slice_len(n, *start, *end, *step),
            })
            .collect(),
        Move::Flip(_) | Move::Roll(..) => s.to_vec(),
        Move::Pad(w, _) => s.iter().zip(w).map(|(&n, &(a, b))| n + a + b).collect(),
        Move::Tile(r) => s.iter().zip(r).map(|(&n, &k)| n * k).collect(),
        Move::ExpandDims(a) => {
            let mut t = s.to_vec();
            t.insert(norm_axis(*a, s.len() + 1), 1);
            t
        }
    }
}

/// Number of elements `start..end;step` selects from an axis of extent `n` (non-negative
/// `start` within the axis, as the generator makes them).
pub fn slice_len(n: usize, start: isize, end: Option<isize>, step: isize) -> usize {
    let n = n as isize;
    if step > 0 {
        let end = end.unwrap_or(n).min(n);
        if end <= start {
            0
        } else {
            ((end - start + step - 1) / step) as usize
        }
    } else {
        let end = end.unwrap_or(-1);
        if start <= end {
            0
        } else {
            ((start - end + (-step) - 1) / (-step)) as usize
        }
    }
}

fn unary_info(op: UnaryOp, i: Info) -> Info {
    use UnaryOp::*;
    let exact = matches!(
        op,
        Neg | Sign
            | Floor
            | Ceil
            | Round
            | Trunc
            | Not
            | BitNot
            | Real
            | Imag
            | Conj
            | IsNan
            | IsInf
            | IsFinite
            | FrexpMant
            | FrexpExp
            | ModfFrac
            | BitCount
            | SignBit
    ) || (matches!(op, Sqrt | Abs) && !i.dtype.is_complex());
    let dtype = op.result(i.dtype).unwrap_or(i.dtype);
    if !inexact_kind(dtype) {
        return Info {
            dtype,
            err: 0.0,
            mag: 0.0,
            ..i
        };
    }
    let m = i.mag;
    let mag = match op {
        Sign | Tanh | Sin | Cos | Erf | Sigmoid => 1.0,
        Erfc | Asin | Acos | Atan | Arg => 4.0,
        Exp | Expm1 | Sinh | Cosh => m.exp() + 1.0,
        Exp2 => m.exp2() + 1.0,
        // I0(x) <= e^|x|; a mantissa or a fractional part is below 1.
        I0 => m.exp() + 1.0,
        FrexpMant | ModfFrac => 1.0,
        Tan => 8.0,
        Lgamma => 8.0 + m * m.max(1.0).ln() * 2.0,
        Tgamma => {
            if m <= 7.0 {
                800.0
            } else {
                f64::INFINITY
            }
        }
        Rsqrt => 1.0 + m.max(1.0),
        _ => m + 1.0,
    };
    let own = if exact {
        0.0
    } else {
        ulps(op) * eps(dtype) * mag.max(1.0)
    };
    let err = if i.err > 0.0 {
        if exact {
            i.err
        } else {
            slope(op, m) * i.err + own
        }
    } else {
        own
    };
    // A half type rounds the single-precision value once more: one unit of its own.
    let err = if err > 0.0 && matches!(dtype, DType::F16 | DType::BF16) {
        err + eps(dtype) * mag
    } else {
        err
    };
    Info {
        dtype,
        err,
        mag,
        ..i
    }
}

fn binary_info(op: BinaryOp, a: &Expr, b: &Expr) -> Info {
    use BinaryOp::*;
    let (ia, ib) = (a.info(), b.info());
    let shape = broadcast(&ia.shape, &ib.shape);
    let dtype = op.result(ia.dtype).unwrap_or(ia.dtype);
    if !inexact_kind(dtype) {
        return Info {
            dtype,
            shape,
            err: 0.0,
            mag: 0.0,
        };
    }
    let (ea, eb, ma, mb) = (ia.err, ib.err, ia.mag, ib.mag);
    let e = eps(dtype);
    let is_mul = |x: &Expr| matches!(x, Expr::Binary(Mul, ..));
    // A GPU build contracts `a * b + c` into one fma: one rounding less than the CPU.
    let fma = |x: &Expr, y: &Expr| {
        let (p, q) = if is_mul(x) { (x, y) } else { (y, x) };
        if is_mul(p) {
            let ip = p.info();
            let iq = q.info();
            2.0 * e * (ip.mag + iq.mag)
        } else {
            0.0
        }
    };
    let (err, mag) = match op {
        Add | Sub => (ea + eb + fma(a, b), ma + mb),
        // A complex product is not correctly rounded (`re = a.re b.re - a.im b.im`, each
        // product rounded, and a GPU build may contract one of them into an fma): up to two
        // units of each of the two products per part.
        Mul if dtype.is_complex() => (ea * mb + eb * ma + ea * eb + 4.0 * e * ma * mb, ma * mb),
        Mul => (ea * mb + eb * ma + ea * eb, ma * mb),
        Div => {
            // Generated as a / (|b| + 1) when an operand is inexact, so |b| ≥ 1 there.
            let guarded = matches!(b, Expr::Binary(Add, g, k)
                if matches!(**g, Expr::Unary(UnaryOp::Abs, _))
                    && matches!(**k, Expr::Const(_, v) if v >= 1.0));
            let err = if ea + eb > 0.0 {
                ea + eb * ma + 2.0 * e * ma
            } else {
                0.0
            };
            (err, if guarded { ma } else { f64::INFINITY })
        }
        Max if matches!(a, Expr::Binary(Min, _, k) if matches!(**k, Expr::Const(..)))
            && matches!(b, Expr::Const(..)) =>
        {
            // clamp(x, lo, hi) = max(min(x, hi), lo).
            (ea.max(eb), mb.max(a.children()[1].info().mag))
        }
        Min | Max => (ea.max(eb), ma.max(mb)),
        // fmod is exact; the remainder adds the divisor once (one correctly rounded add).
        Fmod => (0.0, ma),
        Rem => (0.0, ma.max(mb)),
        Pow => {
            // Out of the model (a shrunk program may come here; the generator does not): a
            // base near zero to a negative power has no bound, so the base must be clamped
            // away from zero (the generator clamps it to [0.25, 4]); and inexact operands make
            // the result jump at pow's special cases (pow(NaN, 0) = 1, pow(NaN, 1e-9) = NaN).
            let lo = match a {
                Expr::Binary(Max, _, k) => match **k {
                    Expr::Const(_, v) if v > 0.0 => v,
                    _ => 0.0,
                },
                _ => 0.0,
            };
            if lo <= 0.0 || ea + eb > 0.0 {
                return Info {
                    dtype,
                    shape,
                    err: f64::INFINITY,
                    mag: f64::INFINITY,
                };
            }
            // Exact operands: only pow's own rounding (CUDA's powf is within a few ulp).
            let mag = ma.max(1.0).powf(mb).max(lo.recip().powf(mb));
            (16.0 * e * mag, mag)
        }
        Atan2 => (2.0 * (ea + eb) + 8.0 * e * 4.0, 4.0),
        Hypot => (ea + eb + 8.0 * e * (ma + mb), ma + mb),
        // Generated with a whole exponent in [-8, 8] and exact operands (ldexp), a finite
        // first operand (nextafter), an exact sign operand (copysign): each exact but for the
        // scaled input error.
        Ldexp => (ea * 256.0, ma * 256.0),
        Nextafter => (ea, ma),
        Copysign => (ea, ma),
        _ => (0.0, 0.0),
    };
    // Inputs that differ round to results one more unit apart; a half type rounds once more.
    let err = if err > 0.0 { err + 2.0 * e * mag } else { err };
    Info {
        dtype,
        shape,
        err,
        mag,
    }
}
