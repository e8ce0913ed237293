//! A failing program as a stand-alone Rust function (the reproducer a mismatch prints), and
//! the shrinking that makes it small first.

use super::eval::{FuzzElem, gather_values, leaf_data, source_shape, view_slice};
use super::expr::{Expr, Move, Red, View};
use cuprite_array::ops::{BinaryOp, UnaryOp};
use cuprite_array::shape::SliceArg;
use cuprite_array::{DType, bf16, c32, c64, f16};
use std::fmt::Write;

/// The Rust name of a dtype's element type.
pub fn rust_type(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "u8",
        DType::U16 => "u16",
        DType::U32 => "u32",
        DType::U64 => "u64",
        DType::I8 => "i8",
        DType::I16 => "i16",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::F16 => "f16",
        DType::BF16 => "bf16",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C32 => "c32",
        DType::C64 => "c64",
    }
}

fn lits<T: FuzzElem>(shape: &[usize], view: &View, seed: u64, special: bool) -> String {
    let v: Vec<String> = leaf_data::<T>(shape, view, seed, special)
        .into_iter()
        .map(T::lit)
        .collect();
    v.join(", ")
}

fn data_literal(d: DType, shape: &[usize], view: &View, seed: u64, special: bool) -> String {
    let (s, v, k, p) = (shape, view, seed, special);
    match d {
        DType::Bool => lits::<bool>(s, v, k, p),
        DType::U8 => lits::<u8>(s, v, k, p),
        DType::U16 => lits::<u16>(s, v, k, p),
        DType::U32 => lits::<u32>(s, v, k, p),
        DType::U64 => lits::<u64>(s, v, k, p),
        DType::I8 => lits::<i8>(s, v, k, p),
        DType::I16 => lits::<i16>(s, v, k, p),
        DType::I32 => lits::<i32>(s, v, k, p),
        DType::I64 => lits::<i64>(s, v, k, p),
        DType::F16 => lits::<f16>(s, v, k, p),
        DType::BF16 => lits::<bf16>(s, v, k, p),
        DType::F32 => lits::<f32>(s, v, k, p),
        DType::F64 => lits::<f64>(s, v, k, p),
        DType::C32 => lits::<c32>(s, v, k, p),
        DType::C64 => lits::<c64>(s, v, k, p),
    }
}

fn slice_arg(a: &SliceArg) -> String {
    match a {
        SliceArg::Index(i) => format!("SliceArg::Index({i})"),
        SliceArg::Range { start, end, step } => {
            format!("SliceArg::Range {{ start: {start:?}, end: {end:?}, step: {step} }}")
        }
    }
}

fn method(op: UnaryOp, d: DType) -> String {
    use UnaryOp::*;
    match op {
        Neg => "neg()".into(),
        Not | BitNot => "not()".into(),
        Abs if d.is_complex() => "norm()".into(),
        IsNan => "isnan()".into(),
        IsInf => "isinf()".into(),
        IsFinite => "isfinite()".into(),
        FrexpMant => "frexp().0".into(),
        FrexpExp => "frexp().1".into(),
        ModfFrac => "modf().0".into(),
        I0 => "i0()".into(),
        BitCount => "bitwise_count()".into(),
        SignBit => "signbit()".into(),
        other => format!("{}()", format!("{other:?}").to_lowercase()),
    }
}

fn bin_method(op: BinaryOp) -> &'static str {
    use BinaryOp::*;
    match op {
        Add => "try_add",
        Sub => "try_sub",
        Mul => "try_mul",
        Div => "try_div",
        Rem => "rem",
        Fmod => "fmod",
        Pow => "pow",
        Min => "minimum",
        Max => "maximum",
        Atan2 => "atan2",
        Hypot => "hypot",
        Eq => "equal",
        Ne => "not_equal",
        Lt => "less",
        Le => "less_equal",
        Gt => "greater",
        Ge => "greater_equal",
        And => "and",
        Or => "or",
        Xor => "xor",
        BitAnd => "bitand",
        BitOr => "bitor",
        BitXor => "bitxor",
        Shl => "shl",
        Shr => "shr",
        Ldexp => "ldexp",
        Nextafter => "nextafter",
        Copysign => "copysign",
        Gcd => "gcd",
        Lcm => "lcm",
    }
}

fn red_call(r: Red, axes: &Option<Vec<isize>>, keep: bool, rank: usize) -> String {
    let ax: Vec<isize> = match axes {
        Some(v) => v.clone(),
        None => (0..rank as isize).collect(),
    };
    let one = ax.first().copied().unwrap_or(0);
    let kd = |call: &str, args: String| keep_call(call, &args, keep);
    match r {
        Red::Sum => kd("sum_axes", format!("&{ax:?}")),
        Red::Prod => kd("prod_axes", format!("&{ax:?}")),
        Red::Mean => kd("mean_axes", format!("&{ax:?}")),
        Red::Min => kd("min_axes", format!("&{ax:?}")),
        Red::Max => kd("max_axes", format!("&{ax:?}")),
        Red::ArgMin => kd("argmin_axis", format!("{one}")),
        Red::ArgMax => kd("argmax_axis", format!("{one}")),
        Red::Any => kd("any_axes", format!("&{ax:?}")),
        Red::All => kd("all_axes", format!("&{ax:?}")),
        Red::Count => kd("count_axes", format!("&{ax:?}")),
        Red::Var(d) => {
            format!("var_axes_with(&{ax:?}, VarOpts::new().ddof({d}).keepdims({keep}))?")
        }
        Red::Std(d) => {
            format!("std_axes_with(&{ax:?}, VarOpts::new().ddof({d}).keepdims({keep}))?")
        }
        Red::NanSum => kd("nansum_axes", format!("&{ax:?}")),
    }
}

/// The call `call(args)?`, or its `_with` form keeping the reduced axes when `keep`.
fn keep_call(call: &str, args: &str, keep: bool) -> String {
    if keep {
        format!("{call}_with({args}, ReduceOpts::new().keepdims(true))?")
    } else {
        format!("{call}({args})?")
    }
}

struct Emit {
    out: String,
    next: usize,
}

impl Emit {
    fn var(&mut self, rhs: String) -> String {
        let v = format!("v{}", self.next);
        self.next += 1;
        let _ = writeln!(self.out, "    let {v} = {rhs};");
        v
    }

    fn node(&mut self, e: &Expr) -> String {
        match e {
            Expr::Op(r, d, shape, p, kids) => {
                let vars: Vec<String> = kids.iter().map(|k| self.node(k)).collect();
                self.var((r.rust)(&super::expr::params(p, *d, shape), &vars))
            }
            Expr::Leaf {
                dtype,
                shape,
                view,
                seed,
                special,
            } => {
                let t = rust_type(*dtype);
                let src = source_shape(shape, view);
                let data = if src.iter().product::<usize>() <= 48 {
                    format!(
                        "vec![{}]",
                        data_literal(*dtype, shape, view, *seed, *special)
                    )
                } else {
                    // Large leaves: the fuzzer's own generator makes the same values.
                    format!(
                        "cuprite_cli::fuzz::eval::leaf_data::<{t}>(&{shape:?}, &View::{view:?}, \
                         {seed:#x}, {special})"
                    )
                };
                let v = self.var(format!("Array::<{t}>::from_vec({data}, &{src:?})?"));
                match view {
                    View::Contig => v,
                    View::Transposed => {
                        let p: Vec<usize> = (0..shape.len()).rev().collect();
                        self.var(format!("{v}.permute(&{p:?})?"))
                    }
                    View::Broadcast(_) => self.var(format!("{v}.broadcast_to(&{shape:?})?")),
                    _ => match view_slice(shape, view) {
                        Some(args) => {
                            let a: Vec<String> = args.iter().map(slice_arg).collect();
                            self.var(format!("{v}.slice(&[{}])?", a.join(", ")))
                        }
                        None => v,
                    },
                }
            }
            Expr::Const(d, x) => self.var(format!(
                "Array::<f64>::scalar({x:?}).cast::<{}>()",
                rust_type(*d)
            )),
            Expr::Unary(op, a) => {
                let d = a.info().dtype;
                let x = self.node(a);
                self.var(format!("{x}.{}", method(*op, d)))
            }
            Expr::Binary(op, a, b) => {
                let (x, y) = (self.node(a), self.node(b));
                let m = bin_method(*op);
                let fallible = matches!(
                    op,
                    BinaryOp::Ldexp
                        | BinaryOp::Nextafter
                        | BinaryOp::Copysign
                        | BinaryOp::Gcd
                        | BinaryOp::Lcm
                );
                let q = if m.starts_with("try_") || fallible {
                    "?"
                } else {
                    ""
                };
                let y = if *op == BinaryOp::Ldexp {
                    self.var(format!("{y}.cast::<i64>()"))
                } else {
                    y
                };
                if matches!(
                    op,
                    BinaryOp::BitAnd
                        | BinaryOp::BitOr
                        | BinaryOp::BitXor
                        | BinaryOp::Shl
                        | BinaryOp::Shr
                ) {
                    self.var(format!("(&{x}).{m}(&{y})"))
                } else {
                    self.var(format!("{x}.{m}(&{y}){q}"))
                }
            }
            Expr::Cast(d, a) => {
                let x = self.node(a);
                self.var(format!("{x}.cast::<{}>()", rust_type(*d)))
            }
            Expr::Select(c, a, b) => {
                let (z, x, y) = (self.node(c), self.node(a), self.node(b));
                self.var(format!("Array::select(&{z}, &{x}, &{y})?"))
            }
            Expr::Reduce(r, axes, keep, a) => {
                let i = a.info();
                let x = self.node(a);
                let x = if i.dtype == DType::Bool && *r == Red::Sum {
                    self.var(format!("{x}.cast::<i64>()"))
                } else {
                    x
                };
                self.var(format!("{x}.{}", red_call(*r, axes, *keep, i.shape.len())))
            }
            Expr::Move(m, a) => {
                let d = a.info().dtype;
                let x = self.node(a);
                let call = match m {
                    Move::Reshape(s) => format!("reshape(&{s:?})?"),
                    Move::Permute(p) => format!("permute(&{p:?})?"),
                    Move::Slice(args) => {
                        let a: Vec<String> = args
                            .iter()
                            .map(|x| match *x {
                                Ok((start, end, step)) => slice_arg(&SliceArg::Range {
                                    start: Some(start),
                                    end,
                                    step,
                                }),
                                Err(i) => slice_arg(&SliceArg::Index(i)),
                            })
                            .collect();
                        // An index drops its axis; the program's shapes keep it with extent 1.
                        let kept: String = args
                            .iter()
                            .enumerate()
                            .filter(|(_, x)| x.is_err())
                            .map(|(ax, _)| format!(".expand_dims({ax})?"))
                            .collect();
                        format!("slice(&[{}])?{kept}", a.join(", "))
                    }
                    Move::BroadcastTo(s) => format!("broadcast_to(&{s:?})?"),
                    Move::Flip(a) => format!("flip(&{a:?})?"),
                    Move::Pad(w, v) => {
                        format!(
                            "pad(&{w:?}, Array::<f64>::scalar({v:?}).cast::<{}>().item()?)?",
                            rust_type(d)
                        )
                    }
                    Move::Tile(r) => format!("tile(&{r:?})?"),
                    Move::Roll(s, a) => format!("roll({s}, {a})?"),
                    Move::ExpandDims(a) => format!("expand_dims({a})?"),
                };
                self.var(format!("{x}.{call}"))
            }
            Expr::Concat(ax, parts) => {
                let vs: Vec<String> = parts.iter().map(|p| format!("&{}", self.node(p))).collect();
                self.var(format!("Array::concat(&[{}], {ax})?", vs.join(", ")))
            }
            Expr::Gather(ax, idx, len, seed, a) => {
                let i = a.info();
                let k = if *ax < 0 {
                    *ax + i.shape.len() as isize
                } else {
                    *ax
                } as usize;
                let x = self.node(a);
                let iv = gather_values(*len, *seed, i.shape[k]);
                let ix = self.var(format!(
                    "Array::<i64>::from_vec(vec!{iv:?}, &[{len}])?.cast::<{}>()",
                    rust_type(*idx)
                ));
                self.var(format!(
                    "{x}.take_with(&{ix}, cuprite_array::ops::TakeOpts::new().axis({ax}).mode(cuprite_array::ops::IndexMode::Clamp))?"
                ))
            }
            Expr::Cumsum(ax, a) => {
                let x = self.node(a);
                self.var(format!("{x}.cumsum({ax})?"))
            }
            Expr::Matmul(a, b) => {
                let (x, y) = (self.node(a), self.node(b));
                self.var(format!("{x}.matmul(&{y})?"))
            }
            Expr::Fft(ax, real, a) => {
                let x = self.node(a);
                let f = if *real { "rfft" } else { "fft" };
                self.var(format!("{x}.{f}_with(FftOpts::new().axis({ax}))?"))
            }
            Expr::Softmax(ax, a) => {
                let x = self.node(a);
                self.var(format!("{x}.softmax({ax})?"))
            }
            Expr::Sort(ax, desc, a) => {
                let x = self.node(a);
                self.var(if *desc {
                    format!("{x}.sort_with({ax}, SortOpts::new().descending(true))?")
                } else {
                    format!("{x}.sort({ax})?")
                })
            }
            Expr::ArgSort(ax, a) => {
                let x = self.node(a);
                self.var(format!("{x}.argsort({ax})?"))
            }
            Expr::Cummax(ax, a) => {
                let x = self.node(a);
                self.var(format!("{x}.cummax({ax})?"))
            }
            Expr::LogSoftmax(ax, a) => {
                let x = self.node(a);
                self.var(format!("{x}.log_softmax({ax})?"))
            }
            Expr::LogSumExp(ax, keep, a) => {
                let x = self.node(a);
                self.var(format!(
                    "{x}.{}",
                    keep_call("logsumexp", &ax.to_string(), *keep)
                ))
            }
        }
    }
}

/// A Rust function that builds `e` on a device and returns its values as text.
pub fn to_rust(e: &Expr, header: &str) -> String {
    let mut em = Emit {
        out: String::new(),
        next: 0,
    };
    let root = em.node(e);
    format!(
        "// {header}\n\
         // use cuprite_array::{{Array, Device, bf16, c32, c64, f16, shape::SliceArg, with_device}};\n\
         // use cuprite_array::ops::{{ReduceOpts, SortOpts, VarOpts, fft::FftOpts}};\n\
         // use cuprite_cli::fuzz::expr::View;\n\
         // use std::ops::{{BitAnd, BitOr, BitXor, Neg, Not, Shl, Shr}};\n\
         fn program(dev: Device) -> cuprite_array::Result<String> {{\n    with_device(dev, || {{\n{}    Ok(format!(\"{{:?}}\", {root}.to_vec()?))\n    }})\n}}\n\
         // Compare program(Device::CPU)? with program(Device::cuda(0))?.\n",
        em.out
            .replace("\n    let", "\n        let")
            .replacen("    let", "        let", 1)
    )
}

/// Every path (child indices from the root) of `e`, parents before children.
pub fn paths(e: &Expr) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for (i, c) in e.children().iter().enumerate() {
        for mut p in paths(c) {
            p.insert(0, i);
            out.push(p);
        }
    }
    out
}

/// The node at `path`.
pub fn at<'a>(e: &'a Expr, path: &[usize]) -> &'a Expr {
    match path.split_first() {
        None => e,
        Some((&i, rest)) => at(e.children()[i], rest),
    }
}

/// `e` with the node at `path` replaced by `with`.
pub fn replaced(e: &Expr, path: &[usize], with: Expr) -> Expr {
    let mut out = e.clone();
    {
        let mut cur = &mut out;
        for &i in path {
            cur = cur.children_mut().into_iter().nth(i).expect("valid path");
        }
        *cur = with;
    }
    out
}

/// Candidate simplifications of `e`, smallest first: any subtree alone, a node replaced by a
/// child of its dtype and shape, a contiguous leaf in place of each node, plainer leaves.
pub fn candidates(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    // Any subtree is a program of its own.
    for p in paths(e).into_iter().skip(1) {
        out.push(at(e, &p).clone());
    }
    // A node replaced by a child of its dtype and shape.
    for p in paths(e) {
        let n = at(e, &p);
        let i = n.info();
        for c in n.children() {
            let ci = c.info();
            if ci.dtype == i.dtype && ci.shape == i.shape {
                out.push(replaced(e, &p, c.clone()));
            }
        }
    }
    for p in paths(e) {
        let n = at(e, &p);
        match n {
            Expr::Leaf {
                dtype,
                shape,
                view,
                seed,
                special,
            } => {
                if *view != View::Contig {
                    out.push(replaced(
                        e,
                        &p,
                        Expr::Leaf {
                            dtype: *dtype,
                            shape: shape.clone(),
                            view: View::Contig,
                            seed: *seed,
                            special: *special,
                        },
                    ));
                }
                if *special {
                    out.push(replaced(
                        e,
                        &p,
                        Expr::Leaf {
                            dtype: *dtype,
                            shape: shape.clone(),
                            view: view.clone(),
                            seed: *seed,
                            special: false,
                        },
                    ));
                }
            }
            Expr::Const(..) => {}
            _ => {
                let i = n.info();
                out.push(replaced(
                    e,
                    &p,
                    Expr::Leaf {
                        dtype: i.dtype,
                        shape: i.shape,
                        view: View::Contig,
                        seed: p.len() as u64 * 7919 + 1,
                        special: false,
                    },
                ));
            }
        }
    }
    out.sort_by_key(|c| c.size());
    out
}
