//! The program generator: random trees over every dtype, top-down from a dtype and a shape.
//!
//! Two random streams: the *structure* stream picks operations, dtypes and ranks, the *value*
//! stream picks extents, data seeds, slice bounds and shifts. Programs that share a structure
//! seed mostly share their kernels (extents are kernel parameters), so a run of many programs
//! over a few hundred structure seeds compiles a few hundred kernels, not one per program.
//!
//! Every node keeps to the rules of [`super::expr`]: discontinuous operations get exact
//! inputs, domain-sensitive functions get guarded inputs (`log(|x| + 1)`, `exp(clamp(x))`,
//! `asin(tanh(x) * 0.75)`...), and an inexact node's error bound stays below 1% of its
//! magnitude bound, which stays below [`super::expr::mag_limit`].

use super::expr::{
    Draw, Expr, Info, Move, Red, View, accum, complex_of, eps, inexact_kind, mag_limit,
};
use super::rng::Rng;
use cuprite_array::DType;
use cuprite_array::ops::{BinaryOp, UnaryOp};

const ALL: [DType; 15] = DType::ALL;
const FLOATS: [DType; 4] = [DType::F16, DType::BF16, DType::F32, DType::F64];

/// Largest element count of any node's array: large enough for the multi-block, grid-stride
/// and vectorised paths. Extents are drawn so that most programs stay small (see
/// [`Gen::extent`]): one extent in 400 of a shape of rank 2 or less is `2^12..=2^22`.
const MAX_NUMEL: usize = 1 << 22;

/// A program generator.
#[derive(Debug)]
pub struct Gen {
    /// The structure stream.
    pub(super) s: Rng,
    /// The value stream.
    pub(super) v: Rng,
    nodes: usize,
}

fn c(d: DType, v: f64) -> Expr {
    Expr::Const(d, v)
}
fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}
fn un(op: UnaryOp, a: Expr) -> Expr {
    Expr::Unary(op, Box::new(a))
}
fn clamp(x: Expr, d: DType, lo: f64, hi: f64) -> Expr {
    bin(BinaryOp::Max, bin(BinaryOp::Min, x, c(d, hi)), c(d, lo))
}

fn numel(s: &[usize]) -> usize {
    s.iter().fold(1usize, |a, &b| a.saturating_mul(b))
}

/// Whether a node's error model is usable: exact, or inexact with a finite bound under 1% of
/// a magnitude bound that stays in range.
pub fn sound(i: &Info) -> bool {
    if i.err == 0.0 {
        return true;
    }
    let lim = mag_limit(i.dtype);
    i.err.is_finite() && i.mag < lim && i.err <= 1e-2 * i.mag.max(1.0) && i.err < lim
}

impl Gen {
    /// A generator for one program: `structure` picks the operations, `values` the extents and
    /// data.
    pub fn new(structure: u64, values: u64) -> Gen {
        Gen {
            s: Rng::new(structure),
            v: Rng::new(values.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5bd1_e995),
            nodes: 0,
        }
    }

    /// A whole program.
    pub fn program(&mut self) -> Expr {
        let d = *self.s.pick(&ALL);
        let rank = self.s.below(5) as usize;
        let shape = self.shape(rank);
        let depth = 3 + self.s.below(4) as u32;
        self.node(d, &shape, depth)
    }

    /// An extent: mostly 1 to 16, one in 20 zero, and with `big` one in 20 of 100 to 3100 and
    /// one in 400 a power of two of `2^12..=2^22`.
    pub(super) fn extent(&mut self, big: bool) -> usize {
        match self.v.below(400) {
            0..=19 => 0,
            20..=279 => 1 + self.v.below(6) as usize,
            280..=359 => 7 + self.v.below(10) as usize,
            399 if big => 1 << (12 + self.v.below(11)),
            _ if big => 100 + self.v.below(3000) as usize,
            _ => 1,
        }
    }

    /// A shape of `rank` axes of at most [`MAX_NUMEL`] elements.
    pub(super) fn shape(&mut self, rank: usize) -> Vec<usize> {
        let mut s: Vec<usize> = (0..rank).map(|_| self.extent(rank <= 2)).collect();
        while numel(&s) > MAX_NUMEL {
            let k = (0..rank).max_by_key(|&k| s[k]).unwrap_or(0);
            s[k] /= 2;
        }
        s
    }

    fn leaf(&mut self, d: DType, shape: &[usize]) -> Expr {
        self.nodes += 1;
        let rank = shape.len();
        let view = if rank == 0 {
            View::Contig
        } else {
            match self.s.below(6) {
                0 | 1 => View::Contig,
                2 if rank >= 2 => View::Transposed,
                2 | 3 => View::Stepped {
                    step: 2 + self.v.below(2) as usize,
                    offset: self.v.below(3) as usize,
                },
                4 => View::Reversed {
                    offset: self.v.below(3) as usize,
                },
                _ => View::Broadcast(shape.iter().map(|_| self.s.chance(0.4)).collect()),
            }
        };
        Expr::Leaf {
            dtype: d,
            shape: shape.to_vec(),
            view,
            seed: self.v.next_u64(),
            special: inexact_kind(d) && self.v.chance(0.15),
        }
    }

    /// A leaf of finite values (no NaN or infinity), for operations whose NaN propagation
    /// depends on the algorithm (a factorisation's pivots).
    pub(super) fn finite_leaf(&mut self, d: DType, shape: &[usize]) -> Expr {
        match self.leaf(d, shape) {
            Expr::Leaf {
                dtype,
                shape,
                view,
                seed,
                ..
            } => Expr::Leaf {
                dtype,
                shape,
                view,
                seed,
                special: false,
            },
            other => other,
        }
    }

    /// An exact subtree: `e` itself when it is exact, else a leaf in its place.
    pub(super) fn exact(&mut self, e: Expr) -> Expr {
        let i = e.info();
        if i.err == 0.0 {
            e
        } else {
            self.leaf(i.dtype, &i.shape)
        }
    }

    /// A shape that broadcasts to `shape` (some axes 1, maybe fewer leading axes).
    fn broadcastable(&mut self, shape: &[usize]) -> Vec<usize> {
        let mut s: Vec<usize> = shape
            .iter()
            .map(|&n| if self.s.chance(0.3) { 1 } else { n })
            .collect();
        let drop = self.s.below(s.len() as u64 + 1) as usize;
        if self.s.chance(0.3) && s[..drop].iter().all(|&x| x == 1) {
            s.drain(..drop);
        }
        s
    }

    /// A subtree giving `d` and `shape`, at most `depth` levels deep.
    pub(super) fn node(&mut self, d: DType, shape: &[usize], depth: u32) -> Expr {
        if depth == 0 || self.nodes > 28 || self.s.chance(0.15) {
            return self.leaf(d, shape);
        }
        for _ in 0..6 {
            let k = self.s.below(42);
            let e = match k {
                34..=41 => self.table_op(d, shape, depth),
                0..=5 => self.unary(d, shape, depth),
                6..=11 => self.binary(d, shape, depth),
                12..=13 => self.cast(d, shape, depth),
                14 => self.select(d, shape, depth),
                15..=17 => self.reduce(d, shape, depth),
                18..=22 => self.movement(d, shape, depth),
                23 => self.concat(d, shape, depth),
                24 => self.gather(d, shape, depth),
                25 => self.cumsum(d, shape, depth),
                26 => self.matmul(d, shape, depth),
                27 => self.fft(d, shape, depth),
                28 => self.softmax(d, shape, depth),
                29 => self.sort(d, shape, depth),
                30 => self.argsort(d, shape, depth),
                31 => self.cummax(d, shape, depth),
                32 => self.logsumexp(d, shape, depth),
                _ => self.compare(d, shape, depth),
            };
            if let Some(e) = e {
                let i = e.info();
                if i.dtype == d && i.shape == shape && sound(&i) {
                    self.nodes += 1;
                    return e;
                }
            }
        }
        self.leaf(d, shape)
    }

    /// An operation of a family table: a family, then one of its rows.
    fn table_op(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        let fam = self.s.pick(super::families::FAMILIES);
        let row = self.s.pick(fam.rows);
        let (params, kids) = (row.generate)(self, d, shape, depth)?;
        Some(Expr::Op(row, d, shape.to_vec(), params, kids))
    }

    fn unary(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        use UnaryOp::*;
        let sub = depth - 1;
        if d == DType::Bool {
            return Some(match self.s.below(2) {
                0 => un(Not, self.node(d, shape, sub)),
                _ => {
                    let f = *self.s.pick(&FLOATS);
                    let op = *self.s.pick(&[IsNan, IsInf, IsFinite, SignBit]);
                    let x = self.node(f, shape, sub);
                    un(op, self.exact(x))
                }
            });
        }
        if d.is_int() {
            let signed = matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64);
            let ops = same_type_unary(d);
            let op = *self.s.pick(&ops);
            if op == Neg && !signed {
                return None;
            }
            return Some(un(op, self.node(d, shape, sub)));
        }
        if d.is_complex() {
            let x = self.node(d, shape, sub);
            return Some(match self.s.below(4) {
                0 => un(Neg, x),
                1 => un(Conj, x),
                2 => un(Exp, clamp_complex(x, d)),
                _ => un(Sqrt, self.exact(x)),
            });
        }
        // Real floats.
        if self.s.chance(0.15) {
            let cd = complex_of(d);
            if cd.real() != d {
                return None;
            }
            let x = self.node(cd, shape, sub);
            return Some(match self.s.below(4) {
                0 => un(Real, x),
                1 => un(Imag, x),
                2 => un(Abs, x),
                _ => un(Arg, self.exact(x)),
            });
        }
        let ops = same_type_unary(d);
        let op = *self.s.pick(&ops);
        let x = self.node(d, shape, sub);
        let x = match op {
            Sign | Floor | Ceil | Round | Trunc | FrexpMant | ModfFrac => self.exact(x),
            Exp | Exp2 | Expm1 | Sinh | Cosh | I0 => clamp(x, d, -8.0, 8.0),
            // Away from zero, where the slopes the error model takes hold (cbrt's is unbounded
            // at zero).
            Sqrt | Rsqrt | Cbrt | Log | Log2 | Log10 => bin(BinaryOp::Add, un(Abs, x), c(d, 1.0)),
            Acosh => bin(BinaryOp::Add, un(Abs, x), c(d, 1.5)),
            Log1p => un(Abs, x),
            Asin | Acos | Atanh => bin(BinaryOp::Mul, un(Tanh, x), c(d, 0.75)),
            Tan => clamp(x, d, -1.2, 1.2),
            Lgamma | Tgamma => clamp(x, d, 0.5, 6.5),
            _ => x,
        };
        Some(un(op, x))
    }

    fn two_shapes(&mut self, shape: &[usize]) -> (Vec<usize>, Vec<usize>) {
        if self.s.chance(0.5) {
            (shape.to_vec(), shape.to_vec())
        } else if self.s.chance(0.5) {
            (shape.to_vec(), self.broadcastable(shape))
        } else {
            (self.broadcastable(shape), shape.to_vec())
        }
    }

    fn binary(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        use BinaryOp::*;
        let sub = depth - 1;
        let (sa, sb) = self.two_shapes(shape);
        // cuprite-array's own table: every operation whose result keeps the operands' dtype
        // (a complex quotient has no guarded form here: `|b| + 1` is real).
        let ops: Vec<BinaryOp> = BinaryOp::ALL
            .into_iter()
            .filter(|op| op.result(d) == Some(d) && !(d.is_complex() && *op == Div))
            .collect();
        let op = *self.s.pick(&ops);
        let a = self.node(d, &sa, sub);
        let b = self.node(d, &sb, sub);
        if !inexact_kind(d) {
            return Some(bin(op, a, b));
        }
        Some(match op {
            Rem | Fmod | Atan2 => bin(op, self.exact(a), self.exact(b)),
            // A finite first operand: nextafter takes ±inf to ±MAX, a finite value far beyond
            // the magnitude bound its consumers' error models assume (a sum of ±MAX and
            // ordinary values cancels differently in each summation order).
            Nextafter => bin(op, self.finite_leaf(d, &sa), self.exact(b)),
            Copysign => bin(op, a, self.exact(b)),
            // A whole exponent in [-8, 8]: the table truncates it (a rounding away from a
            // whole number on one backend only would jump).
            Ldexp => {
                let e = clamp(un(UnaryOp::Trunc, self.exact(b)), d, -8.0, 8.0);
                bin(Ldexp, self.exact(a), e)
            }
            Div if a.info().err + b.info().err > 0.0 => {
                bin(Div, a, bin(Add, un(UnaryOp::Abs, b), c(d, 1.0)))
            }
            // Exact operands: `pow` jumps at its special cases (pow(NaN, 0) = 1 = pow(1, NaN),
            // while pow(NaN, 1e-9) and pow(1 + ulp, NaN) are NaN), so an exponent or base a
            // rounding away from 0 or 1 on one backend only is a false mismatch. The base clamped away from zero bounds the result.
            Pow => {
                let (a, b) = (self.exact(a), self.exact(b));
                bin(Pow, clamp(a, d, 0.25, 4.0), clamp(b, d, -3.0, 3.0))
            }
            _ => bin(op, a, b),
        })
    }

    fn compare(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        use BinaryOp::*;
        if d != DType::Bool {
            return None;
        }
        let t = *self.s.pick(&ALL);
        let op = if t.is_complex() {
            *self.s.pick(&[Eq, Ne])
        } else {
            *self.s.pick(&[Eq, Ne, Lt, Le, Gt, Ge])
        };
        let (sa, sb) = self.two_shapes(shape);
        let a = self.node(t, &sa, depth - 1);
        let b = self.node(t, &sb, depth - 1);
        Some(bin(op, self.exact(a), self.exact(b)))
    }

    fn cast(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        let t = *self.s.pick(&ALL);
        if t == d {
            return None;
        }
        let x = self.node(t, shape, depth - 1);
        let x = if !inexact_kind(d) || (t.is_complex() && !d.is_complex()) {
            self.exact(x)
        } else {
            x
        };
        Some(Expr::Cast(d, Box::new(x)))
    }

    fn select(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        let sc = self.broadcastable(shape);
        let (sa, sb) = self.two_shapes(shape);
        let cnd = self.node(DType::Bool, &sc, depth - 1);
        let a = self.node(d, &sa, depth - 1);
        let b = self.node(d, &sb, depth - 1);
        Some(Expr::Select(Box::new(cnd), Box::new(a), Box::new(b)))
    }

    fn reduce(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        // (reduction, input dtype) pairs that give `d`.
        let mut opts: Vec<(Red, DType)> = Vec::new();
        for &t in &ALL {
            let reds: &[Red] = if t == DType::Bool {
                &[
                    Red::Sum,
                    Red::Min,
                    Red::Max,
                    Red::ArgMin,
                    Red::ArgMax,
                    Red::Any,
                    Red::All,
                    Red::Count,
                ]
            } else if t.is_complex() {
                &[Red::Sum, Red::Prod, Red::Mean, Red::Any, Red::Count]
            } else {
                &[
                    Red::Sum,
                    Red::Prod,
                    Red::Mean,
                    Red::Min,
                    Red::Max,
                    Red::ArgMin,
                    Red::ArgMax,
                    Red::Any,
                    Red::All,
                    Red::Count,
                    Red::Var(self.v.below(2) as usize),
                    Red::Std(self.v.below(2) as usize),
                    Red::NanSum,
                ]
            };
            for &r in reds {
                if r == Red::NanSum && !t.is_float() {
                    continue;
                }
                if super::expr::red_dtype(r, t) == d {
                    opts.push((r, t));
                }
            }
        }
        if opts.is_empty() {
            return None;
        }
        let (r, t) = *self.s.pick(&opts);
        let single = matches!(r, Red::ArgMin | Red::ArgMax);
        let (axes, keep, child) = if shape.is_empty() {
            let rank = 1 + self.s.below(3) as usize;
            let cs = self.shape(rank);
            if single {
                if rank != 1 {
                    return None;
                }
                (Some(vec![0isize]), false, cs)
            } else {
                (None, false, cs)
            }
        } else {
            let ones: Vec<usize> = (0..shape.len()).filter(|&k| shape[k] == 1).collect();
            if !ones.is_empty() && self.s.chance(0.3) {
                let k = *self.s.pick(&ones);
                let mut cs = shape.to_vec();
                cs[k] = self.extent(false);
                (
                    Some(vec![
                        k as isize
                            - if self.s.chance(0.5) {
                                shape.len() as isize
                            } else {
                                0
                            },
                    ]),
                    true,
                    cs,
                )
            } else {
                let n = if single {
                    1
                } else {
                    1 + self.s.below(2) as usize
                };
                let mut cs = shape.to_vec();
                let mut axes = Vec::new();
                for _ in 0..n {
                    let pos = self.s.below(cs.len() as u64 + 1) as usize;
                    for a in axes.iter_mut() {
                        if *a >= pos {
                            *a += 1;
                        }
                    }
                    cs.insert(pos, self.extent(false));
                    axes.push(pos);
                }
                let axes: Vec<isize> = axes.into_iter().map(|a| a as isize).collect();
                (Some(axes), false, cs)
            }
        };
        if numel(&child) > MAX_NUMEL {
            return None;
        }
        if r == Red::Prod
            && inexact_kind(t)
            && axes.as_ref().map_or(numel(&child), |a| {
                a.iter()
                    .map(|&k| child[k.rem_euclid(child.len() as isize) as usize])
                    .product()
            }) > 6
        {
            return None;
        }
        let x = self.node(t, &child, depth - 1);
        let x = match r {
            Red::ArgMin | Red::ArgMax | Red::Any | Red::All | Red::Count => self.exact(x),
            // A complex product of factors with infinities is NaN or infinite depending on the
            // order of its multiplications (inf·0 appears in one order only): finite factors.
            Red::Prod if t.is_complex() => self.finite_leaf(t, &child),
            Red::Prod if inexact_kind(t) => clamp_any(x, t),
            _ => x,
        };
        Some(Expr::Reduce(r, axes, keep, Box::new(x)))
    }

    fn movement(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        let rank = shape.len();
        let (m, child) = match self.s.below(9) {
            0 => {
                // Reshape from another factorisation of the same count.
                let n = numel(shape);
                let cs = match self.s.below(3) {
                    0 => vec![n],
                    1 if n > 0 && n.is_multiple_of(2) => vec![2, n / 2],
                    1 => vec![1, n],
                    _ => {
                        let mut t = shape.to_vec();
                        t.reverse();
                        t.insert(self.v.below(rank as u64 + 1) as usize, 1);
                        t
                    }
                };
                (Move::Reshape(shape.to_vec()), cs)
            }
            1 if rank >= 2 => {
                let mut p: Vec<usize> = (0..rank).collect();
                for i in (1..rank).rev() {
                    p.swap(i, self.s.below(i as u64 + 1) as usize);
                }
                let mut cs = vec![0; rank];
                for (i, &k) in p.iter().enumerate() {
                    cs[k] = shape[i];
                }
                (Move::Permute(p), cs)
            }
            2 if rank >= 1 => {
                let mut args = Vec::new();
                let mut cs = Vec::new();
                for &n in shape {
                    if n == 1 && self.s.chance(0.3) {
                        let m = 1 + self.v.below(4) as usize;
                        args.push(Err(self.v.below(m as u64) as isize));
                        cs.push(m);
                        continue;
                    }
                    let step = *self.s.pick(&[1isize, 1, 2, 3, -1, -2]);
                    let extra = self.v.below(3) as usize;
                    if step > 0 {
                        let a = self.v.below(3) as usize;
                        let m = a + n.saturating_sub(1) * step as usize + 1 + extra;
                        let end = (a + n.saturating_sub(1) * step as usize + 1) as isize;
                        let end = if n == 0 { a as isize } else { end };
                        args.push(Ok((a as isize, Some(end), step)));
                        cs.push(m.max(a));
                    } else {
                        let s = (-step) as usize;
                        let m = n.saturating_sub(1) * s + 1 + extra;
                        let start = m as isize - 1 - self.v.below(extra as u64 + 1) as isize;
                        let end = start + step * n as isize;
                        args.push(Ok((start, if end < 0 { None } else { Some(end) }, step)));
                        cs.push(m);
                    }
                }
                let m = Move::Slice(args);
                if super::expr::move_shape(&m, &cs) != shape {
                    return None;
                }
                (m, cs)
            }
            3 => {
                let cs = self.broadcastable(shape);
                (Move::BroadcastTo(shape.to_vec()), cs)
            }
            4 if rank >= 1 => {
                let axes: Vec<isize> = (0..rank as isize).filter(|_| self.s.chance(0.5)).collect();
                (Move::Flip(axes), shape.to_vec())
            }
            5 if rank >= 1 => {
                let mut w = Vec::new();
                let mut cs = Vec::new();
                for &n in shape {
                    let lo = self.v.below(n.min(2) as u64 + 1) as usize;
                    let hi = self.v.below((n - lo).min(2) as u64 + 1) as usize;
                    w.push((lo, hi));
                    cs.push(n - lo - hi);
                }
                let v = if d == DType::Bool {
                    1.0
                } else {
                    self.v.below(9) as f64 - 4.0
                };
                let v = if d.is_int()
                    && !matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64)
                {
                    v.abs()
                } else {
                    v
                };
                (Move::Pad(w, v), cs)
            }
            6 if rank >= 1 => {
                let mut r = Vec::new();
                let mut cs = Vec::new();
                for &n in shape {
                    let k = *self.s.pick(&[1usize, 1, 2, 3]);
                    let k = if n > 0 && n % k == 0 { k } else { 1 };
                    r.push(k);
                    cs.push(n / k);
                }
                (Move::Tile(r), cs)
            }
            7 if rank >= 1 => {
                let shift = self.v.below(15) as isize - 7;
                let ax = self.s.below(rank as u64) as isize;
                (Move::Roll(shift, ax), shape.to_vec())
            }
            8 if rank >= 1 => {
                let ones: Vec<usize> = (0..rank).filter(|&k| shape[k] == 1).collect();
                if ones.is_empty() {
                    return None;
                }
                let k = *self.s.pick(&ones);
                let mut cs = shape.to_vec();
                cs.remove(k);
                (Move::ExpandDims(k as isize), cs)
            }
            _ => return None,
        };
        if numel(&child) > MAX_NUMEL {
            return None;
        }
        let x = self.node(d, &child, depth - 1);
        Some(Expr::Move(m, Box::new(x)))
    }

    fn concat(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as usize;
        let parts = 2 + self.s.below(2) as usize;
        let mut left = shape[ax];
        let mut out = Vec::new();
        for p in 0..parts {
            let n = if p + 1 == parts {
                left
            } else {
                self.v.below(left as u64 + 1) as usize
            };
            left -= n;
            let mut s = shape.to_vec();
            s[ax] = n;
            out.push(self.node(d, &s, depth - 1));
        }
        Some(Expr::Concat(
            ax as isize
                - if self.s.chance(0.3) {
                    shape.len() as isize
                } else {
                    0
                },
            out,
        ))
    }

    fn gather(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as usize;
        let mut cs = shape.to_vec();
        cs[ax] = 1 + self.v.below(6) as usize;
        let idx = *self
            .s
            .pick(&[DType::I64, DType::I32, DType::U8, DType::I8, DType::U64]);
        let x = self.node(d, &cs, depth - 1);
        Some(Expr::Gather(
            ax as isize,
            idx,
            shape[ax],
            self.v.next_u64(),
            Box::new(x),
        ))
    }

    fn cumsum(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        // (cumsum of complex numbers is not provided.)
        if shape.is_empty() || d == DType::Bool || d.is_complex() {
            return None;
        }
        let ins: Vec<DType> = ALL
            .iter()
            .copied()
            .filter(|&t| t != DType::Bool && accum(t) == d)
            .collect();
        if ins.is_empty() {
            return None;
        }
        let t = *self.s.pick(&ins);
        let ax = self.s.below(shape.len() as u64) as isize;
        let x = self.node(t, shape, depth - 1);
        Some(Expr::Cumsum(ax, Box::new(x)))
    }

    fn matmul(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.len() < 2 || !(d.is_float() || d.is_complex()) {
            return None;
        }
        let r = shape.len();
        let k = self.v.below(9) as usize;
        let batch = &shape[..r - 2];
        let mut sa = batch.to_vec();
        sa.extend([shape[r - 2], k]);
        let mut sb = self.broadcastable(batch);
        sb.extend([k, shape[r - 1]]);
        if numel(&sa) > MAX_NUMEL || numel(&sb) > MAX_NUMEL {
            return None;
        }
        // Complex products of infinite components are NaN or infinite depending on how the
        // library forms them (cuBLAS's complex kernels are not the naive formula): finite
        // complex operands.
        let (a, b) = if d.is_complex() {
            (self.finite_leaf(d, &sa), self.finite_leaf(d, &sb))
        } else {
            (self.node(d, &sa, depth - 1), self.node(d, &sb, depth - 1))
        };
        Some(Expr::Matmul(
            Box::new(clamp_any(a, d)),
            Box::new(clamp_any(b, d)),
        ))
    }

    fn fft(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() || !d.is_complex() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as usize;
        let n = shape[ax];
        if n == 0 || n > 64 {
            return None;
        }
        let real = d.real();
        let (rfft, t, cs) = match self.s.below(3) {
            0 => {
                let mut cs = shape.to_vec();
                cs[ax] = if n == 1 {
                    1
                } else {
                    2 * n - 2 + self.v.below(2) as usize
                };
                (true, real, cs)
            }
            1 => (false, real, shape.to_vec()),
            _ => (false, d, shape.to_vec()),
        };
        // Finite values only: a complex leaf, or a real subtree with its NaNs and infinities
        // replaced (see `families::finite_part`).
        let x = if t.is_complex() {
            self.finite_leaf(t, &cs)
        } else {
            let x = clamp_any(self.node(t, &cs, depth - 1), t);
            super::families::finite_part(x, t, &cs)
        };
        let e = Expr::Fft(
            ax as isize
                - if self.s.chance(0.3) {
                    shape.len() as isize
                } else {
                    0
                },
            rfft,
            Box::new(x),
        );
        Some(e)
    }

    fn sort(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() || d.is_complex() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as isize;
        let x = self.node(d, shape, depth - 1);
        Some(Expr::Sort(ax, self.s.chance(0.3), Box::new(x)))
    }

    /// Indices of a stable sort, over values both backends compute exactly (an inexact input
    /// may order near-equal values differently, and the indices would differ by design).
    fn argsort(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() || d != DType::I64 {
            return None;
        }
        let t = *self.s.pick(&ALL);
        if t.is_complex() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as isize;
        let x = self.node(t, shape, depth - 1);
        if x.info().err > 0.0 {
            return None;
        }
        Some(Expr::ArgSort(ax, Box::new(x)))
    }

    fn cummax(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() || d == DType::Bool || d.is_complex() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as isize;
        let x = self.node(d, shape, depth - 1);
        Some(Expr::Cummax(ax, Box::new(x)))
    }

    /// `logsumexp` giving `shape`: over an axis of 1 to 9 elements inserted at a random place,
    /// or, keeping it, over an axis of `shape` whose extent is 1.
    fn logsumexp(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if !d.is_float() {
            return None;
        }
        let n = 1 + self.v.below(9) as usize;
        let ones: Vec<usize> = (0..shape.len()).filter(|&k| shape[k] == 1).collect();
        let (ax, keep, cs) = if !ones.is_empty() && self.s.chance(0.3) {
            let k = *self.s.pick(&ones);
            let mut cs = shape.to_vec();
            cs[k] = n;
            (k, true, cs)
        } else {
            let k = self.s.below(shape.len() as u64 + 1) as usize;
            let mut cs = shape.to_vec();
            cs.insert(k, n);
            (k, false, cs)
        };
        if numel(&cs) > MAX_NUMEL {
            return None;
        }
        let ax = if self.s.chance(0.5) {
            ax as isize - cs.len() as isize
        } else {
            ax as isize
        };
        let x = self.node(d, &cs, depth - 1);
        Some(Expr::LogSumExp(ax, keep, Box::new(bounded(x, d))))
    }

    /// `softmax`, or one time in three `log_softmax`, along a random axis.
    fn softmax(&mut self, d: DType, shape: &[usize], depth: u32) -> Option<Expr> {
        if shape.is_empty() || !d.is_float() {
            return None;
        }
        let ax = self.s.below(shape.len() as u64) as isize;
        let x = self.node(d, shape, depth - 1);
        Some(if self.s.chance(1.0 / 3.0) {
            // Its output grows with the input (x − logsumexp x): scaled into ±16 first.
            Expr::LogSoftmax(ax, Box::new(bounded(x, d)))
        } else {
            Expr::Softmax(ax, Box::new(clamp(x, d, -16.0, 16.0)))
        })
    }
}

impl Draw for Gen {
    fn s_below(&mut self, n: u64) -> u64 {
        self.s.below(n)
    }
    fn v_below(&mut self, n: u64) -> u64 {
        self.v.below(n)
    }
    fn v_next(&mut self) -> u64 {
        self.v.next_u64()
    }
    fn node(&mut self, d: DType, shape: &[usize], depth: u32) -> Expr {
        Gen::node(self, d, shape, depth)
    }
    fn exact(&mut self, e: Expr) -> Expr {
        Gen::exact(self, e)
    }
    fn finite_leaf(&mut self, d: DType, shape: &[usize]) -> Expr {
        Gen::finite_leaf(self, d, shape)
    }
    fn clamped(&mut self, x: Expr, d: DType, lo: f64, hi: f64) -> Expr {
        clamp(x, d, lo, hi)
    }
    fn unit(&mut self, x: Expr, d: DType) -> Expr {
        bin(BinaryOp::Mul, bounded(x, d), c(d, 1.0 / 16.0))
    }
    fn bounded16(&mut self, x: Expr, d: DType) -> Expr {
        bounded(x, d)
    }
    fn shape(&mut self, rank: usize) -> Vec<usize> {
        Gen::shape(self, rank)
    }
    fn extent(&mut self, big: bool) -> usize {
        Gen::extent(self, big)
    }
}

/// The unary operations of cuprite-array's table ([`UnaryOp::ALL`]) whose result keeps the
/// dtype `d`.
fn same_type_unary(d: DType) -> Vec<UnaryOp> {
    UnaryOp::ALL
        .into_iter()
        .filter(|op| op.result(d) == Some(d))
        .collect()
}

/// A real float `x` whose magnitude bound is at most 16: scaled down when its bound is larger
/// (a clamp alone keeps the bound of its input), then clamped (infinities to ±16).
fn bounded(x: Expr, d: DType) -> Expr {
    let m = x.info().mag;
    // An unbounded input (a quotient) is only clamped: scaling by 16 / ∞ would zero it.
    let x = if m > 16.0 && m.is_finite() {
        bin(BinaryOp::Mul, x, c(d, 16.0 / m))
    } else {
        x
    };
    clamp(x, d, -16.0, 16.0)
}

/// `x` clamped to ±16 when it is an inexact real float (complex values pass through): keeps
/// products' magnitude bounds small.
fn clamp_any(x: Expr, d: DType) -> Expr {
    if d.is_float() && x.info().mag > 16.0 {
        clamp(x, d, -16.0, 16.0)
    } else {
        x
    }
}

/// A complex value scaled so that its exponential stays in range.
fn clamp_complex(x: Expr, d: DType) -> Expr {
    let m = x.info().mag;
    if m <= 8.0 {
        x
    } else {
        bin(BinaryOp::Mul, x, c(d, 8.0 / m.min(eps(d).recip())))
    }
}
