//! How an image is extended past its edges: SciPy's `mode` (with `cval`), as one enum that
//! every image routine takes, and the index mapping that the CPU twins use. `boundary.cu` holds
//! the same mapping for kernels (`img_map`), with the same mode codes ([`Boundary::code`]); the
//! GPU tests check that both backends agree on every mode.

use std::hash::{Hash, Hasher};

/// How values outside an image are taken, for an input row `a b c d` (SciPy's `mode` names;
/// the default is [`Boundary::Reflect`], SciPy's default for filters).
///
/// For filters and morphology the `Grid*` modes equal their plain forms. For interpolation
/// (zoom, rotate, affine transforms) they differ as in SciPy: [`Boundary::Constant`] gives
/// `cval` only to points outside the image and interpolates inside it from the image alone,
/// while [`Boundary::GridConstant`] pads the image with `cval` and interpolates across the
/// padding; [`Boundary::GridWrap`] is periodic where SciPy's `wrap` for interpolation is not.
///
/// ```
/// use cuprite_array::image::Boundary;
/// // reflect: d c b a | a b c d | d c b a
/// assert_eq!(Boundary::Reflect.map(-1, 4), Some(0));
/// assert_eq!(Boundary::Reflect.map(5, 4), Some(2));
/// // mirror: d c b | a b c d | c b a
/// assert_eq!(Boundary::Mirror.map(-1, 4), Some(1));
/// // wrap: a b c d | a b c d | a b c d
/// assert_eq!(Boundary::Wrap.map(-1, 4), Some(3));
/// // nearest: a a a | a b c d | d d d
/// assert_eq!(Boundary::Nearest.map(9, 4), Some(3));
/// // constant: the value, not an index
/// assert_eq!(Boundary::Constant(0.0).map(-1, 4), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Boundary {
    /// `d c b a | a b c d | d c b a`: reflected about the edge of the last pixel (SciPy's
    /// `reflect`, also `grid-mirror`).
    #[default]
    Reflect,
    /// `k k k k | a b c d | k k k k` with `k` the value (SciPy's `constant` with `cval`).
    Constant(f64),
    /// `a a a a | a b c d | d d d d` (SciPy's `nearest`).
    Nearest,
    /// `d c b | a b c d | c b a`: reflected about the centre of the last pixel (SciPy's
    /// `mirror`).
    Mirror,
    /// `a b c d | a b c d | a b c d` (SciPy's `wrap`).
    Wrap,
    /// As [`Boundary::Constant`] for filters; for interpolation the padding takes part
    /// (SciPy's `grid-constant`).
    GridConstant(f64),
    /// As [`Boundary::Wrap`] for filters; for interpolation the periodic extension (SciPy's
    /// `grid-wrap`).
    GridWrap,
}

impl Eq for Boundary {}

impl Hash for Boundary {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.code().hash(h);
        self.cval().to_bits().hash(h);
    }
}

impl Boundary {
    /// The mode's code in kernels (`img_map` in `boundary.cu`): 0 reflect, 1 constant, 2
    /// nearest, 3 mirror, 4 wrap, 5 grid-constant, 6 grid-wrap.
    #[must_use]
    pub fn code(self) -> i32 {
        match self {
            Boundary::Reflect => 0,
            Boundary::Constant(_) => 1,
            Boundary::Nearest => 2,
            Boundary::Mirror => 3,
            Boundary::Wrap => 4,
            Boundary::GridConstant(_) => 5,
            Boundary::GridWrap => 6,
        }
    }

    /// The fill value of the constant modes (0 for the others).
    #[must_use]
    pub fn cval(self) -> f64 {
        match self {
            Boundary::Constant(v) | Boundary::GridConstant(v) => v,
            _ => 0.0,
        }
    }

    /// The mode of SciPy's name (`"reflect"`, `"grid-mirror"`, `"constant"`, `"grid-constant"`,
    /// `"nearest"`, `"mirror"`, `"wrap"`, `"grid-wrap"`), with `cval` for the constant modes;
    /// `None` for another name.
    ///
    /// ```
    /// use cuprite_array::image::Boundary;
    /// assert_eq!(Boundary::from_scipy("constant", 2.0), Some(Boundary::Constant(2.0)));
    /// assert_eq!(Boundary::from_scipy("grid-mirror", 0.0), Some(Boundary::Reflect));
    /// assert_eq!(Boundary::from_scipy("edge", 0.0), None);
    /// ```
    #[must_use]
    pub fn from_scipy(name: &str, cval: f64) -> Option<Boundary> {
        Some(match name {
            "reflect" | "grid-mirror" => Boundary::Reflect,
            "constant" => Boundary::Constant(cval),
            "grid-constant" => Boundary::GridConstant(cval),
            "nearest" => Boundary::Nearest,
            "mirror" => Boundary::Mirror,
            "wrap" => Boundary::Wrap,
            "grid-wrap" => Boundary::GridWrap,
            _ => return None,
        })
    }

    /// Whether values outside the image are the constant [`Boundary::cval`].
    #[must_use]
    pub fn is_constant(self) -> bool {
        matches!(self, Boundary::Constant(_) | Boundary::GridConstant(_))
    }

    /// The index inside `[0, n)` whose value stands at index `i` of a line of `n` values, or
    /// `None` where the value is the constant (constant modes, `i` outside, or `n == 0`).
    ///
    /// ```
    /// use cuprite_array::image::Boundary;
    /// let row: Vec<_> = (-3..7).map(|i| Boundary::Reflect.map(i, 4).unwrap()).collect();
    /// assert_eq!(row, [2, 1, 0, 0, 1, 2, 3, 3, 2, 1]);
    /// ```
    #[must_use]
    pub fn map(self, i: i64, n: i64) -> Option<i64> {
        if (0..n).contains(&i) {
            return Some(i);
        }
        if n <= 0 {
            return None;
        }
        match self {
            Boundary::Constant(_) | Boundary::GridConstant(_) => None,
            Boundary::Nearest => Some(if i < 0 { 0 } else { n - 1 }),
            Boundary::Reflect => {
                let r = i.rem_euclid(2 * n);
                Some(if r < n { r } else { 2 * n - 1 - r })
            }
            Boundary::Mirror if n == 1 => Some(0),
            Boundary::Mirror => {
                let r = i.rem_euclid(2 * n - 2);
                Some(if r < n { r } else { 2 * n - 2 - r })
            }
            Boundary::Wrap | Boundary::GridWrap => Some(i.rem_euclid(n)),
        }
    }

    /// The C text of `img_map` (`boundary.cu`), for kernels that include it: `long long
    /// img_map(long long i, long long n, int mode)` returns the index or -1 for the constant.
    #[must_use]
    pub(crate) fn c_source() -> &'static str {
        include_str!("boundary.cu")
    }
}

#[cfg(test)]
mod tests {
    use super::Boundary;

    /// SciPy's documented extensions of `a b c d` (the table under `scipy.ndimage` "boundary
    /// modes"), three values each side.
    #[test]
    fn modes_extend_as_scipy_documents() {
        let line = |b: Boundary| -> Vec<Option<i64>> { (-3..7).map(|i| b.map(i, 4)).collect() };
        let s = |v: &[i64]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        assert_eq!(line(Boundary::Reflect), s(&[2, 1, 0, 0, 1, 2, 3, 3, 2, 1]));
        assert_eq!(line(Boundary::Mirror), s(&[3, 2, 1, 0, 1, 2, 3, 2, 1, 0]));
        assert_eq!(line(Boundary::Nearest), s(&[0, 0, 0, 0, 1, 2, 3, 3, 3, 3]));
        assert_eq!(line(Boundary::Wrap), s(&[1, 2, 3, 0, 1, 2, 3, 0, 1, 2]));
        let c = line(Boundary::Constant(1.5));
        assert_eq!(c[..3], [None, None, None]);
        assert_eq!(c[3..7], s(&[0, 1, 2, 3])[..]);
        assert_eq!(Boundary::Mirror.map(-5, 1), Some(0));
        assert_eq!(Boundary::Reflect.map(-9, 1), Some(0));
        assert_eq!(Boundary::Wrap.map(3, 0), None);
    }
}
