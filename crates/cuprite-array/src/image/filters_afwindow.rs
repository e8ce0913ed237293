//! The window of ArrayFire's bilateral and mean-shift filters: the last two axes of an image
//! (leading axes a batch), the spatial sigma clamped to at most 11.5 in `f32` as ArrayFire
//! does, a reach of `max(1, floor(1.5 sigma))` pixels each side, and the chromatic sigma's
//! square.

use crate::error::{Error, Result};
use crate::shape::checked_numel;

/// The checked extents and parameters of one ArrayFire bilateral or mean-shift call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AfWindow {
    /// The product of the leading axes.
    pub batch: usize,
    /// The image height (second-last axis).
    pub h: usize,
    /// The image width (last axis).
    pub w: usize,
    /// The window's reach each side.
    pub radius: usize,
    /// The clamped spatial sigma.
    pub space: f64,
    /// The chromatic sigma squared.
    pub cvar: f64,
}

impl AfWindow {
    /// The window of `what` on an image of `shape`, or an `Err` naming a sigma that is not
    /// positive and finite, or a shape of fewer than two axes (or too many elements).
    pub(crate) fn of(
        what: &str,
        shape: &[usize],
        spatial_sigma: f64,
        chromatic_sigma: f64,
    ) -> Result<AfWindow> {
        let ok = |s: f64| s.is_finite() && s > 0.0;
        let nd = shape.len();
        if !ok(spatial_sigma) || !ok(chromatic_sigma) || nd < 2 {
            return Err(Error::InvalidArgument(format!(
                "{what}: spatial sigma {spatial_sigma} and chromatic sigma {chromatic_sigma} \
                 (each positive and finite) of an image of shape {shape:?} (at least two axes)"
            )));
        }
        let (h, w) = (shape[nd - 2], shape[nd - 1]);
        let batch = checked_numel(&shape[..nd - 2])?;
        checked_numel(&[batch, h, w])?;
        let space = (spatial_sigma as f32).min(11.5);
        Ok(AfWindow {
            batch,
            h,
            w,
            radius: ((space * 1.5) as usize).max(1),
            space: f64::from(space),
            cvar: chromatic_sigma * chromatic_sigma,
        })
    }

    /// The number of pixels of the batch.
    pub(crate) fn len(&self) -> usize {
        self.batch * self.h * self.w
    }
}
