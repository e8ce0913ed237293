//! Canny's edge detector in ArrayFire's steps (`af::canny` with manual thresholds), as array
//! work on both backends: Sobel derivatives, the gradient magnitude, non-maximum suppression
//! along the gradient's direction, two thresholds relative to each image's largest magnitude,
//! and hysteresis (weak edges joined to strong ones through 8-connected neighbours).

use super::boundary::Boundary;
use super::filters::FilterOpts;
use super::filters_edges::sobel_with;
use super::filters_elem::ImageElement;
use super::filters_order::{FilterWindow, maximum_filter_with};
use crate::array::Array;
use crate::dtype::{Element, Scalar};
use crate::error::{Error, Result};
use crate::ops::ReduceOpts;
use crate::shape::SliceArg;

fn c<R: Element>(v: f64) -> R {
    R::from_scalar(Scalar::F64(v))
}

/// The neighbour `(di, dj)` of every pixel of the last two axes of `p`, which is padded by one
/// on each side of them.
fn at<R: Element>(p: &Array<R>, di: isize, dj: isize) -> Result<Array<R>> {
    let nd = p.ndim();
    let mut args = vec![
        SliceArg::Range {
            start: None,
            end: None,
            step: 1
        };
        nd
    ];
    for (a, d) in [(nd - 2, di), (nd - 1, dj)] {
        let n = p.shape()[a] as isize - 2;
        args[a] = SliceArg::Range {
            start: Some(1 + d),
            end: Some(1 + d + n),
            step: 1,
        };
    }
    p.slice(&args)
}

/// Canny's edges of the last two axes (leading axes a batch): the gradient from Sobel
/// derivatives (edges extended with the nearest pixel), its magnitude `sqrt(dx² + dy²)`
/// thinned to the pixels at least as large as both neighbours along the gradient's direction
/// (rounded to horizontal, vertical or a diagonal; pixels past the edges count as 0); pixels
/// of magnitude at least `high = high_ratio * max` (the image's largest magnitude) are edges,
/// and so are those of at least `low = low_ratio * high` joined to an edge through
/// 8-connected pixels of at least `low` (ArrayFire's manual thresholds). A pixel of magnitude
/// 0 is never an edge.
///
/// # Errors
/// Ratios outside `(0, 1]` or not finite, or fewer than two axes.
///
/// ```
/// use cuprite_array::{Array, image::canny};
/// // A bright square on a dark ground: its border is an edge, its inside and the ground are not.
/// let v: Vec<f32> = (0..64).map(|i| if (2..6).contains(&(i / 8)) && (2..6).contains(&(i % 8)) { 1.0 } else { 0.0 }).collect();
/// let e = canny(&Array::from_slice(&v, &[8, 8])?, 0.3, 0.7)?.to_vec()?;
/// assert!(!e[0] && !e[4 * 8 + 4 - 9]);
/// assert!(e.iter().filter(|&&b| b).count() >= 8);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn canny<T: ImageElement>(
    x: &Array<T>,
    low_ratio: f64,
    high_ratio: f64,
) -> Result<Array<bool>> {
    let ok = |r: f64| r.is_finite() && r > 0.0 && r <= 1.0;
    if !ok(low_ratio) || !ok(high_ratio) || x.ndim() < 2 {
        return Err(Error::InvalidArgument(format!(
            "canny: low ratio {low_ratio} and high ratio {high_ratio} (each in (0, 1]) of an \
             image of shape {:?} (at least two axes)",
            x.shape()
        )));
    }
    let nd = x.ndim();
    let g = x.cast::<T::Real>();
    let o = FilterOpts::new()
        .boundary(Boundary::Nearest)
        .axes(&[-2, -1]);
    let dx = sobel_with(&g, -1, o.clone())?;
    let dy = sobel_with(&g, -2, o)?;
    let mag = dx.try_mul(&dx)?.try_add(&dy.try_mul(&dy)?)?.sqrt();
    // Non-maximum suppression: the two neighbours along the rounded gradient direction.
    let mut widths = vec![(0usize, 0usize); nd];
    widths[nd - 2] = (1, 1);
    widths[nd - 1] = (1, 1);
    let p = mag.pad(&widths, c(0.0))?;
    let t = c::<T::Real>(std::f64::consts::FRAC_PI_8.tan());
    let (ax, ay) = (dx.abs(), dy.abs());
    let horiz = ay.try_less_equal(&ax.try_mul(t)?)?;
    let vert = ax.try_less_equal(&ay.try_mul(t)?)?;
    let same_sign = dx.try_mul(&dy)?.try_greater(c::<T::Real>(0.0))?;
    let pick = |a: Array<T::Real>, b: Array<T::Real>, cnd: &Array<bool>| Array::select(cnd, &a, &b);
    // Diagonals: down-right and up-left when dx and dy share a sign (rows grow downwards).
    let diag1 = pick(at(&p, -1, -1)?, at(&p, -1, 1)?, &same_sign)?;
    let diag2 = pick(at(&p, 1, 1)?, at(&p, 1, -1)?, &same_sign)?;
    let n1 = pick(at(&p, 0, -1)?, pick(at(&p, -1, 0)?, diag1, &vert)?, &horiz)?;
    let n2 = pick(at(&p, 0, 1)?, pick(at(&p, 1, 0)?, diag2, &vert)?, &horiz)?;
    let keep = n1
        .try_less_equal(&mag)?
        .try_and(&n2.try_less_equal(&mag)?)?
        .try_and(&mag.try_greater(c::<T::Real>(0.0))?)?;
    let thin = Array::select(&keep, &mag, c::<T::Real>(0.0))?;
    let top = mag.max_axes_with(&[-2, -1], ReduceOpts::new().keepdims(true))?;
    let high = top.try_mul(c::<T::Real>(high_ratio))?;
    let low = high.try_mul(c::<T::Real>(low_ratio))?;
    let positive = thin.try_greater(c::<T::Real>(0.0))?;
    let mut strong = high.try_less_equal(&thin)?.try_and(&positive)?;
    let weak = low.try_less_equal(&thin)?.try_and(&positive)?;
    // Hysteresis: grow the strong edges into weak pixels until nothing changes.
    let grow = FilterOpts::new()
        .boundary(Boundary::Constant(0.0))
        .axes(&[-2, -1]);
    let mut count = strong.cast::<u64>().sum()?.item()?;
    loop {
        let near = maximum_filter_with(
            &strong.cast::<u8>(),
            &FilterWindow::size(&[3]),
            grow.clone(),
        )?;
        let next = near.try_greater(0u8)?.try_and(&weak)?.or(&strong);
        let n = next.cast::<u64>().sum()?.item()?;
        strong = next;
        if n == count {
            break;
        }
        count = n;
    }
    Ok(strong)
}
