//! The NumPy coverage table: `docs/numpy-coverage.md` is generated from
//! `tests/data/numpy-coverage.tsv` (each NumPy-level routine that CuPy documents, with its
//! cuprite name or "not yet"). The test fails when the committed page differs from what it
//! generates (`CUPRITE_BLESS=1` rewrites it), and every cuprite name in the table must be in
//! [`known`], a list that names each function, so a renamed or removed one breaks the build.

use cuprite_array::{Array, c64};
use cuprite_testkit::{Test, TestResult};
use std::collections::BTreeMap;

/// Every cuprite name the table may use, each naming the item it stands for (a compile error
/// when the item is gone).
fn known() -> Vec<&'static str> {
    let mut v = Vec::new();
    macro_rules! k {
        ($name:literal, $item:expr) => {{
            let _ = $item;
            v.push($name);
        }};
    }
    k!("Array::abs", Array::<f32>::abs);
    k!("Array::acos", Array::<f32>::acos);
    k!("Array::acosh", Array::<f32>::acosh);
    k!("Array::all", Array::<f32>::all);
    k!("Array::all_axes", Array::<f32>::all_axes);
    k!("Array::allclose", Array::<f32>::allclose);
    k!("Array::and", |x: &Array<bool>| x.and(x));
    k!("Array::any", Array::<f32>::any);
    k!("Array::any_axes", Array::<f32>::any_axes);
    k!("Array::arange", Array::<f32>::arange);
    k!("Array::arg", Array::<c64>::arg);
    k!("Array::argmax", Array::<f32>::argmax);
    k!("Array::argmax_axis", Array::<f32>::argmax_axis);
    k!("Array::argmin", Array::<f32>::argmin);
    k!("Array::argmin_axis", Array::<f32>::argmin_axis);
    k!("Array::argsort", Array::<f32>::argsort);
    k!("Array::argwhere", Array::<f32>::argwhere);
    k!("Array::array_equal", Array::<f32>::array_equal);
    k!("Array::array_equiv", Array::<f32>::array_equiv);
    k!("Array::array_split", Array::<f32>::array_split);
    k!("Array::asin", Array::<f32>::asin);
    k!("Array::asinh", Array::<f32>::asinh);
    k!("Array::assign", Array::<f32>::assign);
    k!("Array::atan", Array::<f32>::atan);
    k!("Array::atan2", |x: &Array<f32>| x.atan2(x));
    k!("Array::atanh", Array::<f32>::atanh);
    k!("Array::atleast_1d", Array::<f32>::atleast_1d);
    k!("Array::atleast_2d", Array::<f32>::atleast_2d);
    k!("Array::atleast_3d", Array::<f32>::atleast_3d);
    k!("Array::average", Array::<f32>::average);
    k!("Array::bernoulli", Array::<bool>::bernoulli);
    k!("Array::beta", Array::<f32>::beta);
    k!("Array::bincount", Array::<i64>::bincount);
    k!("Array::bincount_weighted", Array::<i64>::bincount_weighted);
    k!("Array::broadcast_to", Array::<f32>::broadcast_to);
    k!("Array::cast", Array::<f32>::cast::<f64>);
    k!("Array::cbrt", Array::<f32>::cbrt);
    k!("Array::ceil", Array::<f32>::ceil);
    k!("Array::choice", Array::<i64>::choice);
    k!("Array::choice_with", Array::<i64>::choice_with);
    k!("Array::clamp", |x: &Array<f32>| x.clamp(x, x));
    k!("Array::column_stack", Array::<f32>::column_stack);
    k!("Array::concat", Array::<f32>::concat);
    k!("Array::conj", Array::<c64>::conj);
    k!("Array::contiguous", Array::<f32>::contiguous);
    k!("Array::copysign", Array::<f32>::copysign);
    k!("Array::corrcoef", Array::<f32>::corrcoef);
    k!("Array::cos", Array::<f32>::cos);
    k!("Array::cosh", Array::<f32>::cosh);
    k!("Array::count", Array::<f32>::count);
    k!("Array::count_axes", Array::<f32>::count_axes);
    k!("Array::cov", Array::<f32>::cov);
    k!("Array::cross", Array::<f32>::cross);
    k!("Array::cumprod", Array::<f32>::cumprod);
    k!("Array::cumprod_exclusive", Array::<f32>::cumprod_exclusive);
    k!("Array::cumsum", Array::<f32>::cumsum);
    k!("Array::cumsum_exclusive", Array::<f32>::cumsum_exclusive);
    k!("Array::diag_k", Array::<f32>::diag_k);
    k!("Array::diagonal", Array::<f32>::diagonal);
    k!("Array::diff", Array::<f32>::diff);
    k!("Array::digitize", Array::<f32>::digitize);
    k!("Array::divmod", Array::<f32>::divmod);
    k!("Array::dstack", Array::<f32>::dstack);
    k!("Array::equal", |x: &Array<f32>| x.equal(x));
    k!("Array::exp", Array::<f32>::exp);
    k!("Array::exp2", Array::<f32>::exp2);
    k!("Array::expand_dims", Array::<f32>::expand_dims);
    k!("Array::expm1", Array::<f32>::expm1);
    k!("Array::exponential", Array::<f32>::exponential);
    k!("Array::eye", Array::<f32>::eye);
    k!("Array::eye_k", Array::<f32>::eye_k);
    k!("Array::fft", Array::<f32>::fft);
    k!("Array::fft2", Array::<f32>::fft2);
    k!("Array::fftfreq", Array::<f32>::fftfreq);
    k!("Array::fftn", Array::<f32>::fftn);
    k!("Array::fftshift", Array::<f32>::fftshift);
    k!("Array::flatten", Array::<f32>::flatten);
    k!("Array::flip", Array::<f32>::flip);
    k!("Array::floor", Array::<f32>::floor);
    k!("Array::floor_divide", Array::<f32>::floor_divide);
    k!("Array::fmax", Array::<f32>::fmax);
    k!("Array::fmin", Array::<f32>::fmin);
    k!("Array::from_dlpack", Array::<f32>::from_dlpack);
    k!("Array::from_slice", Array::<f32>::from_slice);
    k!("Array::from_vec", Array::<f32>::from_vec);
    k!("Array::full", Array::<f32>::full);
    k!("Array::gamma", Array::<f32>::gamma);
    k!("Array::gradient", Array::<f32>::gradient);
    k!("Array::greater", |x: &Array<f32>| x.greater(x));
    k!("Array::greater_equal", |x: &Array<f32>| x.greater_equal(x));
    k!("Array::heaviside", Array::<f32>::heaviside);
    k!("Array::histogram", Array::<f32>::histogram);
    k!("Array::histogram_edges", Array::<f32>::histogram_edges);
    k!("Array::histogram_with", Array::<f32>::histogram_with);
    k!("Array::hstack", Array::<f32>::hstack);
    k!("Array::hypot", |x: &Array<f32>| x.hypot(x));
    k!("Array::ifft", Array::<f32>::ifft);
    k!("Array::ifft2", Array::<f32>::ifft2);
    k!("Array::ifftn", Array::<f32>::ifftn);
    k!("Array::ifftshift", Array::<f32>::ifftshift);
    k!("Array::imag", Array::<c64>::imag);
    k!("Array::index", Array::<f32>::index);
    k!("Array::irfft", Array::<f32>::irfft);
    k!("Array::irfft2", Array::<f32>::irfft2);
    k!("Array::irfftn", Array::<f32>::irfftn);
    k!("Array::isclose", Array::<f32>::isclose);
    k!("Array::isfinite", Array::<f32>::isfinite);
    k!("Array::isin", Array::<f32>::isin);
    k!("Array::isinf", Array::<f32>::isinf);
    k!("Array::isnan", Array::<f32>::isnan);
    k!("Array::isneginf", Array::<f32>::isneginf);
    k!("Array::isposinf", Array::<f32>::isposinf);
    k!("Array::kron", Array::<f32>::kron);
    k!("Array::len", Array::<f32>::len);
    k!("Array::less", |x: &Array<f32>| x.less(x));
    k!("Array::less_equal", |x: &Array<f32>| x.less_equal(x));
    k!("Array::linspace", Array::<f32>::linspace);
    k!("Array::load_npy", |p: &str| Array::<f32>::load_npy(p));
    k!("Array::log", Array::<f32>::log);
    k!("Array::log10", Array::<f32>::log10);
    k!("Array::log1p", Array::<f32>::log1p);
    k!("Array::log2", Array::<f32>::log2);
    k!("Array::logaddexp", Array::<f32>::logaddexp);
    k!("Array::logaddexp2", Array::<f32>::logaddexp2);
    k!("Array::logspace", Array::<f32>::logspace);
    k!("Array::masked_assign", Array::<f32>::masked_assign);
    k!("Array::masked_select", Array::<f32>::masked_select);
    k!("Array::max", Array::<f32>::max);
    k!("Array::max_axes", Array::<f32>::max_axes);
    k!("Array::maximum", |x: &Array<f32>| x.maximum(x));
    k!("Array::mean", Array::<f32>::mean);
    k!("Array::mean_axes", Array::<f32>::mean_axes);
    k!("Array::median", Array::<f32>::median);
    k!("Array::min", Array::<f32>::min);
    k!("Array::min_axes", Array::<f32>::min_axes);
    k!("Array::minimum", |x: &Array<f32>| x.minimum(x));
    k!("Array::moveaxis", Array::<f32>::moveaxis);
    k!("Array::nan_to_num", Array::<f32>::nan_to_num);
    k!("Array::nanargmax", Array::<f32>::nanargmax);
    k!("Array::nanargmax_axis", Array::<f32>::nanargmax_axis);
    k!("Array::nanargmin", Array::<f32>::nanargmin);
    k!("Array::nanargmin_axis", Array::<f32>::nanargmin_axis);
    k!("Array::nancumprod", Array::<f32>::nancumprod);
    k!("Array::nancumsum", Array::<f32>::nancumsum);
    k!("Array::nanmax", Array::<f32>::nanmax);
    k!("Array::nanmax_axes", Array::<f32>::nanmax_axes);
    k!("Array::nanmean", Array::<f32>::nanmean);
    k!("Array::nanmean_axes", Array::<f32>::nanmean_axes);
    k!("Array::nanmedian", Array::<f32>::nanmedian);
    k!("Array::nanmin", Array::<f32>::nanmin);
    k!("Array::nanmin_axes", Array::<f32>::nanmin_axes);
    k!("Array::nanprod", Array::<f32>::nanprod);
    k!("Array::nanprod_axes", Array::<f32>::nanprod_axes);
    k!("Array::nanstd", Array::<f32>::nanstd);
    k!("Array::nanstd_axes", Array::<f32>::nanstd_axes);
    k!("Array::nansum", Array::<f32>::nansum);
    k!("Array::nansum_axes", Array::<f32>::nansum_axes);
    k!("Array::nanvar", Array::<f32>::nanvar);
    k!("Array::nanvar_axes", Array::<f32>::nanvar_axes);
    k!("Array::ndim", Array::<f32>::ndim);
    k!("Array::nonzero", Array::<f32>::nonzero);
    k!("Array::not_equal", |x: &Array<f32>| x.not_equal(x));
    k!("Array::ones", Array::<f32>::ones);
    k!("Array::or", |x: &Array<bool>| x.or(x));
    k!("Array::pad", Array::<f32>::pad);
    k!("Array::pad_linear_ramp", Array::<f32>::pad_linear_ramp);
    k!("Array::pad_mode", Array::<f32>::pad_mode);
    k!("Array::partition", Array::<f32>::partition);
    k!("Array::percentile", Array::<f32>::percentile);
    k!("Array::percentiles", Array::<f32>::percentiles);
    k!("Array::permutation", Array::<i64>::permutation);
    k!("Array::permute", Array::<f32>::permute);
    k!("Array::pow", |x: &Array<f32>| x.pow(x));
    k!("Array::prod", Array::<f32>::prod);
    k!("Array::prod_axes", Array::<f32>::prod_axes);
    k!("Array::ptp", Array::<f32>::ptp);
    k!("Array::ptp_axes", Array::<f32>::ptp_axes);
    k!("Array::put", Array::<f32>::put::<i64>);
    k!("Array::put_with", Array::<f32>::put_with::<i64>);
    k!("Array::quantile", Array::<f32>::quantile);
    k!("Array::quantiles", Array::<f32>::quantiles);
    k!("Array::rand_normal", Array::<f32>::rand_normal);
    k!("Array::rand_uniform", Array::<f32>::rand_uniform);
    k!("Array::randint", Array::<i64>::randint);
    k!("Array::real", Array::<c64>::real);
    k!("Array::rem", |x: &Array<f32>| x.rem(x));
    k!("Array::repeat", Array::<f32>::repeat);
    k!("Array::repeat_each", Array::<f32>::repeat_each);
    k!("Array::reshape", Array::<f32>::reshape::<[usize]>);
    k!("Array::rfft", Array::<f32>::rfft);
    k!("Array::rfft2", Array::<f32>::rfft2);
    k!("Array::rfftfreq", Array::<f32>::rfftfreq);
    k!("Array::rfftn", Array::<f32>::rfftn);
    k!("Array::roll", Array::<f32>::roll);
    k!("Array::rot90", Array::<f32>::rot90);
    k!("Array::round", Array::<f32>::round);
    k!("Array::save_npy", |x: &Array<f32>, p: &str| x.save_npy(p));
    k!("Array::scatter", Array::<f32>::scatter::<i64>);
    k!("Array::searchsorted", Array::<f32>::searchsorted);
    k!("Array::select", |c: &Array<bool>, x: &Array<f32>| {
        Array::select(c, x, x)
    });
    k!("Array::shape", Array::<f32>::shape);
    k!("Array::shuffle", Array::<f32>::shuffle);
    k!("Array::sign", Array::<f32>::sign);
    k!("Array::signbit", Array::<f32>::signbit);
    k!("Array::sin", Array::<f32>::sin);
    k!("Array::sinc", Array::<f32>::sinc);
    k!("Array::sinh", Array::<f32>::sinh);
    k!("Array::sort", Array::<f32>::sort);
    k!("Array::split", Array::<f32>::split);
    k!("Array::split_at", Array::<f32>::split_at);
    k!("Array::sqrt", Array::<f32>::sqrt);
    k!("Array::squeeze", Array::<f32>::squeeze);
    k!("Array::stack", Array::<f32>::stack);
    k!("Array::std", Array::<f32>::std);
    k!("Array::std_axes", Array::<f32>::std_axes);
    k!("Array::sum", Array::<f32>::sum);
    k!("Array::sum_axes", Array::<f32>::sum_axes);
    k!("Array::swapaxes", Array::<f32>::swapaxes);
    k!("Array::t", Array::<f32>::t);
    k!("Array::take", Array::<f32>::take::<i64>);
    k!(
        "Array::take_along_axis",
        Array::<f32>::take_along_axis::<i64>
    );
    k!("Array::take_with", Array::<f32>::take_with::<i64>);
    k!("Array::tan", Array::<f32>::tan);
    k!("Array::tanh", Array::<f32>::tanh);
    k!("Array::tile", Array::<f32>::tile);
    k!("Array::trace", Array::<f32>::trace);
    k!("Array::trapezoid", Array::<f32>::trapezoid);
    k!("Array::trapezoid_x", Array::<f32>::trapezoid_x);
    k!("Array::tri", Array::<f32>::tri);
    k!("Array::tril", Array::<f32>::tril);
    k!("Array::triu", Array::<f32>::triu);
    k!("Array::trunc", Array::<f32>::trunc);
    k!("Array::try_add", |x: &Array<f32>| x.try_add(x));
    k!("Array::try_div", |x: &Array<f32>| x.try_div(x));
    k!("Array::try_mul", |x: &Array<f32>| x.try_mul(x));
    k!("Array::try_sub", |x: &Array<f32>| x.try_sub(x));
    k!("Array::unique", Array::<f32>::unique);
    k!("Array::unique_values", Array::<f32>::unique_values);
    k!("Array::var", Array::<f32>::var);
    k!("Array::var_axes", Array::<f32>::var_axes);
    k!("Array::vstack", Array::<f32>::vstack);
    k!("Array::xor", |x: &Array<bool>| x.xor(x));
    k!("Array::zeros", Array::<f32>::zeros);
    k!("DType::is_complex", cuprite_array::DType::is_complex);
    k!("DType::promote", cuprite_array::DType::promote);
    k!("Display for Array", <Array<f32> as std::fmt::Display>::fmt);
    k!("info", cuprite_array::info);
    k!("intersect1d", cuprite_array::intersect1d::<f32>);
    k!("io::Npz", std::any::type_name::<cuprite_array::io::Npz>);
    k!(
        "io::NpzWriter",
        std::any::type_name::<cuprite_array::io::NpzWriter>
    );
    k!("linalg::cholesky", cuprite_array::linalg::cholesky::<f64>);
    k!("linalg::cond", cuprite_array::linalg::cond::<f64>);
    k!("linalg::det", cuprite_array::linalg::det::<f64>);
    k!("linalg::dot", cuprite_array::linalg::dot::<f64>);
    k!("linalg::eigh", cuprite_array::linalg::eigh::<f64>);
    k!("linalg::einsum", cuprite_array::linalg::einsum::<f64>);
    k!("linalg::inner", cuprite_array::linalg::inner::<f64>);
    k!("linalg::inv", cuprite_array::linalg::inv::<f64>);
    k!("linalg::lstsq", cuprite_array::linalg::lstsq::<f64>);
    k!("linalg::matmul", cuprite_array::linalg::matmul::<f64>);
    k!(
        "linalg::matrix_power",
        cuprite_array::linalg::matrix_power::<f64>
    );
    k!(
        "linalg::matrix_rank",
        cuprite_array::linalg::matrix_rank::<f64>
    );
    k!("linalg::norm", cuprite_array::linalg::norm::<f64>);
    k!("linalg::norm_axes", cuprite_array::linalg::norm_axes::<f32>);
    k!("linalg::outer", cuprite_array::linalg::outer::<f64>);
    k!("linalg::pinv", cuprite_array::linalg::pinv::<f64>);
    k!("linalg::qr", cuprite_array::linalg::qr::<f64>);
    k!("linalg::slogdet", cuprite_array::linalg::slogdet::<f64>);
    k!("linalg::solve", cuprite_array::linalg::solve::<f64>);
    k!("linalg::svd", cuprite_array::linalg::svd::<f64>);
    k!("linalg::tensordot", cuprite_array::linalg::tensordot::<f64>);
    k!("linalg::vdot", cuprite_array::linalg::vdot::<f64>);
    k!(
        "ops::BitAnd for Array",
        <Array<i32> as std::ops::BitAnd>::bitand
    );
    k!(
        "ops::BitOr for Array",
        <Array<i32> as std::ops::BitOr>::bitor
    );
    k!(
        "ops::BitXor for Array",
        <Array<i32> as std::ops::BitXor>::bitxor
    );
    k!("ops::Neg for Array", <Array<f32> as std::ops::Neg>::neg);
    k!("ops::Not for Array", <Array<bool> as std::ops::Not>::not);
    k!("ops::Shl for Array", <Array<i32> as std::ops::Shl>::shl);
    k!("ops::Shr for Array", <Array<i32> as std::ops::Shr>::shr);
    k!("ops::bartlett", cuprite_array::ops::bartlett::<f32>);
    k!("ops::blackman", cuprite_array::ops::blackman::<f32>);
    k!("ops::hamming", cuprite_array::ops::hamming::<f32>);
    k!("ops::hanning", cuprite_array::ops::hanning::<f32>);
    k!("ops::histogram2d", cuprite_array::ops::histogram2d);
    k!("ops::histogramdd", cuprite_array::ops::histogramdd);
    k!("ops::kaiser", cuprite_array::ops::kaiser::<f32>);
    k!("ops::lexsort", cuprite_array::ops::lexsort::<f32>);
    k!("ops::meshgrid", cuprite_array::ops::meshgrid::<f32>);
    k!("ops::polyadd", cuprite_array::ops::polyadd::<f32>);
    k!("ops::polyfit", cuprite_array::ops::polyfit::<f64>);
    k!("ops::polysub", cuprite_array::ops::polysub::<f32>);
    k!("ops::polyval", cuprite_array::ops::polyval::<f32>);
    k!(
        "ops::ravel_multi_index",
        cuprite_array::ops::ravel_multi_index
    );
    k!("ops::tril_indices", cuprite_array::ops::tril_indices);
    k!("ops::triu_indices", cuprite_array::ops::triu_indices);
    k!("ops::unravel_index", cuprite_array::ops::unravel_index);
    k!("ops::vander", cuprite_array::ops::vander::<f32>);
    k!(
        "random::philox4x32_10",
        cuprite_array::random::philox4x32_10
    );
    k!("setdiff1d", cuprite_array::setdiff1d::<f32>);
    k!(
        "shape::broadcast_shapes",
        cuprite_array::shape::broadcast_shapes
    );
    k!("union1d", cuprite_array::union1d::<f32>);
    // Linear algebra, polynomials, Hermitian FFTs, einsum (the general eigenproblem and
    // NumPy's fuller linalg signatures).
    k!("Array::hfft", Array::<c64>::hfft);
    k!("Array::ihfft", Array::<f64>::ihfft);
    k!("linalg::eig", cuprite_array::linalg::eig::<f64>);
    k!("linalg::eigvals", cuprite_array::linalg::eigvals::<f64>);
    k!(
        "linalg::qr_complete",
        cuprite_array::linalg::qr_complete::<f64>
    );
    k!("linalg::qr_r", cuprite_array::linalg::qr_r::<f64>);
    k!("linalg::qr_raw", cuprite_array::linalg::qr_raw::<f64>);
    k!("linalg::svd_full", cuprite_array::linalg::svd_full::<f64>);
    k!(
        "linalg::svd_hermitian",
        cuprite_array::linalg::svd_hermitian::<f64>
    );
    k!("linalg::svdvals", cuprite_array::linalg::svdvals::<f64>);
    k!("linalg::cond_p", cuprite_array::linalg::cond_p::<f64>);
    k!(
        "linalg::matrix_rank_with",
        cuprite_array::linalg::matrix_rank_with::<f64>
    );
    k!(
        "linalg::lstsq_full",
        cuprite_array::linalg::lstsq_full::<f64>
    );
    k!("linalg::pinv_with", cuprite_array::linalg::pinv_with::<f64>);
    k!(
        "linalg::tensorsolve",
        cuprite_array::linalg::tensorsolve::<f64>
    );
    k!("linalg::tensorinv", cuprite_array::linalg::tensorinv::<f64>);
    k!("ops::Poly1d", cuprite_array::ops::Poly1d::<f64>::new);
    k!("ops::poly", cuprite_array::ops::poly::<f64>);
    k!("ops::roots", cuprite_array::ops::roots::<f64>);
    k!("ops::polymul", cuprite_array::ops::polymul::<f64>);
    k!("ops::polyfit_with", cuprite_array::ops::polyfit_with::<f64>);
    k!(
        "ops::poly::polyval",
        cuprite_array::ops::poly::polyval::<f64>
    );
    k!(
        "ops::poly::polyvalfromroots",
        cuprite_array::ops::poly::polyvalfromroots::<f64>
    );
    k!(
        "ops::poly::polycompanion",
        cuprite_array::ops::poly::polycompanion::<f64>
    );
    k!(
        "ops::poly::polyvander",
        cuprite_array::ops::poly::polyvander::<f64>
    );
    k!(
        "ops::poly::as_series",
        cuprite_array::ops::poly::as_series::<f64>
    );
    k!(
        "ops::poly::trimseq",
        cuprite_array::ops::poly::trimseq::<f64>
    );
    k!(
        "ops::poly::trimcoef",
        cuprite_array::ops::poly::trimcoef::<f64>
    );
    // random: Generator, bit generators, legacy state, distributions
    k!("random::default_rng", cuprite_array::random::default_rng);
    k!("random::Generator", cuprite_array::random::Generator::new);
    k!(
        "random::BitGenerator",
        cuprite_array::random::BitGenerator::philox
    );
    k!("random::Xorwow", cuprite_array::random::Xorwow::new);
    k!("random::Mrg32k3a", cuprite_array::random::Mrg32k3a::new);
    k!(
        "random::Philox4x3210",
        cuprite_array::random::Philox4x3210::new
    );
    k!(
        "random::RandomState",
        cuprite_array::random::RandomState::new
    );
    k!("random::bytes", cuprite_array::random::bytes);
    k!("random::seed", cuprite_array::random::seed);
    k!(
        "random::get_random_state",
        cuprite_array::random::get_random_state
    );
    k!("random::with_random_state", || {
        cuprite_array::random::with_random_state(|_| ())
    });
    k!(
        "random::set_random_state",
        cuprite_array::random::set_random_state
    );
    k!(
        "random::Generator::bytes",
        cuprite_array::random::Generator::bytes
    );
    k!(
        "random::Generator::chisquare",
        cuprite_array::random::Generator::chisquare::<f32>
    );
    k!(
        "random::Generator::f",
        cuprite_array::random::Generator::f::<f32>
    );
    k!(
        "random::Generator::gumbel",
        cuprite_array::random::Generator::gumbel::<f32>
    );
    k!(
        "random::Generator::laplace",
        cuprite_array::random::Generator::laplace::<f32>
    );
    k!(
        "random::Generator::logistic",
        cuprite_array::random::Generator::logistic::<f32>
    );
    k!(
        "random::Generator::lognormal",
        cuprite_array::random::Generator::lognormal::<f32>
    );
    k!(
        "random::Generator::noncentral_chisquare",
        cuprite_array::random::Generator::noncentral_chisquare::<f32>
    );
    k!(
        "random::Generator::noncentral_f",
        cuprite_array::random::Generator::noncentral_f::<f32>
    );
    k!(
        "random::Generator::pareto",
        cuprite_array::random::Generator::pareto::<f32>
    );
    k!(
        "random::Generator::power",
        cuprite_array::random::Generator::power::<f32>
    );
    k!(
        "random::Generator::rayleigh",
        cuprite_array::random::Generator::rayleigh::<f32>
    );
    k!(
        "random::Generator::standard_cauchy",
        cuprite_array::random::Generator::standard_cauchy::<f32>
    );
    k!(
        "random::Generator::standard_t",
        cuprite_array::random::Generator::standard_t::<f32>
    );
    k!(
        "random::Generator::triangular",
        cuprite_array::random::Generator::triangular::<f32>
    );
    k!(
        "random::Generator::vonmises",
        cuprite_array::random::Generator::vonmises::<f32>
    );
    k!(
        "random::Generator::wald",
        cuprite_array::random::Generator::wald::<f32>
    );
    k!(
        "random::Generator::weibull",
        cuprite_array::random::Generator::weibull::<f32>
    );
    k!(
        "random::Generator::dirichlet",
        cuprite_array::random::Generator::dirichlet::<f32>
    );
    k!(
        "random::Generator::multivariate_normal",
        cuprite_array::random::Generator::multivariate_normal::<f32>
    );
    k!(
        "random::Generator::binomial",
        cuprite_array::random::Generator::binomial::<i32>
    );
    k!(
        "random::Generator::geometric",
        cuprite_array::random::Generator::geometric::<i32>
    );
    k!(
        "random::Generator::hypergeometric",
        cuprite_array::random::Generator::hypergeometric::<i32>
    );
    k!(
        "random::Generator::logseries",
        cuprite_array::random::Generator::logseries::<i32>
    );
    k!(
        "random::Generator::multinomial",
        cuprite_array::random::Generator::multinomial::<i32>
    );
    k!(
        "random::Generator::negative_binomial",
        cuprite_array::random::Generator::negative_binomial::<i32>
    );
    k!(
        "random::Generator::poisson",
        cuprite_array::random::Generator::poisson::<i32>
    );
    k!(
        "random::Generator::zipf",
        cuprite_array::random::Generator::zipf::<i32>
    );
    // Index tricks, creation, text/binary I/O and the completed partial routines.
    {
        use cuprite_array::{io, ops};
        k!("Array::append", Array::<f32>::append);
        k!("Array::apply_along_axis", |x: &Array<f32>| x
            .apply_along_axis(0, |r| r.sum()));
        k!("Array::apply_over_axes", |x: &Array<f32>| x
            .apply_over_axes(|a, _| Ok(a.clone()), &[0]));
        k!("Array::argpartition", Array::<f32>::argpartition);
        k!("Array::as_strided", Array::<f32>::as_strided);
        k!("Array::asarray_chkfinite", Array::<f32>::asarray_chkfinite);
        k!("Array::asfortranarray", Array::<f32>::asfortranarray);
        k!("Array::byte_bounds", Array::<f32>::byte_bounds);
        k!("Array::delete", Array::<f32>::delete);
        k!("Array::diff_with", Array::<f32>::diff_with);
        k!("Array::ediff1d", Array::<f32>::ediff1d);
        k!("Array::expand_dims_axes", Array::<f32>::expand_dims_axes);
        k!("Array::fill_diagonal", Array::<f32>::fill_diagonal);
        k!("Array::flat", Array::<f32>::flat);
        k!("Array::gradient_with", Array::<f32>::gradient_with);
        k!("Array::isfortran", Array::<f32>::isfortran);
        k!("Array::linspace_between", Array::<f32>::linspace_between);
        k!(
            "Array::linspace_between_with",
            Array::<f32>::linspace_between_with
        );
        k!("Array::linspace_with", Array::<f32>::linspace_with);
        k!("Array::map_host", |x: &Array<f32>| x.map_host(|v| v));
        k!(
            "Array::may_share_memory",
            Array::<f32>::may_share_memory::<f32>
        );
        k!("Array::putmask", Array::<f32>::putmask);
        k!("Array::require", Array::<f32>::require);
        k!("Array::resize", Array::<f32>::resize);
        k!("Array::roll_axes", Array::<f32>::roll_axes);
        k!("Array::shares_memory", Array::<f32>::shares_memory::<f32>);
        k!(
            "Array::sliding_window_view",
            Array::<f32>::sliding_window_view
        );
        k!("Array::tofile", |x: &Array<f32>| x.tofile("", "", ""));
        k!("Array::trim_zeros", Array::<f32>::trim_zeros);
        k!("Array::unique_axis", Array::<f32>::unique_axis);
        k!("Array::zip_map_host", |x: &Array<f32>| x
            .zip_map_host(x, |a, b| a + b));
        k!(
            "io::format_float_positional",
            io::format_float_positional::<f64>
        );
        k!(
            "io::format_float_scientific",
            io::format_float_scientific::<f64>
        );
        k!("io::frombuffer", io::frombuffer::<f32>);
        k!("io::fromfile", |p: &str| io::fromfile::<f32>(
            p, "", None, 0
        ));
        k!("io::fromstring", io::fromstring::<f32>);
        k!(
            "io::genfromtxt",
            |r: &[u8], o: &io::LoadTxt| io::genfromtxt::<f32>(r, o, &[], 0.0)
        );
        k!(
            "io::loadtxt",
            |r: &[u8], o: &io::LoadTxt| io::loadtxt::<f32>(r, o)
        );
        k!("io::loadtxt_with", |r: &[u8], o: &io::LoadTxt| {
            io::loadtxt_with::<f32>(r, o, |_, _| None)
        });
        k!(
            "io::savetxt",
            |a: &Array<f32>, o: &io::SaveTxt| io::savetxt(Vec::new(), a, o)
        );
        k!("ops::Broadcast", ops::Broadcast::new);
        k!("c_!", || cuprite_array::c_![1i32..3]);
        k!("ops::concat_pieces", ops::concat_pieces::<f32>);
        k!("r_!", || cuprite_array::r_![1i32..3]);
        k!("ops::can_cast", ops::can_cast);
        k!("ops::choose", ops::choose::<i64, f32>);
        k!("ops::common_type", ops::common_type);
        k!("ops::diag_indices", ops::diag_indices);
        k!("ops::diag_indices_from", ops::diag_indices_from::<f32>);
        k!("ops::fromfunction", |s: &[usize]| ops::fromfunction::<
            f32,
            f32,
        >(s, |g| Ok(g
            [0]
        .clone())));
        k!("ops::indices", ops::indices::<i64>);
        k!("ops::indices_sparse", ops::indices_sparse::<i64>);
        k!("ops::isscalar", ops::isscalar::<f32>);
        k!("ops::ix_", ops::ix_::<i64>);
        k!("ops::ix_masks", ops::ix_masks);
        k!("ops::mask_indices", |n| ops::mask_indices(
            n,
            |m: &Array<i64>, k| m.triu(k),
            0
        ));
        k!("ops::mgrid", ops::mgrid::<f32>);
        k!("ops::min_scalar_type", ops::min_scalar_type::<f32>);
        k!("ops::ndindex", ops::ndindex);
        k!("ops::ogrid", ops::ogrid::<f32>);
        k!("ops::piecewise", ops::piecewise::<f32>);
        k!("ops::select", ops::select::<f32>);
    }
    // Element-wise math and 1-D signal routines.
    k!("Array::around", Array::<f32>::around);
    k!("Array::rint", Array::<f32>::rint);
    k!("Array::fmod", |x: &Array<f32>| x.fmod(x));
    k!("Array::remainder", |x: &Array<f32>| x.remainder(x));
    k!("Array::bitwise_count", Array::<i32>::bitwise_count);
    k!("Array::packbits", Array::<bool>::packbits);
    k!("Array::unpackbits", Array::<u8>::unpackbits);
    k!("ops::binary_repr", cuprite_array::ops::binary_repr);
    k!("ops::base_repr", cuprite_array::ops::base_repr);
    k!("Array::iscomplex", Array::<c64>::iscomplex);
    k!("Array::isreal", Array::<c64>::isreal);
    k!("Array::unwrap", Array::<f32>::unwrap);
    k!("Array::i0", Array::<f32>::i0);
    k!("Array::signbit", Array::<f32>::signbit);
    k!("Array::frexp", Array::<f32>::frexp);
    k!("Array::ldexp", Array::<f32>::ldexp::<i32>);
    k!("Array::nextafter", Array::<f32>::nextafter);
    k!("Array::gcd", Array::<i32>::gcd);
    k!("Array::lcm", Array::<i32>::lcm);
    k!("Array::float_power", Array::<f32>::float_power);
    k!("Array::modf", Array::<f32>::modf);
    k!("Array::convolve", Array::<f32>::convolve);
    k!("Array::correlate", Array::<f32>::correlate);
    k!("Array::real_if_close", Array::<c64>::real_if_close);
    k!("ops::interp", cuprite_array::ops::interp::<f32>);
    k!("ops::setxor1d", cuprite_array::ops::setxor1d::<f32>);
    k!("Array::sort_complex", Array::<f32>::sort_complex);
    k!("Array::corrcoef_with", Array::<f32>::corrcoef_with);
    k!("Array::cov_with", Array::<f32>::cov_with);
    v
}

struct Row {
    family: String,
    numpy: String,
    status: String,
    cuprite: String,
    note: String,
}

fn rows() -> Result<Vec<Row>, String> {
    let text = include_str!("data/numpy-coverage.tsv");
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
    {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 5 {
            return Err(format!(
                "numpy-coverage.tsv line {}: {} fields, not 5",
                i + 1,
                f.len()
            ));
        }
        out.push(Row {
            family: f[0].into(),
            numpy: f[1].into(),
            status: f[2].into(),
            cuprite: f[3].into(),
            note: f[4].into(),
        });
    }
    Ok(out)
}

fn render(rows: &[Row]) -> String {
    let total = rows.len();
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let (full, partial, none) = (count("full"), count("partial"), count("not yet"));
    let pct = |n: usize| n as f64 * 100.0 / total as f64;
    let mut s = String::new();
    s.push_str("# NumPy coverage\n\n");
    s.push_str(
        "Generated by the `numpy_coverage` test of cuprite-array from \
         `crates/cuprite-array/tests/data/numpy-coverage.tsv`; do not edit by hand (run the test \
         with `CUPRITE_BLESS=1` to rewrite it). The routines are the NumPy-level ones that CuPy \
         documents (`cupy.*`, `cupy.linalg`, `cupy.fft`, `cupy.random`).\n\n",
    );
    s.push_str(&format!(
        "Of {total} routines: **{full} in full ({:.1}%)**, {partial} in part ({:.1}%), {none} not \
         yet ({:.1}%).\n\n",
        pct(full),
        pct(partial),
        pct(none)
    ));
    let mut fams: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        fams.entry(&r.family).or_default().push(r);
    }
    for (fam, rs) in fams {
        s.push_str(&format!(
            "## {fam}\n\n| NumPy | status | cuprite | note |\n|---|---|---|---|\n"
        ));
        for r in rs {
            let name = r.numpy.strip_prefix("cupy.").unwrap_or(&r.numpy);
            let cup = if r.cuprite.is_empty() {
                String::new()
            } else {
                r.cuprite
                    .split(" / ")
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            s.push_str(&format!(
                "| `{name}` | {} | {cup} | {} |\n",
                r.status,
                r.note.replace('|', "\\|")
            ));
        }
        s.push('\n');
    }
    s
}

fn coverage() -> TestResult {
    let rows = rows()?;
    let known = known();
    let mut seen = std::collections::HashSet::new();
    for r in &rows {
        if !seen.insert(r.numpy.as_str()) {
            return Err(format!("{} is listed twice", r.numpy).into());
        }
        match (r.status.as_str(), r.cuprite.is_empty()) {
            ("not yet", true) | ("full" | "partial", false) => {}
            (s, _) => {
                return Err(format!(
                    "{}: status {s:?} with cuprite name {:?}",
                    r.numpy, r.cuprite
                )
                .into());
            }
        }
        for c in r.cuprite.split(" / ").filter(|c| !c.is_empty()) {
            if !known.contains(&c) {
                return Err(format!(
                    "{}: cuprite name {c:?} is not in the test's list of known items",
                    r.numpy
                )
                .into());
            }
        }
    }
    if rows.len() != 461 {
        return Err(format!("{} routines in the table, expected CuPy's 461", rows.len()).into());
    }
    let page = render(&rows);
    // Test binaries run from their package's folder (cargo and scripts/gpu-check.sh alike).
    let path = "../../docs/numpy-coverage.md";
    if std::env::var_os("CUPRITE_BLESS").is_some() {
        std::fs::write(path, &page)?;
        return Ok(());
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed != page {
        return Err(
            "docs/numpy-coverage.md differs from the table: rerun this test with \
                    CUPRITE_BLESS=1 and commit the result"
                .into(),
        );
    }
    Ok(())
}

pub fn tests() -> Vec<Test> {
    let _ = Array::<f32>::zeros;
    vec![Test::cpu("numpy_coverage", coverage)]
}
