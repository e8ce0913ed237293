//! ArrayFire's `anisotropicDiffusion` (Perona–Malik gradient diffusion with ArrayFire's
//! discretisation) of the last two axes, as element-wise array work on both backends: each
//! step is one fused kernel over the image and its eight clamped neighbours.

use super::filters_elem::ImageElement;
use crate::array::Array;
use crate::dtype::{Element, Scalar};
use crate::error::{Error, Result};
use crate::shape::SliceArg;

/// The conductance function of [`anisotropic_diffusion`] (ArrayFire's `af_flux_function`),
/// of `v`, a squared gradient magnitude, and the conductance `k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flux {
    /// `exp(-v / k^2)` (`AF_FLUX_EXPONENTIAL`, the default).
    #[default]
    Exponential,
    /// `1 / (1 + v / k^2)` (`AF_FLUX_QUADRATIC`).
    Quadratic,
}

fn c<R: Element>(v: f64) -> R {
    R::from_scalar(Scalar::F64(v))
}

fn range(start: usize, end: usize) -> SliceArg {
    SliceArg::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    }
}

/// `a` shifted by one along `ax`, edges repeated: the value at `i` is `a[clamp(i + d)]` for
/// `d` of -1 or 1.
fn shift<R: ImageElement>(a: &Array<R>, ax: usize, d: i32) -> Result<Array<R>> {
    let n = a.shape()[ax];
    if n < 2 {
        return Ok(a.clone());
    }
    let part = |s: usize, e: usize| -> Result<Array<R>> {
        let mut args = vec![
            SliceArg::Range {
                start: None,
                end: None,
                step: 1
            };
            a.ndim()
        ];
        args[ax] = range(s, e);
        a.slice(&args)
    };
    let (p, q) = if d < 0 {
        (part(0, 1)?, part(0, n - 1)?)
    } else {
        (part(1, n)?, part(n - 1, n)?)
    };
    Array::concat(&[&p, &q], ax as isize)
}

/// ArrayFire's `anisotropicDiffusion` with gradient diffusion: `iterations` explicit steps
/// `u += timestep * delta` over the last two axes (leading axes a batch), edges extended with
/// the nearest pixel, every step computed from the previous one. With `C` a pixel, `N`/`S` its
/// neighbours along axis -2 and `W`/`E` along axis -1 (and the diagonals `NE`, ...), `dx =
/// (E - W) / 2`, `dy = (S - N) / 2` and `g` the [`Flux`] of `conductance`:
///
/// `delta = g((E-C)² + ¼(dy + ½(SE-NE))²)(E-C) - g((C-W)² + ¼(dy + ½(SW-NW))²)(C-W)
///        + g((S-C)² + ¼(dx + ½(SE-SW))²)(S-C) - g((C-N)² + ¼(dx + ½(NE-NW))²)(C-N)`.
///
/// The result is `f64` for `f64` images, else `f32`.
///
/// # Errors
/// A time step or conductance that is not positive and finite, or fewer than two axes.
///
/// ```
/// use cuprite_array::{Array, image::{Flux, anisotropic_diffusion}};
/// // A lone bright pixel spreads to its neighbours; a flat image stays flat.
/// let x = Array::from_slice(&[0.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], &[3, 3])?;
/// let y = anisotropic_diffusion(&x, 0.1, 10.0, 1, Flux::Exponential)?.to_vec()?;
/// assert!(y[4] < 1.0 && y[1] > 0.0);
/// let flat = Array::from_slice(&[5u8; 16], &[4, 4])?;
/// assert_eq!(anisotropic_diffusion(&flat, 0.2, 1.0, 3, Flux::Quadratic)?.to_vec()?, vec![5.0; 16]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn anisotropic_diffusion<T: ImageElement>(
    x: &Array<T>,
    timestep: f64,
    conductance: f64,
    iterations: usize,
    flux: Flux,
) -> Result<Array<T::Real>> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !ok(timestep) || !ok(conductance) || x.ndim() < 2 {
        return Err(Error::InvalidArgument(format!(
            "anisotropic_diffusion: time step {timestep} and conductance {conductance} (each \
             positive and finite) of an image of shape {:?} (at least two axes)",
            x.shape()
        )));
    }
    let (ar, ac) = (x.ndim() - 2, x.ndim() - 1);
    let k2 = 1.0 / (conductance * conductance);
    let g = |v: Array<T::Real>| -> Result<Array<T::Real>> {
        match flux {
            Flux::Exponential => Ok(v.try_mul(c::<T::Real>(-k2))?.exp()),
            Flux::Quadratic => {
                let one = Array::full_like(&v, c::<T::Real>(1.0));
                one.try_div(&v.try_mul(c::<T::Real>(k2))?.try_add(c::<T::Real>(1.0))?)
            }
        }
    };
    let half = c::<T::Real>(0.5);
    let quarter = c::<T::Real>(0.25);
    let mut u: Array<T::Real> = x.cast::<T::Real>();
    for _ in 0..iterations {
        let (n, s) = (shift(&u, ar, -1)?, shift(&u, ar, 1)?);
        let (w, e) = (shift(&u, ac, -1)?, shift(&u, ac, 1)?);
        let (ne, nw) = (shift(&n, ac, 1)?, shift(&n, ac, -1)?);
        let (se, sw) = (shift(&s, ac, 1)?, shift(&s, ac, -1)?);
        let dx = e.try_sub(&w)?.try_mul(half)?;
        let dy = s.try_sub(&n)?.try_mul(half)?;
        // The flux across one half-step: conductance of the squared gradient, times `d`.
        let flow =
            |d: &Array<T::Real>, cross: &Array<T::Real>, a: &Array<T::Real>, b: &Array<T::Real>| {
                let t = cross.try_add(&a.try_sub(b)?.try_mul(half)?)?;
                let v = d.try_mul(d)?.try_add(&t.try_mul(&t)?.try_mul(quarter)?)?;
                g(v)?.try_mul(d)
            };
        let de = e.try_sub(&u)?;
        let dw = u.try_sub(&w)?;
        let ds = s.try_sub(&u)?;
        let dn = u.try_sub(&n)?;
        let delta = flow(&de, &dy, &se, &ne)?
            .try_sub(&flow(&dw, &dy, &sw, &nw)?)?
            .try_add(&flow(&ds, &dx, &se, &sw)?)?
            .try_sub(&flow(&dn, &dx, &ne, &nw)?)?;
        u = u.try_add(&delta.try_mul(c::<T::Real>(timestep))?)?;
        u.eval()?;
    }
    Ok(u)
}
