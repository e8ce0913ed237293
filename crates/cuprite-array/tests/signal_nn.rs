//! The neural-network convolution and pooling (`signal::conv1d/2d/3d`, their gradients,
//! `max_pool2d`, `avg_pool2d` and theirs, ArrayFire's `convolve2_nn`) against f64 references
//! written here from PyTorch's definitions (plain loops). Gradients are checked against central
//! differences of the reference's linear functional `<dy, conv(x, w)>` (exact for these linear
//! maps up to rounding) or, for max pooling, the argmax rule written out. Bodies run on every
//! backend; GPU tests compare CUDA (cuDNN and the fallback kernels) with the CPU backend on
//! larger and awkward shapes.

#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use crate::common::{Body, assert_err, close};
use cuprite_array::dtype::{Element, Float};
use cuprite_array::signal::{
    self, Conv2dOpts, ConvActivation, ConvGradient, ConvLayout, ConvOpts, Pool2dOpts,
};
use cuprite_array::{Array, Device, bf16, f16, stats, tuning};
use cuprite_testkit::{Rng, Test, TestResult};

fn on<R>(d: Device, f: impl FnOnce() -> R) -> R {
    cuprite_array::with_device(d, f)
}

fn rvec(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.f32_in(-1.0, 1.0) as f64).collect()
}

fn unflat(mut f: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for a in (0..shape.len()).rev() {
        idx[a] = f % shape[a];
        f /= shape[a];
    }
    idx
}

fn flat(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

/// A convolution's geometry, spatial values one per axis.
#[derive(Clone, Debug)]
struct Case {
    n: usize,
    c: usize,
    k: usize,
    groups: usize,
    i: Vec<usize>,
    r: Vec<usize>,
    stride: Vec<usize>,
    pad: Vec<(usize, usize)>,
    dil: Vec<usize>,
}

impl Case {
    /// A case of `d` spatial axes with stride and dilation 1 and no padding.
    fn plain(n: usize, c: usize, k: usize, i: &[usize], r: &[usize]) -> Case {
        let d = i.len();
        Case {
            n,
            c,
            k,
            groups: 1,
            i: i.to_vec(),
            r: r.to_vec(),
            stride: vec![1; d],
            pad: vec![(0, 0); d],
            dil: vec![1; d],
        }
    }
    fn d(&self) -> usize {
        self.i.len()
    }
    fn o(&self) -> Vec<usize> {
        (0..self.d())
            .map(|a| {
                let padded = self.i[a] + self.pad[a].0 + self.pad[a].1;
                (padded - self.dil[a] * (self.r[a] - 1) - 1) / self.stride[a] + 1
            })
            .collect()
    }
    fn x_shape(&self) -> Vec<usize> {
        [vec![self.n, self.c], self.i.clone()].concat()
    }
    fn w_shape(&self) -> Vec<usize> {
        [vec![self.k, self.c / self.groups], self.r.clone()].concat()
    }
    fn y_shape(&self) -> Vec<usize> {
        [vec![self.n, self.k], self.o()].concat()
    }
}

/// PyTorch's convolution by its definition: `y[n, k, q] = bias[k] + sum_{c in group(k), j}
/// w[k, c, j] x[n, c, q s + j d - p]`, then the ReLU.
fn ref_conv(cs: &Case, x: &[f64], w: &[f64], bias: Option<&[f64]>, relu: bool) -> Vec<f64> {
    let (o, d) = (cs.o(), cs.d());
    let (cg, kg) = (cs.c / cs.groups, cs.k / cs.groups);
    let np: usize = o.iter().product();
    let rn: usize = cs.r.iter().product();
    let ip: usize = cs.i.iter().product();
    let mut y = vec![0.0; cs.n * cs.k * np];
    for n in 0..cs.n {
        for k in 0..cs.k {
            let g = k / kg;
            for qf in 0..np {
                let q = unflat(qf, &o);
                let mut acc = bias.map_or(0.0, |b| b[k]);
                for cl in 0..cg {
                    let c = g * cg + cl;
                    for jf in 0..rn {
                        let j = unflat(jf, &cs.r);
                        let mut pos = vec![0; d];
                        let inside = (0..d).all(|a| {
                            let p = (q[a] * cs.stride[a] + j[a] * cs.dil[a]) as isize
                                - cs.pad[a].0 as isize;
                            pos[a] = p.max(0) as usize;
                            p >= 0 && (p as usize) < cs.i[a]
                        });
                        if inside {
                            acc += w[(k * cg + cl) * rn + jf]
                                * x[(n * cs.c + c) * ip + flat(&pos, &cs.i)];
                        }
                    }
                }
                if relu && acc < 0.0 {
                    acc = 0.0;
                }
                y[(n * cs.k + k) * np + qf] = acc;
            }
        }
    }
    y
}

/// The exact gradients of `sum dy * ref_conv(cs, x, w)` (no bias or ReLU) with respect to `x`
/// and `w`: the taps of [`ref_conv`]'s loops, each adding `w · dy` to `dx` and `x · dy` to
/// `dw` (what [`linear_grad`] finds by central differences, at the cost of one convolution
/// instead of two per element).
fn ref_grads(cs: &Case, x: &[f64], w: &[f64], dy: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (o, d) = (cs.o(), cs.d());
    let (cg, kg) = (cs.c / cs.groups, cs.k / cs.groups);
    let np: usize = o.iter().product();
    let rn: usize = cs.r.iter().product();
    let ip: usize = cs.i.iter().product();
    let (mut dx, mut dw) = (vec![0.0; x.len()], vec![0.0; w.len()]);
    for n in 0..cs.n {
        for k in 0..cs.k {
            let g = k / kg;
            for qf in 0..np {
                let q = unflat(qf, &o);
                let g_out = dy[(n * cs.k + k) * np + qf];
                for cl in 0..cg {
                    let c = g * cg + cl;
                    for jf in 0..rn {
                        let j = unflat(jf, &cs.r);
                        let mut pos = vec![0; d];
                        let inside = (0..d).all(|a| {
                            let p = (q[a] * cs.stride[a] + j[a] * cs.dil[a]) as isize
                                - cs.pad[a].0 as isize;
                            pos[a] = p.max(0) as usize;
                            p >= 0 && (p as usize) < cs.i[a]
                        });
                        if inside {
                            let wi = (k * cg + cl) * rn + jf;
                            let xi = (n * cs.c + c) * ip + flat(&pos, &cs.i);
                            dx[xi] += w[wi] * g_out;
                            dw[wi] += x[xi] * g_out;
                        }
                    }
                }
            }
        }
    }
    (dx, dw)
}

/// `sum dy * f(v)`, and its central differences in each element of `v` (step 1: the map is
/// linear, so these are its exact partial derivatives up to rounding).
fn linear_grad(v: &[f64], dy: &[f64], f: &dyn Fn(&[f64]) -> Vec<f64>) -> Vec<f64> {
    let dot = |u: &[f64]| -> f64 { f(u).iter().zip(dy).map(|(a, b)| a * b).sum() };
    (0..v.len())
        .map(|e| {
            let (mut up, mut dn) = (v.to_vec(), v.to_vec());
            up[e] += 1.0;
            dn[e] -= 1.0;
            (dot(&up) - dot(&dn)) / 2.0
        })
        .collect()
}

fn opts_of<'b, T: Float, const D: usize>(cs: &Case) -> ConvOpts<'b, T, D> {
    let arr = |v: &[usize]| -> [usize; D] { v.try_into().expect("one value per axis") };
    let sides: [(usize, usize); D] = cs.pad.clone().try_into().expect("one pair per axis");
    ConvOpts::new()
        .stride(arr(&cs.stride))
        .padding_sides(sides)
        .dilation(arr(&cs.dil))
        .groups(cs.groups)
}

type Fwd<T, const D: usize> =
    fn(&Array<T>, &Array<T>, ConvOpts<'_, T, D>) -> cuprite_array::Result<Array<T>>;

fn fwd_d<T: Float, const D: usize>(
    cs: &Case,
    x: &Array<T>,
    w: &Array<T>,
    bias: Option<&Array<T>>,
    relu: bool,
    f: Fwd<T, D>,
) -> cuprite_array::Result<Array<T>> {
    let mut o = opts_of::<T, D>(cs);
    if let Some(b) = bias {
        o = o.bias(b);
    }
    if relu {
        o = o.activation(ConvActivation::Relu);
    }
    f(x, w, o)
}

/// The library's forward call for `cs`.
fn forward<T: Float>(
    cs: &Case,
    x: &Array<T>,
    w: &Array<T>,
    bias: Option<&Array<T>>,
    relu: bool,
) -> cuprite_array::Result<Array<T>> {
    match cs.d() {
        1 => fwd_d::<T, 1>(cs, x, w, bias, relu, signal::conv1d_with),
        2 => fwd_d::<T, 2>(cs, x, w, bias, relu, signal::conv2d_with),
        _ => fwd_d::<T, 3>(cs, x, w, bias, relu, signal::conv3d_with),
    }
}

/// The library's two gradients for `cs`: `(dx, dw)`.
fn grads<T: Float>(
    cs: &Case,
    x: &Array<T>,
    w: &Array<T>,
    dy: &Array<T>,
) -> cuprite_array::Result<(Array<T>, Array<T>)> {
    fn g<T: Float, const D: usize>(
        cs: &Case,
        x: &Array<T>,
        w: &Array<T>,
        dy: &Array<T>,
    ) -> cuprite_array::Result<(Array<T>, Array<T>)> {
        let o = opts_of::<T, D>(cs);
        Ok((
            signal::conv_backward_input(dy, w, x.shape(), o)?,
            signal::conv_backward_weight(x, dy, w.shape(), o)?,
        ))
    }
    match cs.d() {
        1 => g::<T, 1>(cs, x, w, dy),
        2 => g::<T, 2>(cs, x, w, dy),
        _ => g::<T, 3>(cs, x, w, dy),
    }
}

/// `v` on the current device as `T`, and its values as `T` holds them.
fn typed<T: Float>(v: &[f64], shape: &[usize]) -> cuprite_array::Result<(Array<T>, Vec<f64>)> {
    let a = Array::from_slice(v, shape)?.cast::<T>();
    let back = a.cast::<f64>().to_vec()?;
    Ok((a, back))
}

/// Relative and absolute tolerance of results of `T` summed over `terms` products of values in
/// `[-1, 1]`: the accumulation's rounding plus one rounding to `T`.
fn tol<T: Float>(terms: usize) -> (f64, f64) {
    let acc = terms as f64 * 4.0 * f32::EPSILON as f64;
    match T::DTYPE {
        cuprite_array::DType::F64 => (1e-12, 1e-12 * terms as f64),
        cuprite_array::DType::F32 => (1e-5, acc),
        // One rounding of the result, and on CUDA of the lowered products summed after them.
        cuprite_array::DType::F16 => (2e-3, acc + 2e-3 * (1.0 + terms as f64).sqrt()),
        _ => (1.6e-2, acc + 1.6e-2 * (1.0 + terms as f64).sqrt()),
    }
}

/// The forward call against the reference for `cs`, with and without bias and ReLU.
fn check_forward<T: Float>(rng: &mut Rng, cs: &Case, what: &str) -> TestResult {
    let (x, xv) = typed::<T>(&rvec(rng, cs.x_shape().iter().product()), &cs.x_shape())?;
    let (w, wv) = typed::<T>(&rvec(rng, cs.w_shape().iter().product()), &cs.w_shape())?;
    let (b, bv) = typed::<T>(&rvec(rng, cs.k), &[cs.k])?;
    let terms = cs.c / cs.groups * cs.r.iter().product::<usize>() + 1;
    let (rtol, atol) = tol::<T>(terms);
    for (bias, relu) in [(false, false), (true, false), (true, true), (false, true)] {
        let got = forward(cs, &x, &w, bias.then_some(&b), relu)?;
        if got.shape() != cs.y_shape() {
            return Err(format!(
                "{what}: shape {:?}, expected {:?}",
                got.shape(),
                cs.y_shape()
            )
            .into());
        }
        let want = ref_conv(cs, &xv, &wv, bias.then_some(&bv[..]), relu);
        let got = got.cast::<f64>().to_vec()?;
        close(
            &got,
            &want,
            rtol,
            atol,
            &format!("{what} {} bias {bias} relu {relu}", T::DTYPE),
        )?;
    }
    Ok(())
}

/// The gradients against central differences of the reference for `cs`; an error of the
/// library (a failed cuDNN call, say) names the case and the element type.
fn check_grads<T: Float>(rng: &mut Rng, cs: &Case, what: &str) -> TestResult {
    grads_against_reference::<T>(rng, cs, what)
        .map_err(|e| format!("{what} {} ({cs:?}): {e}", T::DTYPE).into())
}

fn grads_against_reference<T: Float>(rng: &mut Rng, cs: &Case, what: &str) -> TestResult {
    let (x, xv) = typed::<T>(&rvec(rng, cs.x_shape().iter().product()), &cs.x_shape())?;
    let (w, wv) = typed::<T>(&rvec(rng, cs.w_shape().iter().product()), &cs.w_shape())?;
    let (dy, dyv) = typed::<T>(&rvec(rng, cs.y_shape().iter().product()), &cs.y_shape())?;
    let (dx, dw) = grads(cs, &x, &w, &dy)?;
    let (want_dx, want_dw) = ref_grads(cs, &xv, &wv, &dyv);
    let np: usize = cs.o().iter().product();
    let rn: usize = cs.r.iter().product();
    let (rtol, atol) = tol::<T>(cs.k / cs.groups * rn);
    close(
        &dx.cast::<f64>().to_vec()?,
        &want_dx,
        rtol,
        atol,
        &format!("{what} dx {}", T::DTYPE),
    )?;
    let (rtol, atol) = tol::<T>(cs.n * np);
    close(
        &dw.cast::<f64>().to_vec()?,
        &want_dw,
        rtol,
        atol,
        &format!("{what} dw {}", T::DTYPE),
    )?;
    // The bias gradient: the sum over every axis but the channels.
    let db = signal::conv_backward_bias(&dy, ConvLayout::ChannelsFirst)?;
    let want_db: Vec<f64> = (0..cs.k)
        .map(|k| {
            (0..cs.n)
                .map(|n| dyv[(n * cs.k + k) * np..][..np].iter().sum::<f64>())
                .sum()
        })
        .collect();
    close(
        &db.cast::<f64>().to_vec()?,
        &want_db,
        rtol,
        atol,
        &format!("{what} db {}", T::DTYPE),
    )?;
    Ok(())
}

/// Geometries covering stride, padding per side, dilation, groups (and depthwise), a
/// pointwise kernel, a kernel as large as the padded input, and 1-d and 3-d.
fn cases() -> Vec<(&'static str, Case)> {
    let mut v = vec![("plain 2-d", Case::plain(2, 3, 4, &[5, 6], &[3, 2]))];
    let mut c = Case::plain(2, 4, 6, &[7, 6], &[3, 3]);
    c.stride = vec![2, 3];
    c.pad = vec![(1, 2), (0, 1)];
    c.dil = vec![2, 1];
    c.groups = 2;
    v.push(("strided padded dilated grouped 2-d", c));
    let mut c = Case::plain(3, 3, 6, &[4, 5], &[3, 3]);
    c.groups = 3;
    c.pad = vec![(1, 1), (1, 1)];
    v.push(("depthwise 2-d", c));
    let mut c = Case::plain(2, 3, 4, &[7, 6], &[3, 3]);
    c.pad = vec![(1, 0), (2, 1)];
    v.push(("3 x 3 at stride 1, odd output extents (Winograd)", c));
    v.push(("pointwise 2-d", Case::plain(2, 5, 3, &[3, 4], &[1, 1])));
    let mut c = Case::plain(1, 2, 2, &[2, 3], &[4, 5]);
    c.pad = vec![(1, 1), (1, 1)];
    v.push(("kernel as large as the padded input", c));
    let mut c = Case::plain(3, 2, 4, &[11], &[3]);
    c.stride = vec![2];
    c.pad = vec![(2, 0)];
    c.dil = vec![3];
    v.push(("1-d", c));
    let mut c = Case::plain(2, 2, 4, &[4, 3, 5], &[2, 2, 3]);
    c.stride = vec![1, 2, 2];
    c.pad = vec![(0, 1), (1, 0), (1, 1)];
    c.dil = vec![1, 1, 2];
    c.groups = 2;
    v.push(("3-d", c));
    v
}

/// Geometries of the fallback's input gradient at stride 1 (the forward pass of `dy` with the
/// taps reversed): groups (a batch over the images and, with one image, over the groups; one
/// input channel a group; one filter), `3 x 3` kernels of one group (Winograd's algorithm, also
/// padded beyond the kernel and over an input smaller than its tile), dilation 2, no padding, unequal sides, padding beyond
/// the dilated kernel (the lowering crops; also a single tap and an input shorter than the
/// padding), 1-d and 3-d; and strided geometries, which keep the gather (`nn_col2im`).
fn unit_stride_cases() -> Vec<(&'static str, Case)> {
    let mut v = Vec::new();
    let mut c = Case::plain(2, 4, 6, &[9, 8], &[3, 3]);
    c.groups = 2;
    c.pad = vec![(1, 1), (1, 1)];
    v.push(("stride 1, groups 2", c));
    let mut c = Case::plain(1, 6, 3, &[6, 7], &[3, 2]);
    c.groups = 3;
    c.pad = vec![(1, 0), (0, 1)];
    v.push(("stride 1, three groups of one image", c));
    let mut c = Case::plain(2, 4, 8, &[6, 7], &[3, 3]);
    c.groups = 4;
    c.pad = vec![(1, 1), (1, 1)];
    v.push(("stride 1, one channel a group", c));
    let mut c = Case::plain(2, 3, 1, &[5, 6], &[2, 3]);
    c.pad = vec![(1, 1), (0, 2)];
    v.push(("stride 1, one filter", c));
    let mut c = Case::plain(2, 4, 6, &[9, 8], &[3, 3]);
    c.pad = vec![(1, 1), (1, 1)];
    v.push(("stride 1, 3 x 3 (Winograd)", c));
    let mut c = Case::plain(2, 3, 5, &[5, 4], &[3, 3]);
    c.pad = vec![(3, 0), (0, 2)];
    v.push(("stride 1, 3 x 3 padded beyond the kernel (Winograd)", c));
    let mut c = Case::plain(1, 2, 3, &[2, 1], &[3, 3]);
    c.pad = vec![(2, 2), (1, 1)];
    v.push((
        "stride 1, 3 x 3 over an input smaller than a tile (Winograd)",
        c,
    ));
    let mut c = Case::plain(2, 3, 4, &[9, 10], &[3, 3]);
    c.dil = vec![2, 2];
    c.pad = vec![(1, 2), (2, 0)];
    v.push(("stride 1, dilation 2", c));
    v.push((
        "stride 1, no padding",
        Case::plain(2, 3, 5, &[7, 6], &[3, 2]),
    ));
    let mut c = Case::plain(2, 3, 4, &[5, 6], &[3, 2]);
    c.pad = vec![(3, 1), (2, 2)];
    v.push(("stride 1, padding beyond the kernel", c));
    let mut c = Case::plain(2, 3, 2, &[4, 5], &[1, 3]);
    c.pad = vec![(2, 0), (1, 1)];
    v.push(("stride 1, one tap padded", c));
    let mut c = Case::plain(1, 2, 2, &[2], &[3]);
    c.pad = vec![(4, 0)];
    v.push(("stride 1, padding longer than the input", c));
    let mut c = Case::plain(3, 4, 6, &[13], &[5]);
    c.groups = 2;
    c.dil = vec![2];
    c.pad = vec![(3, 9)];
    v.push(("stride 1, 1-d", c));
    let mut c = Case::plain(2, 4, 4, &[4, 5, 3], &[2, 3, 2]);
    c.groups = 2;
    c.dil = vec![2, 1, 1];
    c.pad = vec![(1, 0), (2, 1), (0, 1)];
    v.push(("stride 1, 3-d", c));
    let mut c = Case::plain(2, 4, 4, &[9, 8], &[3, 3]);
    c.stride = vec![2, 2];
    c.pad = vec![(1, 1), (1, 1)];
    v.push(("stride 2 (the gather)", c));
    let mut c = Case::plain(2, 4, 4, &[9, 8], &[3, 3]);
    c.stride = vec![1, 2];
    c.pad = vec![(3, 1), (1, 1)];
    v.push(("stride 1 and 2 (the gather)", c));
    v
}

/// Both gradients of [`unit_stride_cases`] against the f64 reference, on CUDA through the
/// fallback (cuDNN off), every element type.
fn conv_grads_unit_stride(d: Device) -> TestResult {
    on(d, || -> TestResult {
        tuning::with_cudnn(false, || -> TestResult {
            let mut rng = Rng::fresh();
            for (what, cs) in unit_stride_cases() {
                check_grads::<f64>(&mut rng, &cs, what)?;
                check_grads::<f32>(&mut rng, &cs, what)?;
                check_grads::<bf16>(&mut rng, &cs, what)?;
                check_grads::<f16>(&mut rng, &cs, what)?;
            }
            Ok(())
        })
    })
}

fn conv_forward(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for (what, cs) in cases() {
            check_forward::<f64>(&mut rng, &cs, what)?;
            check_forward::<f32>(&mut rng, &cs, what)?;
        }
        Ok(())
    })
}

fn conv_forward_random(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let mut pick = |lo: usize, hi: usize| lo + (rng.next_u64() as usize) % (hi - lo + 1);
        let mut drawn = Vec::new();
        for _ in 0..6 {
            let dims = pick(1, 3);
            let groups = pick(1, 2);
            let mut cs = Case::plain(
                pick(1, 2),
                groups * pick(1, 2),
                groups * pick(1, 2),
                &vec![0; dims],
                &vec![0; dims],
            );
            cs.groups = groups;
            for a in 0..dims {
                cs.r[a] = pick(1, 3);
                cs.dil[a] = pick(1, 2);
                cs.stride[a] = pick(1, 3);
                cs.pad[a] = (pick(0, 2), pick(0, 2));
                let extent = cs.dil[a] * (cs.r[a] - 1) + 1;
                cs.i[a] = pick(
                    extent.saturating_sub(cs.pad[a].0 + cs.pad[a].1).max(1),
                    extent + 4,
                );
            }
            drawn.push(cs);
        }
        for cs in drawn {
            check_forward::<f64>(&mut rng, &cs, &format!("random {cs:?}"))?;
        }
        Ok(())
    })
}

fn conv_grads(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for (what, cs) in cases() {
            check_grads::<f64>(&mut rng, &cs, what)?;
            check_grads::<f32>(&mut rng, &cs, what)?;
        }
        Ok(())
    })
}

fn conv_half(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for (what, cs) in cases().into_iter().take(3) {
            check_forward::<f16>(&mut rng, &cs, what)?;
            check_forward::<bf16>(&mut rng, &cs, what)?;
            check_grads::<f16>(&mut rng, &cs, what)?;
            check_grads::<bf16>(&mut rng, &cs, what)?;
        }
        Ok(())
    })
}

/// Channels-last data: the same values as channels first, axes moved.
fn conv_channels_last(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let mut cs = Case::plain(2, 4, 6, &[5, 7], &[3, 2]);
        cs.groups = 2;
        cs.stride = vec![2, 1];
        cs.pad = vec![(1, 1), (0, 1)];
        let xv = rvec(&mut rng, cs.x_shape().iter().product());
        let wv = rvec(&mut rng, cs.w_shape().iter().product());
        let bv = rvec(&mut rng, cs.k);
        let (x, w, b) = (
            Array::from_slice(&xv, &cs.x_shape())?,
            Array::from_slice(&wv, &cs.w_shape())?,
            Array::from_slice(&bv, &[cs.k])?,
        );
        let xl = x.permute(&[0, 2, 3, 1])?;
        let o = opts_of::<f64, 2>(&cs).layout(ConvLayout::ChannelsLast);
        let y = signal::conv2d_with(&xl, &w, o.bias(&b))?;
        let want = ref_conv(&cs, &xv, &wv, Some(&bv), false);
        let got = y.permute(&[0, 3, 1, 2])?.to_vec()?;
        close(&got, &want, 1e-12, 1e-12, "channels last forward")?;
        let yl = y.shape().to_vec();
        let dyv = rvec(&mut rng, yl.iter().product());
        let dyl = Array::from_slice(&dyv, &yl)?;
        let dy_first = dyl.permute(&[0, 3, 1, 2])?.to_vec()?;
        let dx = signal::conv_backward_input(&dyl, &w, xl.shape(), o)?;
        let want = linear_grad(&xv, &dy_first, &|u| ref_conv(&cs, u, &wv, None, false));
        close(
            &dx.permute(&[0, 3, 1, 2])?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "channels last dx",
        )?;
        let dw = signal::conv_backward_weight(&xl, &dyl, w.shape(), o)?;
        let want = linear_grad(&wv, &dy_first, &|u| ref_conv(&cs, &xv, u, None, false));
        close(&dw.to_vec()?, &want, 1e-12, 1e-12, "channels last dw")?;
        let db = signal::conv_backward_bias(&dyl, ConvLayout::ChannelsLast)?;
        let np = cs.o().iter().product::<usize>();
        let want: Vec<f64> = (0..cs.k)
            .map(|k| (0..cs.n * np).map(|i| dyv[i * cs.k + k]).sum())
            .collect();
        close(&db.to_vec()?, &want, 1e-12, 1e-12, "channels last db")
    })
}

/// `padding_same` keeps each axis's length, with the smaller half of the padding before.
fn conv_padding_same(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        for (r, dil) in [([3usize, 4usize], [1usize, 1usize]), ([2, 3], [2, 3])] {
            let mut cs = Case::plain(1, 2, 3, &[6, 7], &r);
            cs.dil = dil.to_vec();
            cs.pad = (0..2)
                .map(|a| {
                    let total = dil[a] * (r[a] - 1);
                    (total / 2, total - total / 2)
                })
                .collect();
            let xv = rvec(&mut rng, cs.x_shape().iter().product());
            let wv = rvec(&mut rng, cs.w_shape().iter().product());
            let x = Array::from_slice(&xv, &cs.x_shape())?;
            let w = Array::from_slice(&wv, &cs.w_shape())?;
            let y = signal::conv2d_with(&x, &w, Conv2dOpts::new().padding_same().dilation(dil))?;
            if y.shape() != [1, 3, 6, 7] {
                return Err(format!("same padding gave shape {:?}", y.shape()).into());
            }
            close(
                &y.to_vec()?,
                &ref_conv(&cs, &xv, &wv, None, false),
                1e-12,
                1e-12,
                "same",
            )?;
        }
        Ok(())
    })
}

/// ArrayFire's names: the convolution with the filter flipped over its spatial axes.
fn conv_arrayfire_names(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let mut cs = Case::plain(2, 3, 2, &[6, 5], &[3, 2]);
        cs.stride = vec![2, 1];
        cs.pad = vec![(1, 1), (2, 2)];
        cs.dil = vec![1, 2];
        let xv = rvec(&mut rng, cs.x_shape().iter().product());
        let wv = rvec(&mut rng, cs.w_shape().iter().product());
        // The filter flipped over its last two axes.
        let (rh, rw) = (cs.r[0], cs.r[1]);
        let flip = |v: &[f64]| -> Vec<f64> {
            let mut out = v.to_vec();
            for (s, chunk) in v.chunks(rh * rw).enumerate() {
                for a in 0..rh {
                    for b in 0..rw {
                        out[s * rh * rw + a * rw + b] = chunk[(rh - 1 - a) * rw + (rw - 1 - b)];
                    }
                }
            }
            out
        };
        let wf = flip(&wv);
        let x = Array::from_slice(&xv, &cs.x_shape())?;
        let w = Array::from_slice(&wv, &cs.w_shape())?;
        let y = signal::convolve2_nn(&x, &w, [2, 1], [1, 2], [1, 2])?;
        close(
            &y.to_vec()?,
            &ref_conv(&cs, &xv, &wf, None, false),
            1e-12,
            1e-12,
            "convolve2_nn",
        )?;
        let dyv = rvec(&mut rng, cs.y_shape().iter().product());
        let dy = Array::from_slice(&dyv, &cs.y_shape())?;
        let grad = |t| signal::convolve2_gradient_nn(&dy, &x, &w, &y, [2, 1], [1, 2], [1, 2], t);
        let want = linear_grad(&xv, &dyv, &|u| ref_conv(&cs, u, &wf, None, false));
        close(
            &grad(ConvGradient::Data)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "gradient data",
        )?;
        let want = linear_grad(&wv, &dyv, &|u| ref_conv(&cs, &xv, &flip(u), None, false));
        close(
            &grad(ConvGradient::Filter)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "gradient filter",
        )?;
        let np: usize = cs.o().iter().product();
        let want: Vec<f64> = (0..cs.k)
            .map(|k| {
                (0..cs.n)
                    .map(|n| dyv[(n * cs.k + k) * np..][..np].iter().sum::<f64>())
                    .sum()
            })
            .collect();
        close(
            &grad(ConvGradient::Bias)?.to_vec()?,
            &want,
            1e-12,
            1e-12,
            "gradient bias",
        )
    })
}

fn conv_bad_input(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let x = Array::<f32>::zeros(&[2, 4, 6, 6]);
        let w = Array::<f32>::zeros(&[6, 2, 3, 3]);
        let o = Conv2dOpts::<f32>::new();
        // Channels: weights of 2 channels for 4 input channels in one group.
        assert_err(signal::conv2d_with(&x, &w, o), "InvalidArgument", "not 2");
        // Groups that do not divide the channels.
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(3)),
            "InvalidArgument",
            "3 groups",
        );
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(0)),
            "InvalidArgument",
            "0 groups",
        );
        // A stride or dilation of 0.
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(2).stride([1, 0])),
            "InvalidArgument",
            "[1, 0]",
        );
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(2).dilation(0)),
            "InvalidArgument",
            "[0, 0]",
        );
        // A kernel larger than the padded input.
        let big = Array::<f32>::zeros(&[6, 2, 9, 3]);
        assert_err(
            signal::conv2d_with(&x, &big, o.groups(2).padding(1)),
            "InvalidArgument",
            "6 + 1 + 1",
        );
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(2).dilation(4)),
            "InvalidArgument",
            "dilation 4",
        );
        // Ranks.
        let x3 = Array::<f32>::zeros(&[4, 6, 6]);
        assert_err(
            signal::conv2d_with(&x3, &w, o.groups(2)),
            "Shape",
            "[4, 6, 6]",
        );
        let w5 = Array::<f32>::zeros(&[6, 2, 3, 3, 1]);
        assert_err(
            signal::conv2d_with(&x, &w5, o.groups(2)),
            "Shape",
            "[6, 2, 3, 3, 1]",
        );
        // "same" padding with a stride.
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(2).padding_same().stride(2)),
            "InvalidArgument",
            "same",
        );
        // A bias of the wrong shape.
        let b = Array::<f32>::zeros(&[5]);
        assert_err(
            signal::conv2d_with(&x, &w, o.groups(2).bias(&b)),
            "Shape",
            "[5]",
        );
        // Gradients: grad_out of the wrong shape, an activation in the options.
        let dy = Array::<f32>::zeros(&[2, 6, 4, 5]);
        assert_err(
            signal::conv2d_backward_input(&dy, &w, &[2, 4, 6, 6], o.groups(2)),
            "Shape",
            "[2, 6, 4, 5]",
        );
        assert_err(
            signal::conv2d_backward_weight(&x, &dy, &[6, 2, 3, 3], o.groups(2)),
            "Shape",
            "[2, 6, 4, 4]",
        );
        let dy = Array::<f32>::zeros(&[2, 6, 4, 4]);
        let relu = o.groups(2).activation(ConvActivation::Relu);
        assert_err(
            signal::conv2d_backward_input(&dy, &w, &[2, 4, 6, 6], relu),
            "InvalidArgument",
            "Relu",
        );
        // Pooling: padding above half the kernel, a zero kernel, the wrong rank.
        assert_err(
            signal::max_pool2d_with(&x, 2, Pool2dOpts::new().padding(2)),
            "InvalidArgument",
            "padding [2, 2]",
        );
        assert_err(signal::avg_pool2d(&x, [0, 2]), "InvalidArgument", "[0, 2]");
        assert_err(signal::max_pool2d(&x3, 2), "Shape", "[4, 6, 6]");
        assert_err(signal::max_pool2d(&x, 7), "InvalidArgument", "kernel 7");
        Ok(())
    })
}

/// PyTorch's pooling by its definition: `(y, argmax)` over `planes` planes of `i`.
fn ref_pool(
    x: &[f64],
    planes: usize,
    i: [usize; 2],
    k: [usize; 2],
    s: [usize; 2],
    p: [usize; 2],
    ceil: bool,
    avg: bool,
    include_pad: bool,
) -> (Vec<f64>, Vec<usize>, [usize; 2]) {
    let len = |a: usize| {
        let span = i[a] + 2 * p[a] - k[a];
        let mut o = if ceil {
            span.div_ceil(s[a]) + 1
        } else {
            span / s[a] + 1
        };
        if ceil && (o - 1) * s[a] >= i[a] + p[a] {
            o -= 1;
        }
        o
    };
    let o = [len(0), len(1)];
    let (mut y, mut am) = (Vec::new(), Vec::new());
    for pl in 0..planes {
        let xp = &x[pl * i[0] * i[1]..][..i[0] * i[1]];
        for oh in 0..o[0] {
            for ow in 0..o[1] {
                let hs = (oh * s[0]) as isize - p[0] as isize;
                let ws = (ow * s[1]) as isize - p[1] as isize;
                let he = (hs + k[0] as isize).min((i[0] + p[0]) as isize);
                let we = (ws + k[1] as isize).min((i[1] + p[1]) as isize);
                let pool_size = ((he - hs) * (we - ws)) as f64;
                let (hs, ws) = (hs.max(0) as usize, ws.max(0) as usize);
                let (he, we) = (
                    he.min(i[0] as isize) as usize,
                    we.min(i[1] as isize) as usize,
                );
                let (mut best, mut at, mut sum) = (f64::NEG_INFINITY, hs * i[1] + ws, 0.0);
                for h in hs..he {
                    for w in ws..we {
                        let v = xp[h * i[1] + w];
                        sum += v;
                        if v > best || v.is_nan() {
                            best = v;
                            at = h * i[1] + w;
                        }
                    }
                }
                let div = if include_pad {
                    pool_size
                } else {
                    ((he - hs) * (we - ws)) as f64
                };
                y.push(if avg { sum / div } else { best });
                am.push(at);
            }
        }
    }
    (y, am, o)
}

fn pool_forward_and_grads(d: Device) -> TestResult {
    on(d, || -> TestResult {
        let mut rng = Rng::fresh();
        let shape = [2usize, 3, 7, 8];
        let planes = 6;
        let xv = rvec(&mut rng, shape.iter().product());
        let x = Array::from_slice(&xv, &shape)?;
        for (k, s, p, ceil) in [
            ([2usize, 2usize], [2usize, 2usize], [0usize, 0usize], false),
            ([3, 3], [2, 2], [1, 1], false),
            ([3, 2], [2, 3], [1, 1], true),
            ([2, 3], [1, 2], [0, 1], true),
            ([7, 8], [1, 1], [0, 0], false),
        ] {
            for include_pad in [true, false] {
                let opts = Pool2dOpts::new()
                    .stride(s)
                    .padding(p)
                    .ceil_mode(ceil)
                    .count_include_pad(include_pad);
                let what = format!("k {k:?} s {s:?} p {p:?} ceil {ceil} include_pad {include_pad}");
                let (ymax, am, o) =
                    ref_pool(&xv, planes, [7, 8], k, s, p, ceil, false, include_pad);
                let (yavg, _, _) = ref_pool(&xv, planes, [7, 8], k, s, p, ceil, true, include_pad);
                let got = signal::max_pool2d_with(&x, k, opts)?;
                if got.shape() != [2, 3, o[0], o[1]] {
                    return Err(format!("{what}: shape {:?}", got.shape()).into());
                }
                close(&got.to_vec()?, &ymax, 0.0, 0.0, &format!("max {what}"))?;
                let got = signal::avg_pool2d_with(&x, k, opts)?;
                close(&got.to_vec()?, &yavg, 1e-12, 1e-12, &format!("avg {what}"))?;
                let dyv = rvec(&mut rng, ymax.len());
                let dy = Array::from_slice(&dyv, &[2, 3, o[0], o[1]])?;
                // Max: each output's gradient to its argmax.
                let np = o[0] * o[1];
                let mut want = vec![0.0; xv.len()];
                for (q, (&g, &a)) in dyv.iter().zip(&am).enumerate() {
                    want[(q / np) * 56 + a] += g;
                }
                let got = signal::max_pool2d_backward(&dy, &x, k, opts)?;
                close(
                    &got.to_vec()?,
                    &want,
                    1e-12,
                    1e-12,
                    &format!("max grad {what}"),
                )?;
                // Average: the central differences of the reference's functional.
                let want = linear_grad(&xv, &dyv, &|u| {
                    ref_pool(u, planes, [7, 8], k, s, p, ceil, true, include_pad).0
                });
                let got = signal::avg_pool2d_backward(&dy, &shape, k, opts)?;
                close(
                    &got.to_vec()?,
                    &want,
                    1e-12,
                    1e-12,
                    &format!("avg grad {what}"),
                )?;
            }
        }
        Ok(())
    })
}

/// The maximum's rules: the first of equal maxima; NaN propagates (the last NaN wins); a
/// window of `-inf` keeps its first element; for every element type, channels last too.
fn pool_rules(d: Device) -> TestResult {
    fn run<T: Float>() -> TestResult {
        let inf = f64::INFINITY;
        let xv = [
            1.0,
            3.0,
            3.0,
            2.0,
            1.0,
            f64::NAN,
            f64::NAN,
            2.0,
            -inf,
            -inf,
            -inf,
            -inf,
        ];
        let x = Array::from_slice(&xv, &[1, 3, 2, 2])?.cast::<T>();
        let y = signal::max_pool2d(&x, 2)?.cast::<f64>().to_vec()?;
        close(&y, &[3.0, f64::NAN, -inf], 0.0, 0.0, "max rules")?;
        let dy = Array::from_slice(&[1.0, 2.0, 4.0], &[1, 3, 1, 1])?.cast::<T>();
        let dx = signal::max_pool2d_backward(&dy, &x, 2, Pool2dOpts::new())?;
        let want = [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 4.0, 0.0, 0.0, 0.0];
        close(
            &dx.cast::<f64>().to_vec()?,
            &want,
            0.0,
            0.0,
            "max gradient rules",
        )?;
        // Channels last: the same planes with the channel axis moved last.
        let xl = x.permute(&[0, 2, 3, 1])?;
        let o = Pool2dOpts::new().layout(ConvLayout::ChannelsLast);
        let y = signal::max_pool2d_with(&xl, 2, o)?;
        if y.shape() != [1, 1, 1, 3] {
            return Err(format!("channels-last pooling shape {:?}", y.shape()).into());
        }
        close(
            &y.cast::<f64>().to_vec()?,
            &[3.0, f64::NAN, -inf],
            0.0,
            0.0,
            "max rules last",
        )?;
        let dyl = dy.permute(&[0, 2, 3, 1])?;
        let dx = signal::max_pool2d_backward(&dyl, &xl, 2, o)?.permute(&[0, 3, 1, 2])?;
        close(
            &dx.cast::<f64>().to_vec()?,
            &want,
            0.0,
            0.0,
            "max gradient rules last",
        )?;
        let x1 = Array::from_slice(&xv[..4], &[1, 1, 2, 2])?.cast::<T>();
        let a = signal::avg_pool2d(&x1, 2)?;
        close(&a.cast::<f64>().to_vec()?, &[2.25], 0.0, 0.0, "avg")?;
        Ok(())
    }
    on(d, || -> TestResult {
        run::<f64>()?;
        run::<f32>()?;
        run::<f16>()?;
        run::<bf16>()
    })
}

pub const BODIES: &[(&str, Body)] = &[
    ("conv_forward", conv_forward),
    ("conv_forward_random", conv_forward_random),
    ("conv_grads", conv_grads),
    ("conv_grads_unit_stride", conv_grads_unit_stride),
    ("conv_half", conv_half),
    ("conv_channels_last", conv_channels_last),
    ("conv_padding_same", conv_padding_same),
    ("conv_arrayfire_names", conv_arrayfire_names),
    ("conv_bad_input", conv_bad_input),
    ("pool_forward_and_grads", pool_forward_and_grads),
    ("pool_rules", pool_rules),
];

/// `f` on the CPU and on the GPU from the same host values, as f64.
fn both<T: Float>(
    f: &dyn Fn() -> cuprite_array::Result<Array<T>>,
) -> Result<(Vec<f64>, Vec<f64>), cuprite_array::Error> {
    let cpu = on(Device::CPU, || f().and_then(|a| a.cast::<f64>().to_vec()))?;
    let gpu = on(Device::cuda(0), || {
        f().and_then(|a| a.cast::<f64>().to_vec())
    })?;
    Ok((gpu, cpu))
}

/// CUDA against the CPU backend on larger shapes, through cuDNN (where installed) and on the
/// fallback: every product layout (a batch over the images or over the groups, a pointwise
/// kernel read in place), chunks of one image (the weight gradient adding onto earlier
/// chunks), 3-d, a `3 x 3` kernel at stride 1 (Winograd's algorithm, whole and a chunk an
/// image), and the half types; pooling on cuprite's kernels to the bit.
fn cuda_matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let mut shapes = Vec::new();
    let mut c = Case::plain(5, 6, 8, &[17, 19], &[3, 2]);
    c.groups = 2;
    c.stride = vec![2, 1];
    c.pad = vec![(1, 0), (0, 1)];
    c.dil = vec![1, 2];
    shapes.push(c);
    let mut c = Case::plain(2, 12, 12, &[9, 10], &[3, 3]);
    c.groups = 12;
    c.pad = vec![(1, 1), (1, 1)];
    shapes.push(c);
    shapes.push(Case::plain(3, 16, 24, &[8, 8], &[1, 1]));
    let mut c = Case::plain(2, 3, 5, &[6, 7, 5], &[3, 2, 2]);
    c.pad = vec![(1, 1), (0, 0), (1, 0)];
    shapes.push(c);
    // Winograd's `3 x 3` at stride 1: odd output extents, uneven padding.
    let mut c = Case::plain(3, 20, 12, &[13, 10], &[3, 3]);
    c.pad = vec![(1, 1), (2, 0)];
    shapes.push(c);
    let before = signal::conv_workspace_bytes();
    // cuDNN where installed, then the fallback whole and in chunks of one image.
    for (workspace, lib) in [(before, true), (before, false), (1, false)] {
        signal::set_conv_workspace_bytes(workspace);
        tuning::with_cudnn(lib, || -> TestResult {
            for cs in &shapes {
                let xv = rvec(&mut rng, cs.x_shape().iter().product());
                let wv = rvec(&mut rng, cs.w_shape().iter().product());
                let bv = rvec(&mut rng, cs.k);
                let dyv = rvec(&mut rng, cs.y_shape().iter().product());
                let mk = |v: &[f64], s: &[usize]| Array::from_slice(v, s);
                macro_rules! check {
                    ($t:ty, $rtol:expr, $atol:expr) => {{
                        let fwd = || -> cuprite_array::Result<Array<$t>> {
                            let (x, w) = (
                                mk(&xv, &cs.x_shape())?.cast::<$t>(),
                                mk(&wv, &cs.w_shape())?.cast::<$t>(),
                            );
                            let b = mk(&bv, &[cs.k])?.cast::<$t>();
                            forward(cs, &x, &w, Some(&b), true)
                        };
                        let (g, c) = both(&fwd)?;
                        close(
                            &g,
                            &c,
                            $rtol,
                            $atol,
                            &format!(
                                "forward {} {cs:?} workspace {workspace} cuDNN {lib}",
                                <$t>::DTYPE
                            ),
                        )?;
                        for which in 0..2 {
                            let grad = || -> cuprite_array::Result<Array<$t>> {
                                let (x, w) = (
                                    mk(&xv, &cs.x_shape())?.cast::<$t>(),
                                    mk(&wv, &cs.w_shape())?.cast::<$t>(),
                                );
                                let dy = mk(&dyv, &cs.y_shape())?.cast::<$t>();
                                let (dx, dw) = grads(cs, &x, &w, &dy)?;
                                Ok(if which == 0 { dx } else { dw })
                            };
                            let (g, c) = both(&grad)?;
                            // In chunks of one image, the weights' gradient adds one rounding
                            // of the element type per further image (see
                            // `set_conv_workspace_bytes`).
                            let parts = if which == 1 && workspace == 1 {
                                cs.n as f64
                            } else {
                                1.0
                            };
                            close(
                                &g,
                                &c,
                                $rtol * parts,
                                $atol * parts,
                                &format!(
                                    "gradient {which} {} {cs:?} workspace {workspace} cuDNN {lib}",
                                    <$t>::DTYPE
                                ),
                            )?;
                        }
                    }};
                }
                check!(f64, 1e-12, 1e-12);
                check!(f32, 1e-4, 1e-4);
                check!(bf16, 3e-2, 3e-2);
                check!(f16, 4e-3, 4e-3);
            }
            Ok(())
        })?;
    }
    signal::set_conv_workspace_bytes(before);
    // Pooling is computed in the same order on both backends: equal to the bit (cuprite's
    // kernels; cuDNN's average sums in its own order, see `cudnn_matches_fallback`).
    tuning::with_cudnn(false, || pool_matches_cpu(&mut rng))
}

/// The fallback kernels (cuDNN off) against the CPU backend on awkward shapes: odd extents
/// (partial groups of positions, rows off the 8-byte grid), stride 2, dilation 2, padding 0, 2
/// and unequal sides, groups, 1-d and 3-d, batches of 1 and 3, positions whose groups are whole
/// and aligned, several planes a thread; whole batches and chunks of one image (planes at every
/// offset), forward (plain, and with bias and ReLU) and both gradients, every element type.
fn fallback_matches_cpu() -> TestResult {
    let mut rng = Rng::fresh();
    let mut shapes = Vec::new();
    let mut c = Case::plain(3, 4, 6, &[13, 11], &[3, 3]);
    c.groups = 2;
    c.stride = vec![2, 2];
    shapes.push(c);
    let mut c = Case::plain(1, 3, 5, &[15, 9], &[3, 3]);
    c.dil = vec![2, 2];
    c.pad = vec![(2, 2), (2, 2)];
    shapes.push(c);
    let mut c = Case::plain(3, 5, 4, &[37], &[5]);
    c.stride = vec![2];
    c.dil = vec![2];
    c.pad = vec![(2, 2)];
    shapes.push(c);
    let mut c = Case::plain(2, 4, 4, &[5, 6, 7], &[3, 3, 3]);
    c.groups = 2;
    c.stride = vec![1, 2, 1];
    c.pad = vec![(1, 1), (1, 1), (1, 1)];
    shapes.push(c);
    let mut c = Case::plain(3, 4, 8, &[8, 8], &[3, 3]);
    c.pad = vec![(1, 1), (1, 1)];
    shapes.push(c);
    let mut c = Case::plain(3, 2, 3, &[7, 6], &[2, 3]);
    c.pad = vec![(1, 0), (0, 2)];
    c.stride = vec![1, 2];
    shapes.push(c);
    let mut c = Case::plain(1, 6, 6, &[9, 10], &[3, 3]);
    c.groups = 6;
    c.dil = vec![1, 2];
    c.pad = vec![(0, 0), (2, 2)];
    shapes.push(c);
    // The half types' weight gradient by the split lowering (`weight_split_routes` in
    // `signal/nn/cuda.rs` checks that these take it): 2-d, dilated with unequal padding, 1-d
    // and 3-d; chunks of one image add their sums across chunks.
    let mut c = Case::plain(2, 8, 4, &[20, 20], &[3, 3]);
    c.pad = vec![(1, 1), (1, 1)];
    shapes.push(c);
    let mut c = Case::plain(3, 6, 5, &[19, 17], &[3, 2]);
    c.dil = vec![2, 1];
    c.pad = vec![(2, 2), (0, 1)];
    shapes.push(c);
    let mut c = Case::plain(2, 6, 4, &[300], &[5]);
    c.pad = vec![(2, 2)];
    shapes.push(c);
    let mut c = Case::plain(2, 4, 3, &[6, 10, 10], &[3, 3, 3]);
    c.pad = vec![(1, 1), (1, 1), (1, 1)];
    shapes.push(c);
    // A one-tap kernel with trailing padding only: the output is longer than the input.
    let mut c = Case::plain(2, 3, 4, &[9, 8], &[1, 1]);
    c.pad = vec![(0, 2), (0, 1)];
    shapes.push(c);
    // The input gradient at stride 1 as a forward pass, and strided ones through the gather.
    shapes.extend(unit_stride_cases().into_iter().map(|(_, c)| c));
    // Enough positions and planes that a thread of the lowering kernels takes several planes
    // (whole batch; two planes a thread in chunks of one image). Its weight gradient sums
    // over half a million terms, beyond these tolerances: forward and input gradient only.
    let long = shapes.len();
    let mut c = Case::plain(2, 8, 2, &[262_147], &[3]);
    c.pad = vec![(1, 1)];
    shapes.push(c);
    let before = signal::conv_workspace_bytes();
    let result = (|| -> TestResult {
        for workspace in [before, 1] {
            signal::set_conv_workspace_bytes(workspace);
            tuning::with_cudnn(false, || -> TestResult {
                let calls = stats::thread_cudnn_calls();
                for (si, cs) in shapes.iter().enumerate() {
                    let xv = rvec(&mut rng, cs.x_shape().iter().product());
                    let wv = rvec(&mut rng, cs.w_shape().iter().product());
                    let bv = rvec(&mut rng, cs.k);
                    let dyv = rvec(&mut rng, cs.y_shape().iter().product());
                    let mk = |v: &[f64], s: &[usize]| Array::from_slice(v, s);
                    macro_rules! check {
                        ($t:ty, $rtol:expr, $atol:expr) => {{
                            let what = |pass: &str| {
                                format!("{pass} {} {cs:?} workspace {workspace}", <$t>::DTYPE)
                            };
                            for fused in [false, true] {
                                let fwd = || -> cuprite_array::Result<Array<$t>> {
                                    let (x, w) = (
                                        mk(&xv, &cs.x_shape())?.cast::<$t>(),
                                        mk(&wv, &cs.w_shape())?.cast::<$t>(),
                                    );
                                    let b = mk(&bv, &[cs.k])?.cast::<$t>();
                                    forward(cs, &x, &w, fused.then_some(&b), fused)
                                };
                                let (g, c) = both(&fwd)?;
                                close(&g, &c, $rtol, $atol, &what("forward"))?;
                            }
                            for which in 0..if si >= long { 1 } else { 2 } {
                                let grad = || -> cuprite_array::Result<Array<$t>> {
                                    let (x, w) = (
                                        mk(&xv, &cs.x_shape())?.cast::<$t>(),
                                        mk(&wv, &cs.w_shape())?.cast::<$t>(),
                                    );
                                    let dy = mk(&dyv, &cs.y_shape())?.cast::<$t>();
                                    let (dx, dw) = grads(cs, &x, &w, &dy)?;
                                    Ok(if which == 0 { dx } else { dw })
                                };
                                let (g, c) = both(&grad)?;
                                let pass = if which == 0 {
                                    "input gradient"
                                } else {
                                    "weight gradient"
                                };
                                close(&g, &c, $rtol, $atol, &what(pass))?;
                            }
                        }};
                    }
                    check!(f64, 1e-12, 1e-12);
                    check!(f32, 1e-4, 1e-4);
                    check!(bf16, 3e-2, 3e-2);
                    check!(f16, 4e-3, 4e-3);
                }
                let used = stats::thread_cudnn_calls() - calls;
                if used != 0 {
                    return Err(format!("{used} calls went to cuDNN with it switched off").into());
                }
                Ok(())
            })?;
        }
        Ok(())
    })();
    signal::set_conv_workspace_bytes(before);
    result
}

fn pool_matches_cpu(rng: &mut Rng) -> TestResult {
    let xv = rvec(rng, 4 * 5 * 33 * 29);
    for (k, s, p, ceil) in [
        ([2usize, 2usize], [2usize, 2usize], [0usize, 0usize], false),
        ([3, 3], [2, 2], [1, 1], true),
    ] {
        let o = Pool2dOpts::new()
            .stride(s)
            .padding(p)
            .ceil_mode(ceil)
            .count_include_pad(false);
        let x = || Array::from_slice(&xv, &[4, 5, 33, 29]);
        let (g, c) = both(&|| signal::max_pool2d_with(&x()?, k, o))?;
        close(&g, &c, 0.0, 0.0, "max pool")?;
        let (g, c) = both(&|| signal::avg_pool2d_with(&x()?.cast::<f32>(), k, o))?;
        close(&g, &c, 0.0, 0.0, "avg pool")?;
        let ys = on(Device::CPU, || signal::max_pool2d_with(&x()?, k, o))?
            .shape()
            .to_vec();
        let dyv = rvec(rng, ys.iter().product());
        let dy = || Array::from_slice(&dyv, &ys);
        let (g, c) = both(&|| signal::max_pool2d_backward(&dy()?, &x()?, k, o))?;
        close(&g, &c, 0.0, 0.0, "max pool gradient")?;
        let (g, c) = both(&|| signal::avg_pool2d_backward(&dy()?, &[4, 5, 33, 29], k, o))?;
        close(&g, &c, 0.0, 0.0, "avg pool gradient")?;
    }
    Ok(())
}

/// `f` evaluated on the GPU with cuDNN allowed (`lib`) or not, as f64, and the calls this
/// thread ran through cuDNN meanwhile.
fn gpu_run<T: Float>(
    lib: bool,
    f: &dyn Fn() -> cuprite_array::Result<Array<T>>,
) -> Result<(Vec<f64>, u64), cuprite_array::Error> {
    tuning::with_cudnn(lib, || {
        on(Device::cuda(0), || {
            let before = stats::thread_cudnn_calls();
            let v = f()?.cast::<f64>().to_vec()?;
            Ok((v, stats::thread_cudnn_calls() - before))
        })
    })
}

/// `Ok` where cuDNN loads; else an `Err` saying so, for the tests that compare its path.
fn cudnn_loads() -> TestResult {
    if cuprite_driver::dnn::is_available() {
        return Ok(());
    }
    Err(format!(
        "cuDNN cannot be loaded here, so its path cannot be compared: {:?}",
        cuprite_driver::dnn::version()
    )
    .into())
}

/// A grouped pointwise `bf16` convolution whose weights take 96 bytes (3 groups of 4 filters
/// over 4 channels, stride 1 x 2, one row of padding): a cuDNN graph-API implicit-GEMM engine
/// reads 64 bytes past those weights while the fastest plan is timed, which faults where the
/// weights end a mapped region, and which the allocations' slack holds (compute-sanitizer
/// reports it only with `CUPRITE_ALLOC_EXACT=1`). The forward
/// pass and both gradients, through cuDNN (the input gradient through cuprite's kernels: the
/// padding reaches past the one-tap kernel) and through cuprite's kernels, against each other
/// and the CPU backend.
fn cudnn_small_grouped_pointwise() -> TestResult {
    cudnn_loads()?;
    let mut cs = Case::plain(1, 12, 12, &[8, 14], &[1, 1]);
    cs.groups = 3;
    cs.stride = vec![1, 2];
    cs.pad = vec![(1, 1), (0, 0)];
    let mut rng = Rng::fresh();
    let xv = rvec(&mut rng, cs.x_shape().iter().product());
    let wv = rvec(&mut rng, cs.w_shape().iter().product());
    let dyv = rvec(&mut rng, cs.y_shape().iter().product());
    let terms = [4, 4, cs.o().iter().product::<usize>()];
    for which in 0..3 {
        let f = |d: Device| -> cuprite_array::Result<Array<bf16>> {
            let mk = |v: &[f64], sh: &[usize]| Array::from_slice_on(d, v, sh);
            let x = mk(&xv, &cs.x_shape())?.cast::<bf16>();
            let w = mk(&wv, &cs.w_shape())?.cast::<bf16>();
            let dy = mk(&dyv, &cs.y_shape())?.cast::<bf16>();
            match which {
                0 => forward(&cs, &x, &w, None, false),
                1 => Ok(grads(&cs, &x, &w, &dy)?.0),
                _ => Ok(grads(&cs, &x, &w, &dy)?.1),
            }
        };
        let gpu = || f(Device::cuda(0));
        let (lib, used) = gpu_run::<bf16>(true, &gpu)?;
        let (own, _) = gpu_run::<bf16>(false, &gpu)?;
        let host = f(Device::CPU)?.cast::<f64>().to_vec()?;
        let what = format!("pass {which} of {cs:?}");
        // The one-tap kernel with padding has windows of only padding, which cuDNN's input
        // gradient refuses: that pass runs on cuprite's kernels.
        match (which, used) {
            (1, 0) => {}
            (1, _) => {
                return Err(format!("{what}: padding past the kernel went to cuDNN").into());
            }
            (_, 0) => return Err(format!("{what}: no call went to cuDNN").into()),
            _ => {}
        }
        let (r, a) = lib_tol::<bf16>(terms[which]);
        close(
            &lib,
            &own,
            r,
            a,
            &format!("{what}, cuDNN against cuprite's kernels"),
        )?;
        close(&lib, &host, r, a, &format!("{what}, cuDNN against the CPU"))?;
    }
    Ok(())
}

/// A random convolution: 1 to 3 spatial axes, groups (depthwise sometimes), stride and
/// dilation up to 2, the same padding on both sides of each axis (which cuDNN takes).
fn random_case(rng: &mut Rng) -> Case {
    let mut u = |lo: usize, hi: usize| lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize;
    let d = u(1, 3);
    let groups = [1, 1, 2, 3][u(0, 3)];
    let depthwise = u(0, 3) == 0;
    let cg = if depthwise { 1 } else { u(1, 4) };
    let kg = u(1, 4);
    let (n, c, k) = (u(1, 3), groups * cg, groups * kg);
    let big = if d == 3 { 7 } else { 14 };
    let i: Vec<usize> = (0..d).map(|_| u(5, big)).collect();
    let r: Vec<usize> = (0..d).map(|_| u(1, 3)).collect();
    let mut cs = Case::plain(n, c, k, &i, &r);
    cs.groups = groups;
    cs.stride = (0..d).map(|_| u(1, 2)).collect();
    cs.dil = (0..d).map(|_| u(1, 2)).collect();
    cs.pad = r
        .iter()
        .map(|&r| {
            let p = u(0, r / 2 + 1);
            (p, p)
        })
        .collect();
    cs
}

/// The tolerance of this test between cuDNN's and the fallback's results of `T` over `terms`
/// products: both paths' bounds ([`tol`]) added, over at least 32 terms (cuDNN's FFT and
/// Winograd algorithms round transforms of a whole tile, not only the taps' products).
fn lib_tol<T: Float>(terms: usize) -> (f64, f64) {
    let (r, a) = tol::<T>(terms.max(32));
    (2.0 * r, 2.0 * a)
}

/// cuDNN against the fallback kernels on random convolutions (forward with bias and ReLU, both
/// gradients) in every element type, within [`lib_tol`]; a padding that differs between the
/// sides goes to the fallback; the switch keeps every call off cuDNN when off, and sends the
/// passes of a plain layer through it when on. Pooling forward: cuDNN's maximum equal to the
/// fallback's (NaN and `-inf` padding included), its average within rounding, `ceil_mode`'s extra
/// window on the fallback.
fn cudnn_matches_fallback() -> TestResult {
    cudnn_loads()?;
    let mut rng = Rng::fresh();
    let mut shapes: Vec<(Case, bool)> = (0..8).map(|_| (random_case(&mut rng), true)).collect();
    let mut lopsided = Case::plain(2, 4, 6, &[9, 11], &[2, 3]);
    lopsided.pad = vec![(0, 1), (1, 1)];
    shapes.push((lopsided, false));
    let mut layer = Case::plain(2, 8, 8, &[10, 10], &[3, 3]);
    layer.pad = vec![(1, 1), (1, 1)];
    shapes.push((layer, true));
    let last = shapes.len() - 1;
    let mut through = 0u64;
    for (s, (cs, symmetric)) in shapes.iter().enumerate() {
        let xv = rvec(&mut rng, cs.x_shape().iter().product());
        let wv = rvec(&mut rng, cs.w_shape().iter().product());
        let bv = rvec(&mut rng, cs.k);
        let dyv = rvec(&mut rng, cs.y_shape().iter().product());
        let mk = |v: &[f64], sh: &[usize]| Array::from_slice(v, sh);
        let rs: usize = cs.r.iter().product();
        let np: usize = cs.o().iter().product();
        let terms = [(cs.c / cs.groups) * rs, (cs.k / cs.groups) * rs, cs.n * np];
        macro_rules! check {
            ($t:ty) => {{
                for which in 0..3 {
                    let f = || -> cuprite_array::Result<Array<$t>> {
                        let (x, w) = (
                            mk(&xv, &cs.x_shape())?.cast::<$t>(),
                            mk(&wv, &cs.w_shape())?.cast::<$t>(),
                        );
                        let b = mk(&bv, &[cs.k])?.cast::<$t>();
                        let dy = mk(&dyv, &cs.y_shape())?.cast::<$t>();
                        match which {
                            0 => forward(cs, &x, &w, Some(&b), true),
                            1 => Ok(grads(cs, &x, &w, &dy)?.0),
                            _ => Ok(grads(cs, &x, &w, &dy)?.1),
                        }
                    };
                    let (lib, used) = gpu_run::<$t>(true, &f)?;
                    let (own, unused) = gpu_run::<$t>(false, &f)?;
                    let what = format!("pass {which} {} {cs:?}", <$t>::DTYPE);
                    if unused != 0 {
                        return Err(
                            format!("{what}: {unused} calls went to cuDNN while off").into()
                        );
                    }
                    if !symmetric && used != 0 {
                        return Err(format!("{what}: lopsided padding went to cuDNN").into());
                    }
                    if s == last && used != 1 {
                        return Err(format!("{what}: {used} cuDNN calls, 1 expected").into());
                    }
                    through += used;
                    let (r, a) = lib_tol::<$t>(terms[which]);
                    close(&lib, &own, r, a, &what)?;
                }
            }};
        }
        check!(f64);
        check!(f32);
        check!(bf16);
        check!(f16);
    }
    if through == 0 {
        return Err("no convolution went through cuDNN".into());
    }
    // Pooling: all-negative planes (padding must act as -inf) with a NaN in one plane.
    // 12 rows: `ceil_mode` with window 3, stride 2, padding 1 adds a seventh window.
    let (shape, planes) = ([2usize, 3usize, 12usize, 11usize], 6usize);
    let mut xv: Vec<f64> = rvec(&mut rng, planes * 12 * 11)
        .into_iter()
        .map(|v| -v.abs() - 0.25)
        .collect();
    xv[5 * 12 * 11 + 40] = f64::NAN;
    for (k, st, p, ceil, include) in [
        (
            [3usize, 3usize],
            [2usize, 2usize],
            [1usize, 1usize],
            false,
            true,
        ),
        ([3, 2], [1, 2], [1, 0], false, false),
        ([2, 2], [2, 2], [0, 0], false, true),
        ([3, 3], [2, 2], [1, 1], true, false),
    ] {
        let o = Pool2dOpts::new()
            .stride(st)
            .padding(p)
            .ceil_mode(ceil)
            .count_include_pad(include);
        let expect = if ceil { 0 } else { 1 };
        macro_rules! pool {
            ($t:ty) => {{
                let x =
                    || Ok::<_, cuprite_array::Error>(Array::from_slice(&xv, &shape)?.cast::<$t>());
                let what = format!("{} pool {k:?} {st:?} {p:?} ceil {ceil}", <$t>::DTYPE);
                let (lib, used) = gpu_run::<$t>(true, &|| signal::max_pool2d_with(&x()?, k, o))?;
                let (own, _) = gpu_run::<$t>(false, &|| signal::max_pool2d_with(&x()?, k, o))?;
                // Max pooling never goes through cuDNN (its maximum of a window of -inf is
                // the lowest finite value).
                if used != 0 {
                    return Err(format!("max {what}: {used} cuDNN calls, 0 expected").into());
                }
                close(&lib, &own, 0.0, 0.0, &format!("max {what}"))?;
                let (lib, used) = gpu_run::<$t>(true, &|| signal::avg_pool2d_with(&x()?, k, o))?;
                let (own, _) = gpu_run::<$t>(false, &|| signal::avg_pool2d_with(&x()?, k, o))?;
                if used != expect {
                    return Err(format!("avg {what}: {used} cuDNN calls, {expect} expected").into());
                }
                let (r, a) = lib_tol::<$t>(9);
                close(&lib, &own, r, a, &format!("avg {what}"))?;
            }};
        }
        pool!(f64);
        pool!(f32);
        pool!(bf16);
        pool!(f16);
    }
    Ok(())
}

/// Each layout cuDNN may compute a channels-first 2-D half-precision convolution in (as given,
/// and channels last between two exchanges by `nn_tile_swap`), forced in turn, against the
/// f64 reference: the forward pass (with and without bias and ReLU) and the gradients, on
/// sizes that leave partial 32 × 32 tiles and on a ResNet-like layer.
fn cudnn_layouts_match_reference() -> TestResult {
    // The process's setting as it was (not `Measured`: later tests of this process would time
    // both layouts of every half-precision problem they meet).
    struct Restore(tuning::CudnnLayout);
    impl Drop for Restore {
        fn drop(&mut self) {
            tuning::set_cudnn_layout(self.0);
        }
    }
    let _restore = Restore(tuning::cudnn_layout());
    let mut rng = Rng::fresh();
    let mut odd = Case::plain(3, 5, 7, &[9, 11], &[3, 3]);
    odd.pad = vec![(1, 1), (1, 1)];
    let mut layer = Case::plain(2, 64, 64, &[20, 20], &[3, 3]);
    layer.pad = vec![(1, 1), (1, 1)];
    let wide = Case::plain(2, 40, 33, &[7, 37], &[1, 3]);
    on(Device::cuda(0), || -> TestResult {
        tuning::with_cudnn(true, || -> TestResult {
            for layout in [
                tuning::CudnnLayout::AsGiven,
                tuning::CudnnLayout::ChannelsLast,
                tuning::CudnnLayout::Measured,
            ] {
                tuning::set_cudnn_layout(layout);
                for (what, cs) in [("odd", &odd), ("layer", &layer), ("wide", &wide)] {
                    let what = format!("{layout:?} {what}");
                    check_forward::<bf16>(&mut rng, cs, &what)?;
                    check_forward::<f16>(&mut rng, cs, &what)?;
                    check_grads::<bf16>(&mut rng, cs, &what)?;
                    check_grads::<f16>(&mut rng, cs, &what)?;
                }
            }
            Ok(())
        })
    })
}

/// The convolution's and the pooling's kernels compile with NVRTC (no GPU): the sources the
/// bodies would build on CUDA for every element type, recorded by the dry-run backend.
fn nn_kernels_compile() -> TestResult {
    cuprite_array::tuning::compiler::start_recording();
    let runs = [
        conv_forward(Device::CPU),
        conv_grads(Device::CPU),
        conv_grads_unit_stride(Device::CPU),
        conv_half(Device::CPU),
        pool_rules(Device::CPU),
        pool_forward_and_grads(Device::CPU),
    ];
    let sources = cuprite_array::tuning::compiler::take_recorded();
    for r in runs {
        r?;
    }
    for d in ["f16", "bf16", "f32", "f64"] {
        for k in [
            "im2col",
            "col2im",
            "swap",
            "tile_swap",
            "bias_act",
            "tap_sum",
            "pool",
            "pool_grad",
            "wino_filter",
            "wino_input",
            "wino_output",
        ] {
            let want = format!("cuprite_nn_{k}_{d}");
            if !sources.iter().any(|s| s.contains(&format!("{want}("))) {
                return Err(format!("{want} was not recorded ({} sources)", sources.len()).into());
            }
        }
    }
    crate::codegen::compile_all(&sources)
}

pub fn tests() -> Vec<Test> {
    let mut v = vec![
        Test::nvrtc("codegen::signal_nn_kernels_compile", nn_kernels_compile),
        Test::gpu("cuda::signal_nn::cuda_matches_cpu", cuda_matches_cpu),
        Test::gpu(
            "cuda::signal_nn::fallback_matches_cpu",
            fallback_matches_cpu,
        ),
        Test::gpu(
            "cuda::signal_nn::cudnn_matches_fallback",
            cudnn_matches_fallback,
        ),
        Test::gpu(
            "cuda::signal_nn::cudnn_small_grouped_pointwise",
            cudnn_small_grouped_pointwise,
        ),
        // Alone: it sets the process's cuDNN layout, which other tests' calls would take.
        Test::gpu_alone(
            "cuda::signal_nn::cudnn_layouts_match_reference",
            cudnn_layouts_match_reference,
        ),
    ];
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("cpu::signal_nn::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("cuda::signal_nn::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v
}
