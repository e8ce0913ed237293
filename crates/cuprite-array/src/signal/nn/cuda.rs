//! The convolution's passes on CUDA by lowering: each image's patches laid out as a matrix
//! (`nn_im2col`), multiplied by cuBLASLt (strided-batched, `f16`/`bf16` accumulating in `f32`,
//! `f32` in full precision unless TF32 is allowed), and for the input's gradient the products
//! gathered back onto the input (`nn_col2im`). Images go in chunks whose patches fit
//! [`conv_workspace_bytes`] (at least one image a chunk).
//!
//! - forward: `y[n, g] = w[g] · col[n, g]` (`Kg x CgRS` by `CgRS x P`), then the bias and
//!   activation in place (`nn_bias_act`); a pointwise kernel (`1 x 1`, stride 1, no padding)
//!   reads `x` as its own patches.
//! - input gradient: `dcol[n, g] = w[g]ᵀ · dy[n, g]`, then `nn_col2im` sums each input's taps.
//! - weight gradient: the chunk's patches laid side by side (`C rs x nb P`) and `dy` with its
//!   first two axes exchanged (`nn_swap`: `K x nb P`), so that `dw[g] = dy[g] · col[g]ᵀ` is one
//!   product a group over the whole chunk, added onto the previous chunks' sum.
//!
//! A batch of products runs over the images (one call a group) or over the groups (one call
//! an image), whichever makes fewer calls.

use super::geom::ConvGeom;
use super::kernels::{
    BiasActArgs, Col2imArgs, Im2colArgs, NnKernel, SwapArgs, count32, lane_width, planes_per_thread,
};
use super::workspace::conv_workspace_bytes;
use crate::codegen::{ReadBuf, WriteBuf};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::CallInput;
use crate::ops::linalg::{MatIn, StridedProduct};
use crate::storage::DevBuf;
use cuprite_driver::blaslt::Order;

/// A realised input: its buffer and the element offset of its first value.
struct In<'a> {
    buf: &'a DevBuf,
    off: usize,
}

impl<'a> In<'a> {
    fn of(x: &CallInput<'a, DevBuf>) -> In<'a> {
        In {
            buf: x.buf,
            off: x.layout.offset,
        }
    }
    fn read(&self, d: DType, start: usize, len: usize) -> Result<ReadBuf<'a>> {
        ReadBuf::part(self.buf, d, self.off + start, len)
    }
}

/// The images a chunk takes: as many as the workspace bound holds patches of, at least one.
fn chunk(d: DType, g: &ConvGeom) -> Result<usize> {
    let per_image =
        g.c.checked_mul(g.rs())
            .and_then(|v| v.checked_mul(g.p()))
            .and_then(|v| v.checked_mul(d.size()))
            .ok_or_else(|| Error::InvalidArgument(format!("the patches of {g:?} overflow")))?;
    Ok((conv_workspace_bytes() / per_image.max(1)).clamp(1, g.n.max(1)))
}

/// The forward pass: inputs `x`, `w` (and the bias when `bias`), checked by the call.
pub(super) fn forward(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    inputs: &[CallInput<'_, DevBuf>],
    out: &mut DevBuf,
    bias: bool,
    relu: bool,
) -> Result<()> {
    let chunk = chunk(d, g)?;
    let (x, w) = (In::of(&inputs[0]), In::of(&inputs[1]));
    for n0 in (0..g.n).step_by(chunk) {
        forward_chunk(lane, d, g, &x, &w, out, n0, chunk.min(g.n - n0))?;
    }
    if bias || relu {
        epilogue(lane, d, g, inputs, out, bias, relu)?;
    }
    Ok(())
}

/// The forward pass's bias (`inputs[2]`, when `bias`) and activation, in place on `out`.
pub(super) fn epilogue(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    inputs: &[CallInput<'_, DevBuf>],
    out: &DevBuf,
    bias: bool,
    relu: bool,
) -> Result<()> {
    let b = if bias {
        Some(In::of(&inputs[2]).read(d, 0, g.k)?)
    } else {
        None
    };
    bias_act(lane, d, g, b, relu, out)
}

/// The input's gradient: inputs `dy`, `w`, checked by the call.
pub(super) fn input_grad(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    inputs: &[CallInput<'_, DevBuf>],
    out: &mut DevBuf,
) -> Result<()> {
    let chunk = chunk(d, g)?;
    let (dy, w) = (In::of(&inputs[0]), In::of(&inputs[1]));
    for n0 in (0..g.n).step_by(chunk) {
        input_chunk(lane, d, g, &dy, &w, out, n0, chunk.min(g.n - n0))?;
    }
    Ok(())
}

/// The weights' gradient: inputs `x`, `dy`, checked by the call.
pub(super) fn weight_grad(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    inputs: &[CallInput<'_, DevBuf>],
    out: &mut DevBuf,
) -> Result<()> {
    let chunk = chunk(d, g)?;
    let (x, dy) = (In::of(&inputs[0]), In::of(&inputs[1]));
    for n0 in (0..g.n).step_by(chunk) {
        weight_chunk(lane, d, g, &x, &dy, out, n0, chunk.min(g.n - n0))?;
    }
    Ok(())
}

/// Whether the patches of an image are the image itself.
fn pointwise(g: &ConvGeom) -> bool {
    g.r == [1, 1, 1] && g.stride == [1, 1, 1] && g.pad == [0, 0, 0]
}

/// Scratch of `len` elements of `d`.
///
/// # Safety
/// The caller writes every element before anything reads it.
unsafe fn scratch(lane: &CudaLane<'_>, d: DType, len: usize) -> Result<DevBuf> {
    // SAFETY: the caller's contract.
    unsafe { DevBuf::alloc(lane.st, lane.stream, d, len) }
}

/// Lowers images `n0..n0 + nb` of `x` into `col` (`nb c rs P` elements), image `n`'s row
/// `ch rs + j` at `n sn + (ch rs + j) sr`.
fn im2col(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    x: &In<'_>,
    n0: usize,
    nb: usize,
    col: &DevBuf,
    (sn, sr): (usize, usize),
) -> Result<()> {
    let (ip, p) = (g.ip(), g.p());
    let len = nb * g.c * g.rs() * p;
    let span = p.div_ceil(lane_width(d));
    let pg = planes_per_thread(span, nb * g.c);
    let i = |v: usize| v as i64;
    let params = Im2colArgs {
        x: x.read(d, n0 * g.c * ip, nb * g.c * ip)?,
        col: WriteBuf::part(col, d, 0, len)?,
        planes: count32("the planes of a chunk", nb * g.c)?,
        c: i(g.c),
        i0: i(g.i[0]),
        i1: i(g.i[1]),
        i2: i(g.i[2]),
        r0: i(g.r[0]),
        r1: i(g.r[1]),
        r2: i(g.r[2]),
        o0: i(g.o[0]),
        o1: i(g.o[1]),
        o2: i(g.o[2]),
        st0: i(g.stride[0]),
        st1: i(g.stride[1]),
        st2: i(g.stride[2]),
        pd0: i(g.pad[0]),
        pd1: i(g.pad[1]),
        pd2: i(g.pad[2]),
        dl0: i(g.dil[0]),
        dl1: i(g.dil[1]),
        dl2: i(g.dil[2]),
        sn: i(sn),
        sr: i(sr),
        pg: i(pg),
    };
    // SAFETY: `x` is a checked view of the chunk's `nb c ip` input values and `col` of `nb c rs
    // P` values; the kernel reads plane `pl < nb c` of `x` only at in-bounds indices of its
    // `ip` values, and writes `n sn + (ch rs + j) sr + q` for `n < nb`, `ch < c`, `j < rs`,
    // `q < P`, whose largest value is below `nb c rs P` for both layouts the passes use
    // (`sn = c rs P, sr = P` and `sn = P, sr = nb P`).
    // A thread takes `pg` consecutive planes and touches none past the chunk's `nb c`.
    unsafe { NnKernel::Im2col.launch(lane, d, &params, span, (nb * g.c).div_ceil(pg)) }
}

/// An operand `(buffer, offset, order, ld, batch stride)`.
type Operand<'a> = (&'a DevBuf, usize, Order, usize, usize);

fn mat<'a>((buf, offset, order, ld, batch_stride): Operand<'a>) -> MatIn<'a> {
    MatIn {
        buf,
        offset,
        order,
        ld,
        batch_stride,
    }
}

/// One batch of products: `m x k` by `k x n`, operand and output positions by `(offset,
/// order, ld, batch stride)`.
#[allow(clippy::too_many_arguments)]
fn product(
    lane: &CudaLane<'_>,
    d: DType,
    (m, n, k, batch): (usize, usize, usize, usize),
    a: Operand<'_>,
    b: Operand<'_>,
    c: (&DevBuf, usize, usize, usize),
    accumulate: bool,
) -> Result<()> {
    StridedProduct {
        dtype: d,
        m,
        n,
        k,
        batch,
        a: mat(a),
        b: mat(b),
        d: mat((c.0, c.1, Order::RowMajor, c.2, c.3)),
        accumulate,
    }
    .run(lane)
}

/// The forward products of images `n0..n0 + nb` into `y`.
#[allow(clippy::too_many_arguments)]
fn forward_chunk(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    x: &In<'_>,
    w: &In<'_>,
    y: &DevBuf,
    n0: usize,
    nb: usize,
) -> Result<()> {
    let (p, rs, kg) = (g.p(), g.rs(), g.kg());
    let crs_g = g.cg() * rs;
    let img = g.c * rs * p;
    let held = if pointwise(g) {
        None
    } else {
        // SAFETY: `im2col` writes all `nb c rs P` elements before the products read them.
        Some(unsafe { scratch(lane, d, nb * img) }?)
    };
    let (cbuf, coff) = match &held {
        Some(col) => {
            im2col(lane, d, g, x, n0, nb, col, (img, p))?;
            (col, 0)
        }
        None => (x.buf, x.off + n0 * img),
    };
    let row = Order::RowMajor;
    if g.groups <= nb {
        for grp in 0..g.groups {
            product(
                lane,
                d,
                (kg, p, crs_g, nb),
                (w.buf, w.off + grp * kg * crs_g, row, crs_g, 0),
                (cbuf, coff + grp * crs_g * p, row, p, img),
                (y, (n0 * g.k + grp * kg) * p, p, g.k * p),
                false,
            )?;
        }
    } else {
        for n in 0..nb {
            product(
                lane,
                d,
                (kg, p, crs_g, g.groups),
                (w.buf, w.off, row, crs_g, kg * crs_g),
                (cbuf, coff + n * img, row, p, crs_g * p),
                (y, (n0 + n) * g.k * p, p, kg * p),
                false,
            )?;
        }
    }
    Ok(())
}

/// The input's gradient of images `n0..n0 + nb` into `dx`.
#[allow(clippy::too_many_arguments)]
fn input_chunk(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    dy: &In<'_>,
    w: &In<'_>,
    dx: &DevBuf,
    n0: usize,
    nb: usize,
) -> Result<()> {
    let (p, rs, kg) = (g.p(), g.rs(), g.kg());
    let crs_g = g.cg() * rs;
    let img = g.c * rs * p;
    // The lowered gradient: written whole by the products (every row of every image and group)
    // before `nn_col2im` reads it. A pointwise kernel's lowered gradient is `dx` itself.
    let held = if pointwise(g) {
        None
    } else {
        // SAFETY: the products below write all `nb c rs P` elements before the gather reads.
        Some(unsafe { scratch(lane, d, nb * img) }?)
    };
    let (cbuf, coff) = match &held {
        Some(col) => (col, 0),
        None => (dx, n0 * img),
    };
    let (row, colm) = (Order::RowMajor, Order::ColMajor);
    let dyo = dy.off + n0 * g.k * p;
    if g.groups <= nb {
        for grp in 0..g.groups {
            product(
                lane,
                d,
                (crs_g, p, kg, nb),
                (w.buf, w.off + grp * kg * crs_g, colm, crs_g, 0),
                (dy.buf, dyo + grp * kg * p, row, p, g.k * p),
                (cbuf, coff + grp * crs_g * p, p, img),
                false,
            )?;
        }
    } else {
        for n in 0..nb {
            product(
                lane,
                d,
                (crs_g, p, kg, g.groups),
                (w.buf, w.off, colm, crs_g, kg * crs_g),
                (dy.buf, dyo + n * g.k * p, row, p, kg * p),
                (cbuf, coff + n * img, p, crs_g * p),
                false,
            )?;
        }
    }
    let Some(col) = &held else {
        return Ok(());
    };
    let ip = g.ip();
    let span = ip.div_ceil(lane_width(d));
    let pg = planes_per_thread(span, nb * g.c);
    let i = |v: usize| v as i64;
    let params = Col2imArgs {
        col: ReadBuf::part(col, d, 0, nb * img)?,
        dx: WriteBuf::part(dx, d, n0 * g.c * ip, nb * g.c * ip)?,
        planes: count32("the planes of a chunk", nb * g.c)?,
        c: i(g.c),
        i0: i(g.i[0]),
        i1: i(g.i[1]),
        i2: i(g.i[2]),
        r0: i(g.r[0]),
        r1: i(g.r[1]),
        r2: i(g.r[2]),
        o0: i(g.o[0]),
        o1: i(g.o[1]),
        o2: i(g.o[2]),
        st0: i(g.stride[0]),
        st1: i(g.stride[1]),
        st2: i(g.stride[2]),
        pd0: i(g.pad[0]),
        pd1: i(g.pad[1]),
        pd2: i(g.pad[2]),
        dl0: i(g.dil[0]),
        dl1: i(g.dil[1]),
        dl2: i(g.dil[2]),
        sn: i(img),
        sr: i(p),
        pg: i(pg),
    };
    // SAFETY: `col` is a checked view of `nb c rs P` values and `dx` of the chunk's `nb c ip`;
    // the kernel reads `n img + (ch rs + j) P + q` with `q < P` (`nn_src` keeps each axis in
    // `[0, o)`), below `nb img`, and writes each of the chunk's `nb c ip` values once (a
    // thread takes `pg` consecutive planes and touches none past the chunk's `nb c`).
    unsafe { NnKernel::Col2im.launch(lane, d, &params, span, (nb * g.c).div_ceil(pg)) }
}

/// The weights' gradient of images `n0..n0 + nb`, added into `dw` after the first chunk.
#[allow(clippy::too_many_arguments)]
fn weight_chunk(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    x: &In<'_>,
    dy: &In<'_>,
    dw: &DevBuf,
    n0: usize,
    nb: usize,
) -> Result<()> {
    let (p, rs, kg) = (g.p(), g.rs(), g.kg());
    let crs_g = g.cg() * rs;
    let span = nb * p;
    // SAFETY: `im2col` writes all `c rs nb P` elements before the products read them.
    let col = unsafe { scratch(lane, d, g.c * rs * span) }?;
    im2col(lane, d, g, x, n0, nb, &col, (p, span))?;
    let dyo = dy.off + n0 * g.k * p;
    // One image's gradient is already `K x P`; more are exchanged into `K x nb P`.
    let held = if nb > 1 {
        // SAFETY: `nn_swap` writes all `K nb P` elements before the products read them.
        let t = unsafe { scratch(lane, d, g.k * span) }?;
        let i = |v: usize| v as i64;
        count32("the planes of a chunk's gradient", nb * g.k)?;
        let params = SwapArgs {
            src: dy.read(d, n0 * g.k * p, nb * g.k * p)?,
            dst: WriteBuf::part(&t, d, 0, g.k * span)?,
            a: i(nb),
            b: i(g.k),
            p: i(p),
        };
        // SAFETY: `src` is a checked view of `nb K P` values and `dst` of `K nb P`; the kernel
        // reads `src[pl P + q]` and writes `dst[(ib nb + ia) P + q]` for `ia < nb`, `ib < K`,
        // `q < P`, all inside.
        unsafe { NnKernel::Swap.launch(lane, d, &params, p.div_ceil(lane_width(d)), nb * g.k) }?;
        Some(t)
    } else {
        None
    };
    let (tbuf, toff) = match &held {
        Some(t) => (t, 0),
        None => (dy.buf, dyo),
    };
    product(
        lane,
        d,
        (kg, crs_g, span, g.groups),
        (tbuf, toff, Order::RowMajor, span, kg * span),
        (&col, 0, Order::ColMajor, span, crs_g * span),
        (dw, 0, crs_g, kg * crs_g),
        n0 > 0,
    )
}

/// The bias (when given) and the activation over the whole output, in place.
fn bias_act(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    bias: Option<ReadBuf<'_>>,
    relu: bool,
    y: &DevBuf,
) -> Result<()> {
    let (planes, p) = (g.n * g.k, g.p());
    let i = |v: usize| v as i64;
    let params = BiasActArgs {
        y: WriteBuf::part(y, d, 0, planes * p)?,
        bias,
        planes: i(planes),
        k: i(g.k),
        p: i(p),
        relu: i64::from(relu),
    };
    // SAFETY: `y` is a checked view of the `n K P` outputs and `bias` (when given) of `K`
    // values; the kernel reads and writes `y[pl P + q]` for `pl < n K`, `q < P`, and reads
    // `bias[pl % K]`.
    unsafe { NnKernel::BiasAct.launch(lane, d, &params, p, planes) }
}
