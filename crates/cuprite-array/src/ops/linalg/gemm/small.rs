//! Small single `f32` products on CUDA as one kernel of this crate (`small.cu`) instead of
//! cuBLASLt: for operands this small cuBLASLt's kernels spend most of their time on fixed
//! costs (and its heuristic adds a split-k reduction kernel), where one block per 8 × 16
//! output tile with the contraction staged in shared memory finishes sooner.
//! `Gemm::small_fits` says which products take it; `CUPRITE_ARRAY_SMALL_GEMM=0` (or
//! [`set_small_gemm`]) leaves every product to cuBLASLt.

use super::desc::{Act, Aux, Gemm, Operand};
use crate::codegen::{
    Helpers, KernelParams, KernelSource, MaybeRead, ReadBuf, WriteBuf, entry_waiting, kernel_params,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::jit::FastCompile;
use crate::storage::DevBuf;
use crate::util::EnvSwitch;
use crate::util::KeyHasher;
use cuprite_driver::blaslt::Order;
use std::hash::{Hash, Hasher};

/// The kernel's body.
const BODY: &str = include_str!("small.cu");
/// Threads of a block (`SG_THREADS` of `small.cu`).
const THREADS: u32 = 256;
/// Rows and columns of a block's output tile (`SG_BM`, `SG_BN`).
const TILE_M: usize = 8;
const TILE_N: usize = 16;
/// The envelope of the kernel, the sizes where it ran faster than cuBLASLt's choice: both
/// output dimensions at least 16, a contraction of 64 to 512, at most 32,768 outputs (256
/// blocks) and 2^24 multiply-adds.
const MIN_MN: usize = 16;
const MIN_K: usize = 64;
const MAX_K: usize = 512;
const MAX_OUTPUTS: usize = 1 << 15;
const MAX_MACS: usize = 1 << 24;

kernel_params! {
    /// `out = post_scale · act(alpha · A · B + bias) + post_beta · post`: A `m × k` and B `k ×
    /// n` through their strides, `out` and `post` `m × n` packed, `bias` `n` values, `bias`
    /// and `post` null when absent, `act` 0 (none), 1 (ReLU) or 2 (`tanh`).
    struct SmallArgs<'a> {
        a: ReadBuf<'a> as "float",
        b: ReadBuf<'a> as "float",
        bias: MaybeRead<'a> as "float",
        post: MaybeRead<'a> as "float",
        out: WriteBuf<'a> as "float",
        m: i64,
        n: i64,
        k: i64,
        sam: i64,
        sak: i64,
        sbk: i64,
        sbn: i64,
        alpha: f64,
        act: i64,
        post_scale: f64,
        post_beta: f64,
    }
}

static SMALL: EnvSwitch = EnvSwitch::new("CUPRITE_ARRAY_SMALL_GEMM", true);

/// Lets small single `f32` products on CUDA run this crate's own kernel instead of cuBLASLt
/// (on by default; `CUPRITE_ARRAY_SMALL_GEMM=0` starts with it off). The two sum the
/// contraction in different orders, so results may differ in rounding. Applies to products
/// run after the call.
///
/// ```
/// use cuprite_array::linalg::{set_small_gemm, small_gemm};
/// let before = small_gemm();
/// set_small_gemm(false);
/// assert!(!small_gemm());
/// set_small_gemm(before);
/// ```
pub fn set_small_gemm(on: bool) {
    SMALL.set(on);
}

/// Whether small `f32` products take this crate's own kernel (see [`set_small_gemm`]).
pub fn small_gemm() -> bool {
    SMALL.get()
}

fn name() -> &'static str {
    "cuprite_small_gemm_f32"
}

fn key() -> u64 {
    let mut h = KeyHasher(0x5a11_6e34);
    "small_gemm_f32 act post".hash(&mut h);
    (THREADS, TILE_M, TILE_N).hash(&mut h);
    h.finish()
}

fn source() -> KernelSource {
    let text = format!(
        "{BODY}{}",
        entry_waiting::<SmallArgs>(name(), &THREADS.to_string(), "small_gemm_f32")
    );
    // Fully optimised: the staging loops must be unrolled for their loads to overlap.
    KernelSource::generated(name().to_string(), &text, Helpers::default())
        .at_level(FastCompile::Off)
        .waiting()
}

/// The row and column strides (in elements) of an operand's matrix.
fn strides(o: &Operand) -> (usize, usize) {
    match o.order {
        Order::RowMajor => (o.ld, 1),
        Order::ColMajor => (1, o.ld),
    }
}

impl Gemm {
    /// Whether this product takes the small kernel: `f32` without TF32, one product, no
    /// addend, no auxiliary result, no activation but ReLU or `tanh` (with or without a
    /// [`Post`] stage), and sizes inside the envelope above. A product that only this kernel
    /// can run ([`Gemm::needs_small`]) takes it whatever the switch says.
    pub(super) fn small_fits(&self) -> bool {
        self.small_shape() && small_gemm()
    }

    /// [`small_fits`](Self::small_fits) without the switch.
    pub(super) fn small_shape(&self) -> bool {
        self.dtype == DType::F32
            && !self.tf32
            && self.count() == 1
            && !self.addend
            && self.aux == Aux::None
            && matches!(self.act, Act::None | Act::Relu | Act::Tanh)
            && self.m >= MIN_MN
            && self.n >= MIN_MN
            && (MIN_K..=MAX_K).contains(&self.k)
            && self
                .m
                .checked_mul(self.n)
                .is_some_and(|p| p <= MAX_OUTPUTS && p * self.k <= MAX_MACS)
    }

    /// Runs the product with the small kernel on the lane's stream: A and B are the operands
    /// `ops` describes (checked against their buffers by `operands`), `bias` and `post` the
    /// buffer and offset of the bias and of the post addend when the product has them, `out`
    /// the `m × n` result.
    pub(super) fn run_small(
        &self,
        lane: &CudaLane<'_>,
        ops: &[Operand; 2],
        (a, b): (&DevBuf, &DevBuf),
        bias: Option<(&DevBuf, usize)>,
        post: Option<(&DevBuf, usize)>,
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        let (m, n, k) = (self.m, self.n, self.k);
        let plane = m * n;
        if !self.small_shape()
            || out.len() != plane
            || self.bias != bias.is_some()
            || self.post.add != post.is_some()
        {
            return Err(Error::InvalidArgument(format!(
                "the small product kernel was given a {m} × {n} × {k} {} product ({} products, \
                 bias {}, given one {}, post addend {}, given one {}) and an output of {} \
                 elements",
                self.dtype,
                self.count(),
                self.bias,
                bias.is_some(),
                self.post.add,
                post.is_some(),
                out.len()
            )));
        }
        // The elements each operand's reads span from its offset (checked against the buffer
        // by `operands`, and again by the views).
        let span = |o: &Operand, r: usize, c: usize| -> Result<usize> {
            o.end(r, c, 1)
                .and_then(|e| e.checked_sub(o.offset))
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "a small product operand of {r} × {c} at offset {} overflows",
                        o.offset
                    ))
                })
        };
        let av = ReadBuf::part(a, DType::F32, ops[0].offset, span(&ops[0], m, k)?)?;
        let bv = ReadBuf::part(b, DType::F32, ops[1].offset, span(&ops[1], k, n)?)?;
        let biasv = match bias {
            Some((buf, off)) => Some(ReadBuf::part(buf, DType::F32, off, n)?),
            None => None,
        };
        let postv = match post {
            Some((buf, off)) => Some(ReadBuf::part(buf, DType::F32, off, plane)?),
            None => None,
        };
        let (sam, sak) = strides(&ops[0]);
        let (sbk, sbn) = strides(&ops[1]);
        let kern = crate::jit::library_kernel(st, key(), source)?;
        let args = SmallArgs {
            a: av,
            b: bv,
            bias: biasv,
            post: postv,
            out: WriteBuf::part(out, DType::F32, 0, plane)?,
            m: m as i64,
            n: n as i64,
            k: k as i64,
            sam: sam as i64,
            sak: sak as i64,
            sbk: sbk as i64,
            sbn: sbn as i64,
            alpha: self.alpha,
            act: match self.act {
                Act::Relu => 1,
                Act::Tanh => 2,
                _ => 0,
            },
            post_scale: self.post.scale,
            post_beta: self.post.beta,
        }
        .args();
        let grid = (n.div_ceil(TILE_N) as u32, m.div_ceil(TILE_M) as u32, 1);
        // SAFETY: the words are `SmallArgs` in the entry point's order. The kernel reads A's
        // element (i, p) at `i·sam + p·sak` for i < m, p < k, which lies inside the span
        // `Operand::end` gives for an `m × k` matrix of that order and leading dimension (and
        // likewise B's (p, j) for p < k, j < n), reads `bias[j]` for j < n and `post[i·n + j]`
        // and writes `out[i·n + j]` for i < m, j < n: all inside the views declared with the
        // launch. The
        // grid covers the `m × n` output in `TILE_M × TILE_N` tiles (at most 2^15 outputs, so
        // both grid dimensions fit), each block of `THREADS` threads as `small.cu` requires.
        unsafe {
            crate::jit::launch_packed(
                st,
                stream,
                &kern,
                grid,
                (THREADS, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        }?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::desc::Post;
    use super::*;

    #[test]
    fn source_names_its_entry() {
        let s = source();
        assert!(
            s.source
                .contains(&format!("void __launch_bounds__({THREADS}) {}(", s.name))
        );
        assert!(s.source.contains("small_gemm_f32("));
        assert!(s.grid_wait);
        assert!(
            crate::codegen::waits_first(&s.source, &s.name),
            "{}",
            s.source
        );
    }

    /// The kernel compiles with NVRTC under the library's options (skipped without NVRTC).
    #[test]
    fn compiles() {
        if cuprite_driver::nvrtc::version().is_err() {
            return;
        }
        let s = source();
        // Below 9.0 the grid wait compiles to nothing.
        for o in [
            crate::jit::compile_options(90, true),
            crate::jit::quick_compile_options(90),
            crate::jit::compile_options(80, true),
        ] {
            if let Err(e) = cuprite_driver::nvrtc::compile(&s.source, &o) {
                panic!("{e}\n{}", s.source);
            }
        }
    }

    /// The envelope: single f32 products of the sizes measured faster, nothing else.
    #[test]
    fn envelope() {
        let g = |m: usize, n: usize, k: usize| Gemm {
            dtype: DType::F32,
            m,
            n,
            k,
            batch: Vec::new(),
            alpha: 1.0,
            bias: true,
            act: Act::None,
            tf32: false,
            addend: false,
            beta: 0.0,
            aux: Aux::None,
            post: Post::NONE,
        };
        assert!(g(64, 256, 256).small_shape());
        assert!(g(128, 256, 512).small_shape());
        assert!(g(64, 64, 64).small_shape());
        assert!(!g(8, 256, 256).small_shape());
        assert!(!g(256, 256, 256).small_shape());
        assert!(!g(64, 256, 32).small_shape());
        assert!(!g(64, 256, 1024).small_shape());
        assert!(!g(512, 512, 128).small_shape());
        assert!(
            !Gemm {
                tf32: true,
                ..g(64, 256, 256)
            }
            .small_shape()
        );
        assert!(
            !Gemm {
                dtype: DType::F64,
                ..g(64, 256, 256)
            }
            .small_shape()
        );
        assert!(
            Gemm {
                act: Act::Tanh,
                post: Post {
                    scale: 0.5,
                    add: true,
                    beta: 0.5,
                },
                ..g(64, 256, 256)
            }
            .small_shape()
        );
        assert!(
            !Gemm {
                act: Act::GeluTanh,
                ..g(64, 256, 256)
            }
            .small_shape()
        );
        assert!(
            !Gemm {
                batch: vec![2],
                ..g(64, 256, 256)
            }
            .small_shape()
        );
    }
}
