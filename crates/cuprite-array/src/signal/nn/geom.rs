//! The checked geometry of a convolution or a pooling over one to three spatial axes (leading
//! axes of extent 1 where fewer are given): batch, channels, groups, the input, kernel and
//! output extents, strides, padding before, dilation. Every product the kernels and the CPU
//! loops index by is checked here, so that a geometry that exists fits `usize`, and the
//! extents of one plane fit `i32` (the kernels index within a plane in 32 bits).

use super::opts::Padding;
use crate::error::{Error, Result};
use crate::shape::checked_numel;

/// The largest plane (elements of one channel's spatial extent) the kernels index.
const PLANE_MAX: usize = i32::MAX as usize;

/// A convolution `y[n, k] = sum_{c in group(k), j} w[k, c, j] x[n, c, q s + j d - p]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ConvGeom {
    /// The spatial axes the caller gave (1 to 3).
    pub dims: usize,
    pub n: usize,
    pub c: usize,
    pub k: usize,
    pub groups: usize,
    /// Input, kernel and output extents (leading ones 1).
    pub i: [usize; 3],
    pub r: [usize; 3],
    pub o: [usize; 3],
    pub stride: [usize; 3],
    /// Zeros before the input (those after only shorten or lengthen the output).
    pub pad: [usize; 3],
    pub dil: [usize; 3],
}

/// The values of `v` in the last `D` of three slots, the others `fill`.
fn lift<const D: usize>(v: [usize; D], fill: usize) -> [usize; 3] {
    let mut out = [fill; 3];
    out[3 - D..].copy_from_slice(&v);
    out
}

/// The spatial shape of an operand given by the caller: the shape after its first two axes.
fn spatial<const D: usize>(what: &str, name: &str, shape: &[usize]) -> Result<[usize; D]> {
    if shape.len() != D + 2 {
        return Err(Error::Shape(format!(
            "{what}: the {name} must have {} axes (batch or filters, channels, {D} spatial), not \
             shape {shape:?}",
            D + 2
        )));
    }
    let mut out = [0; D];
    out.copy_from_slice(&shape[2..]);
    Ok(out)
}

/// The output length of one axis: `(i + before + after - extent) / stride + 1`, where
/// `extent = dil (r - 1) + 1`; an `Err` when the dilated kernel is longer than the padded input.
fn out_len(
    what: &str,
    axis: usize,
    i: usize,
    r: usize,
    (before, after): (usize, usize),
    stride: usize,
    dil: usize,
) -> Result<usize> {
    let extent = (r - 1)
        .checked_mul(dil)
        .and_then(|e| e.checked_add(1))
        .ok_or_else(|| Error::InvalidArgument(format!("{what}: the dilated kernel overflows")))?;
    let padded = i
        .checked_add(before)
        .and_then(|v| v.checked_add(after))
        .ok_or_else(|| Error::InvalidArgument(format!("{what}: the padded input overflows")))?;
    if extent > padded {
        return Err(Error::InvalidArgument(format!(
            "{what}: along spatial axis {axis} the kernel spans {extent} (size {r}, dilation \
             {dil}), more than the padded input ({i} + {before} + {after} = {padded})"
        )));
    }
    Ok((padded - extent) / stride + 1)
}

impl ConvGeom {
    /// The geometry of the convolution of an input of `x_shape` (channels first) with weights
    /// of `w_shape` (`[K, C / groups, kernel...]`), or an `Err` naming the wrong values.
    pub(crate) fn new<const D: usize>(
        what: &str,
        x_shape: &[usize],
        w_shape: &[usize],
        stride: [usize; D],
        padding: Padding<D>,
        dilation: [usize; D],
        groups: usize,
    ) -> Result<ConvGeom> {
        if !(1..=3).contains(&D) {
            return Err(Error::InvalidArgument(format!(
                "{what}: {D} spatial axes (1 to 3 are supported)"
            )));
        }
        let xi = spatial::<D>(what, "input", x_shape)?;
        let wr = spatial::<D>(what, "weight", w_shape)?;
        let (n, c, k, cg) = (x_shape[0], x_shape[1], w_shape[0], w_shape[1]);
        if stride.contains(&0) || dilation.contains(&0) {
            return Err(Error::InvalidArgument(format!(
                "{what}: strides {stride:?} and dilations {dilation:?} must be at least 1"
            )));
        }
        if groups == 0 || c == 0 || c % groups != 0 || k % groups != 0 || cg * groups != c {
            return Err(Error::InvalidArgument(format!(
                "{what}: {c} input channels and {k} filters in {groups} groups need both \
                 divisible by the groups and weights of {} channels each, not {cg} (input \
                 {x_shape:?}, weight {w_shape:?})",
                c.checked_div(groups).unwrap_or(0)
            )));
        }
        if wr.contains(&0) || k == 0 {
            return Err(Error::InvalidArgument(format!(
                "{what}: a kernel of extent 0 or no filters (weight {w_shape:?})"
            )));
        }
        let sides: [(usize, usize); D] = match padding {
            Padding::Sides(s) => s,
            Padding::Same => {
                if stride.iter().any(|&s| s != 1) {
                    return Err(Error::InvalidArgument(format!(
                        "{what}: padding \"same\" takes stride 1, not {stride:?}"
                    )));
                }
                let mut s = [(0, 0); D];
                for a in 0..D {
                    let total = (wr[a] - 1).checked_mul(dilation[a]).ok_or_else(|| {
                        Error::InvalidArgument(format!("{what}: the dilated kernel overflows"))
                    })?;
                    s[a] = (total / 2, total - total / 2);
                }
                s
            }
        };
        let mut o = [0; D];
        for a in 0..D {
            o[a] = out_len(what, a, xi[a], wr[a], sides[a], stride[a], dilation[a])?;
        }
        let g = ConvGeom {
            dims: D,
            n,
            c,
            k,
            groups,
            i: lift(xi, 1),
            r: lift(wr, 1),
            o: lift(o, 1),
            stride: lift(stride, 1),
            pad: lift(sides.map(|s| s.0), 0),
            dil: lift(dilation, 1),
        };
        g.check_sizes(what)?;
        Ok(g)
    }

    /// Checks every size the kernels and loops use.
    fn check_sizes(&self, what: &str) -> Result<()> {
        checked_numel(&self.x_shape())?;
        checked_numel(&self.w_shape())?;
        checked_numel(&self.y_shape())?;
        // The lowered patches of one image: `C r0 r1 r2` rows of `o0 o1 o2` values.
        checked_numel(&[self.c, self.rs(), self.p()])?;
        let i = checked_numel(&self.i)?;
        if i > PLANE_MAX
            || self.p() > PLANE_MAX
            || self.rs() > PLANE_MAX
            || self.pad.iter().any(|&p| p > PLANE_MAX)
        {
            return Err(Error::InvalidArgument(format!(
                "{what}: an input plane of {:?}, an output plane of {:?}, a kernel of {:?} or \
                 padding of {:?} is larger than {PLANE_MAX} elements",
                &self.i[3 - self.dims..],
                &self.o[3 - self.dims..],
                &self.r[3 - self.dims..],
                &self.pad[3 - self.dims..]
            )));
        }
        // The farthest input index a tap reaches (`q s + j d`) stays within `i64` and `i32`.
        for a in 0..3 {
            let reach = (self.o[a] - 1)
                .checked_mul(self.stride[a])
                .and_then(|v| v.checked_add((self.r[a] - 1).checked_mul(self.dil[a])?));
            if reach.is_none_or(|v| v > PLANE_MAX) {
                return Err(Error::InvalidArgument(format!(
                    "{what}: strides {:?} and dilations {:?} reach past {PLANE_MAX}",
                    &self.stride[3 - self.dims..],
                    &self.dil[3 - self.dims..]
                )));
            }
        }
        Ok(())
    }

    /// Input channels a group.
    pub(crate) fn cg(&self) -> usize {
        self.c / self.groups
    }
    /// Filters a group.
    pub(crate) fn kg(&self) -> usize {
        self.k / self.groups
    }
    /// Taps of one kernel plane.
    pub(crate) fn rs(&self) -> usize {
        self.r.iter().product()
    }
    /// Elements of one input plane.
    pub(crate) fn ip(&self) -> usize {
        self.i.iter().product()
    }
    /// Elements of one output plane.
    pub(crate) fn p(&self) -> usize {
        self.o.iter().product()
    }
    /// The input's shape, channels first, as the caller's rank has it.
    pub(crate) fn x_shape(&self) -> Vec<usize> {
        let mut s = vec![self.n, self.c];
        s.extend(&self.i[3 - self.dims..]);
        s
    }
    /// The weights' shape.
    pub(crate) fn w_shape(&self) -> Vec<usize> {
        let mut s = vec![self.k, self.cg()];
        s.extend(&self.r[3 - self.dims..]);
        s
    }
    /// The output's shape, channels first.
    pub(crate) fn y_shape(&self) -> Vec<usize> {
        let mut s = vec![self.n, self.k];
        s.extend(&self.o[3 - self.dims..]);
        s
    }
}

/// A pooling window over `k` values of each plane, `stride`, `pad` on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PoolGeom {
    pub dims: usize,
    /// Planes: batch times channels.
    pub planes: usize,
    pub i: [usize; 3],
    pub k: [usize; 3],
    pub o: [usize; 3],
    pub stride: [usize; 3],
    pub pad: [usize; 3],
}

impl PoolGeom {
    /// The geometry of pooling `planes` planes of `i` values with windows of `k`, or an `Err`
    /// naming the wrong values (PyTorch's rules: stride at least 1, padding at most half the
    /// kernel, at least one output).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new<const D: usize>(
        what: &str,
        planes: usize,
        i: [usize; D],
        k: [usize; D],
        stride: [usize; D],
        pad: [usize; D],
        ceil_mode: bool,
    ) -> Result<PoolGeom> {
        if !(1..=3).contains(&D) {
            return Err(Error::InvalidArgument(format!(
                "{what}: {D} spatial axes (1 to 3 are supported)"
            )));
        }
        if k.contains(&0) || stride.contains(&0) {
            return Err(Error::InvalidArgument(format!(
                "{what}: kernel {k:?} and stride {stride:?} must be at least 1"
            )));
        }
        let mut o = [0; D];
        for a in 0..D {
            if pad[a] > k[a] / 2 {
                return Err(Error::InvalidArgument(format!(
                    "{what}: padding {pad:?} must be at most half the kernel {k:?}"
                )));
            }
            let padded = pad[a]
                .checked_mul(2)
                .and_then(|p| p.checked_add(i[a]))
                .ok_or_else(|| {
                    Error::InvalidArgument(format!("{what}: the padded input overflows"))
                })?;
            if padded < k[a] {
                return Err(Error::InvalidArgument(format!(
                    "{what}: along spatial axis {a} the kernel {} is longer than the padded \
                     input {} (input {i:?}, padding {pad:?})",
                    k[a], padded
                )));
            }
            let span = padded - k[a];
            let mut len = if ceil_mode {
                span.div_ceil(stride[a]) + 1
            } else {
                span / stride[a] + 1
            };
            // PyTorch's rule: the last window starts inside the input or its left padding.
            if ceil_mode && (len - 1).saturating_mul(stride[a]) >= i[a] + pad[a] {
                len -= 1;
            }
            o[a] = len;
        }
        let g = PoolGeom {
            dims: D,
            planes,
            i: lift(i, 1),
            k: lift(k, 1),
            o: lift(o, 1),
            stride: lift(stride, 1),
            pad: lift(pad, 0),
        };
        checked_numel(&[planes, g.ip()])?;
        checked_numel(&[planes, g.p()])?;
        let reach = (0..3).all(|a| {
            (g.o[a] - 1)
                .checked_mul(g.stride[a])
                .and_then(|v| v.checked_add(g.k[a]))
                .is_some_and(|v| v <= PLANE_MAX)
        });
        if g.ip() > PLANE_MAX || g.p() > PLANE_MAX || !reach {
            return Err(Error::InvalidArgument(format!(
                "{what}: an input plane of {i:?} or an output plane of {o:?} holds more than \
                 {PLANE_MAX} elements"
            )));
        }
        Ok(g)
    }

    /// Elements of one input plane.
    pub(crate) fn ip(&self) -> usize {
        self.i.iter().product()
    }
    /// Elements of one output plane.
    pub(crate) fn p(&self) -> usize {
        self.o.iter().product()
    }
}
