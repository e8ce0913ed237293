//! The library call of `interp`: one kernel (`interp.cu`) and its CPU twin on rayon, which
//! compute the same values (the same search result for sorted sample points, the same
//! arithmetic in the same order).

use crate::codegen::{
    BLOCK, Helpers, KernelParams, KernelSource, ReadBuf, WriteBuf, entry, kernel_params,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall};
use crate::shape::numel;
use crate::storage::{DevBuf, HostBuf};
use crate::util::KeyHasher;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// Sample points a block keeps in shared memory (`INTERP_SAMPLES` of the kernel).
const SAMPLES: usize = 2048;

kernel_params! {
    /// `interp`'s parameters: the `nq` queries `x`, the `n` sample points `xp` and their values
    /// `fp` (`WIDTH` parts each), the output, the stride of the points a block keeps, which
    /// ends take the first or last value (bit 0, bit 1), and the bit patterns of the values
    /// outside the range.
    struct InterpArgs<'a> {
        x: ReadBuf<'a> as "REAL",
        xp: ReadBuf<'a> as "REAL",
        fp: ReadBuf<'a> as "REAL",
        out: WriteBuf<'a> as "REAL",
        nq: u64,
        n: u64,
        stride: u64,
        defaults: u64,
        left_re: u64,
        left_im: u64,
        right_re: u64,
        right_im: u64,
    }
}

/// `interp` of `nq` queries (input 0, of `real` dtype) into `n` sample points (input 1, `real`)
/// with values (input 2, `real` or its complex type when `complex`). `left`/`right`: the
/// values outside the range, as `(re, im)` in `f64`; `None`: the first or last value.
#[derive(Debug)]
pub(crate) struct Interp {
    pub real: DType,
    pub complex: bool,
    pub nq: usize,
    pub n: usize,
    pub left: Option<(f64, f64)>,
    pub right: Option<(f64, f64)>,
}

impl Interp {
    fn width(&self) -> usize {
        1 + self.complex as usize
    }

    fn check<B>(&self, inputs: &[CallInput<'_, B>]) -> Result<()> {
        let fp = if self.complex {
            if self.real == DType::F64 {
                DType::C64
            } else {
                DType::C32
            }
        } else {
            self.real
        };
        let ok = inputs.len() == 3
            && inputs[0].dtype == self.real
            && numel(inputs[0].shape) == self.nq
            && inputs[1].dtype == self.real
            && numel(inputs[1].shape) == self.n
            && inputs[2].dtype == fp
            && numel(inputs[2].shape) == self.n
            && self.n >= 1;
        if !ok {
            return Err(Error::InvalidArgument(format!(
                "interp made for {} queries into {} points of {} was given {:?}",
                self.nq,
                self.n,
                self.real,
                inputs
                    .iter()
                    .map(|x| (x.dtype, x.shape.to_vec()))
                    .collect::<Vec<_>>()
            )));
        }
        Ok(())
    }

    fn key(&self) -> u64 {
        let mut h = KeyHasher(0x1a7e_0000);
        "interp".hash(&mut h);
        self.real.code().hash(&mut h);
        self.complex.hash(&mut h);
        h.finish()
    }

    fn stride(&self) -> usize {
        self.n.div_ceil(SAMPLES).max(1)
    }

    /// The kernel specialised for this call's types, taking [`InterpArgs`].
    pub(crate) fn kernel(&self) -> KernelSource {
        let double = self.real == DType::F64;
        let name = format!(
            "cuprite_interp_{}{}",
            self.real.name(),
            if self.complex { "_c" } else { "" }
        );
        let defines = format!(
            "#define REAL {}\n#define REAL_IS_DOUBLE {}\n#define WIDTH {}\n",
            if double { "double" } else { "float" },
            double as u8,
            self.width()
        );
        let body = format!(
            "{defines}{}{}",
            include_str!("interp.cu"),
            entry::<InterpArgs>(&name, &BLOCK.to_string(), "interp_body")
        );
        KernelSource::generated(name, &body, Helpers::default())
    }

    fn words(&self, w: Option<(f64, f64)>) -> (u64, u64) {
        let w = w.unwrap_or((0.0, 0.0));
        if self.real == DType::F64 {
            (w.0.to_bits(), w.1.to_bits())
        } else {
            ((w.0 as f32).to_bits() as u64, (w.1 as f32).to_bits() as u64)
        }
    }
}

/// Values the CPU twin computes in (`f32` or `f64`).
trait Real: Copy + PartialOrd + Send + Sync + bytemuck::Pod + std::fmt::Debug {
    fn from_f64(v: f64) -> Self;
    fn zero() -> Self;
    fn is_nan(self) -> bool;
    fn slope(f0: Self, f1: Self, x0: Self, x1: Self, complex: bool) -> Self;
    fn lerp(slope: Self, x: Self, x0: Self, x1: Self, f0: Self, f1: Self) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn zero() -> Self {
                0.0
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn slope(f0: $t, f1: $t, x0: $t, x1: $t, complex: bool) -> $t {
                if complex {
                    (f1 - f0) * (1.0 / (x1 - x0))
                } else {
                    (f1 - f0) / (x1 - x0)
                }
            }
            fn lerp(slope: $t, x: $t, x0: $t, x1: $t, f0: $t, f1: $t) -> $t {
                let r = slope * (x - x0) + f0;
                if !r.is_nan() {
                    return r;
                }
                let r = slope * (x - x1) + f1;
                if r.is_nan() && f0 == f1 { f0 } else { r }
            }
        }
    };
}
real!(f32);
real!(f64);

impl Interp {
    fn cpu<R: Real>(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) {
        let w = self.width();
        let part = |i: usize, len: usize| -> &[R] {
            let v: &[R] = bytemuck::cast_slice(inputs[i].buf.bytes());
            let off = inputs[i].layout.offset * if i == 2 { w } else { 1 };
            &v[off..off + len]
        };
        let (x, xp, fp) = (part(0, self.nq), part(1, self.n), part(2, self.n * w));
        let n = self.n;
        let side = |v: Option<(f64, f64)>, at: usize| match v {
            Some((re, im)) => [R::from_f64(re), R::from_f64(im)],
            None => [fp[at * w], fp[at * w + w - 1]],
        };
        let (left, right) = (side(self.left, 0), side(self.right, n - 1));
        let (lo_x, hi_x) = (xp[0], xp[n - 1]);
        let o: &mut [R] = bytemuck::cast_slice_mut(out.bytes_mut());
        o[..self.nq * w]
            .par_chunks_mut(w * 4096)
            .enumerate()
            .for_each(|(c, oc)| {
                for (k, r) in oc.chunks_mut(w).enumerate() {
                    let v = x[c * 4096 + k];
                    if v.is_nan() {
                        r[0] = v;
                        if w == 2 {
                            r[1] = R::zero();
                        }
                    } else if v > hi_x {
                        r.copy_from_slice(&right[..w]);
                    } else if v < lo_x {
                        r.copy_from_slice(&left[..w]);
                    } else {
                        let j = xp.partition_point(|&e| e <= v).max(1) - 1;
                        let x0 = xp[j];
                        if j == n - 1 || x0 == v {
                            r.copy_from_slice(&fp[j * w..j * w + w]);
                        } else {
                            let x1 = xp[j + 1];
                            for (ci, rc) in r.iter_mut().enumerate() {
                                let (f0, f1) = (fp[j * w + ci], fp[(j + 1) * w + ci]);
                                let s = R::slope(f0, f1, x0, x1, w == 2);
                                *rc = R::lerp(s, v, x0, x1, f0, f1);
                            }
                        }
                    }
                }
            });
    }
}

impl LibraryCall for Interp {
    fn name(&self) -> &str {
        "interp"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        self.check(inputs)?;
        match self.real {
            DType::F64 => self.cpu::<f64>(inputs, out),
            DType::F32 => self.cpu::<f32>(inputs, out),
            d => {
                return Err(Error::InvalidArgument(format!(
                    "interp of {d} (f32 and f64 only)"
                )));
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
        if self.nq == 0 {
            return Ok(());
        }
        let k = crate::jit::library_kernel(st, self.key(), || self.kernel())?;
        let part = |i: usize| {
            let x = &inputs[i];
            ReadBuf::part(x.buf, x.dtype, x.layout.offset, numel(x.shape))
        };
        let (lre, lim) = self.words(self.left);
        let (rre, rim) = self.words(self.right);
        let args = InterpArgs {
            x: part(0)?,
            xp: part(1)?,
            fp: part(2)?,
            out: WriteBuf::part(out, self.real, 0, self.nq * self.width())?,
            nq: self.nq as u64,
            n: self.n as u64,
            stride: self.stride() as u64,
            defaults: self.left.is_none() as u64 | (self.right.is_none() as u64) << 1,
            left_re: lre,
            left_im: lim,
            right_re: rre,
            right_im: rim,
        }
        .args();
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = self.nq.div_ceil(BLOCK as usize).clamp(1, resident * 2) as u32;
        // SAFETY: the words are `InterpArgs` in the entry point's order: the queries (`nq`
        // contiguous values of `real` from their offset), the `n >= 1` sample points and their
        // `n` values (`width` parts each), the output of `nq * width` parts, each view checked
        // inside its buffer; the sizes and the stride (`ceil(n / stride) <= INTERP_SAMPLES`,
        // the shared array's length). The kernel reads and writes only those, every buffer
        // declared with the launch.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (BLOCK, 1, 1),
                0,
                &args.words,
                &args.accesses(),
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
    use super::*;

    /// Every specialisation of the kernel compiles with NVRTC under the library's options
    /// (skipped without NVRTC), and its entry point takes `InterpArgs`.
    #[test]
    fn kernels_compile() {
        for (real, complex) in [
            (DType::F32, false),
            (DType::F64, false),
            (DType::F32, true),
            (DType::F64, true),
        ] {
            let call = Interp {
                real,
                complex,
                nq: 1,
                n: 1,
                left: None,
                right: None,
            };
            let s = call.kernel();
            assert!(s.source.contains(&format!("{}(", s.name)));
            assert!(
                s.source
                    .contains("interp_body(x, xp, fp, out, nq, n, stride, defaults")
            );
            if cuprite_driver::nvrtc::version().is_err() {
                continue;
            }
            for o in [
                crate::jit::compile_options(90, true),
                crate::jit::quick_compile_options(90),
            ] {
                if let Err(e) = cuprite_driver::nvrtc::compile(&s.source, &o) {
                    panic!("{e}\n{}", s.source);
                }
            }
        }
    }
}
