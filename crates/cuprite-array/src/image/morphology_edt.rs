//! SciPy's `distance_transform_edt` (distances only): the exact Euclidean distance of every
//! set element to the nearest zero, with `sampling`, by one library call an axis
//! ([`EdtPass`]: Felzenszwalb and Huttenlocher's lower envelope of parabolas in
//! `morphology_edt.cu`, and its CPU twin computing the same expressions in the same order).
//! On CUDA a pass runs one thread a line, or one block a line when the lines are few (each
//! line's envelope built by one thread, its outputs evaluated by the whole block); both forms
//! give the CPU's values bit for bit.

use crate::array::Array;
use crate::codegen::{KernelParams, KernelSource, MaybeRead, ReadBuf, WriteBuf, kernel_params};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Threads a block of the thread-a-line form.
const THREADS: usize = 128;
/// Threads a block of the block-a-line form.
const BLOCK_THREADS: usize = 64;
/// The block-a-line form runs when there are at most this many lines a multiprocessor (the
/// blocks of it resident at once): fewer lines than that leave the thread-a-line form with
/// too few threads to hide its memory latency, while a block spreads each line's outputs.
const BLOCK_LINES_PER_SM: usize = 32;

kernel_params! {
    /// One pass of the transform along an axis (see `morphology_edt.cu`).
    pub(super) struct EdtArgs<'a> {
        m: MaybeRead<'a> as "unsigned char",
        g: MaybeRead<'a> as "double",
        d: WriteBuf<'a> as "double",
        v: WriteBuf<'a> as "int",
        z: WriteBuf<'a> as "double",
        outer: i64,
        n: i64,
        inner: i64,
        s: f64,
    }
}

/// The squared distance transform along the middle axis of `[outer, n, inner]` with sampling
/// `s`; the first pass reads a `u8` mask, the others `f64` squared distances; the last
/// takes the square root.
#[derive(Debug)]
pub(crate) struct EdtPass {
    pub outer: usize,
    pub n: usize,
    pub inner: usize,
    pub s: f64,
    pub first: bool,
    pub last: bool,
}

impl EdtPass {
    fn total(&self) -> usize {
        self.outer * self.n * self.inner
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let want = if self.first { DType::U8 } else { DType::F64 };
        let ok = inputs.len() == 1
            && inputs[0].dtype == want
            && crate::shape::numel(inputs[0].shape) == self.total()
            && self.n <= i32::MAX as usize;
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "distance_transform_edt pass made for {} x {} x {} of {want} was given {:?}",
                self.outer,
                self.n,
                self.inner,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    /// The kernel of one line a thread, or of one line a block (`block`).
    fn kernel(&self, block: bool) -> KernelSource {
        let name = format!(
            "cuprite_edt_pass{}{}{}",
            if self.first { "_first" } else { "" },
            if self.last { "_last" } else { "" },
            if block { "_block" } else { "" }
        );
        let (threads, func) = if block {
            (BLOCK_THREADS, "edt_pass_block")
        } else {
            (THREADS, "edt_pass")
        };
        let header = format!(
            "typedef long long i64t;\nconstexpr bool EDT_FIRST = {};\nconstexpr bool EDT_LAST = {};\n\
             #define EDT_INF __longlong_as_double(0x7ff0000000000000LL)\n",
            self.first, self.last
        );
        let text = format!(
            "{header}{}{}{}",
            include_str!("morphology_edt.cu"),
            crate::codegen::MARKER,
            crate::codegen::entry::<EdtArgs>(&name, &threads.to_string(), func)
        );
        KernelSource::new(name, text)
    }

    /// One line: `f(i)` its values, `out(i, r)` its results.
    fn line(
        &self,
        f: impl Fn(usize) -> f64,
        mut out: impl FnMut(usize, f64),
        v: &mut [usize],
        z: &mut [f64],
    ) {
        let s = self.s;
        let sq = |a: f64| a * a;
        let mut k: isize = -1;
        for q in 0..self.n {
            let fq = f(q);
            // Infinite (or NaN) values take no part.
            if fq.is_nan() || fq == f64::INFINITY {
                continue;
            }
            let xq = q as f64 * s;
            if k < 0 {
                k = 0;
                v[0] = q;
                z[0] = f64::NEG_INFINITY;
                z[1] = f64::INFINITY;
                continue;
            }
            let mut sv;
            loop {
                let p = v[k as usize];
                let xp = p as f64 * s;
                sv = ((fq + sq(xq)) - (f(p) + sq(xp))) / (2.0 * (xq - xp));
                if sv <= z[k as usize] {
                    k -= 1;
                } else {
                    break;
                }
            }
            k += 1;
            v[k as usize] = q;
            z[k as usize] = sv;
            z[k as usize + 1] = f64::INFINITY;
        }
        let mut j = 0usize;
        for q in 0..self.n {
            let mut r = f64::INFINITY;
            if k >= 0 {
                let xq = q as f64 * s;
                while (j as isize) < k && z[j + 1] < xq {
                    j += 1;
                }
                let p = v[j];
                r = sq(xq - p as f64 * s) + f(p);
            }
            out(q, if self.last { r.sqrt() } else { r });
        }
    }

    fn cpu(&self, m: Option<&[u8]>, g: Option<&[f64]>, d: &mut [f64]) {
        let (n, inner) = (self.n, self.inner);
        d.par_chunks_mut((n * inner).max(1))
            .enumerate()
            .for_each(|(o, block)| {
                let mut v = vec![0usize; n];
                let mut z = vec![0.0f64; n + 1];
                let base = o * n * inner;
                for c in 0..inner {
                    let f = |i: usize| match (m, g) {
                        (Some(m), _) if m[base + i * inner + c] != 0 => f64::INFINITY,
                        (Some(_), _) => 0.0,
                        (_, Some(g)) => g[base + i * inner + c],
                        _ => 0.0,
                    };
                    self.line(f, |i, r| block[i * inner + c] = r, &mut v, &mut z);
                }
            });
    }
}

impl LibraryCall for EdtPass {
    fn name(&self) -> &str {
        "distance_transform_edt"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        let total = self.total();
        if total == 0 {
            return Ok(());
        }
        let off = inputs[0].layout.offset;
        let d: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
        if self.first {
            let m = &inputs[0].buf.bytes()[off..off + total];
            self.cpu(Some(m), None, &mut d[..total]);
        } else {
            let g: &[f64] = bytemuck::cast_slice(inputs[0].buf.bytes());
            self.cpu(None, Some(&g[off..off + total]), &mut d[..total]);
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
        let total = self.total();
        if total == 0 {
            return Ok(());
        }
        let lines = self.outer * self.inner;
        let zlen = lines.checked_mul(self.n + 1).ok_or_else(|| {
            Error::InvalidArgument(format!("distance_transform_edt: {lines} lines overflow"))
        })?;
        // SAFETY: the pass writes a line's `v` and `z` words before it reads them (`v[k]`,
        // `z[k]` only up to the `k` it has set, `z[k + 1]` set with it).
        let vbuf = unsafe { DevBuf::alloc(st, stream, DType::I32, total) }?;
        // SAFETY: as above.
        let zbuf = unsafe { DevBuf::alloc(st, stream, DType::F64, zlen) }?;
        let off = inputs[0].layout.offset;
        let (m, g) = if self.first {
            (
                Some(ReadBuf::part(inputs[0].buf, DType::U8, off, total)?),
                None,
            )
        } else {
            (
                None,
                Some(ReadBuf::part(inputs[0].buf, DType::F64, off, total)?),
            )
        };
        let i = |v: usize| v as i64;
        let params = EdtArgs {
            m,
            g,
            d: WriteBuf::part(out, DType::F64, 0, total)?,
            v: WriteBuf::part(&vbuf, DType::I32, 0, total)?,
            z: WriteBuf::part(&zbuf, DType::F64, 0, zlen)?,
            outer: i(self.outer),
            n: i(self.n),
            inner: i(self.inner),
            s: self.s,
        };
        let block = lines <= st.sms as usize * BLOCK_LINES_PER_SM;
        let mut h = KeyHasher(0x1a9e_2000);
        (self.first, self.last, block).hash(&mut h);
        let k = crate::jit::library_kernel(st, h.finish(), || self.kernel(block))?;
        let resident = (st.sms * k.blocks_per_sm).max(1) as u64 * 4;
        let (threads, per_block) = if block {
            (BLOCK_THREADS, 1)
        } else {
            (THREADS, THREADS)
        };
        let grid =
            (lines.div_ceil(per_block) as u64).clamp(1, resident.min(i32::MAX as u64)) as u32;
        let a = params.args();
        // SAFETY: the input and `d` hold `outer * n * inner` elements, `v` `lines * n` and `z`
        // `lines * (n + 1)` (ranges checked inside their allocations); a thread (or a block, in
        // the block form) touches only its line's values (`base + i * inner`, i < n) and its
        // line's scratch.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (threads as u32, 1, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        drop((vbuf, zbuf));
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel(false).source, self.kernel(true).source]
    }
}

/// The keyword arguments of [`distance_transform_edt_with`]: SciPy's `sampling` (one spacing
/// an image axis, or one for all; default 1), and how many trailing axes an image has (default
/// all; leading axes are then a batch).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EdtOpts {
    /// The spacing along each image axis (empty: 1; one value: every axis).
    pub sampling: Vec<f64>,
    /// How many trailing axes an image has (`None`: every axis).
    pub image_rank: Option<usize>,
}

impl EdtOpts {
    /// SciPy's defaults.
    #[must_use]
    pub fn new() -> EdtOpts {
        EdtOpts::default()
    }
    /// SciPy's `sampling`.
    #[must_use]
    pub fn sampling(self, s: &[f64]) -> EdtOpts {
        EdtOpts {
            sampling: s.to_vec(),
            ..self
        }
    }
    /// Images of the trailing `r` axes (a batch over the others).
    #[must_use]
    pub fn image_rank(self, r: usize) -> EdtOpts {
        EdtOpts {
            image_rank: Some(r),
            ..self
        }
    }
}

/// SciPy's `distance_transform_edt` (distances): for every non-zero element, the Euclidean
/// distance to the nearest zero element (0 at zeros; infinity in an image without zeros).
///
/// ```
/// use cuprite_array::{Array, image::distance_transform_edt};
/// let x = Array::from_slice(&[0u8, 1, 1, 1, 1, 1, 1, 1, 1], &[3, 3])?;
/// let d = distance_transform_edt(&x)?.to_vec()?;
/// assert_eq!(d[1], 1.0);
/// assert_eq!(d[8], 8f64.sqrt());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn distance_transform_edt<T: Element>(x: &Array<T>) -> Result<Array<f64>> {
    distance_transform_edt_with(x, EdtOpts::default())
}

/// [`distance_transform_edt`] with SciPy's `sampling`, batched over leading axes.
///
/// ```
/// use cuprite_array::{Array, image::{EdtOpts, distance_transform_edt_with}};
/// let x = Array::from_slice(&[0u8, 1, 1, 1, 1, 0], &[2, 3])?;
/// let d = distance_transform_edt_with(&x, EdtOpts::new().sampling(&[2.0]).image_rank(1))?;
/// assert_eq!(d.to_vec()?, [0.0, 2.0, 4.0, 4.0, 2.0, 0.0]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn distance_transform_edt_with<T: Element>(x: &Array<T>, opts: EdtOpts) -> Result<Array<f64>> {
    let shape = x.shape().to_vec();
    let r = opts.image_rank.unwrap_or(shape.len());
    if r == 0 || r > shape.len() {
        return Err(Error::InvalidArgument(format!(
            "distance_transform_edt: image rank {r} for an array of shape {shape:?}"
        )));
    }
    let samp: Vec<f64> = match opts.sampling.len() {
        0 => vec![1.0; r],
        1 => vec![opts.sampling[0]; r],
        l if l == r => opts.sampling.clone(),
        l => {
            return Err(Error::InvalidArgument(format!(
                "distance_transform_edt: {l} sampling values for {r} image axes"
            )));
        }
    };
    if let Some(s) = samp.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        return Err(Error::InvalidArgument(format!(
            "distance_transform_edt: a sampling of {s} (each must be finite and > 0)"
        )));
    }
    let dev = x.device();
    let k = shape.len() - r;
    let mut cur = x.not_equal(T::default()).cast::<u8>().node.clone();
    for (j, a) in (k..shape.len()).rev().enumerate() {
        let call = Arc::new(EdtPass {
            outer: shape[..a].iter().product(),
            n: shape[a],
            inner: shape[a + 1..].iter().product(),
            s: samp[a - k],
            first: j == 0,
            last: j + 1 == r,
        });
        cur = Node::new(Op::Library(call, vec![cur]), DType::F64, shape.clone(), dev);
    }
    Ok(Array::from_node(cur))
}
