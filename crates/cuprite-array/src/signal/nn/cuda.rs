//! The convolution's passes on CUDA by lowering: each image's patches laid out as a matrix
//! (`nn_im2col`), multiplied by cuBLASLt (strided-batched, `f16`/`bf16` accumulating in `f32`,
//! `f32` in full precision unless TF32 is allowed), and for the input's gradient the products
//! gathered back onto the input (`nn_col2im`). Images go in chunks whose patches fit
//! [`conv_workspace_bytes`] (at least one image a chunk).
//!
//! - forward: `y[n, g] = w[g] · col[n, g]` (`Kg x CgRS` by `CgRS x P`), then the bias and
//!   activation in place (`nn_bias_act`); a pointwise kernel (`1 x 1`, stride 1, no padding)
//!   reads `x` as its own patches.
//! - input gradient, stride 1 (every axis): the forward pass of the transposed problem. With
//!   stride 1, `dx[n, c, e] = sum_{k in group(c), j} w[k, c, j] dy[n, k, e + p - j d]` (`dy`
//!   zero outside its extent), a convolution of `dy` whose tap `j` reads `dy` at `e - (-p) +
//!   j (-d)`: `dy` lowered with padding `-p` and dilation `-d` (taps in the weights' order, so
//!   the weights need no flip; a negative padding crops), and one product a group by the
//!   weights with their channel axes exchanged (`nn_swap`: `[C / groups, K, kernel]`, read as
//!   each group's `C / groups x (K / groups) rs` block).
//! - input gradient, a stride above 1 or a pointwise kernel: `dcol[n, g] = w[g]ᵀ · dy[n, g]`,
//!   then `nn_col2im` sums each input's taps.
//! - weight gradient: the chunk's patches laid side by side (`C rs x nb P`) and `dy` with its
//!   first two axes exchanged (`nn_swap`: `K x nb P`), so that `dw[g] = dy[g] · col[g]ᵀ` is one
//!   product a group over the whole chunk, added onto the previous chunks' sum. `f16`/`bf16`
//!   with one group split the lowering along the first spatial axis where that moves fewer
//!   bytes (`weight_split`): one batched product a tap of that axis into `f32` partial sums per
//!   image, which `nn_tap_sum` adds up in order and rounds into `dw` once.
//!
//! The forward lowering (of `x`, or of `dy` for the input's gradient) of `f32` and `f64` at
//! stride 1 along the first spatial axis is split along it (`Lowering`): the patches of the
//! other axes' taps only, over that axis's output extent plus the dilated kernel's, and one
//! product a tap of that axis reading them shifted, added into the output: a third of the
//! patches of a `3 x 3` kernel. The half types lower the whole kernel (their output is
//! rounded once).
//!
//! A batch of products runs over the images (one call a group) or over the groups (one call
//! an image), whichever makes fewer calls.
//!
//! A forward pass (and so an input's gradient at stride 1) of a `3 x 3` kernel of one group in
//! `f32` or `f64` runs Winograd's algorithm instead of the lowering (`winograd.rs`).

use super::geom::ConvGeom;
use super::kernels::{
    BiasActArgs, Col2imArgs, Im2colArgs, NnKernel, SwapArgs, TapSumArgs, count32, lane_width,
    planes_per_thread,
};
use super::winograd::{self, WinoGeom, WinoWeights};
use super::workspace::conv_workspace_bytes;
use crate::codegen::{ReadBuf, WriteBuf};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::CallInput;
use crate::ops::linalg::{MatIn, StridedProduct};
use crate::shape::checked_numel;
use crate::storage::DevBuf;
use cuprite_driver::blaslt::Order;

/// Where the lowering's taps read, per axis: tap `j` of output position `q` reads input `q s -
/// pad + j dil`, zero outside the input. The forward pass and the weights' gradient read with
/// the geometry's padding and dilation; the input's gradient at stride 1 reads `dy` with both
/// negated.
#[derive(Clone, Copy, Debug)]
struct Taps {
    pad: [i64; 3],
    dil: [i64; 3],
}

impl Taps {
    /// The taps of `g` itself (its padding and dilation are at most `2^31 - 1`, `geom.rs`).
    fn of(g: &ConvGeom) -> Taps {
        Taps {
            pad: g.pad.map(|v| v as i64),
            dil: g.dil.map(|v| v as i64),
        }
    }
}

/// The weights of a forward product: group `grp`'s `Kg x Cg rs` matrix row-major at `off + grp
/// group`, rows `ld` apart.
struct Weights<'a> {
    buf: &'a DevBuf,
    off: usize,
    ld: usize,
    group: usize,
}

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
    let (x, w) = (In::of(&inputs[0]), In::of(&inputs[1]));
    let crs_g = g.cg() * g.rs();
    let w = Weights {
        buf: w.buf,
        off: w.off,
        ld: crs_g,
        group: g.kg() * crs_g,
    };
    lowered_forward(lane, d, g, Taps::of(g), &x, &w, out)?;
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
    let (dy, w) = (In::of(&inputs[0]), In::of(&inputs[1]));
    if let Some(t) = transposed(d, g) {
        return input_by_forward(lane, d, g, &t, &dy, &w, out);
    }
    let chunk = chunk(d, g)?;
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
    let (x, dy) = (In::of(&inputs[0]), In::of(&inputs[1]));
    if weight_split(lane, d, g, &x, &dy, out)? {
        return Ok(());
    }
    let chunk = chunk(d, g)?;
    for n0 in (0..g.n).step_by(chunk) {
        weight_chunk(lane, d, g, &x, &dy, out, n0, chunk.min(g.n - n0))?;
    }
    Ok(())
}

/// Whether the patches of an image are the image itself.
fn pointwise(g: &ConvGeom) -> bool {
    reads_in_place(g, Taps::of(g))
}

/// Whether the patches of an image of `g` read by `taps` are the image itself: one tap, stride
/// 1, no leading padding and an output of the input's extent on every axis (trailing padding
/// lengthens the output past the input).
fn reads_in_place(g: &ConvGeom, taps: Taps) -> bool {
    g.r == [1, 1, 1] && g.stride == [1, 1, 1] && taps.pad == [0, 0, 0] && g.o == g.i
}

/// The sizes of the input's gradient of `g` as a forward pass, when it takes that route: stride
/// 1 on every axis and not pointwise (a pointwise kernel's gradient is already one product).
/// Its input is `dy` (`K` channels of `g.o`), its filters `C` of `K / groups` channels, its
/// output `g.i`, read with [`Taps`] `-g.pad`, `-g.dil` (its own `pad` and `dil` fields unused).
/// `None` where a size of the route leaves the ranges of the lowering: one image's patches
/// (`K rs` rows of `g.i` positions, in bytes) overflow, or the farthest index a tap computes,
/// `(i - 1) + p`, exceeds `2^31 - 1` (`lower.cu` indexes a plane in 32 bits); the gather
/// takes those.
fn transposed(d: DType, g: &ConvGeom) -> Option<ConvGeom> {
    if g.stride != [1, 1, 1] || pointwise(g) {
        return None;
    }
    let reach = (0..3).all(|a| {
        (g.i[a] - 1)
            .checked_add(g.pad[a])
            .is_some_and(|v| v <= i32::MAX as usize)
    });
    let t = ConvGeom {
        dims: g.dims,
        n: g.n,
        c: g.k,
        k: g.c,
        groups: g.groups,
        i: g.o,
        r: g.r,
        o: g.i,
        stride: [1, 1, 1],
        pad: [0, 0, 0],
        dil: g.dil,
    };
    let fits = checked_numel(&[t.c, t.rs(), t.p(), d.size()]).is_ok();
    (reach && fits).then_some(t)
}

/// The input's gradient of `g` (stride 1) as the forward pass of `t` ([`transposed`]): the
/// weights with their channel axes exchanged, then `dy` lowered and multiplied a chunk of
/// images at a time.
fn input_by_forward(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    t: &ConvGeom,
    dy: &In<'_>,
    w: &In<'_>,
    dx: &DevBuf,
) -> Result<()> {
    let (kg, cg, rs) = (g.kg(), g.cg(), g.rs());
    let taps = Taps {
        pad: g.pad.map(|v| -(v as i64)),
        dil: g.dil.map(|v| -(v as i64)),
    };
    if let Some(wg) = WinoGeom::of(d, t, taps.pad, taps.dil) {
        // Filter `ch` of `t` over channel `kk` is `w[kk, ch]`: read in place, no exchange.
        let w = WinoWeights {
            buf: w.buf,
            off: w.off,
            ld: rs,
            cs: cg * rs,
        };
        return winograd::forward(lane, d, &wg, (dy.buf, dy.off), &w, dx);
    }
    let len = g.k * cg * rs;
    // `[K, Cg, rs]` to `[Cg, K, rs]`, which is the same layout when either axis is 1.
    let held = if g.k > 1 && cg > 1 {
        // SAFETY: `nn_swap` writes all `K Cg rs` elements before the products read them.
        let s = unsafe { scratch(lane, d, len) }?;
        count32("the planes of the weights", g.k * cg)?;
        let i = |v: usize| v as i64;
        let params = SwapArgs {
            src: w.read(d, 0, len)?,
            dst: WriteBuf::part(&s, d, 0, len)?,
            a: i(g.k),
            b: i(cg),
            p: i(rs),
        };
        // SAFETY: `src` is a checked view of the `K Cg rs` weights and `dst` of `Cg K rs`
        // values; the kernel reads `src[pl rs + q]` and writes `dst[(ib K + ia) rs + q]` for
        // `ia < K`, `ib < Cg`, `q < rs`, all inside.
        unsafe { NnKernel::Swap.launch(lane, d, &params, rs.div_ceil(lane_width(d)), g.k * cg) }?;
        Some(s)
    } else {
        None
    };
    // Group `grp`'s filters of `t`: rows `ch < Cg` of `[Cg, K, rs]`, columns `(kk, j)` of its
    // `Kg` channels from `grp Kg rs`.
    let wt = match &held {
        Some(s) => (s, 0),
        None => (w.buf, w.off),
    };
    let wt = Weights {
        buf: wt.0,
        off: wt.1,
        ld: g.k * rs,
        group: kg * rs,
    };
    lowered_forward(lane, d, t, taps, dy, &wt, dx)
}

/// How a forward pass lowers its input. Whole: every tap of the kernel a row of patches
/// (`lg` is the geometry itself). Split (`f32` and `f64` at stride 1 along the first spatial
/// axis `a`, a kernel of `parts > 1` taps along it): the patches of the other taps only, over
/// `o_a + (parts - 1) |dil_a|` positions along `a` (`lg`: one tap and that extent along `a`,
/// read by `taps` with the padding moved so that position `u` holds what tap `j` of output `q`
/// reads where `u = q + j dil_a - min(0, (parts - 1) dil_a)`); tap `j`'s product reads them
/// from position `shift(j)` on, and the `parts` products add up in the output's type (which
/// is why the half types, rounded once, stay whole).
struct Lowering {
    lg: ConvGeom,
    taps: Taps,
    parts: usize,
    /// `dil_a` times the positions after one along `a`, and `-min(0, (parts - 1) dil_a)` times
    /// the same.
    step: i64,
    base: i64,
}

impl Lowering {
    /// The first lowered position tap `j` of the split axis reads from.
    fn shift(&self, j: usize) -> usize {
        // `0 <= base + j step <= (parts - 1) |dil_a| inner`, below `lg.p()` (see `plan`).
        (self.base + j as i64 * self.step) as usize
    }
}

/// The lowering of `g` read by `taps` ([`Lowering`]) for a forward pass: split for `f32` and
/// `f64` where [`split`] applies, whole otherwise.
fn plan(d: DType, g: &ConvGeom, taps: Taps) -> Lowering {
    let split = if matches!(d, DType::F32 | DType::F64) {
        split(d, g, taps)
    } else {
        None
    };
    split.unwrap_or(Lowering {
        lg: *g,
        taps,
        parts: 1,
        step: 0,
        base: 0,
    })
}

/// The split lowering of `g` read by `taps` ([`Lowering`]) for elements of `d`: `None` unless
/// the first spatial axis has stride 1 and a kernel of at least two taps, and the lowered
/// sizes stay in the lowering's ranges.
fn split(d: DType, g: &ConvGeom, taps: Taps) -> Option<Lowering> {
    let a = 3 - g.dims;
    let r = g.r[a];
    if r < 2 || g.stride[a] != 1 {
        return None;
    }
    // The dilated kernel's extent `(r - 1) |dil|` is below `2^31` (`geom.rs`), as is `|pad|`.
    let dl = taps.dil[a];
    let span = (r as i64 - 1) * dl;
    let m = span.min(0);
    let ext = g.o[a].checked_add(span.unsigned_abs() as usize)?;
    let inner: usize = g.o[a + 1..].iter().product();
    let mut lg = *g;
    lg.r[a] = 1;
    lg.o[a] = ext;
    let fits = checked_numel(&[lg.c, lg.rs(), lg.p(), d.size()]).is_ok();
    // `nn_im2col` indexes a plane of positions in 32 bits; the indices a tap computes stay
    // those of the whole lowering (`u - pad + m` over `u < ext` is `q - pad + j dil`).
    if !fits || lg.p() > i32::MAX as usize {
        return None;
    }
    let mut lt = taps;
    lt.pad[a] = taps.pad[a] - m;
    Some(Lowering {
        lg,
        taps: lt,
        parts: r,
        step: dl * inner as i64,
        base: -m * inner as i64,
    })
}

/// The forward pass of `g` with `x` lowered by `taps` and the weights `w` (their `K Cg rs`
/// values from `w.off`) into `y`, a chunk of images at a time; by Winograd's algorithm
/// (`winograd.rs`) where that takes the problem.
fn lowered_forward(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    taps: Taps,
    x: &In<'_>,
    w: &Weights<'_>,
    y: &DevBuf,
) -> Result<()> {
    if let Some(wg) = WinoGeom::of(d, g, taps.pad, taps.dil) {
        let w = WinoWeights {
            buf: w.buf,
            off: w.off,
            ld: w.ld,
            cs: 9,
        };
        return winograd::forward(lane, d, &wg, (x.buf, x.off), &w, y);
    }
    let low = plan(d, g, taps);
    let len = g.k * g.cg() * g.rs();
    let (pairs, rl) = (len / g.rs(), g.rs() / low.parts);
    // The weights of the split axis's taps one after another: `[pairs, parts, rl]` to
    // `[parts, pairs, rl]` (the same layout with one pair). Every `(filter, channel)` pair's
    // `rs` taps lie together in `w` (its `ld` and group stride are multiples of `rs`), so tap
    // `j`'s matrix has rows `ld / parts` and groups `group / parts` apart.
    let held = if low.parts > 1 && pairs > 1 {
        // SAFETY: `nn_swap` writes all `len` elements before the products read them.
        let s = unsafe { scratch(lane, d, len) }?;
        count32("the planes of the weights", pairs * low.parts)?;
        let i = |v: usize| v as i64;
        let params = SwapArgs {
            src: ReadBuf::part(w.buf, d, w.off, len)?,
            dst: WriteBuf::part(&s, d, 0, len)?,
            a: i(pairs),
            b: i(low.parts),
            p: i(rl),
        };
        // SAFETY: `src` is a checked view of the `pairs parts rl` weights and `dst` of as
        // many values; the kernel reads `src[pl rl + q]` and writes `dst[(ib pairs + ia) rl +
        // q]` for `ia < pairs`, `ib < parts`, `q < rl`, all inside.
        unsafe {
            NnKernel::Swap.launch(
                lane,
                d,
                &params,
                rl.div_ceil(lane_width(d)),
                pairs * low.parts,
            )
        }?;
        Some(s)
    } else {
        None
    };
    let (buf, off) = match &held {
        Some(s) => (s, 0),
        None => (w.buf, w.off),
    };
    let ws: Vec<Weights<'_>> = (0..low.parts)
        .map(|j| Weights {
            buf,
            off: off + j * (len / low.parts),
            ld: w.ld / low.parts,
            group: w.group / low.parts,
        })
        .collect();
    let chunk = chunk(d, &low.lg)?;
    for n0 in (0..g.n).step_by(chunk) {
        forward_chunk(lane, d, g, &low, x, &ws, y, n0, chunk.min(g.n - n0))?;
    }
    Ok(())
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
/// `ch rs + j` at `n sn + (ch rs + j) sr`, tap `j` reading where `taps` says.
#[allow(clippy::too_many_arguments)]
fn im2col(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    taps: Taps,
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
        pd0: taps.pad[0],
        pd1: taps.pad[1],
        pd2: taps.pad[2],
        dl0: taps.dil[0],
        dl1: taps.dil[1],
        dl2: taps.dil[2],
        sn: i(sn),
        sr: i(sr),
        pg: i(pg),
    };
    // SAFETY: `x` is a checked view of the chunk's `nb c ip` input values and `col` of `nb c rs
    // P` values; the kernel reads plane `pl < nb c` of `x` only at indices it has checked lie
    // in `[0, i)` on every axis (whatever the signs of `taps`), and writes `n sn + (ch rs + j) sr + q` for `n < nb`, `ch < c`, `j < rs`,
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

/// The forward products of images `n0..n0 + nb` of `x` (lowered as `low` says) with the
/// weights of each part (`w[j]`, one a tap of the split axis) into `y`.
#[allow(clippy::too_many_arguments)]
fn forward_chunk(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    low: &Lowering,
    x: &In<'_>,
    w: &[Weights<'_>],
    y: &DevBuf,
    n0: usize,
    nb: usize,
) -> Result<()> {
    let (p, kg) = (g.p(), g.kg());
    let lg = &low.lg;
    // The lowered rows of a group, positions a row (`P` when whole), values an image.
    let (crs_g, pl) = (lg.cg() * lg.rs(), lg.p());
    let img = lg.c * lg.rs() * pl;
    let held = if low.parts == 1 && reads_in_place(lg, low.taps) {
        None
    } else {
        // SAFETY: `im2col` writes all `nb c rs P` elements (of `lg`) before the products read
        // them.
        Some(unsafe { scratch(lane, d, nb * img) }?)
    };
    let (cbuf, coff) = match &held {
        Some(col) => {
            im2col(lane, d, lg, low.taps, x, n0, nb, col, (img, pl))?;
            (col, 0)
        }
        None => (x.buf, x.off + n0 * img),
    };
    let row = Order::RowMajor;
    for (j, w) in w.iter().enumerate() {
        // Tap `j`'s patches: `P` positions of each lowered row from `shift(j)` on.
        let at = coff + low.shift(j);
        if g.groups <= nb {
            for grp in 0..g.groups {
                product(
                    lane,
                    d,
                    (kg, p, crs_g, nb),
                    (w.buf, w.off + grp * w.group, row, w.ld, 0),
                    (cbuf, at + grp * crs_g * pl, row, pl, img),
                    (y, (n0 * g.k + grp * kg) * p, p, g.k * p),
                    j > 0,
                )?;
            }
        } else {
            for n in 0..nb {
                product(
                    lane,
                    d,
                    (kg, p, crs_g, g.groups),
                    (w.buf, w.off, row, w.ld, w.group),
                    (cbuf, at + n * img, row, pl, crs_g * pl),
                    (y, (n0 + n) * g.k * p, p, kg * p),
                    j > 0,
                )?;
            }
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

/// How [`weight_split`] lowers a problem: the split lowering, the rows of an image's lowering
/// (`crs`: channel and the other axes' taps), its values (`img`) and an image's partial sums
/// (`e = parts K crs`).
struct WeightSplit {
    low: Lowering,
    crs: usize,
    img: usize,
    e: usize,
}

/// The split route of the weights' gradient of `g` in `d` ([`weight_split`]): `f16`/`bf16`,
/// one group, [`split`] applies, and an image moves fewer bytes than by the whole lowering.
/// Per image, the whole lowering writes and reads its patches (`2 C rs P` values), exchanges
/// `dy` and reads it (`3 K P`); the split writes its lowering and reads it once a tap
/// (`(parts + 1) crs P'`), reads `dy` once a tap (`parts K P`) and writes and reads its `f32`
/// partial sums (`8 e` bytes), which outweigh the patches saved where many filters meet a
/// small output.
fn weight_split_plan(d: DType, g: &ConvGeom) -> Option<WeightSplit> {
    if !matches!(d, DType::F16 | DType::BF16) || g.groups != 1 {
        return None;
    }
    let low = split(d, g, Taps::of(g))?;
    let (p, pl, s, parts) = (g.p(), low.lg.p(), d.size(), low.parts);
    let crs = low.lg.c.checked_mul(low.lg.rs())?;
    let img = crs.checked_mul(pl)?;
    let e = checked_numel(&[parts, g.k, crs]).ok()?;
    let whole = checked_numel(&[2, g.c, g.rs(), p, s])
        .ok()?
        .checked_add(checked_numel(&[3, g.k, p, s]).ok()?)?;
    let split = checked_numel(&[img, s, parts + 1])
        .ok()?
        .checked_add(checked_numel(&[parts, g.k, p, s]).ok()?)?
        .checked_add(checked_numel(&[8, e]).ok()?)?;
    (split < whole).then_some(WeightSplit { low, crs, img, e })
}

/// The weights' gradient of `f16`/`bf16` with one group by the split lowering ([`Lowering`],
/// [`split`]): per chunk of images, the input lowered for the other axes' taps only (a third
/// of the patches of a `3 x 3` kernel), one batched product per tap `j` of the split axis
/// (`dy[n] · L[n]ᵀ` with `L[n]` read from `shift(j)` on, an `f32` partial sum per image and
/// tap), and `nn_tap_sum` adding the images' partial sums in order onto the previous chunks'
/// (kept in `f32`) and writing `dw` once, rounded from `f32`. `Ok(false)` (nothing enqueued)
/// where [`weight_split_plan`] declines.
fn weight_split(
    lane: &CudaLane<'_>,
    d: DType,
    g: &ConvGeom,
    x: &In<'_>,
    dy: &In<'_>,
    dw: &DevBuf,
) -> Result<bool> {
    let Some(WeightSplit { low, crs, img, e }) = weight_split_plan(d, g) else {
        return Ok(false);
    };
    let lg = &low.lg;
    let (p, pl, k, parts) = (g.p(), lg.p(), g.k, low.parts);
    let nbc = chunk(d, lg)?;
    let rest = lg.rs();
    let i = |v: usize| v as i64;
    // SAFETY: `nn_tap_sum` writes all `e` sums of every chunk but the last before a later
    // chunk reads them; the first chunk does not read them.
    let acc = unsafe { scratch(lane, DType::F32, e) }?;
    for n0 in (0..g.n).step_by(nbc) {
        let nb = nbc.min(g.n - n0);
        // SAFETY: `im2col` writes all `nb c rs P` elements (of `lg`) before the products read
        // them.
        let col = unsafe { scratch(lane, d, nb * img) }?;
        im2col(lane, d, lg, low.taps, x, n0, nb, &col, (img, pl))?;
        // SAFETY: the products write all `nb e` partial sums (every tap, filter and row of
        // every image) before `nn_tap_sum` reads them.
        let part = unsafe { scratch(lane, DType::F32, nb * e) }?;
        for j in 0..parts {
            StridedProduct {
                dtype: d,
                m: k,
                n: crs,
                k: p,
                batch: nb,
                a: mat((dy.buf, dy.off + n0 * k * p, Order::RowMajor, p, k * p)),
                b: mat((&col, low.shift(j), Order::ColMajor, pl, img)),
                d: mat((&part, j * k * crs, Order::RowMajor, crs, e)),
                accumulate: false,
            }
            .run_wide(lane)?;
        }
        let params = TapSumArgs {
            part: ReadBuf::part(&part, DType::F32, 0, nb * e)?,
            acc: WriteBuf::part(&acc, DType::F32, 0, e)?,
            dw: WriteBuf::part(dw, d, 0, e)?,
            nb: i(nb),
            k: i(k),
            c: i(g.c),
            rest: i(rest),
            parts: i(parts),
            first: i64::from(n0 == 0),
            last: i64::from(n0 + nb == g.n),
        };
        // SAFETY: `part` is a checked view of the chunk's `nb e` partial sums, `acc` of `e`
        // and `dw` of the gradient's `K C rs = parts K crs` values (one group); the kernel
        // reads `part[n e + v]` and `acc[v]` and writes `acc[v]` or `dw[((kk C + ch) parts +
        // j) rest + t]` for `n < nb`, `v = (j K + kk) crs + ch rest + t < e`, all inside.
        unsafe { NnKernel::TapSum.launch(lane, d, &params, crs, parts * k) }?;
    }
    Ok(true)
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
    im2col(lane, d, g, Taps::of(g), x, n0, nb, &col, (p, span))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::Padding;

    fn geom2(
        x: [usize; 4],
        w: [usize; 4],
        stride: [usize; 2],
        pad: [(usize, usize); 2],
        dil: [usize; 2],
        groups: usize,
    ) -> ConvGeom {
        ConvGeom::new("test", &x, &w, stride, Padding::Sides(pad), dil, groups)
            .expect("a valid geometry")
    }

    /// Stride 1 takes the forward route with the transposed sizes; a stride above 1 on any
    /// axis and a pointwise kernel keep the gather.
    #[test]
    fn input_gradient_routes() {
        let g = geom2(
            [2, 6, 9, 8],
            [4, 3, 3, 2],
            [1, 1],
            [(1, 2), (3, 0)],
            [2, 1],
            2,
        );
        let t = transposed(DType::F32, &g).expect("stride 1 takes the forward route");
        // `dy` (`K = 4` channels of the output, `(9 + 3 - 5 + 1) x (8 + 3 - 2 + 1)`) in, the
        // input's `C = 6` channels of `9 x 8` out, the same groups and kernel.
        assert_eq!((t.n, t.c, t.k, t.groups), (2, 4, 6, 2));
        assert_eq!(t.i, [1, 8, 10]);
        assert_eq!(t.o, [1, 9, 8]);
        assert_eq!(t.r, g.r);
        assert_eq!((t.cg(), t.kg()), (2, 3));
        let strided = geom2(
            [2, 6, 9, 8],
            [4, 6, 3, 2],
            [1, 2],
            [(1, 1), (1, 1)],
            [1, 1],
            1,
        );
        assert!(transposed(DType::F32, &strided).is_none());
        let point = geom2(
            [2, 6, 9, 8],
            [4, 6, 1, 1],
            [1, 1],
            [(0, 0), (0, 0)],
            [1, 1],
            1,
        );
        assert!(transposed(DType::F32, &point).is_none());
        // A single tap with padding crops: not read in place.
        let padded = geom2(
            [2, 6, 9, 8],
            [4, 6, 1, 1],
            [1, 1],
            [(2, 0), (0, 1)],
            [1, 1],
            1,
        );
        let t = transposed(DType::BF16, &padded).expect("padding makes it a lowering");
        // Trailing padding only: the output is longer than the input, so it is lowered too.
        let trailing = geom2(
            [2, 6, 9, 8],
            [4, 6, 1, 1],
            [1, 1],
            [(0, 2), (0, 0)],
            [1, 1],
            1,
        );
        assert_eq!(trailing.o, [1, 11, 8]);
        assert!(!pointwise(&trailing));
        assert!(pointwise(&point));
        let taps = Taps {
            pad: padded.pad.map(|v| -(v as i64)),
            dil: padded.dil.map(|v| -(v as i64)),
        };
        assert!(!reads_in_place(&t, taps));
        assert_eq!(t.o, [1, 9, 8]);
    }

    /// `f32` and `f64` split a kernel along its first spatial axis at stride 1; tap `j` reads
    /// the patches from `(j dil - min(0, (r - 1) dil))` rows of positions on.
    #[test]
    fn lowering_splits() {
        let g = geom2(
            [2, 3, 7, 6],
            [4, 3, 3, 2],
            [1, 2],
            [(1, 1), (0, 0)],
            [2, 1],
            1,
        );
        // Output `(7 + 2 - 4) x ((6 - 2) / 2 + 1)` = `5 x 3`.
        assert_eq!(g.o, [1, 5, 3]);
        let low = plan(DType::F32, &g, Taps::of(&g));
        assert_eq!(low.parts, 3);
        assert_eq!(low.lg.o, [1, 9, 3]);
        assert_eq!(low.lg.r, [1, 1, 2]);
        assert_eq!(low.taps.pad, [0, 1, 0]);
        assert_eq!((0..3).map(|j| low.shift(j)).collect::<Vec<_>>(), [0, 6, 12]);
        // The input's gradient reads `dy` with the taps negated: the last tap from the start.
        let neg = Taps {
            pad: [0, -1, 0],
            dil: [-1, -2, -1],
        };
        let low = plan(DType::F64, &g, neg);
        assert_eq!(low.taps.pad, [0, 3, 0]);
        assert_eq!((0..3).map(|j| low.shift(j)).collect::<Vec<_>>(), [12, 6, 0]);
        // The half types stay whole (one rounding of the sum), as does a stride along the
        // axis.
        assert_eq!(plan(DType::BF16, &g, Taps::of(&g)).parts, 1);
        let s = geom2(
            [2, 3, 7, 6],
            [4, 3, 3, 2],
            [2, 1],
            [(1, 1), (0, 0)],
            [1, 1],
            1,
        );
        let low = plan(DType::F32, &s, Taps::of(&s));
        assert_eq!((low.parts, low.lg.o), (1, s.o));
    }

    /// The split weight gradient takes half types with one group where it moves fewer bytes:
    /// the benchmark's layer and the GPU test's shapes, not many filters over a small output,
    /// groups, a strided first axis or `f32`.
    #[test]
    fn weight_split_routes() {
        let same = |x: [usize; 4], w: [usize; 4], dil: [usize; 2], groups: usize| {
            let pad = [
                ((w[2] - 1) * dil[0] / 2, (w[2] - 1) * dil[0] / 2),
                ((w[3] - 1) * dil[1] / 2, (w[3] - 1) * dil[1] / 2),
            ];
            geom2(x, w, [1, 1], pad, dil, groups)
        };
        let layer = same([64, 64, 56, 56], [64, 64, 3, 3], [1, 1], 1);
        let ws = weight_split_plan(DType::BF16, &layer).expect("the layer splits");
        // `C r1 = 64 x 3` rows of `(56 + 2) x 56` positions; `3 x 64 x 192` partial sums.
        assert_eq!(
            (ws.low.parts, ws.crs, ws.img, ws.e),
            (3, 192, 192 * 58 * 56, 3 * 64 * 192)
        );
        assert!(weight_split_plan(DType::F16, &layer).is_some());
        assert!(weight_split_plan(DType::F32, &layer).is_none());
        let test = same([2, 8, 20, 20], [4, 8, 3, 3], [1, 1], 1);
        assert!(weight_split_plan(DType::BF16, &test).is_some());
        let dilated = geom2(
            [3, 6, 19, 17],
            [5, 6, 3, 2],
            [1, 1],
            [(2, 2), (0, 1)],
            [2, 1],
            1,
        );
        assert!(weight_split_plan(DType::F16, &dilated).is_some());
        let line = ConvGeom::new(
            "test",
            &[2, 6, 300],
            &[4, 6, 5],
            [1],
            Padding::Sides([(2, 2)]),
            [1],
            1,
        )
        .expect("a valid geometry");
        assert!(weight_split_plan(DType::BF16, &line).is_some());
        let cube = ConvGeom::new(
            "test",
            &[2, 4, 6, 10, 10],
            &[3, 4, 3, 3, 3],
            [1, 1, 1],
            Padding::Sides([(1, 1); 3]),
            [1, 1, 1],
            1,
        )
        .expect("a valid geometry");
        assert!(weight_split_plan(DType::BF16, &cube).is_some());
        // Many filters over a 7 x 7 output: the partial sums outweigh the patches.
        let late = same([8, 512, 7, 7], [512, 512, 3, 3], [1, 1], 1);
        assert!(weight_split_plan(DType::BF16, &late).is_none());
        assert!(
            weight_split_plan(DType::BF16, &same([2, 8, 20, 20], [4, 4, 3, 3], [1, 1], 2))
                .is_none()
        );
        let strided = geom2(
            [2, 8, 20, 20],
            [4, 8, 3, 3],
            [2, 1],
            [(1, 1), (1, 1)],
            [1, 1],
            1,
        );
        assert!(weight_split_plan(DType::BF16, &strided).is_none());
    }
}
