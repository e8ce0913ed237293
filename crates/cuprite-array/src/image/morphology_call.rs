//! Grey dilation and erosion over a list of taps as one library call: a kernel
//! (`morphology.cu`) and its CPU twin on rayon, both visiting the taps in the same order and
//! comparing in the same compute type (`f32` for u8, u16, f16 and f32; `f64` for f64), so the
//! backends agree exactly.

use super::Boundary;
use crate::codegen::{KernelParams, KernelSource, MaybeRead, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, f16};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Threads a block.
const THREADS: usize = 256;
/// Footprints of at most this many taps are built into their kernel (offsets and heights in
/// constant memory, the loop unrolled); larger ones are read from buffers.
pub(crate) const UNROLL: usize = 32;

kernel_params! {
    /// The min/max filter of `batch` volumes over `ntaps` taps (see `morphology.cu`).
    pub(super) struct MinMaxArgs<'a> {
        x: ReadBuf<'a> as "S",
        tap: MaybeRead<'a> as "i64t",
        h: MaybeRead<'a> as "double",
        y: WriteBuf<'a> as "S",
        ntaps: i64,
        batch: i64,
        n0: i64,
        n1: i64,
        n2: i64,
        lo0: i64,
        lo1: i64,
        lo2: i64,
        hi0: i64,
        hi1: i64,
        hi2: i64,
        mode: i64,
        cval: f64,
    }
}

/// One tap: the offset of the input read for an output along the three axes.
pub(crate) type Tap = [i64; 3];

/// The min (erosion) or max (dilation) over `taps` of a batch of `batch` volumes of extents
/// `n`. Inputs: the image; and, for more than [`UNROLL`] taps, the taps as four `i64` words
/// each and the heights as `f64` (fewer taps are built into the kernel).
#[derive(Debug)]
pub(crate) struct MinMax {
    pub dtype: DType,
    pub max: bool,
    pub batch: usize,
    pub n: [usize; 3],
    pub taps: Vec<Tap>,
    /// Added to (dilation) or taken from (erosion) each tap's value; `None` for a flat one.
    pub heights: Option<Vec<f64>>,
    pub boundary: Boundary,
}

/// The dtypes the call takes.
pub(crate) fn minmax_dtype(d: DType) -> bool {
    matches!(
        d,
        DType::U8 | DType::U16 | DType::F16 | DType::F32 | DType::F64
    )
}

/// `v` as the element type `d` holds it (integers saturate and truncate, NaN gives 0; f16 and
/// f32 round), as an `f64` that is exact in the compute type.
pub(crate) fn as_dtype(d: DType, v: f64) -> f64 {
    match d {
        DType::U8 => v as u8 as f64,
        DType::U16 => v as u16 as f64,
        DType::F16 => f16::from_f64(v).to_f64(),
        DType::F32 => v as f32 as f64,
        _ => v,
    }
}

/// The four words of the taps: the three offsets and the linear offset in a volume `n`.
pub(crate) fn tap_words(taps: &[Tap], n: [usize; 3]) -> Vec<i64> {
    let (s1, s2) = ((n[1] * n[2]) as i64, n[2] as i64);
    taps.iter()
        .flat_map(|t| [t[0], t[1], t[2], t[0] * s1 + t[1] * s2 + t[2]])
        .collect()
}

/// The typed header of the grey morphology kernels for dtype `d` (see `morphology_elem.cu`):
/// `i64t`, the storage type `S`, the compute type `A` (float for u8, u16, f16 and f32, double
/// for f64), MM_MAX (1 dilation, 0 erosion), MM_HALF, MM_INT and MM_INT_MAX.
pub(crate) fn type_header(d: DType, max: bool) -> String {
    let (int_max, is_int) = match d {
        DType::U8 => (255, 1),
        DType::U16 => (65535, 1),
        _ => (0, 0),
    };
    format!(
        "typedef long long i64t;\ntypedef {} S;\ntypedef {} A;\nconstexpr int MM_MAX = {};\n\
         #define MM_HALF {}\nconstexpr int MM_INT = {is_int};\nconstexpr int MM_INT_MAX = {int_max};\n",
        d.c_storage(),
        if d == DType::F64 { "double" } else { "float" },
        i32::from(max),
        i32::from(d == DType::F16),
    )
}

/// The compute types of the CPU twin.
trait Acc:
    Copy + PartialOrd + Send + Sync + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self>
{
    fn of(v: f64) -> Self;
}
impl Acc for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
}
impl Acc for f64 {
    fn of(v: f64) -> f64 {
        v
    }
}

/// The storage types of the CPU twin and their loads and stores (the kernel's `mm_load`,
/// `mm_store`).
trait Px: bytemuck::Pod + Send + Sync {
    type A: Acc;
    fn load(self) -> Self::A;
    fn store(a: Self::A) -> Self;
}
impl Px for u8 {
    type A = f32;
    fn load(self) -> f32 {
        self as f32
    }
    fn store(a: f32) -> u8 {
        a as u8
    }
}
impl Px for u16 {
    type A = f32;
    fn load(self) -> f32 {
        self as f32
    }
    fn store(a: f32) -> u16 {
        a as u16
    }
}
impl Px for f16 {
    type A = f32;
    fn load(self) -> f32 {
        self.to_f32()
    }
    fn store(a: f32) -> f16 {
        f16::from_f32(a)
    }
}
impl Px for f32 {
    type A = f32;
    fn load(self) -> f32 {
        self
    }
    fn store(a: f32) -> f32 {
        a
    }
}
impl Px for f64 {
    type A = f64;
    fn load(self) -> f64 {
        self
    }
    fn store(a: f64) -> f64 {
        a
    }
}

impl MinMax {
    fn per(&self) -> usize {
        self.n.iter().product()
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let buffers = self.unrolled() == 0;
        let ok = minmax_dtype(self.dtype)
            && inputs.len() == if buffers { 3 } else { 1 }
            && inputs[0].dtype == self.dtype
            && crate::shape::numel(inputs[0].shape) == self.batch * self.per()
            && (!buffers
                || (crate::shape::numel(inputs[1].shape) == 4 * self.taps.len()
                    && crate::shape::numel(inputs[2].shape) == self.taps.len()))
            && !self.taps.is_empty()
            && self.heights.iter().flatten().all(|h| h.is_finite());
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the min/max filter made for {} x {:?} of {} with {} taps was given {:?}",
                self.batch,
                self.n,
                self.dtype,
                self.taps.len(),
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The tap count the kernel is built for (unrolled), or 0 for a run-time count.
    fn unrolled(&self) -> usize {
        if self.taps.len() <= UNROLL {
            self.taps.len()
        } else {
            0
        }
    }

    /// The smallest and largest offset of the taps along each axis.
    fn reach(&self) -> ([i64; 3], [i64; 3]) {
        let mut lo = [0i64; 3];
        let mut hi = [0i64; 3];
        for a in 0..3 {
            lo[a] = self.taps.iter().map(|t| t[a]).min().unwrap_or(0);
            hi[a] = self.taps.iter().map(|t| t[a]).max().unwrap_or(0);
        }
        (lo, hi)
    }

    /// The kernel for this call's dtype, direction and heights.
    pub(crate) fn kernel(&self) -> KernelSource {
        let d = self.dtype;
        let nt = self.unrolled();
        let name = format!(
            "cuprite_morph_{}_{}{}_t{nt}_{:016x}",
            if self.max { "max" } else { "min" },
            d.name(),
            if self.heights.is_some() { "_h" } else { "" },
            self.key()
        );
        let header = format!(
            "{}constexpr int MM_HEIGHTS = {};\n#define MM_NT {nt}\n{}",
            type_header(d, self.max),
            i32::from(self.heights.is_some()),
            self.built_in_taps(),
        );
        let text = format!(
            "{header}{}{}{}{}{}",
            Boundary::c_source(),
            include_str!("morphology_elem.cu"),
            include_str!("morphology.cu"),
            crate::codegen::MARKER,
            crate::codegen::entry::<MinMaxArgs>(&name, &THREADS.to_string(), "morph_minmax")
        );
        KernelSource::new(name, text)
    }

    /// The typed constants of a built-in footprint: `MM_TAP` (the offsets) and `MM_HGT` (the
    /// heights, 0 for a flat one), each value written so that it parses back exactly.
    fn built_in_taps(&self) -> String {
        if self.unrolled() == 0 {
            return String::new();
        }
        let taps: Vec<String> = self
            .taps
            .iter()
            .map(|t| format!("{{{}LL, {}LL, {}LL}}", t[0], t[1], t[2]))
            .collect();
        let hs: Vec<String> = (0..self.taps.len())
            .map(|i| {
                let v = self.heights.as_ref().map_or(0.0, |h| h[i]);
                format!("{v:?}")
            })
            .collect();
        format!(
            "__constant__ long long MM_TAP[{n}][3] = {{{}}};\n__constant__ double MM_HGT[{n}] = {{{}}};\n",
            taps.join(", "),
            hs.join(", "),
            n = self.taps.len()
        )
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x1a9e_0001);
        "morph_minmax".hash(&mut h);
        self.dtype.code().hash(&mut h);
        self.max.hash(&mut h);
        self.heights.is_some().hash(&mut h);
        self.unrolled().hash(&mut h);
        if self.unrolled() > 0 {
            self.taps.hash(&mut h);
            for v in self.heights.iter().flatten() {
                v.to_bits().hash(&mut h);
            }
        }
        h.finish()
    }

    fn cpu<P: Px>(&self, x: &[P], y: &mut [P]) {
        let n = self.n.map(|v| v as i64);
        let per = self.per();
        let mode = self.boundary;
        let cv = P::A::of(as_dtype(self.dtype, mode.cval()));
        let hs: Vec<P::A> = match &self.heights {
            Some(h) => h.iter().map(|&v| P::A::of(v)).collect(),
            None => Vec::new(),
        };
        let row = self.n[2].max(1);
        y.par_chunks_mut(row).enumerate().for_each(|(line, out)| {
            let b = line * row / per.max(1);
            let r0 = line * row - b * per;
            let xb = &x[b * per..(b + 1) * per];
            let i1 = ((r0 / row) % self.n[1]) as i64;
            let i0 = (r0 / (row * self.n[1])) as i64;
            for (i2, o) in out.iter_mut().enumerate() {
                let mut acc = P::A::of(0.0);
                for (t, tap) in self.taps.iter().enumerate() {
                    let j = [
                        mode.map(i0 + tap[0], n[0]),
                        mode.map(i1 + tap[1], n[1]),
                        mode.map(i2 as i64 + tap[2], n[2]),
                    ];
                    let mut v = match j {
                        [Some(a), Some(c), Some(e)] => {
                            xb[((a * n[1] + c) * n[2] + e) as usize].load()
                        }
                        _ => cv,
                    };
                    if let Some(&hv) = hs.get(t) {
                        v = if self.max { v + hv } else { v - hv };
                    }
                    if t == 0 || (self.max && v > acc) || (!self.max && v < acc) {
                        acc = v;
                    }
                }
                *o = P::store(acc);
            }
        });
    }

    fn run_host<P: Px>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let len = self.batch * self.per();
        let v: &[P] = bytemuck::cast_slice(inputs[0].buf.bytes());
        let off = inputs[0].layout.offset;
        let o: &mut [P] = bytemuck::cast_slice_mut(out.bytes_mut());
        self.cpu(&v[off..off + len], &mut o[..len]);
    }
}

impl LibraryCall for MinMax {
    fn name(&self) -> &str {
        if self.max {
            "grey_dilation"
        } else {
            "grey_erosion"
        }
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        if self.batch * self.per() == 0 {
            return Ok(());
        }
        match self.dtype {
            DType::U8 => self.run_host::<u8>(inputs, out),
            DType::U16 => self.run_host::<u16>(inputs, out),
            DType::F16 => self.run_host::<f16>(inputs, out),
            DType::F32 => self.run_host::<f32>(inputs, out),
            _ => self.run_host::<f64>(inputs, out),
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
        let total = self.batch * self.per();
        if total == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let (lo, hi) = self.reach();
        let i = |v: usize| v as i64;
        let nt = self.taps.len();
        let part = |j: usize, d: DType, len: usize| {
            ReadBuf::part(inputs[j].buf, d, inputs[j].layout.offset, len)
        };
        let (tap, h) = if self.unrolled() == 0 {
            (
                Some(part(1, DType::I64, 4 * nt)?),
                Some(part(2, DType::F64, nt)?),
            )
        } else {
            (None, None)
        };
        let params = MinMaxArgs {
            x: part(0, self.dtype, total)?,
            tap,
            h,
            y: WriteBuf::part(out, self.dtype, 0, total)?,
            ntaps: i(nt),
            batch: i(self.batch),
            n0: i(self.n[0]),
            n1: i(self.n[1]),
            n2: i(self.n[2]),
            lo0: lo[0],
            lo1: lo[1],
            lo2: lo[2],
            hi0: hi[0],
            hi1: hi[1],
            hi2: hi[2],
            mode: i64::from(self.boundary.code()),
            cval: as_dtype(self.dtype, self.boundary.cval()),
        };
        // Grid y strides over the lines (at most 65535), grid x along them; about four
        // resident waves in all.
        let lines = self.batch * self.n[0] * self.n[1];
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize * 4;
        let gx = self.n[2].div_ceil(THREADS).clamp(1, resident) as u32;
        let gy = lines.clamp(1, (resident / gx as usize).clamp(1, 65535)) as u32;
        let a = params.args();
        // SAFETY: `x` and `y` are `batch * n0 * n1 * n2` elements of the dtype, `tap` 4 words
        // and `h` one word per tap (null, and not read, when the taps are built in), each
        // range checked inside its allocation; the kernel reads
        // `x` only at coordinates inside `[0, n)` along each axis (mapped by `img_map`, or
        // the interior where every tap's offset stays inside), and writes `y` below the total.
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
