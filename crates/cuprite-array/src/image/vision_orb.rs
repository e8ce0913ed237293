//! ORB (ArrayFire's `orb`): FAST keypoints on a pyramid of scales ranked by their Harris
//! response, oriented by the intensity centroid, described by 256-bit rBRIEF descriptors. The
//! two per-keypoint steps are library calls (`vision_orb.cu` and CPU twins here); the
//! pyramid, the detection and the ranking are the family's fused expressions and kernels.

use super::vision::{Features, gaussian_taps, harris_response, lit, peaks, rank, smooth};
use super::vision_kernels::{Stencil, VisionCall};
use crate::array::Array;
use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::ops::TakeOpts;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

/// Threads a block.
const THREADS: usize = 128;
/// The radius of the orientation disc; keypoints keep this far from every border (plus one).
const ORB_R: i64 = 15;
/// The largest distance of a pattern point from the centre.
const PAT_R: f64 = 13.0;

/// The 256 point pairs `(px, py, qx, qy)` of the descriptor: coordinates drawn from an
/// isotropic Gaussian of standard deviation 31 / 5 (BRIEF's second sampling), rounded, and
/// kept within `PAT_R` of the centre; a fixed pseudo-random stream makes the table the same
/// on every run. Kernels get it through their typed header.
fn pattern() -> &'static [[i32; 4]; 256] {
    static P: OnceLock<[[i32; 4]; 256]> = OnceLock::new();
    P.get_or_init(|| {
        let mut state = 0x0bad_cafe_f00d_u64;
        let mut uniform = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut point = || loop {
            let (u, v) = (uniform().max(1e-300), uniform());
            let r = (-2.0 * u.ln()).sqrt() * 31.0 / 5.0;
            let a = 2.0 * std::f64::consts::PI * v;
            let (x, y) = ((r * a.cos()).round(), (r * a.sin()).round());
            if x * x + y * y <= PAT_R * PAT_R {
                return (x as i32, y as i32);
            }
        };
        let mut t = [[0i32; 4]; 256];
        for row in t.iter_mut() {
            loop {
                let (p, q) = (point(), point());
                if p != q {
                    *row = [p.0, p.1, q.0, q.1];
                    break;
                }
            }
        }
        t
    })
}

kernel_params! {
    /// The orientations of `n` keypoints of an `h x w` image.
    pub(super) struct AngleArgs<'a> {
        img: ReadBuf<'a> as "T",
        kx: ReadBuf<'a> as "T",
        ky: ReadBuf<'a> as "T",
        ang: WriteBuf<'a> as "T",
        n: i64,
        h: i64,
        w: i64,
    }
}

kernel_params! {
    /// The descriptors of `n` oriented keypoints of an `h x w` image.
    pub(super) struct DescArgs<'a> {
        img: ReadBuf<'a> as "T",
        kx: ReadBuf<'a> as "T",
        ky: ReadBuf<'a> as "T",
        ang: ReadBuf<'a> as "T",
        desc: WriteBuf<'a> as "unsigned",
        n: i64,
        h: i64,
        w: i64,
    }
}

/// One per-keypoint step of ORB over `n` keypoints (inputs: the `h x w` f32 image, the
/// columns, the rows, and for [`OrbStep::Describe`] the orientations, all f32).
#[derive(Debug)]
pub(crate) struct OrbCall {
    pub step: OrbStep,
    pub n: usize,
    pub h: usize,
    pub w: usize,
}

/// The step of an [`OrbCall`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrbStep {
    /// Orientations, f32 `[n]`.
    Orient,
    /// Descriptors, u32 `[n, 8]`.
    Describe,
}

impl OrbCall {
    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let want = if self.step == OrbStep::Orient { 3 } else { 4 };
        let ok = inputs.len() == want
            && self.h >= 1
            && self.w >= 1
            && inputs.iter().all(|i| i.dtype == DType::F32)
            && crate::shape::numel(inputs[0].shape) == self.h * self.w
            && inputs[1..]
                .iter()
                .all(|i| crate::shape::numel(i.shape) == self.n);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the ORB step {:?} made for {} keypoints of a {}x{} image was given {:?}",
                self.step,
                self.n,
                self.h,
                self.w,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn kernel(&self) -> KernelSource {
        let (step, body) = match self.step {
            OrbStep::Orient => ("angle", "orb_angle"),
            OrbStep::Describe => ("desc", "orb_desc"),
        };
        let name = format!("cuprite_orb_{step}_f32");
        let pat: Vec<String> = pattern().iter().flatten().map(|v| v.to_string()).collect();
        let header = format!(
            "typedef long long i64t;\ntypedef float T;\nconstexpr int ORB_R = {ORB_R};\n\
             __constant__ int ORB_PAT[1024] = {{{}}};\n",
            pat.join(", ")
        );
        let entry = match self.step {
            OrbStep::Orient => {
                crate::codegen::entry::<AngleArgs>(&name, &THREADS.to_string(), body)
            }
            OrbStep::Describe => {
                crate::codegen::entry::<DescArgs>(&name, &THREADS.to_string(), body)
            }
        };
        let text = format!(
            "{header}{}{}{entry}",
            include_str!("vision_orb.cu"),
            crate::codegen::MARKER
        );
        KernelSource::new(name, text)
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x0cb0_0000);
        "orb".hash(&mut h);
        (self.step == OrbStep::Orient).hash(&mut h);
        h.finish()
    }
}

/// `v` clamped into `[0, n)` (`orb_clamp`).
fn clamp(v: i64, n: usize) -> i64 {
    v.clamp(0, n as i64 - 1)
}

/// The twin of `orb_angle` for one keypoint.
fn angle_at(img: &[f32], h: usize, w: usize, x: f32, y: f32) -> f32 {
    let (x, y) = (clamp(x as i64, w), clamp(y as i64, h));
    let (mut m01, mut m10) = (0.0f32, 0.0f32);
    for dy in -ORB_R..=ORB_R {
        for dx in -ORB_R..=ORB_R {
            if dx * dx + dy * dy > ORB_R * ORB_R {
                continue;
            }
            let v = img[(clamp(y + dy, h) * w as i64 + clamp(x + dx, w)) as usize];
            m10 += dx as f32 * v;
            m01 += dy as f32 * v;
        }
    }
    m01.atan2(m10)
}

/// The twin of `orb_desc` for one keypoint.
fn desc_at(img: &[f32], h: usize, w: usize, x: f32, y: f32, a: f32, out: &mut [u32]) {
    let (x, y) = (clamp(x as i64, w), clamp(y as i64, h));
    let (c, s) = (a.cos(), a.sin());
    let at = |px: f32, py: f32| -> f32 {
        let ix = clamp(x + (c * px - s * py).round_ties_even() as i64, w);
        let iy = clamp(y + (s * px + c * py).round_ties_even() as i64, h);
        img[(iy * w as i64 + ix) as usize]
    };
    for (word, o) in out.iter_mut().enumerate() {
        let mut bits = 0u32;
        for b in 0..32 {
            let p = pattern()[32 * word + b].map(|v| v as f32);
            if at(p[0], p[1]) < at(p[2], p[3]) {
                bits |= 1 << b;
            }
        }
        *o = bits;
    }
}

fn host<'a>(x: &CallInput<'a, HostBuf>, len: usize) -> &'a [f32] {
    let v: &[f32] = bytemuck::cast_slice(x.buf.bytes());
    &v[x.layout.offset..x.layout.offset + len]
}

fn part<'a>(x: &CallInput<'a, DevBuf>, len: usize) -> Result<ReadBuf<'a>> {
    ReadBuf::part(x.buf, DType::F32, x.layout.offset, len)
}

impl LibraryCall for OrbCall {
    fn name(&self) -> &str {
        "orb"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let (n, w) = (self.n, self.w);
        let img = host(&inputs[0], self.h * w);
        let (kx, ky) = (host(&inputs[1], n), host(&inputs[2], n));
        match self.step {
            OrbStep::Orient => {
                let o: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
                o[..n]
                    .par_iter_mut()
                    .enumerate()
                    .for_each(|(i, a)| *a = angle_at(img, self.h, w, kx[i], ky[i]));
            }
            OrbStep::Describe => {
                let ang = host(&inputs[3], n);
                let o: &mut [u32] = bytemuck::cast_slice_mut(out.bytes_mut());
                o[..8 * n]
                    .par_chunks_mut(8)
                    .enumerate()
                    .for_each(|(i, d)| desc_at(img, self.h, w, kx[i], ky[i], ang[i], d));
            }
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
        let n = self.n;
        if n == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let (ni, h, w) = (n as i64, self.h as i64, self.w as i64);
        let img = part(&inputs[0], self.h * self.w)?;
        let (kx, ky) = (part(&inputs[1], n)?, part(&inputs[2], n)?);
        let a = match self.step {
            OrbStep::Orient => AngleArgs {
                img,
                kx,
                ky,
                ang: WriteBuf::part(out, DType::F32, 0, n)?,
                n: ni,
                h,
                w,
            }
            .args(),
            OrbStep::Describe => DescArgs {
                img,
                kx,
                ky,
                ang: part(&inputs[3], n)?,
                desc: WriteBuf::part(out, DType::U32, 0, 8 * n)?,
                n: ni,
                h,
                w,
            }
            .args(),
        };
        let blocks = n.div_ceil(THREADS) as u64;
        let resident = (st.sms * k.blocks_per_sm).max(1) as u64 * 4;
        let grid = blocks.clamp(1, resident.min(i32::MAX as u64)) as u32;
        // SAFETY: every buffer word is a live range checked inside its allocation (`ReadBuf`,
        // `WriteBuf`) of the counts checked in `check` (`h * w >= 1` for the image, `n` for
        // the keypoint arrays, `n` or `8 n` for the output); every image read is clamped into
        // `[0, h) x [0, w)` (`orb_clamp`), and each thread writes only its keypoint's outputs.
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

/// Options of [`orb_with`] (ArrayFire's `orb` arguments and defaults).
///
/// ```
/// use cuprite_array::image::OrbOpts;
/// let o = OrbOpts::new().max_feat(100).levels(2);
/// assert_eq!((o.fast_thr, o.max_feat, o.scl_fctr, o.levels, o.blur_img), (20.0, 100, 1.5, 2, false));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbOpts {
    /// FAST's threshold (20, for 0-255 images).
    pub fast_thr: f64,
    /// The most keypoints over all levels (400), shared by the levels in proportion to their
    /// areas.
    pub max_feat: usize,
    /// The factor between pyramid levels, above 1 (1.5).
    pub scl_fctr: f64,
    /// Pyramid levels, 1 or more (4); levels smaller than 33 pixels a side are skipped.
    pub levels: usize,
    /// Blur each level with a Gaussian of sigma 2 before describing (false).
    pub blur_img: bool,
}

impl Default for OrbOpts {
    fn default() -> Self {
        OrbOpts {
            fast_thr: 20.0,
            max_feat: 400,
            scl_fctr: 1.5,
            levels: 4,
            blur_img: false,
        }
    }
}

impl OrbOpts {
    /// ArrayFire's defaults: threshold 20, 400 keypoints, factor 1.5, 4 levels, no blur.
    pub fn new() -> Self {
        Self::default()
    }
    /// FAST's threshold.
    pub fn fast_thr(mut self, fast_thr: f64) -> Self {
        self.fast_thr = fast_thr;
        self
    }
    /// The most keypoints.
    pub fn max_feat(mut self, max_feat: usize) -> Self {
        self.max_feat = max_feat;
        self
    }
    /// The scale factor between levels.
    pub fn scl_fctr(mut self, scl_fctr: f64) -> Self {
        self.scl_fctr = scl_fctr;
        self
    }
    /// The number of levels.
    pub fn levels(mut self, levels: usize) -> Self {
        self.levels = levels;
        self
    }
    /// Whether to blur before describing.
    pub fn blur_img(mut self, blur_img: bool) -> Self {
        self.blur_img = blur_img;
        self
    }
}

/// `img` (`[h, w]`) resized to `[oh, ow]` bilinearly, sample centres aligned (pixel `i` of the
/// output at `(i + 0.5) h / oh − 0.5` of the input, clamped to the image).
fn resize(img: &Array<f32>, oh: usize, ow: usize) -> Result<Array<f32>> {
    let along = |x: &Array<f32>, axis: usize, n_in: usize, n_out: usize| -> Result<Array<f32>> {
        let mut i0 = Vec::with_capacity(n_out);
        let mut i1 = Vec::with_capacity(n_out);
        let mut f = Vec::with_capacity(n_out);
        for i in 0..n_out {
            let s =
                ((i as f64 + 0.5) * n_in as f64 / n_out as f64 - 0.5).clamp(0.0, (n_in - 1) as f64);
            let a = s.floor() as usize;
            i0.push(a as i64);
            i1.push((a + 1).min(n_in - 1) as i64);
            f.push((s - a as f64) as f32);
        }
        let dev = x.device();
        let wshape = if axis == 0 { [n_out, 1] } else { [1, n_out] };
        let fa = Array::from_slice_on(dev, &f, &wshape)?;
        let a = x.take_with(
            &Array::from_slice_on(dev, &i0, &[n_out])?,
            TakeOpts::new().axis(axis as isize),
        )?;
        let b = x.take_with(
            &Array::from_slice_on(dev, &i1, &[n_out])?,
            TakeOpts::new().axis(axis as isize),
        )?;
        let out = a.try_add(b.try_sub(&a)?.try_mul(&fa)?)?;
        out.eval()?;
        Ok(out)
    };
    let (h, w) = (img.shape()[0], img.shape()[1]);
    along(&along(img, 0, h, oh)?, 1, w, ow)
}

/// Runs one ORB step as a library call.
fn step<T: crate::dtype::Element>(st: OrbStep, img: &Array<f32>, k: &[&Array<f32>]) -> Array<T> {
    let (h, w) = (img.shape()[0], img.shape()[1]);
    let n = k[0].shape()[0];
    let mut inputs = vec![img.node.clone()];
    inputs.extend(k.iter().map(|a| a.node.clone()));
    let shape = if st == OrbStep::Orient {
        vec![n]
    } else {
        vec![n, 8]
    };
    Array::from_node(Node::new(
        Op::Library(Arc::new(OrbCall { step: st, n, h, w }), inputs),
        T::DTYPE,
        shape,
        img.device(),
    ))
}

/// The ORB keypoints and descriptors of one pyramid level `lv` (scale `s` to the original
/// image), at most `budget`.
fn level(lv: &Array<f32>, s: f64, budget: usize, o: &OrbOpts) -> Result<(Features, Array<u32>)> {
    let edge = (ORB_R + 1) as usize;
    let st = Stencil::Fast {
        thr: o.fast_thr,
        arc: 9,
        edge,
    };
    let (h, w) = (lv.shape()[0], lv.shape()[1]);
    let call = Arc::new(VisionCall {
        stencil: st,
        dtype: DType::F32,
        batch: 1,
        h,
        w,
    });
    let score: Array<f32> = Array::from_node(Node::new(
        Op::Library(call, vec![lv.node.clone()]),
        DType::F32,
        vec![h, w],
        lv.device(),
    ));
    // FAST's 3 x 3 maxima, ranked by their Harris response (a 7 x 7 box window).
    let corners = peaks(&score, 0.0)?;
    let resp = harris_response(lv, &[1.0 / 7.0; 7], 0.04)?;
    let f = rank(&resp, &corners, budget, 0.0)?;
    let described = if o.blur_img {
        smooth(lv, &gaussian_taps(13, 2.0))?
    } else {
        lv.clone()
    };
    let ang: Array<f32> = step(OrbStep::Orient, lv, &[&f.x, &f.y]);
    let desc: Array<u32> = step(OrbStep::Describe, &described, &[&f.x, &f.y, &ang]);
    let sf = s as f32;
    Ok((
        Features {
            x: &f.x * sf,
            y: &f.y * sf,
            score: f.score.clone(),
            orientation: ang,
            size: Array::<f32>::full_like(&f.score, lit::<f32>(31.0 * s)),
        },
        desc,
    ))
}

/// ORB keypoints and descriptors (ArrayFire's `orb` with its defaults: FAST threshold 20, 400
/// keypoints, 4 levels of scale 1.5) of a 2-D gray image: FAST-9 corners (3 x 3 maxima) of
/// each pyramid level, the strongest by Harris response kept (each level's share of the
/// budget in proportion to its area), oriented by the intensity centroid of the disc of
/// radius 15, each with a 256-bit rBRIEF descriptor (8 `u32`, `[n, 8]`). Keypoints are in the
/// original image's coordinates, level 0 first, each level strongest first; size is 31 times
/// the level's scale. The 256 point pairs are this library's fixed table (drawn as BRIEF
/// draws them), not OpenCV's learned one, so descriptors match those of this library only.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{OrbOpts, orb_with}};
/// let mut px = vec![0.0f32; 64 * 64];
/// for y in 20..44 { for x in 20..44 { px[y * 64 + x] = 255.0; } }
/// let (f, desc) = orb_with(&Array::from_vec(px, &[64, 64])?, OrbOpts::new().levels(1))?;
/// assert_eq!(f.len(), 4);
/// assert_eq!(desc.shape(), &[4, 8]);
/// # Ok(()) }
/// ```
pub fn orb<T: crate::dtype::Float>(img: &Array<T>) -> Result<(Features, Array<u32>)> {
    orb_with(img, OrbOpts::new())
}

/// The most pyramid levels [`orb_with`] keeps.
const ORB_MAX_LEVELS: usize = 1024;

/// The `Err` of a pyramid of more than [`ORB_MAX_LEVELS`] levels of at least `min_side`
/// pixels a side.
fn too_many_levels(opts: &OrbOpts, min_side: usize) -> Error {
    Error::InvalidArgument(format!(
        "orb: levels {} with scl_fctr {} keep more than {ORB_MAX_LEVELS} pyramid levels of at \
         least {min_side} pixels a side",
        opts.levels, opts.scl_fctr
    ))
}

/// [`orb`] with options ([`OrbOpts`]).
///
/// # Errors
/// An image not 2-D; `scl_fctr` not above 1, `levels` or `max_feat` 0, `fast_thr` negative or
/// not finite; or more than 1024 levels of at least 33 pixels a side (a factor very near 1
/// with very many levels).
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{OrbOpts, orb_with}};
/// let img = Array::<f32>::zeros(&[40, 40]);
/// let (f, d) = orb_with(&img, OrbOpts::new())?;
/// assert!(f.is_empty() && d.shape() == [0, 8]);
/// assert!(orb_with(&img, OrbOpts::new().scl_fctr(1.0)).is_err());
/// # Ok(()) }
/// ```
pub fn orb_with<T: crate::dtype::Float>(
    img: &Array<T>,
    opts: OrbOpts,
) -> Result<(Features, Array<u32>)> {
    let shape = img.shape().to_vec();
    if shape.len() != 2 {
        return Err(Error::Shape(format!(
            "orb takes a 2-D gray image [h, w], got shape {shape:?}"
        )));
    }
    if !(opts.scl_fctr.is_finite() && opts.scl_fctr > 1.0)
        || opts.levels == 0
        || opts.max_feat == 0
        || !(opts.fast_thr.is_finite() && opts.fast_thr >= 0.0)
    {
        return Err(Error::InvalidArgument(format!(
            "orb: scl_fctr {} must be above 1, levels {} and max_feat {} at least 1, fast_thr {} \
             finite and at least 0",
            opts.scl_fctr, opts.levels, opts.max_feat, opts.fast_thr
        )));
    }
    let base = img.cast::<f32>();
    let min_side = 2 * (ORB_R as usize + 1) + 1;
    // The levels shrink with `l` (the factor is above 1): the first one below `min_side` ends
    // the pyramid, so that a huge `levels` walks only the levels that are kept.
    let mut dims: Vec<(usize, usize, f64)> = Vec::new();
    for l in 0..opts.levels {
        let e = i32::try_from(l).map_err(|_| too_many_levels(&opts, min_side))?;
        let s = opts.scl_fctr.powi(e);
        let (h, w) = (
            (shape[0] as f64 / s).round() as usize,
            (shape[1] as f64 / s).round() as usize,
        );
        if h < min_side || w < min_side {
            break;
        }
        if dims.len() == ORB_MAX_LEVELS {
            return Err(too_many_levels(&opts, min_side));
        }
        dims.push((h, w, s));
    }
    let area: f64 = dims.iter().map(|d| 1.0 / (d.2 * d.2)).sum();
    let mut feats: Vec<(Features, Array<u32>)> = Vec::new();
    let mut left = opts.max_feat;
    for (i, &(h, w, s)) in dims.iter().enumerate() {
        let share = if i + 1 == dims.len() {
            left
        } else {
            ((opts.max_feat as f64 / (s * s) / area).round() as usize).min(left)
        };
        left -= share;
        let lv = if i == 0 && s == 1.0 {
            base.clone()
        } else {
            resize(&base, h, w)?
        };
        feats.push(level(&lv, s, share, &opts)?);
    }
    let cat = |f: &dyn Fn(&Features) -> &Array<f32>| -> Result<Array<f32>> {
        let parts: Vec<&Array<f32>> = feats.iter().map(|(x, _)| f(x)).collect();
        if parts.is_empty() {
            Ok(Array::<f32>::zeros(&[0]).to_device(img.device())?)
        } else {
            Array::concat(&parts, 0)
        }
    };
    let desc = if feats.is_empty() {
        Array::<u32>::zeros(&[0, 8]).to_device(img.device())?
    } else {
        Array::concat(&feats.iter().map(|(_, d)| d).collect::<Vec<_>>(), 0)?
    };
    Ok((
        Features {
            x: cat(&|f| &f.x)?,
            y: cat(&|f| &f.y)?,
            score: cat(&|f| &f.score)?,
            orientation: cat(&|f| &f.orientation)?,
            size: cat(&|f| &f.size)?,
        },
        desc,
    ))
}
