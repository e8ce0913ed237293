//! Einstein summation over any number of operands (NumPy's `einsum`): repeated labels in one
//! operand take diagonals, labels in one operand only and not in the output are summed there,
//! an ellipsis broadcasts the axes it stands for, and the operands are contracted left to
//! right, each pair as one (batched) matrix product.

use crate::array::Array;
use crate::dtype::Numeric;
use crate::error::{Error, Result};
use crate::shape::checked_numel;

/// A label: a letter's code point, or `ELLIPSIS + i` for the `i`-th axis an ellipsis stands
/// for (counted over the broadcast ellipsis axes of all operands, right-aligned).
type Label = u32;
const ELLIPSIS: Label = 0x11_0000;

/// One operand and the labels of its axes.
struct Term<T: Numeric> {
    labels: Vec<Label>,
    arr: Array<T>,
}

fn name(l: Label) -> String {
    match char::from_u32(l) {
        Some(c) if l < ELLIPSIS => format!("{c:?}"),
        _ => format!("ellipsis axis {}", l - ELLIPSIS),
    }
}

/// The letters of `t` and where its ellipsis is: `(letters before, letters after)`, or the
/// letters alone when it has none.
fn split_term(t: &str, bad: &dyn Fn(String) -> Error) -> Result<(Vec<char>, Option<Vec<char>>)> {
    let parts: Vec<&str> = t.split("...").collect();
    if parts.len() > 2 {
        return Err(bad(format!("{t:?} has more than one ellipsis")));
    }
    for p in &parts {
        if let Some(c) = p.chars().find(|c| !c.is_ascii_alphabetic()) {
            return Err(bad(format!(
                "{c:?} in {t:?} is not a label (letters and one '...' only)"
            )));
        }
    }
    let before: Vec<char> = parts[0].chars().collect();
    Ok(match parts.get(1) {
        Some(after) => (before, Some(after.chars().collect())),
        None => (before, None),
    })
}

/// Einstein summation (NumPy's `einsum`): `"ij,jk->ik"`, `"bij,bjk->bik"`, `"ii->i"` (a
/// diagonal), `"ii"` (the trace), `"ij->"` (a sum), `"i,i,i->"`, `"...ij,...jk"` (an ellipsis
/// broadcasts), and the implicit output (no `->`: the ellipsis axes, then the labels used
/// once, in code-point order). Any number of operands; labels are ASCII letters. Each pair
/// of operands, left to right, becomes one (batched) matrix product after the diagonals and
/// the sums over labels used in one operand alone; integers sum with wrapping in their type.
///
/// Errors name the problem: a label count that is not the operand's dimension, a label whose
/// sizes differ (other than 1, which broadcasts), an output label used twice or in no
/// operand, an ellipsis in the operands but not in an explicit output.
///
/// ```
/// use cuprite_array::{Array, Device, linalg};
/// let a = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
/// let b = Array::<f64>::from_slice_on(Device::CPU, &[0.0, 1.0, 1.0, 0.0], &[2, 2])?;
/// assert_eq!(linalg::einsum("ij,jk->ik", &[&a, &b])?.to_vec()?, [2.0, 1.0, 4.0, 3.0]);
/// assert_eq!(linalg::einsum("ij->ji", &[&a])?.to_vec()?, [1.0, 3.0, 2.0, 4.0]);
/// assert_eq!(linalg::einsum("ii->i", &[&a])?.to_vec()?, [1.0, 4.0]);
/// assert_eq!(linalg::einsum("ii", &[&a])?.item()?, 5.0);
/// assert_eq!(linalg::einsum("ij,jk,kl->il", &[&a, &b, &a])?.to_vec()?, [5.0, 8.0, 13.0, 20.0]);
/// let v = Array::<f64>::from_slice_on(Device::CPU, &[1.0, 1.0], &[2])?;
/// assert_eq!(linalg::einsum("...j,j", &[&a, &v])?.to_vec()?, [3.0, 7.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn einsum<T: Numeric>(spec: &str, operands: &[&Array<T>]) -> Result<Array<T>> {
    let bad = |why: String| Error::InvalidArgument(format!("einsum {spec:?}: {why}"));
    let spec_nows: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match spec_nows.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (spec_nows.clone(), None),
    };
    let ins: Vec<&str> = lhs.split(',').collect();
    if ins.len() != operands.len() || operands.is_empty() {
        return Err(bad(format!(
            "{} operand labels for {} operands",
            ins.len(),
            operands.len()
        )));
    }
    crate::array::check_devices(&operands.iter().map(|x| &x.node).collect::<Vec<_>>())?;
    let terms = parse_terms(&ins, operands, &bad)?;
    let ell = terms.iter().map(|(_, e)| *e).max().unwrap_or(0);
    let mut all: Vec<Term<T>> = Vec::with_capacity(terms.len());
    for ((labels, _), x) in terms.into_iter().zip(operands) {
        all.push(Term {
            labels,
            arr: (*x).clone(),
        });
    }
    let out = output_labels(rhs.as_deref(), &ins, &all, ell, &bad)?;
    let sizes = label_sizes(&all, &bad)?;
    for t in &mut all {
        take_diagonals(t, &bad)?;
    }
    // Contract left to right; before each product, sum what neither side needs.
    let mut rest = all.into_iter();
    let mut acc = rest.next().ok_or_else(|| bad("no operands".into()))?;
    let remaining: Vec<Term<T>> = rest.collect();
    for i in 0..remaining.len() {
        let later: Vec<Label> = remaining[i + 1..]
            .iter()
            .flat_map(|t| t.labels.iter().copied())
            .chain(out.iter().copied())
            .collect();
        let b = &remaining[i];
        let keep_a: Vec<Label> = later.iter().chain(&b.labels).copied().collect();
        let keep_b: Vec<Label> = later.iter().chain(&acc.labels).copied().collect();
        let a = sum_unneeded(acc, &keep_a)?;
        let b = sum_unneeded(
            Term {
                labels: b.labels.clone(),
                arr: b.arr.clone(),
            },
            &keep_b,
        )?;
        acc = contract(a, b, &later, &sizes)?;
    }
    let acc = sum_unneeded(acc, &out)?;
    let perm: Vec<usize> = out
        .iter()
        .map(|l| acc.labels.iter().position(|x| x == l))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| bad("an output label was lost".into()))?;
    let r = acc.arr.permute(&perm)?;
    // A label of size 1 in every operand that holds it keeps size 1; others are full.
    let shape: Vec<usize> = out.iter().map(|l| sizes_of(&sizes, *l)).collect();
    if r.shape() != shape.as_slice() {
        return r.broadcast_to(&shape);
    }
    Ok(r)
}

/// Each operand's labels (ellipsis expanded) and how many axes its ellipsis stands for.
fn parse_terms<T: Numeric>(
    ins: &[&str],
    operands: &[&Array<T>],
    bad: &dyn Fn(String) -> Error,
) -> Result<Vec<(Vec<Label>, usize)>> {
    let mut split = Vec::with_capacity(ins.len());
    let mut ell = 0usize;
    for (t, x) in ins.iter().zip(operands) {
        let (before, after) = split_term(t, bad)?;
        let letters = before.len() + after.as_ref().map_or(0, Vec::len);
        let e = match &after {
            Some(_) if x.ndim() >= letters => x.ndim() - letters,
            None if x.ndim() == letters => 0,
            _ => {
                return Err(bad(format!(
                    "labels {t:?} for an operand of shape {:?}",
                    x.shape()
                )));
            }
        };
        ell = ell.max(e);
        split.push((before, after, e));
    }
    Ok(split
        .into_iter()
        .map(|(before, after, e)| {
            let mut l: Vec<Label> = before.iter().map(|&c| c as Label).collect();
            l.extend((ell - e..ell).map(|i| ELLIPSIS + i as Label));
            l.extend(after.unwrap_or_default().iter().map(|&c| c as Label));
            (l, e)
        })
        .collect())
}

/// The output's labels, explicit or implicit.
fn output_labels<T: Numeric>(
    rhs: Option<&str>,
    ins: &[&str],
    terms: &[Term<T>],
    ell: usize,
    bad: &dyn Fn(String) -> Error,
) -> Result<Vec<Label>> {
    let count = |l: Label| {
        terms
            .iter()
            .map(|t| t.labels.iter().filter(|&&x| x == l).count())
            .sum::<usize>()
    };
    let ell_labels = (0..ell).map(|i| ELLIPSIS + i as Label);
    let Some(r) = rhs else {
        let mut once: Vec<Label> = ins
            .iter()
            .flat_map(|t| t.chars())
            .filter(|c| c.is_ascii_alphabetic())
            .map(|c| c as Label)
            .filter(|&l| count(l) == 1)
            .collect();
        once.sort_unstable();
        once.dedup();
        return Ok(ell_labels.chain(once).collect());
    };
    let (before, after) = split_term(r, bad)?;
    if after.is_none() && ell > 0 {
        return Err(bad(format!(
            "the operands' ellipsis stands for {ell} axes, but the output {r:?} has no '...'"
        )));
    }
    let mut out: Vec<Label> = before.iter().map(|&c| c as Label).collect();
    if let Some(after) = after {
        out.extend(ell_labels);
        out.extend(after.iter().map(|&c| c as Label));
    }
    for (i, &l) in out.iter().enumerate() {
        if l < ELLIPSIS && (count(l) == 0 || out[..i].contains(&l)) {
            return Err(bad(format!(
                "output label {} is not one label of the operands",
                name(l)
            )));
        }
    }
    Ok(out)
}

/// The size of every label: the one size other than 1 that its axes have (1 broadcasts).
fn label_sizes<T: Numeric>(
    terms: &[Term<T>],
    bad: &dyn Fn(String) -> Error,
) -> Result<Vec<(Label, usize)>> {
    let mut sizes: Vec<(Label, usize)> = Vec::new();
    for t in terms {
        for (&l, &n) in t.labels.iter().zip(t.arr.shape()) {
            match sizes.iter_mut().find(|(x, _)| *x == l) {
                None => sizes.push((l, n)),
                Some((_, s)) if *s == n || n == 1 => {}
                Some((_, s)) if *s == 1 => *s = n,
                Some((_, s)) => {
                    return Err(bad(format!(
                        "label {} has {} and {n} elements in shapes {:?}",
                        name(l),
                        *s,
                        terms
                            .iter()
                            .map(|t| t.arr.shape().to_vec())
                            .collect::<Vec<_>>()
                    )));
                }
            }
        }
    }
    Ok(sizes)
}

fn sizes_of(sizes: &[(Label, usize)], l: Label) -> usize {
    sizes.iter().find(|(x, _)| *x == l).map_or(1, |(_, s)| *s)
}

/// Replaces each label repeated in `t` by the diagonal of its axes (appended last).
fn take_diagonals<T: Numeric>(t: &mut Term<T>, bad: &dyn Fn(String) -> Error) -> Result<()> {
    loop {
        let rep = (0..t.labels.len()).find_map(|p| {
            (p + 1..t.labels.len())
                .find(|&q| t.labels[q] == t.labels[p])
                .map(|q| (p, q))
        });
        let Some((p, q)) = rep else {
            return Ok(());
        };
        let (np, nq) = (t.arr.shape()[p], t.arr.shape()[q]);
        if np != nq {
            return Err(bad(format!(
                "repeated label {} has {np} and {nq} elements in one operand of shape {:?}",
                name(t.labels[p]),
                t.arr.shape()
            )));
        }
        t.arr = t.arr.diagonal(0, p as isize, q as isize)?;
        let l = t.labels[p];
        t.labels.remove(q);
        t.labels.remove(p);
        t.labels.push(l);
    }
}

/// `t` summed over its labels not in `keep` (in the element type, wrapping for integers).
fn sum_unneeded<T: Numeric>(t: Term<T>, keep: &[Label]) -> Result<Term<T>> {
    let axes: Vec<isize> = (0..t.labels.len())
        .filter(|&i| !keep.contains(&t.labels[i]))
        .map(|i| i as isize)
        .collect();
    if axes.is_empty() {
        return Ok(t);
    }
    let labels = t
        .labels
        .iter()
        .copied()
        .filter(|l| keep.contains(l))
        .collect();
    let arr = t.arr.sum_axes(&axes)?.cast::<T>();
    Ok(Term { labels, arr })
}

/// The product of `a` and `b` over their shared labels: those in `keep` are batch axes,
/// the others contracted; one (batched) matrix product.
fn contract<T: Numeric>(
    a: Term<T>,
    b: Term<T>,
    keep: &[Label],
    sizes: &[(Label, usize)],
) -> Result<Term<T>> {
    let shared: Vec<Label> = a
        .labels
        .iter()
        .copied()
        .filter(|l| b.labels.contains(l))
        .collect();
    let batch: Vec<Label> = shared
        .iter()
        .copied()
        .filter(|l| keep.contains(l))
        .collect();
    let con: Vec<Label> = shared
        .iter()
        .copied()
        .filter(|l| !keep.contains(l))
        .collect();
    let fa: Vec<Label> = a
        .labels
        .iter()
        .copied()
        .filter(|l| !shared.contains(l))
        .collect();
    let fb: Vec<Label> = b
        .labels
        .iter()
        .copied()
        .filter(|l| !shared.contains(l))
        .collect();
    let prod =
        |v: &[Label]| checked_numel(&v.iter().map(|&l| sizes_of(sizes, l)).collect::<Vec<_>>());
    let (bs, m, k, n) = (prod(&batch)?, prod(&fa)?, prod(&con)?, prod(&fb)?);
    // Each side in the order (batch, free, contracted) / (batch, contracted, free), its shared
    // axes broadcast to the full sizes.
    let arrange = |t: &Term<T>, order: &[Label], rows: usize, cols: usize| -> Result<Array<T>> {
        let perm: Vec<usize> = order
            .iter()
            .map(|l| t.labels.iter().position(|x| x == l).unwrap_or(0))
            .collect();
        let p = t.arr.permute(&perm)?;
        let full: Vec<usize> = order
            .iter()
            .enumerate()
            .map(|(i, &l)| {
                if shared.contains(&l) {
                    sizes_of(sizes, l)
                } else {
                    p.shape()[i]
                }
            })
            .collect();
        let p = if p.shape() != full.as_slice() {
            p.broadcast_to(&full)?
        } else {
            p
        };
        if bs == 1 {
            p.reshape(&[rows, cols])
        } else {
            p.reshape(&[bs, rows, cols])
        }
    };
    let oa: Vec<Label> = batch.iter().chain(&fa).chain(&con).copied().collect();
    let ob: Vec<Label> = batch.iter().chain(&con).chain(&fb).copied().collect();
    let r = arrange(&a, &oa, m, k)?.matmul(&arrange(&b, &ob, k, n)?)?;
    let labels: Vec<Label> = batch.iter().chain(&fa).chain(&fb).copied().collect();
    let shape: Vec<usize> = labels.iter().map(|&l| sizes_of(sizes, l)).collect();
    Ok(Term {
        arr: r.reshape(&shape)?,
        labels,
    })
}
