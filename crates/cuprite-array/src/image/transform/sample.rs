//! The resampler as one library call: a kernel (`sample.cu`) and its CPU twin on rayon. Every
//! output point of a batch of images takes the input interpolated at coordinates given by an
//! affine (or projective) map of the output indices or by a coordinates array; the kinds of
//! interpolation are SciPy's B-splines with its boundary rules, ArrayFire's nearest, lower,
//! bilinear, bicubic and bicubic-spline with its rules, and the area average. Both backends
//! compute coordinates in `f64` and weights and sums in the working type, in the same order.
//! A diagonal map of order 0 or 1 (zoom, shift) takes a second kernel (`diag.cu`, built on the
//! first's device functions) that spreads the coordinate arithmetic over many outputs.

use super::af_weights;
use super::elem::{self, Px, Work};
use crate::codegen::{KernelParams, KernelSource, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::image::Boundary;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block (along the last axis of the output).
const THREADS: usize = 256;
/// Outputs a thread (of a diagonal map: at most this many, so that a thread's last-axis taps
/// stay in registers; see [`Sample::per`]).
const PER: usize = 8;
/// The most lines a launch's second grid dimension takes (more are strided over it); also the
/// most blocks of the third dimension.
const GRID_Y: usize = 65535;
/// Threads a block of the diagonal form of orders 0 and 1 (`diag.cu`).
const DIAG_THREADS: usize = 128;
/// Outputs along the last axis a thread of that form takes, in each of its rows.
const DIAG_PER: usize = 4;
/// Output rows (of the axis before the last) a thread of that form takes.
const DIAG_ROWS: usize = 8;

/// How values between samples are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// SciPy's B-spline of the call's order (0 to 5) with SciPy's boundary rules.
    Spline,
    /// ArrayFire's nearest: the sample at `floor(c + 0.5)`.
    AfNearest,
    /// ArrayFire's lower: the sample at `floor(c)`.
    AfLower,
    /// ArrayFire's bilinear.
    AfBilinear,
    /// ArrayFire's bicubic (the cubic through four samples with slopes from differences).
    AfBicubic,
    /// ArrayFire's bicubic spline (Catmull-Rom).
    AfBicubicSpline,
    /// The mean of the input cells each output cell covers.
    Area,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Spline => 0,
            Kind::AfNearest => 1,
            Kind::AfLower => 2,
            Kind::AfBilinear => 3,
            Kind::AfBicubic => 4,
            Kind::AfBicubicSpline => 5,
            Kind::Area => 6,
        }
    }

    /// Taps per axis.
    fn taps(self, order: usize) -> usize {
        match self {
            Kind::Spline => order + 1,
            Kind::AfBilinear => 2,
            Kind::AfBicubic | Kind::AfBicubicSpline => 4,
            _ => 1,
        }
    }
}

/// Where the input coordinates of an output point come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Map {
    /// `c[a] = (m[a][..rank] . o + m[a][3]) / w`, with `w = p[..rank] . o + p[3]` when `p` is
    /// given (a projective map), else 1.
    Affine {
        m: [[f64; 4]; 3],
        p: Option<[f64; 4]>,
    },
    /// Input 1: an `f64` array `[rank, points of one image]`, the coordinates of each output
    /// point (shared by the batch).
    Coords,
}

/// The template parameters of `sample.cu` and `diag.cu`, typed: one value per parameter of the
/// `.cu` files, rendered by [`GeoParams::header`] as the `GEO_*` definitions the files are
/// specialised by (element codes as `elem::code` gives them, flags as 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct GeoParams {
    /// The input's element type (`GEO_IN`).
    input: DType,
    /// The output's element type (`GEO_OUT`).
    output: DType,
    /// Weights and sums in `double` (`GEO_WIDE`).
    wide: bool,
    /// Axes of one image, 1 to 3 (`GEO_RANK`).
    rank: usize,
    /// The spline's order (`GEO_ORDER`).
    order: usize,
    /// The interpolation (`GEO_KIND`).
    kind: Kind,
    /// Coordinates from an array, not a map (`GEO_COORDS`).
    coords: bool,
    /// A projective map (`GEO_PERSP`).
    persp: bool,
    /// A diagonal map whose leading axes' taps are taken once a line (`GEO_SEP`).
    separable: bool,
    /// Every index of the call fits in 32 bits (`GEO_I32`).
    small: bool,
    /// Threads a block (`GEO_THREADS`).
    threads: usize,
    /// Outputs a thread along the last axis (`GEO_PER`).
    per: usize,
    /// Output rows a thread takes: the diagonal form only (`GEO_ROWS`).
    rows: Option<usize>,
}

impl GeoParams {
    /// The `#define` lines of the parameters, one a line, in the order the files document.
    fn header(&self) -> String {
        let code = |d: DType| usize::from(elem::code(d).unwrap_or(3));
        let defs = [
            ("IN", code(self.input)),
            ("OUT", code(self.output)),
            ("WIDE", usize::from(self.wide)),
            ("RANK", self.rank),
            ("ORDER", self.order),
            ("KIND", usize::from(self.kind.code())),
            ("COORDS", usize::from(self.coords)),
            ("PERSP", usize::from(self.persp)),
            ("SEP", usize::from(self.separable)),
            ("I32", usize::from(self.small)),
            ("THREADS", self.threads),
            ("PER", self.per),
        ];
        let rows = self.rows.map(|r| ("ROWS", r));
        defs.into_iter()
            .chain(rows)
            .map(|(k, v)| format!("#define GEO_{k} {v}\n"))
            .collect()
    }
}

/// The resampling of input 0 (`batch` images `n[..rank]` of `input`) into `batch` images
/// `l[..rank]` of `output`.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub input: DType,
    pub output: DType,
    pub rank: usize,
    pub kind: Kind,
    pub order: usize,
    pub batch: usize,
    pub n: [usize; 3],
    pub l: [usize; 3],
    pub mode: Boundary,
    /// Input cells of padding before each axis (SciPy's pre-padding of the spline filter).
    pub npad: usize,
    pub map: Map,
}

kernel_params! {
    /// The resampler's parameters (see `sample.cu`).
    pub(super) struct SampleArgs<'a> {
        x: ReadBuf<'a> as "TI",
        coords: Option<ReadBuf<'a>> as "double",
        y: WriteBuf<'a> as "TO",
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        l0: i64,
        l1: i64,
        l2: i64,
        mode: i64,
        npad: i64,
        cval: f64,
        m00: f64,
        m01: f64,
        m02: f64,
        m03: f64,
        m10: f64,
        m11: f64,
        m12: f64,
        m13: f64,
        m20: f64,
        m21: f64,
        m22: f64,
        m23: f64,
        p0: f64,
        p1: f64,
        p2: f64,
        p3: f64,
    }
}

kernel_params! {
    /// The parameters of the diagonal form of orders 0 and 1 (see `diag.cu`): `c[a] = s[a]
    /// o[a] + t[a]`.
    pub(super) struct DiagArgs<'a> {
        x: ReadBuf<'a> as "TI",
        y: WriteBuf<'a> as "TO",
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        l0: i64,
        l1: i64,
        l2: i64,
        mode: i64,
        npad: i64,
        cval: f64,
        s0: f64,
        s1: f64,
        s2: f64,
        t0: f64,
        t1: f64,
        t2: f64,
    }
}

impl Sample {
    /// Points of one input image.
    pub(crate) fn npix(&self) -> usize {
        self.n[..self.rank].iter().product()
    }

    /// Points of one output image.
    pub(crate) fn plane(&self) -> usize {
        self.l[..self.rank].iter().product()
    }

    fn wide(&self) -> bool {
        elem::wide(self.output)
    }

    fn coords(&self) -> bool {
        matches!(self.map, Map::Coords)
    }

    /// Whether the map is affine and diagonal: each coordinate follows only its own output
    /// index (zoom, shift).
    fn diagonal(&self) -> bool {
        match self.map {
            Map::Affine { m, p: None } => {
                (0..self.rank).all(|a| (0..self.rank).all(|j| a == j || m[a][j] == 0.0))
            }
            _ => false,
        }
    }

    /// Whether the CUDA backend takes the diagonal form of orders 0 and 1 (`diag.cu`): a
    /// diagonal map and SciPy's spline of order 0 or 1. A thread there takes each of its
    /// columns' taps once for many rows and each row's taps once for several columns.
    fn diag(&self) -> bool {
        self.kind == Kind::Spline && self.order <= 1 && self.diagonal()
    }

    /// Whether the map is diagonal (each coordinate follows only its own output index) and
    /// the spline has at least 3 taps, so that the kernel takes the leading axes' taps once a
    /// line (its `GEO_SEP` form). Orders 0 and 1 of such a map take the diagonal form
    /// ([`Sample::diag`]) instead.
    fn separable(&self) -> bool {
        self.order >= 2 && self.kind != Kind::Area && self.diagonal()
    }

    /// Outputs a thread (`GEO_PER`): a diagonal map's thread holds the last axis's taps of
    /// its outputs, about 16 taps in all.
    fn per(&self) -> usize {
        if self.separable() {
            (16 / self.kind.taps(self.order)).clamp(1, PER)
        } else {
            PER
        }
    }

    /// Whether every index the kernel forms fits in 32 bits (its `GEO_I32` form).
    fn small(&self) -> bool {
        let lim = i32::MAX as usize;
        let big = |v: usize| v >= lim;
        !(big(self.batch.saturating_mul(self.npix()))
            || big(self.batch.saturating_mul(self.plane()))
            || big(self.rank.saturating_mul(self.plane()))
            || self
                .n
                .iter()
                .chain(&self.l)
                .any(|&v| big(v.saturating_mul(2))))
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let want = 1 + self.coords() as usize;
        let ok = inputs.len() == want
            && inputs[0].dtype == self.input
            && crate::shape::numel(inputs[0].shape) == self.batch * self.npix()
            && (!self.coords()
                || (inputs[1].dtype == DType::F64
                    && crate::shape::numel(inputs[1].shape) == self.rank * self.plane()))
            && (1..=3).contains(&self.rank)
            && elem::code(self.input).is_some()
            && elem::code(self.output).is_some();
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the resampler made for {self:?} was given {:?}",
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The kernel for this call's types, rank, kind and map.
    pub(crate) fn kernel(&self) -> KernelSource {
        if self.diag() {
            return self.diag_kernel();
        }
        let persp = matches!(self.map, Map::Affine { p: Some(_), .. });
        let name = format!(
            "cuprite_geo_sample_{}_{}_r{}_k{}_o{}{}{}{}{}",
            self.input.name(),
            self.output.name(),
            self.rank,
            self.kind.code(),
            self.order,
            if self.coords() { "_c" } else { "" },
            if persp { "_p" } else { "" },
            if self.separable() { "_s" } else { "" },
            if self.small() { "" } else { "_i64" },
        );
        let header = GeoParams {
            kind: self.kind,
            coords: self.coords(),
            persp,
            separable: self.separable(),
            threads: THREADS,
            per: self.per(),
            rows: None,
            ..self.geo_base()
        }
        .header();
        let entry = crate::codegen::entry::<SampleArgs>(&name, &THREADS.to_string(), "geo_sample");
        let body = [
            Boundary::c_source(),
            super::af_weights::C_SOURCE,
            include_str!("sample.cu"),
        ]
        .concat();
        elem::kernel(name, &header, &body, &entry)
    }

    /// The diagonal form of orders 0 and 1: `diag.cu` after the resampler's text, whose
    /// header it shares (GEO_PER its columns a thread, GEO_ROWS its rows).
    fn diag_kernel(&self) -> KernelSource {
        let name = format!(
            "cuprite_geo_diag_{}_{}_r{}_o{}{}",
            self.input.name(),
            self.output.name(),
            self.rank,
            self.order,
            if self.small() { "" } else { "_i64" },
        );
        let header = GeoParams {
            threads: DIAG_THREADS,
            per: DIAG_PER,
            rows: Some(DIAG_ROWS),
            ..self.geo_base()
        }
        .header();
        let entry = crate::codegen::entry::<DiagArgs>(&name, &DIAG_THREADS.to_string(), "geo_diag");
        let body = [
            Boundary::c_source(),
            super::af_weights::C_SOURCE,
            include_str!("sample.cu"),
            include_str!("diag.cu"),
        ]
        .concat();
        elem::kernel(name, &header, &body, &entry)
    }

    /// The template parameters both kernel forms share (element types, working precision,
    /// rank, order, index width); the rest as the diagonal form has them (a spline of a
    /// diagonal affine map, no coordinates array, no perspective, not separable).
    fn geo_base(&self) -> GeoParams {
        GeoParams {
            input: self.input,
            output: self.output,
            wide: self.wide(),
            rank: self.rank,
            order: self.order,
            kind: Kind::Spline,
            coords: false,
            persp: false,
            separable: false,
            small: self.small(),
            threads: THREADS,
            per: PER,
            rows: None,
        }
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x6e0_5a3e);
        "geo_sample".hash(&mut h);
        self.input.code().hash(&mut h);
        self.output.code().hash(&mut h);
        self.rank.hash(&mut h);
        self.kind.hash(&mut h);
        self.order.hash(&mut h);
        self.coords().hash(&mut h);
        matches!(self.map, Map::Affine { p: Some(_), .. }).hash(&mut h);
        self.separable().hash(&mut h);
        self.diag().hash(&mut h);
        self.small().hash(&mut h);
        h.finish()
    }

    fn matrix(&self) -> ([[f64; 4]; 3], [f64; 4]) {
        match self.map {
            Map::Affine { m, p } => (m, p.unwrap_or([0.0, 0.0, 0.0, 1.0])),
            Map::Coords => ([[0.0; 4]; 3], [0.0, 0.0, 0.0, 1.0]),
        }
    }
}

/// SciPy's mapping of a coordinate outside `[0, len - 1]` by mode code (`Boundary::code`),
/// -1 for the constant; the twin of `geo_map_coord` in `sample.cu`.
pub(crate) fn map_coord(mut x: f64, len: i64, mode: i32) -> f64 {
    let t = |v: f64| v as i64 as f64;
    if x < 0.0 {
        match mode {
            3 if len <= 1 => 0.0,
            3 => {
                let sz2 = (2 * len - 2) as f64;
                x += sz2 * t(-x / sz2);
                if x <= (1 - len) as f64 { x + sz2 } else { -x }
            }
            0 if len <= 1 => 0.0,
            0 => {
                let sz2 = (2 * len) as f64;
                if x < -sz2 {
                    x += sz2 * t(-x / sz2);
                }
                if x < -(len as f64) {
                    x + sz2
                } else {
                    (if x > -1e-15 { 1e-15 } else { -x }) - 1.0
                }
            }
            4 if len <= 1 => 0.0,
            4 => {
                let sz = (len - 1) as f64;
                x + sz * (t(-x / sz) + 1.0)
            }
            6 if len <= 1 => 0.0,
            6 => x + len as f64 * (t((-1.0 - x) / len as f64) + 1.0),
            1 => -1.0,
            _ => x,
        }
    } else if x > (len - 1) as f64 {
        match mode {
            3 if len <= 1 => 0.0,
            3 => {
                let sz2 = (2 * len - 2) as f64;
                x -= sz2 * t(x / sz2);
                if x >= len as f64 { sz2 - x } else { x }
            }
            0 if len <= 1 => 0.0,
            0 => {
                let sz2 = (2 * len) as f64;
                x -= sz2 * t(x / sz2);
                if x >= len as f64 { sz2 - x - 1.0 } else { x }
            }
            4 if len <= 1 => 0.0,
            4 => {
                let sz = (len - 1) as f64;
                x - sz * t(x / sz)
            }
            6 if len <= 1 => 0.0,
            6 => x - len as f64 * t(x / len as f64),
            1 => -1.0,
            _ => x,
        }
    } else {
        x
    }
}

/// The index of tap `i` of a line of `n` by mode code, -1 for the constant: `img_map`'s twin.
fn tap(i: i64, n: i64, code: i32) -> i64 {
    let b = match code {
        0 => Boundary::Reflect,
        2 => Boundary::Nearest,
        3 => Boundary::Mirror,
        4 => Boundary::Wrap,
        6 => Boundary::GridWrap,
        _ => Boundary::Constant(0.0),
    };
    b.map(i, n).unwrap_or(-1)
}

/// SciPy's B-spline weights of `order` at `x`; the twin of `geo_bspline`.
pub(crate) fn bspline<W: Work>(mut x: f64, order: usize, w: &mut [W]) {
    x -= if order & 1 == 1 { x } else { x + 0.5 }.floor();
    let c = W::from_f64;
    let y = c(x);
    let z = c(1.0) - c(x);
    match order {
        1 => w[0] = c(1.0) - y,
        2 => {
            w[1] = c(0.75) - y * y;
            let u = c(0.5) - y;
            w[0] = c(0.5) * u * u;
        }
        3 => {
            w[1] = (y * y * (y - c(2.0)) * c(3.0) + c(4.0)) / c(6.0);
            w[2] = (z * z * (z - c(2.0)) * c(3.0) + c(4.0)) / c(6.0);
            w[0] = z * z * z / c(6.0);
        }
        4 => {
            let t = y * y;
            w[2] = t * (t * c(0.25) - c(0.625)) + c(115.0 / 192.0);
            let a = c(1.0) + y;
            w[1] = a * (a * (a * (c(5.0) - a) / c(6.0) - c(1.25)) + c(5.0 / 24.0)) + c(55.0 / 96.0);
            w[3] = z * (z * (z * (c(5.0) - z) / c(6.0) - c(1.25)) + c(5.0 / 24.0)) + c(55.0 / 96.0);
            let u = c(0.5) - y;
            let uu = u * u;
            w[0] = uu * uu / c(24.0);
        }
        5 => {
            let t = y * y;
            w[2] = t * (t * (c(0.25) - y / c(12.0)) - c(0.5)) + c(0.55);
            let t = z * z;
            w[3] = t * (t * (c(0.25) - z / c(12.0)) - c(0.5)) + c(0.55);
            let (a, b) = (y + c(1.0), z + c(1.0));
            let q = |a: W| {
                a * (a * (a * (a * (a / c(24.0) - c(0.375)) + c(1.25)) - c(1.75)) + c(0.625))
                    + c(0.425)
            };
            w[1] = q(a);
            w[4] = q(b);
            let u = c(1.0) - y;
            let uu = u * u;
            w[0] = u * uu * uu / c(120.0);
        }
        _ => {}
    }
    if order > 0 {
        let mut last = c(1.0);
        for v in &w[..order] {
            last = last - *v;
        }
        w[order] = last;
    }
}

impl Sample {
    /// The taps of one axis for coordinate `c` (indices, -1 for the constant, and weights), or
    /// `false` where the point takes the constant; the twin of `geo_axis`.
    fn axis<W: Work>(&self, c: f64, n: i64, idx: &mut [i64], w: &mut [W]) -> bool {
        let mode = self.mode.code();
        let map = |i: i64, m: i32| tap(i, n, m);
        if self.kind == Kind::Spline {
            let order = self.order as i64;
            let mut cc = c + self.npad as f64;
            if cc.is_nan() || cc.abs() > 4.5e15 {
                return false;
            }
            if mode == 5 || mode == 2 {
                cc = cc.max(-16.0 - order as f64).min(n as f64 + 16.0);
            }
            if mode != 5 && mode != 2 {
                cc = map_coord(cc, n, mode);
            }
            if !(cc > -1.0 || mode == 5 || mode == 2) {
                return false;
            }
            let start = if order & 1 == 1 {
                cc.floor() as i64 - order / 2
            } else {
                (cc + 0.5).floor() as i64 - order / 2
            };
            let smode = if mode == 1 || mode == 4 { 3 } else { mode };
            for (k, v) in idx.iter_mut().enumerate() {
                *v = map(start + k as i64, smode);
            }
            if self.order > 0 {
                bspline(cc, self.order, w);
            } else {
                w[0] = W::from_f64(1.0);
            }
            return true;
        }
        if c.is_nan() || c < -1e-4 || c >= n as f64 {
            return false;
        }
        let g = c.floor();
        let c1 = W::from_f64;
        let t = c1(c - g);
        let gi = g as i64;
        match self.kind {
            Kind::AfNearest => {
                idx[0] = map((c + 0.5).floor() as i64, mode);
                w[0] = c1(1.0);
            }
            Kind::AfLower => {
                idx[0] = map(gi, mode);
                w[0] = c1(1.0);
            }
            Kind::AfBilinear => {
                idx[0] = map(gi, mode);
                idx[1] = map(gi + 1, mode);
                w[..2].copy_from_slice(&af_weights::linear(t, false));
            }
            _ => {
                for (k, v) in idx.iter_mut().enumerate().take(4) {
                    *v = map(gi - 1 + k as i64, mode);
                }
                let spline = self.kind == Kind::AfBicubicSpline;
                w[..4].copy_from_slice(&af_weights::cubic(t, spline));
            }
        }
        true
    }

    /// One output value at output indices `o` of image `xb`; the twin of one pass of
    /// `geo_sample`'s loop.
    fn point<TI: Px, W: Work>(&self, xb: &[TI], coords: &[f64], o: [i64; 3], at: usize) -> W {
        let r = self.rank;
        let n = self.n.map(|v| v as i64);
        let l = self.l.map(|v| v as i64);
        if self.kind == Kind::Area {
            let mut s = [0i64; 3];
            let mut e = [1i64; 3];
            for a in 0..r {
                s[a] = o[a] * n[a] / l[a];
                e[a] = ((o[a] + 1) * n[a] + l[a] - 1) / l[a];
            }
            let (mut acc, mut cnt) = (W::from_f64(0.0), 0i64);
            for i0 in s[0]..e[0] {
                for i1 in s[1]..e[1] {
                    for i2 in s[2]..e[2] {
                        let f = match r {
                            1 => i0,
                            2 => i0 * n[1] + i1,
                            _ => (i0 * n[1] + i1) * n[2] + i2,
                        };
                        acc = acc + xb[f as usize].load::<W>();
                        cnt += 1;
                    }
                }
            }
            return acc / W::from_f64(cnt as f64);
        }
        let mut c = [0.0f64; 3];
        if self.coords() {
            let plane = self.plane();
            for (a, v) in c.iter_mut().enumerate().take(r) {
                *v = coords[a * plane + at];
            }
        } else {
            let (m, p) = self.matrix();
            let mut wp = 1.0;
            if matches!(self.map, Map::Affine { p: Some(_), .. }) {
                wp = p[3];
                for j in 0..r {
                    wp += p[j] * o[j] as f64;
                }
            }
            for a in 0..r {
                let mut v = m[a][3];
                for j in 0..r {
                    v += m[a][j] * o[j] as f64;
                }
                c[a] = v / wp;
            }
        }
        let taps = self.kind.taps(self.order);
        let mut idx = [[0i64; 6]; 3];
        let mut w = [[W::from_f64(0.0); 6]; 3];
        for a in 0..r {
            if !self.axis(c[a], n[a], &mut idx[a][..taps], &mut w[a][..taps]) {
                return W::from_f64(self.mode.cval());
            }
        }
        let cv = W::from_f64(self.mode.cval());
        let t = |a: usize| if a < r { taps } else { 1 };
        let mut acc = W::from_f64(0.0);
        for t0 in 0..t(0) {
            for t1 in 0..t(1) {
                for t2 in 0..t(2) {
                    let (i0, i1, i2) = (idx[0][t0], idx[1][t1], idx[2][t2]);
                    let (v, wt) = match r {
                        1 => (if i0 < 0 { cv } else { xb[i0 as usize].load() }, w[0][t0]),
                        2 => (
                            if i0 < 0 || i1 < 0 {
                                cv
                            } else {
                                xb[(i0 * n[1] + i1) as usize].load()
                            },
                            w[0][t0] * w[1][t1],
                        ),
                        _ => (
                            if i0 < 0 || i1 < 0 || i2 < 0 {
                                cv
                            } else {
                                xb[((i0 * n[1] + i1) * n[2] + i2) as usize].load()
                            },
                            w[0][t0] * w[1][t1] * w[2][t2],
                        ),
                    };
                    acc = if taps == 1 { acc + v } else { acc + v * wt };
                }
            }
        }
        acc
    }

    fn cpu<TI: Px, TO: Px, W: Work>(&self, x: &[TI], coords: &[f64], y: &mut [TO]) {
        let r = self.rank;
        let last = self.l[r - 1];
        let (npix, plane) = (self.npix(), self.plane());
        if last == 0 {
            return;
        }
        y.par_chunks_mut(last).enumerate().for_each(|(line, out)| {
            let mut o = [0i64; 3];
            let mut rest = line;
            for a in (0..r - 1).rev() {
                o[a] = (rest % self.l[a]) as i64;
                rest /= self.l[a];
            }
            let b = rest;
            let xb = &x[b * npix..(b + 1) * npix];
            for (k, v) in out.iter_mut().enumerate() {
                o[r - 1] = k as i64;
                let at = line * last + k - b * plane;
                *v = TO::store(self.point::<TI, W>(xb, coords, o, at));
            }
        });
    }
}

/// `len` contiguous elements of a host input from its offset.
fn host<'a, T: bytemuck::Pod>(x: &CallInput<'a, HostBuf>, len: usize) -> &'a [T] {
    let v: &[T] = bytemuck::cast_slice(x.buf.bytes());
    &v[x.layout.offset..x.layout.offset + len]
}

/// Calls `$f::<TI, TO, W>` for the runtime types (`TI` the input's, `TO` the output's).
macro_rules! dispatch_out {
    ($self:ident, $ti:ty, $inputs:ident, $out:ident) => {
        match $self.output {
            DType::U8 => $self.run_typed::<$ti, u8>($inputs, $out),
            DType::U16 => $self.run_typed::<$ti, u16>($inputs, $out),
            DType::F16 => $self.run_typed::<$ti, f16>($inputs, $out),
            DType::F32 => $self.run_typed::<$ti, f32>($inputs, $out),
            _ => $self.run_typed::<$ti, f64>($inputs, $out),
        }
    };
}

impl Sample {
    fn run_typed<TI: Px, TO: Px>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let x: &[TI] = host(&inputs[0], self.batch * self.npix());
        let coords: &[f64] = if self.coords() {
            host(&inputs[1], self.rank * self.plane())
        } else {
            &[]
        };
        let ny = self.batch * self.plane();
        let o: &mut [TO] = bytemuck::cast_slice_mut(out.bytes_mut());
        if self.wide() {
            self.cpu::<TI, TO, f64>(x, coords, &mut o[..ny]);
        } else {
            self.cpu::<TI, TO, f32>(x, coords, &mut o[..ny]);
        }
    }
}

impl Sample {
    /// Launches the diagonal form of orders 0 and 1 (`diag.cu`) on a non-empty output.
    fn run_diag(
        &self,
        lane: &CudaLane<'_>,
        k: &crate::jit::Kernel,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { stream, .. } = *lane;
        let r = self.rank;
        let (m, _) = self.matrix();
        let i = |v: usize| v as i64;
        let ny = self.batch * self.plane();
        let params = DiagArgs {
            x: ReadBuf::part(
                inputs[0].buf,
                self.input,
                inputs[0].layout.offset,
                self.batch * self.npix(),
            )?,
            y: WriteBuf::part(out, self.output, 0, ny)?,
            batch: i(self.batch),
            n0: i(self.n[0]),
            n1: i(self.n[1]),
            n2: i(self.n[2]),
            l0: i(self.l[0]),
            l1: i(self.l[1]),
            l2: i(self.l[2]),
            mode: self.mode.code() as i64,
            npad: i(self.npad),
            cval: self.mode.cval(),
            s0: m[0][0],
            s1: m[1][1],
            s2: m[2][2],
            t0: m[0][3],
            t1: m[1][3],
            t2: m[2][3],
        };
        // The output as planes x rows x last (see `diag.cu`).
        let (planes, rows) = match r {
            1 => (1, self.batch),
            2 => (self.batch, self.l[0]),
            _ => (self.batch * self.l[0], self.l[1]),
        };
        let last = self.l[r - 1];
        let gx = u32::try_from(last.div_ceil(DIAG_THREADS * DIAG_PER))
            .ok()
            .filter(|&g| g <= i32::MAX as u32)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "the resampler's output lines of {last} values exceed one launch's blocks"
                ))
            })?;
        let gy = rows.div_ceil(DIAG_ROWS).clamp(1, GRID_Y) as u32;
        let gz = planes.clamp(1, GRID_Y) as u32;
        let a = params.args();
        // SAFETY: the words are the kernel's parameters in order (`DiagArgs`); the input view
        // holds `batch * npix` elements and the output `batch * plane` (checked by the caller).
        // The kernel reads image `b < batch` of the input only at taps that `geo_axis` keeps
        // inside `[0, n)` on each axis (the constant's taps are not read), and writes each
        // output once, at `(plane * rows + row) * last + k` with `plane < planes`, `row <
        // rows`, `k < last`, below `batch * plane`; the first grid dimension times the
        // block's outputs covers the last axis, the others stride over rows and planes, and
        // the 32-bit form is taken only where every such index fits.
        unsafe {
            stream.launch_packed(
                &k.func,
                (gx, gy, gz),
                (DIAG_THREADS as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }
}

impl LibraryCall for Sample {
    fn name(&self) -> &str {
        "geometric_transform"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        match self.input {
            DType::U8 => dispatch_out!(self, u8, inputs, out),
            DType::U16 => dispatch_out!(self, u16, inputs, out),
            DType::F16 => dispatch_out!(self, f16, inputs, out),
            DType::F32 => dispatch_out!(self, f32, inputs, out),
            _ => dispatch_out!(self, f64, inputs, out),
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
        let r = self.rank;
        let last = self.l[r - 1];
        let lines = self.batch * self.plane() / last.max(1);
        let ny = self.batch * self.plane();
        if ny == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        if self.diag() {
            return self.run_diag(lane, &k, inputs, out);
        }
        let (m, p) = self.matrix();
        let i = |v: usize| v as i64;
        let params = SampleArgs {
            x: ReadBuf::part(
                inputs[0].buf,
                self.input,
                inputs[0].layout.offset,
                self.batch * self.npix(),
            )?,
            coords: if self.coords() {
                Some(ReadBuf::part(
                    inputs[1].buf,
                    DType::F64,
                    inputs[1].layout.offset,
                    r * self.plane(),
                )?)
            } else {
                None
            },
            y: WriteBuf::part(out, self.output, 0, ny)?,
            batch: i(self.batch),
            n0: i(self.n[0]),
            n1: i(self.n[1]),
            n2: i(self.n[2]),
            l0: i(self.l[0]),
            l1: i(self.l[1]),
            l2: i(self.l[2]),
            mode: self.mode.code() as i64,
            npad: i(self.npad),
            cval: self.mode.cval(),
            m00: m[0][0],
            m01: m[0][1],
            m02: m[0][2],
            m03: m[0][3],
            m10: m[1][0],
            m11: m[1][1],
            m12: m[1][2],
            m13: m[1][3],
            m20: m[2][0],
            m21: m[2][1],
            m22: m[2][2],
            m23: m[2][3],
            p0: p[0],
            p1: p[1],
            p2: p[2],
            p3: p[3],
        };
        let gx = last.div_ceil(THREADS * self.per());
        // A diagonal map's blocks take several lines each (about two resident waves in all),
        // so that its threads' last-axis taps serve many outputs.
        let gy_max = if self.separable() {
            let resident = (st.sms * k.blocks_per_sm).max(1) as usize * 2;
            (resident / gx.max(1)).clamp(1, GRID_Y)
        } else {
            GRID_Y
        };
        let gy = lines.clamp(1, gy_max) as u32;
        let gx = gx as u32;
        let a = params.args();
        // SAFETY: the words are the kernel's parameters in order (`SampleArgs`); the input
        // view holds `batch * npix` elements and the coordinates `rank * plane` (checked
        // above), the output `batch * plane`. The kernel reads the input only at indices that
        // `img_map` or the area bounds keep inside `[0, n)` on each axis of one image, the
        // coordinates below `rank * plane`, and writes each output once, below `batch *
        // plane`; the grid's first dimension times the block's outputs covers the last axis,
        // and the 32-bit form is taken only where every such index fits.
        unsafe {
            stream.launch_packed(
                &k.func,
                (gx, gy, 1),
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
