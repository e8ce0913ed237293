//! The options values of the geometric transforms (SciPy's and ArrayFire's keyword arguments),
//! each starting from its library's defaults (`new()` and `Default` agree).

use crate::image::Boundary;

/// Options of [`spline_filter_with`](super::spline_filter_with): SciPy's `order` (2 to 5,
/// default 3) and `mode` (default [`Boundary::Mirror`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct SplineFilterOpts {
    pub(crate) order: usize,
    pub(crate) mode: Boundary,
}

impl Default for SplineFilterOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl SplineFilterOpts {
    /// SciPy's defaults: order 3, mode `mirror`.
    pub fn new() -> Self {
        SplineFilterOpts {
            order: 3,
            mode: Boundary::Mirror,
        }
    }
    /// The spline's order (0 to 5; 0 and 1 copy the input).
    pub fn order(self, order: usize) -> Self {
        SplineFilterOpts { order, ..self }
    }
    /// The boundary rule of the filter (SciPy's `mode`).
    pub fn mode(self, mode: Boundary) -> Self {
        SplineFilterOpts { mode, ..self }
    }
}

/// Options of [`spline_filter1d_with`](super::spline_filter1d_with): SciPy's `order` (default
/// 3), `axis` (default -1) and `mode` (default [`Boundary::Mirror`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct SplineFilter1dOpts {
    pub(crate) order: usize,
    pub(crate) axis: isize,
    pub(crate) mode: Boundary,
}

impl Default for SplineFilter1dOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl SplineFilter1dOpts {
    /// SciPy's defaults: order 3, the last axis, mode `mirror`.
    pub fn new() -> Self {
        SplineFilter1dOpts {
            order: 3,
            axis: -1,
            mode: Boundary::Mirror,
        }
    }
    /// The spline's order (0 to 5; 0 and 1 copy the input).
    pub fn order(self, order: usize) -> Self {
        SplineFilter1dOpts { order, ..self }
    }
    /// The filtered axis (negative counts from the end).
    pub fn axis(self, axis: isize) -> Self {
        SplineFilter1dOpts { axis, ..self }
    }
    /// The boundary rule of the filter (SciPy's `mode`).
    pub fn mode(self, mode: Boundary) -> Self {
        SplineFilter1dOpts { mode, ..self }
    }
}

/// Options of [`map_coordinates_with`](super::map_coordinates_with) and
/// [`shift_with`](super::shift_with): SciPy's `order` (0 to 5, default 3), `mode` with `cval`
/// (default [`Boundary::Constant`]`(0.0)`) and `prefilter` (default `true`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct InterpOpts {
    pub(crate) order: usize,
    pub(crate) mode: Boundary,
    pub(crate) prefilter: bool,
}

impl Default for InterpOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl InterpOpts {
    /// SciPy's defaults: order 3, mode `constant` with `cval = 0`, prefilter.
    pub fn new() -> Self {
        InterpOpts {
            order: 3,
            mode: Boundary::Constant(0.0),
            prefilter: true,
        }
    }
    /// The spline's order (0 to 5).
    pub fn order(self, order: usize) -> Self {
        InterpOpts { order, ..self }
    }
    /// How points outside the input are taken (SciPy's `mode` and `cval`).
    pub fn mode(self, mode: Boundary) -> Self {
        InterpOpts { mode, ..self }
    }
    /// Whether the input is filtered by [`spline_filter`](super::spline_filter) first (for
    /// orders above 1); `false` when it already holds spline coefficients.
    pub fn prefilter(self, prefilter: bool) -> Self {
        InterpOpts { prefilter, ..self }
    }
}

/// Options of [`affine_transform_with`](super::affine_transform_with): SciPy's `offset`
/// (default 0 on every axis; one value applies to all), `output_shape` (default the input's),
/// `order`, `mode` with `cval` and `prefilter` (as [`InterpOpts`]).
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct AffineOpts {
    pub(crate) offset: Vec<f64>,
    pub(crate) output_shape: Option<Vec<usize>>,
    pub(crate) interp: InterpOpts,
}

impl Default for AffineOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl AffineOpts {
    /// SciPy's defaults: no offset, the input's shape, order 3, mode `constant`, prefilter.
    pub fn new() -> Self {
        AffineOpts {
            offset: vec![0.0],
            output_shape: None,
            interp: InterpOpts::new(),
        }
    }
    /// The offset added to the mapped coordinates, one value per transformed axis (or one
    /// for all).
    pub fn offset(self, offset: &[f64]) -> Self {
        AffineOpts {
            offset: offset.to_vec(),
            ..self
        }
    }
    /// The shape of the transformed axes of the output (default: the input's).
    pub fn output_shape(self, shape: &[usize]) -> Self {
        AffineOpts {
            output_shape: Some(shape.to_vec()),
            ..self
        }
    }
    /// The spline's order (0 to 5).
    pub fn order(self, order: usize) -> Self {
        AffineOpts {
            interp: self.interp.order(order),
            ..self
        }
    }
    /// How points outside the input are taken (SciPy's `mode` and `cval`).
    pub fn mode(self, mode: Boundary) -> Self {
        AffineOpts {
            interp: self.interp.mode(mode),
            ..self
        }
    }
    /// Whether the input is spline-filtered first (orders above 1).
    pub fn prefilter(self, prefilter: bool) -> Self {
        AffineOpts {
            interp: self.interp.prefilter(prefilter),
            ..self
        }
    }
}

/// Options of [`zoom_with`](super::zoom_with): SciPy's `order`, `mode` with `cval`,
/// `prefilter` (as [`InterpOpts`]) and `grid_mode` (default `false`: the zoom maps the centres
/// of the first and last pixels onto each other; `true`: their outer edges).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct ZoomOpts {
    pub(crate) interp: InterpOpts,
    pub(crate) grid_mode: bool,
}

impl Default for ZoomOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl ZoomOpts {
    /// SciPy's defaults: order 3, mode `constant`, prefilter, no grid mode.
    pub fn new() -> Self {
        ZoomOpts {
            interp: InterpOpts::new(),
            grid_mode: false,
        }
    }
    /// The spline's order (0 to 5).
    pub fn order(self, order: usize) -> Self {
        ZoomOpts {
            interp: self.interp.order(order),
            ..self
        }
    }
    /// How points outside the input are taken (SciPy's `mode` and `cval`).
    pub fn mode(self, mode: Boundary) -> Self {
        ZoomOpts {
            interp: self.interp.mode(mode),
            ..self
        }
    }
    /// Whether the input is spline-filtered first (orders above 1).
    pub fn prefilter(self, prefilter: bool) -> Self {
        ZoomOpts {
            interp: self.interp.prefilter(prefilter),
            ..self
        }
    }
    /// Whether pixels are zoomed as cells (their edges map onto each other) instead of points.
    pub fn grid_mode(self, grid_mode: bool) -> Self {
        ZoomOpts { grid_mode, ..self }
    }
}

/// Options of [`rotate_with`](super::rotate_with): SciPy's `axes` (default `(1, 0)`, the
/// first two axes, as SciPy), `reshape` (default `true`: the output holds the whole rotated
/// input), `order`, `mode` with `cval` and `prefilter` (as [`InterpOpts`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct RotateOpts {
    pub(crate) axes: (isize, isize),
    pub(crate) reshape: bool,
    pub(crate) interp: InterpOpts,
}

impl Default for RotateOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl RotateOpts {
    /// SciPy's defaults: axes `(1, 0)`, reshape, order 3, mode `constant`, prefilter.
    pub fn new() -> Self {
        RotateOpts {
            axes: (1, 0),
            reshape: true,
            interp: InterpOpts::new(),
        }
    }
    /// The two axes of the rotation's plane (negative count from the end; `(-2, -1)` rotates
    /// each image of a batch).
    pub fn axes(self, a: isize, b: isize) -> Self {
        RotateOpts {
            axes: (a, b),
            ..self
        }
    }
    /// Whether the output plane is enlarged to hold the whole rotated input.
    pub fn reshape(self, reshape: bool) -> Self {
        RotateOpts { reshape, ..self }
    }
    /// The spline's order (0 to 5).
    pub fn order(self, order: usize) -> Self {
        RotateOpts {
            interp: self.interp.order(order),
            ..self
        }
    }
    /// How points outside the input are taken (SciPy's `mode` and `cval`).
    pub fn mode(self, mode: Boundary) -> Self {
        RotateOpts {
            interp: self.interp.mode(mode),
            ..self
        }
    }
    /// Whether the input is spline-filtered first (orders above 1).
    pub fn prefilter(self, prefilter: bool) -> Self {
        RotateOpts {
            interp: self.interp.prefilter(prefilter),
            ..self
        }
    }
}

/// Options of [`geometric_transform_with`](super::geometric_transform_with): SciPy's
/// `output_shape` (default the input's), `order`, `mode` with `cval` and `prefilter` (as
/// [`InterpOpts`]).
#[derive(Clone, Debug, PartialEq)]
#[must_use]
pub struct GeometricOpts {
    pub(crate) output_shape: Option<Vec<usize>>,
    pub(crate) interp: InterpOpts,
}

impl Default for GeometricOpts {
    fn default() -> Self {
        Self::new()
    }
}

impl GeometricOpts {
    /// SciPy's defaults: the input's shape, order 3, mode `constant`, prefilter.
    pub fn new() -> Self {
        GeometricOpts {
            output_shape: None,
            interp: InterpOpts::new(),
        }
    }
    /// The output's shape.
    pub fn output_shape(self, shape: &[usize]) -> Self {
        GeometricOpts {
            output_shape: Some(shape.to_vec()),
            ..self
        }
    }
    /// The spline's order (0 to 5).
    pub fn order(self, order: usize) -> Self {
        GeometricOpts {
            interp: self.interp.order(order),
            ..self
        }
    }
    /// How points outside the input are taken (SciPy's `mode` and `cval`).
    pub fn mode(self, mode: Boundary) -> Self {
        GeometricOpts {
            interp: self.interp.mode(mode),
            ..self
        }
    }
    /// Whether the input is spline-filtered first (orders above 1).
    pub fn prefilter(self, prefilter: bool) -> Self {
        GeometricOpts {
            interp: self.interp.prefilter(prefilter),
            ..self
        }
    }
}
