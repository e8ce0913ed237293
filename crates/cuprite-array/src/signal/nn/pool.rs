//! Max and average pooling and their gradients (PyTorch's `max_pool2d`, `avg_pool2d`): the
//! public calls, the library call [`PoolCall`] (kernels `nn_pool`, `nn_pool_grad` in
//! `pool.cu`) and its CPU twin, which computes every value in the kernels' order.

use super::cpu::{Acc, narrow, widen};
use super::dnn;
use super::geom::PoolGeom;
use super::kernels::{NnKernel, PoolArgs, PoolGradArgs};
use super::opts::{ConvLayout, PerAxis, Pool2dOpts, PoolOpts};
use crate::array::{Array, check_devices};
use crate::codegen::{ReadBuf, WriteBuf};
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use rayon::prelude::*;
use std::sync::Arc;

/// Pooling (`grad` false: `x` in, `planes P` out) or its gradient (`grad` true: `x` for max
/// pooling, then `dy`; `planes ip` out), over channels-first planes.
#[derive(Debug)]
pub(crate) struct PoolCall {
    pub dtype: DType,
    pub geom: PoolGeom,
    pub avg: bool,
    pub include_pad: bool,
    pub grad: bool,
}

/// One window: the input it covers (`[lo, hi)` along each axis) and both divisors.
struct Win {
    lo: [usize; 3],
    hi: [usize; 3],
    div_pad: usize,
    div_in: usize,
}

impl PoolCall {
    fn in_lens(&self) -> Vec<usize> {
        let g = &self.geom;
        let (x, y) = (g.planes * g.ip(), g.planes * g.p());
        match (self.grad, self.avg) {
            (false, _) => vec![x],
            (true, false) => vec![x, y],
            (true, true) => vec![y],
        }
    }

    fn out_len(&self) -> usize {
        let g = &self.geom;
        g.planes * if self.grad { g.ip() } else { g.p() }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let lens = self.in_lens();
        let ok = matches!(
            self.dtype,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64
        ) && inputs.len() == lens.len()
            && inputs
                .iter()
                .zip(&lens)
                .all(|(i, &n)| i.dtype == self.dtype && numel(i.shape) == n);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the pooling made for {:?} of {} was given {:?}",
                self.geom,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// cuDNN's name for this pooling's mode.
    fn dnn_mode(&self) -> cuprite_driver::dnn::PoolMode {
        use cuprite_driver::dnn::PoolMode;
        match (self.avg, self.include_pad) {
            (false, _) => PoolMode::Max,
            (true, true) => PoolMode::AvgIncludePad,
            (true, false) => PoolMode::AvgExcludePad,
        }
    }

    fn kernel(&self) -> NnKernel {
        if self.grad {
            NnKernel::PoolGrad
        } else {
            NnKernel::Pool
        }
    }

    /// The window of output `q` (as `nn_window` in `pool.cu`).
    fn window(&self, q: [usize; 3]) -> Win {
        let g = &self.geom;
        let mut w = Win {
            lo: [0; 3],
            hi: [0; 3],
            div_pad: 1,
            div_in: 1,
        };
        for a in 0..3 {
            let start = (q[a] * g.stride[a]) as i64 - g.pad[a] as i64;
            let end = (start + g.k[a] as i64).min((g.i[a] + g.pad[a]) as i64);
            w.div_pad *= (end - start) as usize;
            let (lo, hi) = (start.max(0) as usize, end.min(g.i[a] as i64) as usize);
            w.div_in *= hi - lo;
            w.lo[a] = lo;
            w.hi[a] = hi;
        }
        w
    }

    /// The maximum of window `w` of plane `xp` and its position (as `nn_argmax`).
    fn argmax<A: Acc>(&self, xp: &[A], w: &Win) -> (usize, A) {
        let [_, i1, i2] = self.geom.i;
        let mut at = (w.lo[0] * i1 + w.lo[1]) * i2 + w.lo[2];
        let mut m = A::NEG_INF;
        for a0 in w.lo[0]..w.hi[0] {
            for a1 in w.lo[1]..w.hi[1] {
                for a2 in w.lo[2]..w.hi[2] {
                    let e = (a0 * i1 + a1) * i2 + a2;
                    let v = xp[e];
                    if v > m || v.is_nan() {
                        m = v;
                        at = e;
                    }
                }
            }
        }
        (at, m)
    }

    fn divisor<A: Acc>(&self, w: &Win) -> A {
        A::of_f64(if self.include_pad {
            w.div_pad
        } else {
            w.div_in
        } as f64)
    }

    /// The output positions in row-major order.
    fn positions(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        let [o0, o1, o2] = self.geom.o;
        (0..o0).flat_map(move |a| (0..o1).flat_map(move |b| (0..o2).map(move |c| [a, b, c])))
    }

    fn forward<A: Acc>(&self, x: &[A]) -> Vec<A> {
        let g = &self.geom;
        let (ip, p) = (g.ip(), g.p());
        let [_, i1, i2] = g.i;
        let mut y = vec![A::ZERO; g.planes * p];
        y.par_chunks_mut(p.max(1))
            .enumerate()
            .for_each(|(pl, out)| {
                let xp = &x[pl * ip..][..ip];
                for (o, q) in out.iter_mut().zip(self.positions()) {
                    let w = self.window(q);
                    *o = if self.avg {
                        let mut sum = A::ZERO;
                        for a0 in w.lo[0]..w.hi[0] {
                            for a1 in w.lo[1]..w.hi[1] {
                                for a2 in w.lo[2]..w.hi[2] {
                                    sum += xp[(a0 * i1 + a1) * i2 + a2];
                                }
                            }
                        }
                        sum / self.divisor(&w)
                    } else {
                        self.argmax(xp, &w).1
                    };
                }
            });
        y
    }

    /// The gradient: each output's share added to its inputs in ascending output order, which
    /// is the order in which `nn_pool_grad` sums each input's windows.
    fn backward<A: Acc>(&self, x: Option<&[A]>, dy: &[A]) -> Vec<A> {
        let g = &self.geom;
        let (ip, p) = (g.ip(), g.p());
        let [_, i1, i2] = g.i;
        let mut dx = vec![A::ZERO; g.planes * ip];
        dx.par_chunks_mut(ip.max(1))
            .enumerate()
            .for_each(|(pl, out)| {
                let dyp = &dy[pl * p..][..p];
                for (&gv, q) in dyp.iter().zip(self.positions()) {
                    let w = self.window(q);
                    match x {
                        Some(x) => out[self.argmax(&x[pl * ip..][..ip], &w).0] += gv,
                        None => {
                            let share = gv / self.divisor(&w);
                            for a0 in w.lo[0]..w.hi[0] {
                                for a1 in w.lo[1]..w.hi[1] {
                                    for a2 in w.lo[2]..w.hi[2] {
                                        out[(a0 * i1 + a1) * i2 + a2] += share;
                                    }
                                }
                            }
                        }
                    }
                }
            });
        dx
    }

    fn cpu<A: Acc + Into<f64>>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let v: Vec<Vec<A>> = inputs
            .iter()
            .zip(self.in_lens())
            .map(|(i, n)| widen::<A>(self.dtype, i.buf, i.layout.offset, n))
            .collect();
        let r = match (self.grad, self.avg) {
            (false, _) => self.forward(&v[0]),
            (true, false) => self.backward(Some(&v[0]), &v[1]),
            (true, true) => self.backward(None, &v[0]),
        };
        narrow(self.dtype, &r, out);
    }
}

impl LibraryCall for PoolCall {
    fn name(&self) -> &str {
        match (self.avg, self.grad) {
            (false, false) => "max_pool",
            (true, false) => "avg_pool",
            (false, true) => "max_pool_backward",
            (true, true) => "avg_pool_backward",
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        if self.dtype == DType::F64 {
            self.cpu::<f64>(inputs, out);
        } else {
            self.cpu::<f32>(inputs, out);
        }
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        self.check(inputs)?;
        let (g, d) = (&self.geom, self.dtype);
        // Only average pooling goes through cuDNN: its max pooling gives the lowest finite
        // value, not `-inf`, for a window of `-inf`.
        if !self.grad && self.avg && dnn::pool(lane, d, g, self.dnn_mode(), &inputs[0], out)? {
            return Ok(());
        }
        let lens = self.in_lens();
        let part = |i: usize| ReadBuf::part(inputs[i].buf, d, inputs[i].layout.offset, lens[i]);
        let i = |v: usize| v as i64;
        let y = WriteBuf::part(out, d, 0, self.out_len())?;
        macro_rules! geometry {
            ($ty:ident { $($f:ident: $v:expr),* }) => {
                $ty {
                    $($f: $v,)*
                    planes: i(g.planes),
                    i0: i(g.i[0]), i1: i(g.i[1]), i2: i(g.i[2]),
                    k0: i(g.k[0]), k1: i(g.k[1]), k2: i(g.k[2]),
                    o0: i(g.o[0]), o1: i(g.o[1]), o2: i(g.o[2]),
                    st0: i(g.stride[0]), st1: i(g.stride[1]), st2: i(g.stride[2]),
                    pd0: i(g.pad[0]), pd1: i(g.pad[1]), pd2: i(g.pad[2]),
                    avg: i64::from(self.avg),
                    include_pad: i64::from(self.include_pad),
                }
            };
        }
        if !self.grad {
            let params = geometry!(PoolArgs { x: part(0)?, y: y });
            // SAFETY: `x` is a checked view of `planes ip` values and `y` of `planes P`; the
            // kernel reads each plane only inside its windows clipped to `[0, i)` and writes
            // each output once.
            return unsafe { NnKernel::Pool.launch(lane, d, &params, g.p(), g.planes) };
        }
        let (x, dy) = if self.avg {
            (None, part(0)?)
        } else {
            (Some(part(0)?), part(1)?)
        };
        let params = geometry!(PoolGradArgs {
            x: x,
            dy: dy,
            dx: y
        });
        // SAFETY: `x` (max pooling only) and `dx` are checked views of `planes ip` values and
        // `dy` of `planes P`; the kernel reads `dy` at the windows `nn_cover` keeps in `[0, o)`,
        // `x` inside those windows clipped to `[0, i)`, and writes each input once.
        unsafe { NnKernel::PoolGrad.launch(lane, d, &params, g.ip(), g.planes) }
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        self.kernel()
            .source(self.dtype)
            .map(|s| vec![s.source])
            .unwrap_or_default()
    }
}

/// The geometry of pooling `x` (in `opts`'s layout, `2 + D` axes) with windows of `kernel`.
fn pool_geom<const D: usize>(
    what: &str,
    shape: &[usize],
    kernel: [usize; D],
    opts: &PoolOpts<D>,
) -> Result<PoolGeom> {
    if shape.len() != D + 2 {
        return Err(Error::Shape(format!(
            "{what}: the input must have {} axes (batch, channels, {D} spatial), not shape \
             {shape:?}",
            D + 2
        )));
    }
    crate::shape::checked_numel(shape)?;
    let (planes, sp) = match opts.layout {
        ConvLayout::ChannelsFirst => (shape[0] * shape[1], &shape[2..]),
        ConvLayout::ChannelsLast => (shape[0] * shape[D + 1], &shape[1..D + 1]),
    };
    let mut i = [0; D];
    i.copy_from_slice(sp);
    PoolGeom::new(
        what,
        planes,
        i,
        kernel,
        opts.stride.unwrap_or(kernel),
        opts.padding,
        opts.ceil_mode,
    )
}

/// `shape` (in `layout`) as channels first, and the permutations to and from it.
fn first_shape(shape: &[usize], layout: ConvLayout) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let nd = shape.len();
    match layout {
        ConvLayout::ChannelsFirst => ((0..nd).collect(), (0..nd).collect(), shape.to_vec()),
        ConvLayout::ChannelsLast => {
            let mut to = vec![0, nd - 1];
            to.extend(1..nd - 1);
            let mut from = vec![0];
            from.extend(2..nd);
            from.push(1);
            let s = to.iter().map(|&a| shape[a]).collect();
            (to, from, s)
        }
    }
}

/// The output shape (channels first) of pooling with `g` an input of channels-first `shape`.
fn out_shape(shape: &[usize], g: &PoolGeom) -> Vec<usize> {
    let mut s = shape[..2].to_vec();
    s.extend(&g.o[3 - g.dims..]);
    s
}

fn pool<T: Float, const D: usize>(
    what: &str,
    x: &Array<T>,
    kernel: [usize; D],
    opts: PoolOpts<D>,
    avg: bool,
) -> Result<Array<T>> {
    let g = pool_geom(what, x.shape(), kernel, &opts)?;
    let (to, from, xs) = first_shape(x.shape(), opts.layout);
    let xf = x.permute(&to)?;
    let call = PoolCall {
        dtype: T::DTYPE,
        geom: g,
        avg,
        include_pad: opts.count_include_pad,
        grad: false,
    };
    let y = Array::from_node(Node::new(
        Op::Library(Arc::new(call), vec![xf.node.clone()]),
        T::DTYPE,
        out_shape(&xs, &g),
        x.device(),
    ));
    y.permute(&from)
}

fn pool_grad<T: Float, const D: usize>(
    what: &str,
    grad_out: &Array<T>,
    x: Option<&Array<T>>,
    input_shape: &[usize],
    kernel: [usize; D],
    opts: PoolOpts<D>,
) -> Result<Array<T>> {
    let g = pool_geom(what, input_shape, kernel, &opts)?;
    let (to, from, xs) = first_shape(input_shape, opts.layout);
    let want = out_shape(&xs, &g);
    let dy = grad_out.permute(&to).map_err(|_| {
        Error::Shape(format!(
            "{what}: grad_out has shape {:?}, not the pooling's output",
            grad_out.shape()
        ))
    })?;
    if dy.shape() != want {
        return Err(Error::Shape(format!(
            "{what}: grad_out has shape {:?} (channels first {:?}), but pooling an input of \
             {input_shape:?} gives {want:?}",
            grad_out.shape(),
            dy.shape()
        )));
    }
    let mut inputs = Vec::new();
    if let Some(x) = x {
        check_devices(&[&x.node, &grad_out.node])?;
        inputs.push(x.permute(&to)?.node.clone());
    }
    inputs.push(dy.node.clone());
    let call = PoolCall {
        dtype: T::DTYPE,
        geom: g,
        avg: x.is_none(),
        include_pad: opts.count_include_pad,
        grad: true,
    };
    let dx = Array::from_node(Node::new(
        Op::Library(Arc::new(call), inputs),
        T::DTYPE,
        xs,
        grad_out.device(),
    ));
    dx.permute(&from)
}

/// PyTorch's `max_pool2d` with its defaults (stride equal to the kernel, no padding): the
/// largest value of each `kernel` window of every plane of `x` (`[N, C, H, W]`). See
/// [`max_pool2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::max_pool2d};
/// let x = Array::from_slice(&[1.0f32, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 7.0], &[1, 1, 2, 4])?;
/// assert_eq!(max_pool2d(&x, 2)?.to_vec()?, [5.0, 8.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn max_pool2d<T: Float>(x: &Array<T>, kernel: impl Into<PerAxis<2>>) -> Result<Array<T>> {
    max_pool2d_with(x, kernel, Pool2dOpts::new())
}

/// PyTorch's `max_pool2d`: the largest value of each window (`kernel`, stride, padding of
/// `-inf`, floor or ceil mode: [`PoolOpts`]) of every plane of `x` (`[N, C, H, W]`, or `[N, H,
/// W, C]` channels last). Windows are scanned in row-major order; the first largest value is
/// kept, and a NaN replaces any value kept before it (PyTorch's rule: NaN propagates). On CUDA
/// the forward pass goes through cuDNN where installed ([`crate::tuning::set_cudnn`]; not with
/// `ceil_mode` adding a window), which gives the same values (NaN propagating, padding never
/// the maximum), except perhaps the sign of a maximum that is a zero of both signs.
///
/// # Errors
/// A rank other than 4; a kernel or stride of 0; padding above half the kernel; a kernel longer
/// than the padded input; sizes that overflow. Each message names the values.
///
/// ```
/// use cuprite_array::{Array, signal::{Pool2dOpts, max_pool2d_with}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0], &[1, 1, 3, 3])?;
/// let y = max_pool2d_with(&x, 2, Pool2dOpts::new().stride(2).ceil_mode(true))?;
/// assert_eq!(y.to_vec()?, [5.0, 6.0, 8.0, 9.0]);
/// assert!(max_pool2d_with(&x, 2, Pool2dOpts::new().padding(2)).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn max_pool2d_with<T: Float>(
    x: &Array<T>,
    kernel: impl Into<PerAxis<2>>,
    opts: Pool2dOpts,
) -> Result<Array<T>> {
    pool("max_pool2d", x, kernel.into().0, opts, false)
}

/// PyTorch's `avg_pool2d` with its defaults (stride equal to the kernel, no padding): the mean
/// of each `kernel` window. See [`avg_pool2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::avg_pool2d};
/// let x = Array::from_slice(&[1.0f32, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 7.0], &[1, 1, 2, 4])?;
/// assert_eq!(avg_pool2d(&x, 2)?.to_vec()?, [3.25, 4.25]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn avg_pool2d<T: Float>(x: &Array<T>, kernel: impl Into<PerAxis<2>>) -> Result<Array<T>> {
    avg_pool2d_with(x, kernel, Pool2dOpts::new())
}

/// PyTorch's `avg_pool2d`: the mean of each window ([`PoolOpts`]: stride, zero padding, floor
/// or ceil mode), divided by the window clipped to the padded input (`count_include_pad`, the
/// default) or by the input values it covers. Sums run in `f32` (`f64` for `f64`) in row-major
/// order (on CUDA through cuDNN where installed, as for [`max_pool2d_with`], in cuDNN's order).
///
/// # Errors
/// As [`max_pool2d_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{Pool2dOpts, avg_pool2d_with}};
/// let x = Array::from_slice(&[1.0f64, 2.0, 3.0, 4.0], &[1, 1, 2, 2])?;
/// let y = avg_pool2d_with(&x, 2, Pool2dOpts::new().stride(1).padding(1))?;
/// assert_eq!(y.to_vec()?, [0.25, 0.75, 0.5, 1.0, 2.5, 1.5, 0.75, 1.75, 1.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn avg_pool2d_with<T: Float>(
    x: &Array<T>,
    kernel: impl Into<PerAxis<2>>,
    opts: Pool2dOpts,
) -> Result<Array<T>> {
    pool("avg_pool2d", x, kernel.into().0, opts, true)
}

/// The gradient of [`max_pool2d_with`] with respect to its input `x`: each output's gradient
/// goes to the position of its window's maximum (chosen as the forward call chooses it,
/// recomputed from `x`), summed where windows overlap.
///
/// # Errors
/// As [`max_pool2d_with`]; `grad_out` not of the pooling's output shape; `x` and `grad_out`
/// on different devices.
///
/// ```
/// use cuprite_array::{Array, signal::{Pool2dOpts, max_pool2d_backward}};
/// let x = Array::from_slice(&[1.0f32, 5.0, 2.0, 0.0, 3.0, 4.0, 8.0, 7.0], &[1, 1, 2, 4])?;
/// let dy = Array::from_slice(&[10.0f32, 20.0], &[1, 1, 1, 2])?;
/// let dx = max_pool2d_backward(&dy, &x, 2, Pool2dOpts::new())?;
/// assert_eq!(dx.to_vec()?, [0.0, 10.0, 0.0, 0.0, 0.0, 0.0, 20.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn max_pool2d_backward<T: Float>(
    grad_out: &Array<T>,
    x: &Array<T>,
    kernel: impl Into<PerAxis<2>>,
    opts: Pool2dOpts,
) -> Result<Array<T>> {
    pool_grad(
        "max_pool2d_backward",
        grad_out,
        Some(x),
        x.shape(),
        kernel.into().0,
        opts,
    )
}

/// The gradient of [`avg_pool2d_with`] with respect to an input of `input_shape`: each
/// output's gradient divided by its divisor and spread over the input values of its window.
///
/// # Errors
/// As [`avg_pool2d_with`]; `grad_out` not of the pooling's output shape.
///
/// ```
/// use cuprite_array::{Array, signal::{Pool2dOpts, avg_pool2d_backward}};
/// let dy = Array::from_slice(&[4.0f64, 8.0], &[1, 1, 1, 2])?;
/// let dx = avg_pool2d_backward(&dy, &[1, 1, 2, 4], 2, Pool2dOpts::new())?;
/// assert_eq!(dx.to_vec()?, [1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn avg_pool2d_backward<T: Float>(
    grad_out: &Array<T>,
    input_shape: &[usize],
    kernel: impl Into<PerAxis<2>>,
    opts: Pool2dOpts,
) -> Result<Array<T>> {
    pool_grad(
        "avg_pool2d_backward",
        grad_out,
        None,
        input_shape,
        kernel.into().0,
        opts,
    )
}
