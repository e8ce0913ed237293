//! The per-pixel kernels of the vision family as one library call: template matching
//! (`vision_match.cu`), FAST scores (`vision_fast.cu`) and SUSAN responses (`vision_susan.cu`),
//! each with its CPU twin on rayon computing the same sums in the same order, in the precision
//! of the data (`f32`, `f64`).

use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block.
const THREADS: usize = 256;

/// The Bresenham circle of radius 3 as `(dx, dy)`, in order round the circle from the top,
/// clockwise (FAST's 16 test pixels). The kernels get it through their typed header.
pub(crate) const CIRCLE: [(i64, i64); 16] = [
    (0, -3),
    (1, -3),
    (2, -2),
    (3, -1),
    (3, 0),
    (3, 1),
    (2, 2),
    (1, 3),
    (0, 3),
    (-1, 3),
    (-2, 2),
    (-3, 1),
    (-3, 0),
    (-3, -1),
    (-2, -2),
    (-1, -3),
];

kernel_params! {
    /// Template matching of `batch` images of `h x w` with a `th x tw` template.
    pub(super) struct MatchArgs<'a> {
        img: ReadBuf<'a> as "T",
        tpl: ReadBuf<'a> as "T",
        out: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        th: i64,
        tw: i64,
        method: i64,
    }
}

kernel_params! {
    /// FAST scores of `batch` images of `h x w`.
    pub(super) struct FastArgs<'a> {
        img: ReadBuf<'a> as "T",
        out: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        thr: f64,
        arc: i64,
        edge: i64,
    }
}

kernel_params! {
    /// SUSAN responses of `batch` images of `h x w`.
    pub(super) struct SusanArgs<'a> {
        img: ReadBuf<'a> as "T",
        out: WriteBuf<'a> as "T",
        batch: i64,
        h: i64,
        w: i64,
        radius: i64,
        t: f64,
        g: f64,
        edge: i64,
    }
}

/// What a [`VisionCall`] computes at each pixel (parameters checked by the callers in
/// `vision.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stencil {
    /// Template matching by the method of code `method` (`MatchType::code`), input 1 the
    /// `th x tw` template.
    Match { method: i64, th: usize, tw: usize },
    /// FAST scores: `arc` in 9..=16, `edge >= 3` (and at most `i64::MAX`, as every integer
    /// parameter: the kernels take them as signed 64-bit words).
    Fast { thr: f64, arc: usize, edge: usize },
    /// SUSAN responses: `radius` in 1..=10, `edge >= radius`.
    Susan {
        radius: usize,
        t: f64,
        g: f64,
        edge: usize,
    },
}

/// A per-pixel vision kernel over input 0, `batch` images of `h x w` of `dtype` (`f32` or
/// `f64`), into an output of the same shape.
#[derive(Debug)]
pub(crate) struct VisionCall {
    pub stencil: Stencil,
    pub dtype: DType,
    pub batch: usize,
    pub h: usize,
    pub w: usize,
}

fn cty(d: DType) -> &'static str {
    if d == DType::F64 { "double" } else { "float" }
}

impl VisionCall {
    /// The element count of the image (and the output); 0 where an extent is 0, and
    /// `usize::MAX` (matching no input) where the product overflows.
    fn total(&self) -> usize {
        crate::shape::checked_numel(&[self.batch, self.h, self.w]).unwrap_or(usize::MAX)
    }

    /// The integer parameters as the signed 64-bit words the kernels take: `batch`, `h`, `w`
    /// and the stencil's two (`th, tw`; `arc, edge`; `radius, edge`), or an `Err` naming the
    /// first that does not fit. With every word at most `i64::MAX`, the kernels' border test
    /// `x < w - edge` cannot overflow, so that a pixel is read only at offsets of at most the
    /// stencil's radius from a pixel at least `edge` inside the image.
    fn words(&self) -> Result<[i64; 5]> {
        use crate::util::kernel_i64 as i;
        let (what, a, b) = match self.stencil {
            Stencil::Match { th, tw, .. } => (["match_template: th", "match_template: tw"], th, tw),
            Stencil::Fast { arc, edge, .. } => (["fast: arc", "fast: edge"], arc, edge),
            Stencil::Susan { radius, edge, .. } => (["susan: radius", "susan: edge"], radius, edge),
        };
        Ok([
            i(self.batch, "vision: batch")?,
            i(self.h, "vision: h")?,
            i(self.w, "vision: w")?,
            i(a, what[0])?,
            i(b, what[1])?,
        ])
    }

    fn inputs_needed(&self) -> usize {
        match self.stencil {
            Stencil::Match { .. } => 2,
            _ => 1,
        }
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = matches!(self.dtype, DType::F32 | DType::F64)
            && inputs.len() == self.inputs_needed()
            && inputs.iter().all(|i| i.dtype == self.dtype)
            && crate::shape::numel(inputs[0].shape) == self.total()
            && match self.stencil {
                Stencil::Match { th, tw, .. } => {
                    th >= 1
                        && tw >= 1
                        && th.checked_mul(tw) == Some(crate::shape::numel(inputs[1].shape))
                }
                // The circle and the disc stay inside the image only from `edge` in.
                Stencil::Fast { arc, edge, .. } => edge >= 3 && (1..=16).contains(&arc),
                Stencil::Susan { radius, edge, .. } => (1..=10).contains(&radius) && edge >= radius,
            };
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the vision kernel {:?} made for {} images of {}x{} of {} was given {:?}",
                self.stencil,
                self.batch,
                self.h,
                self.w,
                self.dtype,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        if self.total() > 0 {
            self.words()?;
        }
        Ok(())
    }

    /// The kernel's name, body file, body function and extra header lines.
    fn parts(&self) -> (&'static str, &'static str, String) {
        match self.stencil {
            Stencil::Match { .. } => ("match", include_str!("vision_match.cu"), String::new()),
            Stencil::Fast { .. } => {
                let list = |f: fn(&(i64, i64)) -> i64| {
                    CIRCLE
                        .iter()
                        .map(|p| f(p).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let circle = format!(
                    "__constant__ int FAST_DX[16] = {{{}}};\n__constant__ int FAST_DY[16] = {{{}}};\n",
                    list(|p| p.0),
                    list(|p| p.1)
                );
                ("fast", include_str!("vision_fast.cu"), circle)
            }
            Stencil::Susan { .. } => ("susan", include_str!("vision_susan.cu"), String::new()),
        }
    }

    /// The kernel for this call's stencil kind and dtype.
    pub(crate) fn kernel(&self) -> KernelSource {
        let (kind, body, extra) = self.parts();
        let name = format!("cuprite_vision_{kind}_{}", self.dtype.name());
        let header = format!(
            "typedef long long i64t;\ntypedef {} T;\n{extra}",
            cty(self.dtype)
        );
        let func = format!("vis_{kind}");
        let entry = match self.stencil {
            Stencil::Match { .. } => {
                crate::codegen::entry::<MatchArgs>(&name, &THREADS.to_string(), &func)
            }
            Stencil::Fast { .. } => {
                crate::codegen::entry::<FastArgs>(&name, &THREADS.to_string(), &func)
            }
            Stencil::Susan { .. } => {
                crate::codegen::entry::<SusanArgs>(&name, &THREADS.to_string(), &func)
            }
        };
        let text = format!("{header}{body}{}{entry}", crate::codegen::MARKER);
        KernelSource::new(name, text)
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x7151_0000);
        "vision".hash(&mut h);
        self.parts().0.hash(&mut h);
        self.dtype.code().hash(&mut h);
        h.finish()
    }

    fn cpu<R: Real>(&self, x: &[R], t: &[R], y: &mut [R]) {
        let (h, w) = (self.h, self.w);
        if w == 0 {
            return;
        }
        y.par_chunks_mut(w).enumerate().for_each(|(row, out)| {
            let (b, yy) = (row / h, row % h);
            let im = &x[b * h * w..(b + 1) * h * w];
            for (xx, o) in out.iter_mut().enumerate() {
                *o = match self.stencil {
                    Stencil::Match { method, th, tw } => {
                        match_at(im, h, w, yy, xx, &t[..th * tw], th, tw, method)
                    }
                    Stencil::Fast { thr, arc, edge } => fast_at(im, h, w, yy, xx, thr, arc, edge),
                    Stencil::Susan { radius, t, g, edge } => {
                        susan_at(im, h, w, yy, xx, radius, t, g, edge)
                    }
                };
            }
        });
    }
}

/// The element types the CPU twins compute in.
pub(crate) trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + bytemuck::Pod
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
    + std::ops::AddAssign
{
    fn of(v: f64) -> Self;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
}
impl Real for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn exp(self) -> f32 {
        f32::exp(self)
    }
}
impl Real for f64 {
    fn of(v: f64) -> f64 {
        v
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
}

/// The twin of `vis_match` (`vision_match.cu`) at one pixel.
fn match_at<R: Real>(
    im: &[R],
    h: usize,
    w: usize,
    y: usize,
    x: usize,
    tpl: &[R],
    th: usize,
    tw: usize,
    method: i64,
) -> R {
    let zero = R::of(0.0);
    let px = |u: usize, v: usize| {
        let (yy, xx) = (y + u, x + v);
        if yy < h && xx < w {
            im[yy * w + xx]
        } else {
            zero
        }
    };
    let n = R::of((th * tw) as f64);
    let (mut wm, mut tm) = (zero, zero);
    if matches!(method, 1 | 2 | 4 | 5 | 7) {
        for u in 0..th {
            for v in 0..tw {
                wm += px(u, v);
                tm += tpl[u * tw + v];
            }
        }
        wm = wm / n;
        tm = tm / n;
    }
    let scale = if tm != zero { wm / tm } else { zero };
    let (mut acc, mut sa, mut sb) = (zero, zero, zero);
    for u in 0..th {
        for v in 0..tw {
            let (a, b) = (px(u, v), tpl[u * tw + v]);
            match method {
                0 => acc += (a - b).abs(),
                1 => acc += ((a - wm) - (b - tm)).abs(),
                2 => acc += (a - scale * b).abs(),
                3 => acc += (a - b) * (a - b),
                4 => {
                    let d = (a - wm) - (b - tm);
                    acc += d * d;
                }
                5 => {
                    let d = a - scale * b;
                    acc += d * d;
                }
                6 => {
                    acc += a * b;
                    sa += a * a;
                    sb += b * b;
                }
                7 => {
                    acc += (a - wm) * (b - tm);
                    sa += (a - wm) * (a - wm);
                    sb += (b - tm) * (b - tm);
                }
                _ => acc += if a != b { R::of(1.0) } else { zero },
            }
        }
    }
    if matches!(method, 6 | 7) {
        let den = (sa * sb).sqrt();
        acc = if den > zero { acc / den } else { zero };
    }
    acc
}

/// Whether the 16-bit circular mask `m` has a run of `arc` set bits (`fast_run`).
fn fast_run(m: u32, arc: usize) -> bool {
    let m2 = m | (m << 16);
    let r = (1..arc).fold(m2, |r, k| r & (m2 >> k));
    r & 0xFFFF != 0
}

/// The twin of `vis_fast` (`vision_fast.cu`) at one pixel.
fn fast_at<R: Real>(
    im: &[R],
    h: usize,
    w: usize,
    y: usize,
    x: usize,
    thr: f64,
    arc: usize,
    edge: usize,
) -> R {
    let zero = R::of(0.0);
    if x < edge || y < edge || x + edge >= w || y + edge >= h {
        return zero;
    }
    let t = R::of(thr);
    let p = im[y * w + x];
    let (mut bright, mut dark) = (0u32, 0u32);
    let (mut sb, mut sd) = (zero, zero);
    for (k, &(dx, dy)) in CIRCLE.iter().enumerate() {
        let yy = (y as i64 + dy) as usize;
        let xx = (x as i64 + dx) as usize;
        let c = im[yy * w + xx];
        if c > p + t {
            bright |= 1 << k;
            sb += c - p - t;
        } else if c < p - t {
            dark |= 1 << k;
            sd += p - c - t;
        }
    }
    if fast_run(bright, arc) || fast_run(dark, arc) {
        if sb > sd { sb } else { sd }
    } else {
        zero
    }
}

/// The twin of `vis_susan` (`vision_susan.cu`) at one pixel.
fn susan_at<R: Real>(
    im: &[R],
    h: usize,
    w: usize,
    y: usize,
    x: usize,
    radius: usize,
    t: f64,
    g: f64,
    edge: usize,
) -> R {
    let zero = R::of(0.0);
    if x < edge || y < edge || x + edge >= w || y + edge >= h {
        return zero;
    }
    let inv = R::of(1.0 / t);
    let p = im[y * w + x];
    let r = radius as i64;
    let mut n = zero;
    for dy in -r..=r {
        for dx in -r..=r {
            if dx * dx + dy * dy > r * r {
                continue;
            }
            let c = im[(y as i64 + dy) as usize * w + (x as i64 + dx) as usize];
            let d = (c - p) * inv;
            let d2 = d * d;
            n += (-(d2 * d2 * d2)).exp();
        }
    }
    let g = R::of(g);
    if n < g { g - n } else { zero }
}

fn host<'a, R: Real>(x: &CallInput<'a, HostBuf>, len: usize) -> &'a [R] {
    let v: &[R] = bytemuck::cast_slice(x.buf.bytes());
    &v[x.layout.offset..x.layout.offset + len]
}

fn part<'a>(x: &CallInput<'a, DevBuf>, d: DType, len: usize) -> Result<ReadBuf<'a>> {
    ReadBuf::part(x.buf, d, x.layout.offset, len)
}

impl LibraryCall for VisionCall {
    fn name(&self) -> &str {
        match self.stencil {
            Stencil::Match { .. } => "match_template",
            Stencil::Fast { .. } => "fast",
            Stencil::Susan { .. } => "susan",
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let n = self.total();
        let tl = match self.stencil {
            Stencil::Match { th, tw, .. } => th * tw,
            _ => 0,
        };
        if self.dtype == DType::F64 {
            let t = if tl > 0 { host(&inputs[1], tl) } else { &[] };
            let o: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
            self.cpu(host(&inputs[0], n), t, &mut o[..n]);
        } else {
            let t = if tl > 0 { host(&inputs[1], tl) } else { &[] };
            let o: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
            self.cpu(host(&inputs[0], n), t, &mut o[..n]);
        }
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        self.check(inputs)?;
        let n = self.total();
        if n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let d = self.dtype;
        let img = part(&inputs[0], d, n)?;
        let y = WriteBuf::part(out, d, 0, n)?;
        let [batch, h, w, p0, p1] = self.words()?;
        let a = match self.stencil {
            Stencil::Match { method, th, tw } => MatchArgs {
                img,
                tpl: part(&inputs[1], d, th * tw)?,
                out: y,
                batch,
                h,
                w,
                th: p0,
                tw: p1,
                method,
            }
            .args(),
            Stencil::Fast { thr, .. } => FastArgs {
                img,
                out: y,
                batch,
                h,
                w,
                thr,
                arc: p0,
                edge: p1,
            }
            .args(),
            Stencil::Susan { t, g, .. } => SusanArgs {
                img,
                out: y,
                batch,
                h,
                w,
                radius: p0,
                t,
                g,
                edge: p1,
            }
            .args(),
        };
        let blocks = n.div_ceil(THREADS) as u64;
        let resident = (st.sms * k.blocks_per_sm).max(1) as u64 * 4;
        let grid = blocks.clamp(1, resident.min(i32::MAX as u64)) as u32;
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`) of the element counts checked in `check` (`batch * h * w` for the image
        // and the output, `th * tw` for the template); the kernels read the image only at
        // indices inside `[0, h) x [0, w)` of their own image (FAST and SUSAN only at pixels
        // at least `edge` from every border, `edge` at least their radius as `check` makes
        // sure, and every parameter a word of its own value, `words`), the template inside
        // `[0, th * tw)`, and write each output index below
        // `batch * h * w` once.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (THREADS as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}

#[cfg(test)]
mod tests {
    use super::{Stencil, VisionCall};
    use crate::dtype::DType;

    /// Every integer parameter reaches the kernels as the word of its own value, or the call
    /// is an `Err` naming it: an edge past `i64::MAX` is not passed as a negative word.
    #[test]
    fn words_are_checked() {
        let call = |stencil| VisionCall {
            stencil,
            dtype: DType::F32,
            batch: 2,
            h: 16,
            w: 16,
        };
        let fast = |edge| {
            call(Stencil::Fast {
                thr: 20.0,
                arc: 9,
                edge,
            })
        };
        assert_eq!(fast(3).words().unwrap(), [2, 16, 16, 9, 3]);
        let e = fast(usize::MAX).words().unwrap_err().to_string();
        assert!(e.contains(&format!("fast: edge {}", usize::MAX)), "{e}");
        let e = fast(1 << 63).words().unwrap_err().to_string();
        assert!(e.contains("fast: edge 9223372036854775808"), "{e}");
        let susan = call(Stencil::Susan {
            radius: 3,
            t: 32.0,
            g: 10.0,
            edge: usize::MAX,
        });
        let e = susan.words().unwrap_err().to_string();
        assert!(e.contains(&format!("susan: edge {}", usize::MAX)), "{e}");
    }
}
