//! The fallback's forward pass of a `3 x 3` kernel at stride 1 by Winograd's minimal filtering
//! F(2 x 2, 3 x 3) (`winograd.cu`): the kernels transformed once (`nn_wino_filter`, `[16, K,
//! C]`), then a chunk of images at a time their input windows transformed (`nn_wino_input`,
//! `[16, C, tiles]`), 16 products by cuBLASLt (`[16, K, tiles]`, one strided batch) and the
//! inverse transform into the output (`nn_wino_output`). It does 16 multiplies a 2 x 2 tile and
//! channel where the lowering does 36, and moves the windows and products through memory where
//! the lowering moves three rows of patches.
//!
//! It takes two-dimensional problems of one group, `f32` and `f64` (the half types keep the
//! lowering, whose products accumulate in `f32` and round once), with the taps read forwards
//! or backwards along each axis (dilation 1 or -1: the input's gradient at stride 1 is the
//! forward pass of `dy` with reversed taps); [`set_conv_winograd`] turns it off.

use super::geom::ConvGeom;
use super::kernels::{NnKernel, WinoFilterArgs, WinoInputArgs, WinoOutputArgs};
use super::workspace::conv_workspace_bytes;
use crate::codegen::{ReadBuf, WriteBuf};
use crate::dtype::DType;
use crate::error::Result;
use crate::exec::CudaLane;
use crate::ops::linalg::{MatIn, StridedProduct};
use crate::shape::checked_numel;
use crate::storage::DevBuf;
use cuprite_driver::blaslt::Order;
use std::sync::atomic::{AtomicU8, Ordering};

/// Elements a transformed tile: F(2 x 2, 3 x 3) works on 4 x 4 windows.
const TILE_ELEMS: usize = 16;

/// [`set_conv_winograd`]'s choice: 0 not set (the environment decides), 1 off, 2 on.
static CHOICE: AtomicU8 = AtomicU8::new(0);

/// Runs the fallback's `f32` and `f64` convolutions of a `3 x 3` kernel at stride 1 (forward
/// and input gradient, one group, two spatial axes) by Winograd's F(2 x 2, 3 x 3) (`true`) or
/// by lowering the input into patches (`false`), for the whole process. Both compute the same
/// sums up to rounding: Winograd's differ from the direct sums by a few units in the last
/// place of the largest terms. Without a call, it is on unless `CUPRITE_ARRAY_CONV_WINOGRAD`
/// is `0`. cuDNN's passes, where cuDNN runs, are not affected.
///
/// ```
/// use cuprite_array::tuning;
/// let before = tuning::conv_winograd();
/// tuning::set_conv_winograd(false);
/// assert!(!tuning::conv_winograd());
/// tuning::set_conv_winograd(before);
/// ```
pub fn set_conv_winograd(on: bool) {
    CHOICE.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether the fallback runs `3 x 3` convolutions by Winograd's algorithm
/// ([`set_conv_winograd`]).
///
/// ```
/// let on = cuprite_array::tuning::conv_winograd();
/// assert_eq!(on, cuprite_array::tuning::conv_winograd());
/// ```
pub fn conv_winograd() -> bool {
    match CHOICE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => std::env::var("CUPRITE_ARRAY_CONV_WINOGRAD").map_or(true, |v| v.trim() != "0"),
    }
}

/// A forward pass Winograd's algorithm takes: `n` images of `c` channels of `h x w`, `k`
/// filters, outputs of `oh x ow` in `th x tw` tiles of 2 x 2, the first window of each axis
/// starting at `-p`, the kernel read reversed along the axes of `flip`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct WinoGeom {
    n: usize,
    c: usize,
    k: usize,
    h: usize,
    w: usize,
    oh: usize,
    ow: usize,
    th: usize,
    tw: usize,
    p: [i64; 2],
    flip: [bool; 2],
}

impl WinoGeom {
    /// The pass of `g` whose tap `j` of output `q` reads input `q - pad + j dil` along each
    /// axis, for elements of `d`, when Winograd's algorithm takes it: on
    /// ([`conv_winograd`]), `f32` or `f64`, one group, two spatial axes (the leading axis of
    /// one position, no padding), a `3 x 3` kernel, stride 1, dilation 1 or -1, and every
    /// buffer's size within `2^62` bytes. `None` otherwise (the lowering takes it).
    pub(super) fn of(d: DType, g: &ConvGeom, pad: [i64; 3], dil: [i64; 3]) -> Option<WinoGeom> {
        let fits = matches!(d, DType::F32 | DType::F64)
            && g.groups == 1
            && g.i[0] == 1
            && g.o[0] == 1
            && pad[0] == 0
            && g.r == [1, 3, 3]
            && g.stride == [1, 1, 1]
            && dil[1].abs() == 1
            && dil[2].abs() == 1
            && conv_winograd();
        if !fits {
            return None;
        }
        let (th, tw) = (g.o[1].div_ceil(2), g.o[2].div_ceil(2));
        // A reversed axis reads `q - pad - j`: the window of the reversed kernel starts two
        // positions earlier.
        let start = |a: usize| pad[a] + if dil[a] < 0 { 2 } else { 0 };
        let wg = WinoGeom {
            n: g.n,
            c: g.c,
            k: g.k,
            h: g.i[1],
            w: g.i[2],
            oh: g.o[1],
            ow: g.o[2],
            th,
            tw,
            p: [start(1), start(2)],
            flip: [dil[1] < 0, dil[2] < 0],
        };
        let below = |s: &[usize]| checked_numel(s).is_ok_and(|b| b < 1 << 62);
        let sizes_fit = below(&[TILE_ELEMS, wg.k, wg.c, d.size()])
            && below(&[TILE_ELEMS, wg.c.max(wg.k), wg.n, wg.per_image(), d.size()]);
        sizes_fit.then_some(wg)
    }

    /// Tiles of one image.
    fn per_image(&self) -> usize {
        self.th * self.tw
    }

    /// Images a chunk: as many as the workspace bound holds transformed windows and products
    /// of (`16 (C + K)` values a tile), at least one.
    fn chunk(&self, d: DType) -> usize {
        let per = TILE_ELEMS
            .saturating_mul(self.c + self.k)
            .saturating_mul(self.per_image())
            .saturating_mul(d.size());
        (conv_workspace_bytes() / per.max(1)).clamp(1, self.n.max(1))
    }
}

/// The weights of the pass: filter `f`, channel `ch`, tap `(a, b)` at element `off + f ld + ch
/// cs + 3 a + b` of `buf` (the view of their span is checked).
pub(super) struct WinoWeights<'a> {
    pub buf: &'a DevBuf,
    pub off: usize,
    pub ld: usize,
    pub cs: usize,
}

/// The forward pass of `wg` for elements of `d`: input `x` (its `n c h w` values from element
/// `x_off`), the weights `w`, output `y` (`n k oh ow` values from its start).
pub(super) fn forward(
    lane: &CudaLane<'_>,
    d: DType,
    wg: &WinoGeom,
    (x, x_off): (&DevBuf, usize),
    w: &WinoWeights<'_>,
    y: &DevBuf,
) -> Result<()> {
    let i = |v: usize| v as i64;
    let (c, k) = (wg.c, wg.k);
    if wg.n == 0 || c == 0 || k == 0 || wg.oh == 0 || wg.ow == 0 {
        return Ok(());
    }
    let ulen = TILE_ELEMS * k * c;
    // SAFETY: `nn_wino_filter` writes all `16 k c` elements before the products read them.
    let u = unsafe { DevBuf::alloc(lane.st, lane.stream, d, ulen) }?;
    // The farthest tap read, plus one: filter `k - 1`, channel `c - 1`, tap 8.
    let wlen = (k - 1)
        .checked_mul(w.ld)
        .and_then(|v| v.checked_add((c - 1).checked_mul(w.cs)?))
        .and_then(|v| v.checked_add(9))
        .ok_or_else(|| {
            crate::error::Error::InvalidArgument(format!(
                "Winograd's convolution: weights of {k} filters {} apart over {c} channels {} \
                 apart overflow",
                w.ld, w.cs
            ))
        })?;
    let params = WinoFilterArgs {
        w: ReadBuf::part(w.buf, d, w.off, wlen)?,
        u: WriteBuf::part(&u, d, 0, ulen)?,
        k: i(k),
        c: i(c),
        ld: i(w.ld),
        cs: i(w.cs),
        flip0: i64::from(wg.flip[0]),
        flip1: i64::from(wg.flip[1]),
    };
    // SAFETY: `w` is a checked view of `(k - 1) ld + (c - 1) cs + 9` weights, `u` of `16 k c`
    // elements; the kernel reads `f ld + ch cs + tap`, at most the view's last element, and
    // writes `e k c + f c + ch`, for `f < k`, `ch < c`, `tap < 9`, `e < 16`.
    unsafe { NnKernel::WinoFilter.launch(lane, d, &params, c, k) }?;
    let chunk = wg.chunk(d);
    let tmax = chunk * wg.per_image();
    // SAFETY: each chunk's `nn_wino_input` writes the first `16 c tiles` elements and the
    // product the first `16 k tiles` before anything reads them.
    let v = unsafe { DevBuf::alloc(lane.st, lane.stream, d, TILE_ELEMS * c * tmax) }?;
    // SAFETY: as for `v`.
    let m = unsafe { DevBuf::alloc(lane.st, lane.stream, d, TILE_ELEMS * k * tmax) }?;
    let (ip, op) = (wg.h * wg.w, wg.oh * wg.ow);
    for n0 in (0..wg.n).step_by(chunk) {
        let nb = chunk.min(wg.n - n0);
        let tiles = nb * wg.per_image();
        let params = WinoInputArgs {
            x: ReadBuf::part(x, d, x_off + n0 * c * ip, nb * c * ip)?,
            v: WriteBuf::part(&v, d, 0, TILE_ELEMS * c * tiles)?,
            c: i(c),
            h: i(wg.h),
            w: i(wg.w),
            th: i(wg.th),
            tw: i(wg.tw),
            tiles: i(tiles),
            p0: wg.p[0],
            p1: wg.p[1],
        };
        // SAFETY: `x` is a checked view of the chunk's `nb c h w` input values and `v` of `16 c
        // tiles` values; the kernel reads plane `n c + ch` (`n < nb`, `ch < c`) only at rows
        // and columns it has checked lie in `[0, h)` and `[0, w)`, and writes `e c tiles + ch
        // tiles + t` for `e < 16`, `ch < c`, `t < tiles`.
        unsafe { NnKernel::WinoInput.launch(lane, d, &params, tiles, c) }?;
        let mat = |buf, ld, batch_stride| MatIn {
            buf,
            offset: 0,
            order: Order::RowMajor,
            ld,
            batch_stride,
        };
        StridedProduct {
            dtype: d,
            m: k,
            n: tiles,
            k: c,
            batch: TILE_ELEMS,
            a: mat(&u, c, k * c),
            b: mat(&v, tiles, c * tiles),
            d: mat(&m, tiles, k * tiles),
            accumulate: false,
        }
        .run(lane)?;
        let params = WinoOutputArgs {
            m: ReadBuf::part(&m, d, 0, TILE_ELEMS * k * tiles)?,
            y: WriteBuf::part(y, d, n0 * k * op, nb * k * op)?,
            k: i(k),
            oh: i(wg.oh),
            ow: i(wg.ow),
            th: i(wg.th),
            tw: i(wg.tw),
            tiles: i(tiles),
        };
        // SAFETY: `m` is a checked view of `16 k tiles` values and `y` of the chunk's `nb k oh
        // ow` outputs; the kernel reads `e k tiles + f tiles + t` and writes plane `n k + f`
        // (`n < nb`, `f < k`) at rows `2 ty + a < oh` and columns `2 tx + b < ow` only, with
        // `ty < th = ceil(oh / 2)` and `tx < tw = ceil(ow / 2)`.
        unsafe { NnKernel::WinoOutput.launch(lane, d, &params, tiles, k) }?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(c: usize, k: usize, hw: usize, pad: usize) -> ConvGeom {
        ConvGeom {
            dims: 2,
            n: 2,
            c,
            k,
            groups: 1,
            i: [1, hw, hw],
            r: [1, 3, 3],
            o: [1, hw + 2 * pad - 2, hw + 2 * pad - 2],
            stride: [1, 1, 1],
            pad: [0, pad, pad],
            dil: [1, 1, 1],
        }
    }

    /// The problems Winograd's algorithm takes, and where its windows start.
    #[test]
    fn takes_unit_stride_3x3() {
        set_conv_winograd(true);
        let g = geom(4, 8, 9, 1);
        let wg = WinoGeom::of(DType::F32, &g, [0, 1, 1], [1, 1, 1]).expect("3x3");
        assert_eq!(
            (wg.th, wg.tw, wg.p, wg.flip),
            (5, 5, [1, 1], [false, false])
        );
        // The input's gradient: `dy` read with padding `-p` and reversed taps.
        let wg = WinoGeom::of(DType::F64, &g, [0, -1, -1], [1, -1, -1]).expect("reversed");
        assert_eq!((wg.p, wg.flip), ([1, 1], [true, true]));
        assert!(WinoGeom::of(DType::F16, &g, [0, 1, 1], [1, 1, 1]).is_none());
        let mut s = g;
        s.stride = [1, 2, 2];
        assert!(WinoGeom::of(DType::F32, &s, [0, 1, 1], [1, 1, 1]).is_none());
        assert!(WinoGeom::of(DType::F32, &g, [0, 1, 1], [1, 2, 1]).is_none());
        let mut s = g;
        s.groups = 2;
        assert!(WinoGeom::of(DType::F32, &s, [0, 1, 1], [1, 1, 1]).is_none());
        let mut s = g;
        s.r = [1, 5, 5];
        assert!(WinoGeom::of(DType::F32, &s, [0, 2, 2], [1, 1, 1]).is_none());
    }
}
