//! ArrayFire's interpolation weights, written once for every kernel that interpolates as
//! ArrayFire does (the resampler of the geometric transforms and `signal::approx1`/`approx2`):
//! the C text (`af_weights.cu`, included before those kernels' bodies) and its CPU twins here,
//! which compute the same arithmetic in the same order.

pub(crate) use super::elem::Work;

/// The C text of the weights (`af_linear_weights`, `af_cubic_weights`).
pub(crate) const C_SOURCE: &str = include_str!("af_weights.cu");

/// The weights of the taps `g`, `g + 1` around a coordinate whose fraction above its floor `g`
/// is `t`: `1 - t` and `t`, with `cosine` after smoothing `t` to `(1 - cos(pi t)) / 2`
/// (computed in `f64`); the twin of `af_linear_weights`.
pub(crate) fn linear<W: Work>(t: W, cosine: bool) -> [W; 2] {
    let t = if cosine {
        W::from_f64((1.0 - (t.to_f64() * std::f64::consts::PI).cos()) / 2.0)
    } else {
        t
    };
    [W::from_f64(1.0) - t, t]
}

/// The weights of the taps `g - 1 .. g + 2`: ArrayFire's cubic, or Catmull-Rom with `spline`;
/// the twin of `af_cubic_weights`.
pub(crate) fn cubic<W: Work>(t: W, spline: bool) -> [W; 4] {
    let c = W::from_f64;
    let (t2, t3) = (t * t, t * t * t);
    if spline {
        [
            c(-0.5) * t3 + t2 - c(0.5) * t,
            c(1.5) * t3 - c(2.5) * t2 + c(1.0),
            c(-1.5) * t3 + c(2.0) * t2 + c(0.5) * t,
            c(0.5) * t3 - c(0.5) * t2,
        ]
    } else {
        [
            -t3 + c(2.0) * t2 - t,
            t3 - c(2.0) * t2 + c(1.0),
            -t3 + t2 + t,
            t3 - t2,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::{cubic, linear};

    /// The weights reproduce ArrayFire's polynomials: the cubic through four values with
    /// `a = v3 - v2 - v0 + v1`, `b = v0 - v1 - a`, `c = v2 - v0`, `d = v1`, and Catmull-Rom's
    /// `d = v1`, `c = (v2 - v0) / 2`, `b = v0 - 2.5 v1 + 2 v2 - v3 / 2`,
    /// `a = (-v0 + 3 v1 - 3 v2 + v3) / 2`; the weights of each sum to one.
    #[test]
    fn weights_are_arrayfires_polynomials() {
        let v = [0.3f64, -1.2, 2.5, 0.7];
        for t in [0.0, 0.125, 0.5, 0.8, 0.999] {
            let a = v[3] - v[2] - v[0] + v[1];
            let b = v[0] - v[1] - a;
            let want = ((a * t + b) * t + (v[2] - v[0])) * t + v[1];
            let w = cubic(t, false);
            let got: f64 = w.iter().zip(&v).map(|(w, v)| w * v).sum();
            assert!((got - want).abs() < 1e-12, "cubic at {t}: {got} vs {want}");
            let a = (-v[0] + 3.0 * v[1] - 3.0 * v[2] + v[3]) / 2.0;
            let b = v[0] - 2.5 * v[1] + 2.0 * v[2] - v[3] / 2.0;
            let want = ((a * t + b) * t + (v[2] - v[0]) / 2.0) * t + v[1];
            let w = cubic(t, true);
            let got: f64 = w.iter().zip(&v).map(|(w, v)| w * v).sum();
            assert!((got - want).abs() < 1e-12, "spline at {t}: {got} vs {want}");
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-15);
            let [w0, w1] = linear(t, true);
            let s = (1.0 - (std::f64::consts::PI * t).cos()) / 2.0;
            assert!((w1 - s).abs() < 1e-15 && (w0 + w1 - 1.0).abs() < 1e-15);
        }
        assert_eq!(linear(0.25f32, false), [0.75, 0.25]);
    }
}
