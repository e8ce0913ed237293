//! SciPy's B-spline prefilter along one axis as one library call: kernels (`spline.cu`) and
//! their CPU twin on rayon, in the working type (`f64` for `f64` images, else `f32`; SciPy
//! filters in `f64`). The thread-a-line kernel computes the twin's arithmetic in the same
//! order; the segmented kernel of the one-pole orders (the lines split into segments filtered
//! in parallel) differs from it within the working type's rounding, and refilters as the
//! twin does every line with a non-finite value.

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

/// Threads a block (one line each) of `spl_filter` and `spl_fix`.
const THREADS: usize = 128;
/// Threads a block of `spl_seg` (one warp, 32 lines).
const SEG_THREADS: usize = 32;

/// The poles of the B-spline prefilter of `order` (2 to 5; SciPy's values).
pub(crate) fn poles(order: usize) -> &'static [f64] {
    match order {
        2 => &[-0.171_572_875_253_809_9],
        3 => &[-0.267_949_192_431_122_7],
        4 => &[-0.361_341_225_900_220_16, -0.013_725_429_297_339_121],
        5 => &[-0.430_575_347_099_973_8, -0.043_096_288_203_264_65],
        _ => &[],
    }
}

/// How the first value of each pass is initialised for `mode` (SciPy's choice): 0 mirror
/// (constant, grid-constant, mirror, wrap), 1 reflect (nearest, reflect), 2 periodic
/// (grid-wrap).
pub(crate) fn init(mode: Boundary) -> i64 {
    match mode {
        Boundary::Nearest | Boundary::Reflect => 1,
        Boundary::GridWrap => 2,
        _ => 0,
    }
}

/// The prefilter of order `order` along the middle axis of input 0, read as `[outer, n,
/// inner]` elements of `input`, into the working type of `input`.
#[derive(Debug, Clone)]
pub(crate) struct SplineFilter {
    pub input: DType,
    pub order: usize,
    pub outer: usize,
    pub n: usize,
    pub inner: usize,
    pub mode: Boundary,
}

kernel_params! {
    /// The prefilter's parameters (see `spline.cu`).
    pub(super) struct SplineArgs<'a> {
        x: ReadBuf<'a> as "TI",
        y: WriteBuf<'a> as "W",
        outer: i64,
        n: i64,
        inner: i64,
        init: i64,
    }
}

kernel_params! {
    /// The segmented prefilter's parameters (`spl_seg`, see `spline.cu`).
    pub(super) struct SegArgs<'a> {
        x: ReadBuf<'a> as "TI",
        y: WriteBuf<'a> as "W",
        flag: WriteBuf<'a> as "unsigned char",
        outer: i64,
        n: i64,
        inner: i64,
        init: i64,
        nseg: i64,
    }
}

kernel_params! {
    /// The refiltering of the lines `spl_seg` marks (`spl_fix`).
    pub(super) struct FixArgs<'a> {
        x: ReadBuf<'a> as "TI",
        y: WriteBuf<'a> as "W",
        flag: ReadBuf<'a> as "unsigned char",
        outer: i64,
        n: i64,
        inner: i64,
        init: i64,
        nseg: i64,
    }
}

/// The kernels of the prefilter.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Entry {
    /// One thread a line.
    Line,
    /// The segmented form.
    Seg,
    /// The refiltering of marked lines.
    Fix,
}

impl Entry {
    fn body(self) -> &'static str {
        match self {
            Entry::Line => "spl_filter",
            Entry::Seg => "spl_seg",
            Entry::Fix => "spl_fix",
        }
    }
}

/// Filters `c[0], c[s], ..` (`n >= 2` values) with pole `z`; the twin of `spl_pole`.
fn pole<W: Work>(c: &mut [W], n: usize, s: usize, z: W, init: i64) {
    let one = W::from_f64(1.0);
    let zero = W::from_f64(0.0);
    let at = |i: usize| i * s;
    if init == 0 {
        let zn1 = W::from_f64(z.to_f64().powf((n - 1) as f64));
        let mut c0 = c[0] + zn1 * c[at(n - 1)];
        let mut zi = z;
        let mut i = 1;
        while i < n - 1 && zi != zero {
            c0 = c0 + zi * (c[at(i)] + zn1 * c[at(n - 1 - i)]);
            zi = zi * z;
            i += 1;
        }
        c[0] = c0 / (one - zn1 * zn1);
    } else if init == 1 {
        let zn = W::from_f64(z.to_f64().powf(n as f64));
        let mut sum = c[0] + zn * c[at(n - 1)];
        let mut zi = z;
        let mut i = 1;
        while i < n && zi != zero {
            sum = sum + zi * (c[at(i)] + zn * c[at(n - 1 - i)]);
            zi = zi * z;
            i += 1;
        }
        c[0] = c[0] + sum * z / (one - zn * zn);
    } else {
        let (mut c0, mut zi) = (c[0], z);
        let mut i = 1;
        while i < n && zi != zero {
            c0 = c0 + zi * c[at(n - i)];
            zi = zi * z;
            i += 1;
        }
        c[0] = c0 / (one - zi);
    }
    for i in 1..n {
        c[at(i)] = c[at(i)] + z * c[at(i - 1)];
    }
    if init == 0 {
        c[at(n - 1)] = (z * c[at(n - 2)] + c[at(n - 1)]) * z / (z * z - one);
    } else if init == 1 {
        c[at(n - 1)] = c[at(n - 1)] * (z / (z - one));
    } else {
        let (mut cl, mut zi) = (c[at(n - 1)], z);
        let mut i = 0;
        while i < n - 1 && zi != zero {
            cl = cl + zi * c[at(i)];
            zi = zi * z;
            i += 1;
        }
        c[at(n - 1)] = cl * (z / (zi - one));
    }
    for i in (0..n - 1).rev() {
        c[at(i)] = z * (c[at(i + 1)] - c[at(i)]);
    }
}

impl SplineFilter {
    fn len(&self) -> usize {
        self.outer * self.n * self.inner
    }

    fn work(&self) -> DType {
        elem::work(self.input)
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let ok = inputs.len() == 1
            && inputs[0].dtype == self.input
            && crate::shape::numel(inputs[0].shape) == self.len()
            && elem::code(self.input).is_some()
            && (2..=5).contains(&self.order);
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "the spline filter made for {self:?} was given {:?}",
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// Whether the segmented kernel takes this call: one pole, the mirror or reflect boundary
    /// rule, lines of at least two values.
    fn segmented(&self) -> bool {
        poles(self.order).len() == 1 && init(self.mode) != 2 && self.n >= 2
    }

    /// Positions a segment of the segmented kernel (`SPL_SEG`).
    fn seg_len(&self) -> usize {
        if elem::wide(self.input) { 64 } else { 128 }
    }

    /// The kernel `entry` for this call's input type and order.
    fn kernel(&self, entry: Entry) -> KernelSource {
        let name = format!(
            "cuprite_{}_{}_o{}",
            match entry {
                Entry::Line => "spline_filter",
                Entry::Seg => "spline_seg",
                Entry::Fix => "spline_fix",
            },
            self.input.name(),
            self.order
        );
        let header = format!(
            "#define SPL_IN {}\n#define SPL_WIDE {}\n#define SPL_ORDER {}\n\
             #define SPL_THREADS {THREADS}\n",
            elem::code(self.input).unwrap_or(3),
            elem::wide(self.input) as u8,
            self.order,
        );
        let (t, b) = (THREADS.to_string(), entry.body());
        let text = match entry {
            Entry::Line => crate::codegen::entry::<SplineArgs>(&name, &t, b),
            Entry::Seg => crate::codegen::entry::<SegArgs>(&name, &SEG_THREADS.to_string(), b),
            Entry::Fix => crate::codegen::entry::<FixArgs>(&name, &t, b),
        };
        elem::kernel(name, &header, include_str!("spline.cu"), &text)
    }

    fn key(&self, entry: Entry) -> u64 {
        let mut h = KeyHasher(0x5b1_2e01);
        "spline_filter".hash(&mut h);
        self.input.code().hash(&mut h);
        self.order.hash(&mut h);
        entry.hash(&mut h);
        h.finish()
    }

    /// Launches `entry` on `blocks` blocks (at most four resident waves, the kernels striding
    /// over the rest) of `threads` threads.
    ///
    /// # Safety
    /// `params` are `entry`'s parameters, and its accesses stay inside their views.
    unsafe fn launch<'a, P: KernelParams<'a>>(
        &self,
        lane: &CudaLane<'_>,
        entry: Entry,
        blocks: usize,
        threads: usize,
        params: &P,
    ) -> Result<()> {
        let st = lane.st;
        let k = crate::jit::library_kernel(st, self.key(entry), || self.kernel(entry))?;
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize * 4;
        let grid = blocks.clamp(1, resident.min(i32::MAX as usize)) as u32;
        let a = params.args();
        // SAFETY: the words are `entry`'s parameters in order; the caller's contract.
        unsafe {
            lane.stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (threads as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }

    fn cpu<TI: Px, W: Work>(&self, x: &[TI], y: &mut [W]) {
        let (n, inner) = (self.n, self.inner);
        let ps: Vec<W> = poles(self.order).iter().map(|&z| W::from_f64(z)).collect();
        let one = W::from_f64(1.0);
        let mut gain = one;
        for &z in &ps {
            gain = gain * ((one - z) * (one - one / z));
        }
        let init = init(self.mode);
        // One chunk per outer index; its lines are the `inner` interleaved columns.
        y.par_chunks_mut((n * inner).max(1))
            .enumerate()
            .for_each(|(o, block)| {
                let xb = &x[o * n * inner..(o + 1) * n * inner];
                for i in 0..inner {
                    if n < 2 {
                        for k in 0..n {
                            block[k * inner + i] = xb[k * inner + i].load();
                        }
                        continue;
                    }
                    for k in 0..n {
                        block[k * inner + i] = xb[k * inner + i].load::<W>() * gain;
                    }
                    for &z in &ps {
                        pole(&mut block[i..], n, inner, z, init);
                    }
                }
            });
    }

    fn run_typed<TI: Px>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let v: &[TI] = bytemuck::cast_slice(inputs[0].buf.bytes());
        let off = inputs[0].layout.offset;
        let x = &v[off..off + self.len()];
        if elem::wide(self.input) {
            let o: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
            self.cpu(x, &mut o[..self.len()]);
        } else {
            let o: &mut [f32] = bytemuck::cast_slice_mut(out.bytes_mut());
            self.cpu(x, &mut o[..self.len()]);
        }
    }
}

impl LibraryCall for SplineFilter {
    fn name(&self) -> &str {
        "spline_filter1d"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        match self.input {
            DType::U8 => self.run_typed::<u8>(inputs, out),
            DType::U16 => self.run_typed::<u16>(inputs, out),
            DType::F16 => self.run_typed::<f16>(inputs, out),
            DType::F32 => self.run_typed::<f32>(inputs, out),
            _ => self.run_typed::<f64>(inputs, out),
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
        if self.len() == 0 {
            return Ok(());
        }
        let i = |v: usize| v as i64;
        let x = ReadBuf::part(
            inputs[0].buf,
            self.input,
            inputs[0].layout.offset,
            self.len(),
        )?;
        let y = WriteBuf::part(out, self.work(), 0, self.len())?;
        let lines = self.outer * self.inner;
        if !self.segmented() {
            let params = SplineArgs {
                x,
                y,
                outer: i(self.outer),
                n: i(self.n),
                inner: i(self.inner),
                init: init(self.mode),
            };
            let grid = lines.div_ceil(THREADS);
            // SAFETY: input and output views hold `outer * n * inner` elements (checked
            // above). Each thread reads and writes only the elements `o n inner + k inner + i`
            // (`k < n`) of its own lines.
            return unsafe { self.launch(lane, Entry::Line, grid, THREADS, &params) };
        }
        let nseg = self.n.div_ceil(self.seg_len());
        let nflag = lines.checked_mul(nseg).ok_or_else(|| {
            Error::InvalidArgument(format!("spline_filter: {lines} lines of {nseg} segments"))
        })?;
        // SAFETY: `spl_seg` writes the flag of every segment of every line before `spl_fix`
        // reads them.
        let flags = unsafe { DevBuf::alloc(st, stream, DType::U8, nflag) }?;
        let seg = SegArgs {
            x,
            y,
            flag: WriteBuf::all(&flags)?,
            outer: i(self.outer),
            n: i(self.n),
            inner: i(self.inner),
            init: init(self.mode),
            nseg: i(nseg),
        };
        // SAFETY: input and output views hold `outer * n * inner` elements and the flags
        // `lines * nseg` (checked above). A warp reads the elements `o n inner + k inner + i`
        // (`k < n`) of its 32 lines and writes those of its own segment, and one flag a line.
        unsafe {
            self.launch(
                lane,
                Entry::Seg,
                lines.div_ceil(SEG_THREADS) * nseg,
                SEG_THREADS,
                &seg,
            )
        }?;
        let fix = FixArgs {
            x,
            y,
            flag: ReadBuf::all(&flags)?,
            outer: i(self.outer),
            n: i(self.n),
            inner: i(self.inner),
            init: init(self.mode),
            nseg: i(nseg),
        };
        // SAFETY: as for `spl_filter`; the flags are read below `lines * nseg`.
        unsafe { self.launch(lane, Entry::Fix, lines.div_ceil(THREADS), THREADS, &fix) }?;
        drop(flags);
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        if self.segmented() {
            vec![
                self.kernel(Entry::Seg).source,
                self.kernel(Entry::Fix).source,
            ]
        } else {
            vec![self.kernel(Entry::Line).source]
        }
    }
}
