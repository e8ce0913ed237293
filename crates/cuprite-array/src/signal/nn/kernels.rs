//! The typed descriptions of the convolution's and the pooling's kernels (`lower.cu`,
//! `winograd.cu`, `pool.cu`): each kernel's parameters as one struct, its source (the element type's typed
//! header, the family's `.cu` body, the rendered entry point) and cache key, and the launch
//! over positions within a plane (`x`) and planes (`y`).

use crate::codegen::{
    Helpers, KernelParams, KernelSource, MaybeRead, ReadBuf, WriteBuf, entry, kernel_params,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::util::KeyHasher;
use std::hash::{Hash, Hasher};

/// Threads a block (`x` times `y`).
const THREADS: usize = 256;

kernel_params! {
    /// The lowering of `planes` input planes into their patches (see `lower.cu`).
    pub(super) struct Im2colArgs<'a> {
        x: ReadBuf<'a> as "S",
        col: WriteBuf<'a> as "S",
        planes: i64, c: i64,
        i0: i64, i1: i64, i2: i64,
        r0: i64, r1: i64, r2: i64,
        o0: i64, o1: i64, o2: i64,
        st0: i64, st1: i64, st2: i64,
        pd0: i64, pd1: i64, pd2: i64,
        dl0: i64, dl1: i64, dl2: i64,
        sn: i64, sr: i64,
        pg: i64,
    }
}

kernel_params! {
    /// The gather of lowered gradients onto `planes` input planes (see `lower.cu`).
    pub(super) struct Col2imArgs<'a> {
        col: ReadBuf<'a> as "S",
        dx: WriteBuf<'a> as "S",
        planes: i64, c: i64,
        i0: i64, i1: i64, i2: i64,
        r0: i64, r1: i64, r2: i64,
        o0: i64, o1: i64, o2: i64,
        st0: i64, st1: i64, st2: i64,
        pd0: i64, pd1: i64, pd2: i64,
        dl0: i64, dl1: i64, dl2: i64,
        sn: i64, sr: i64,
        pg: i64,
    }
}

kernel_params! {
    /// `dst[b, a, q] = src[a, b, q]` for `a x b` planes of `p` values.
    pub(super) struct SwapArgs<'a> {
        src: ReadBuf<'a> as "S",
        dst: WriteBuf<'a> as "S",
        a: i64, b: i64, p: i64,
    }
}

kernel_params! {
    /// `dst[pl, j, i] = src[pl, i, j]` for `planes` planes of `a x b` values (see `lower.cu`).
    pub(super) struct TileSwapArgs<'a> {
        src: ReadBuf<'a> as "S",
        dst: WriteBuf<'a> as "S",
        a: i64, b: i64, planes: i64,
    }
}

kernel_params! {
    /// The images' partial sums of the split weight gradient added up (see `lower.cu`).
    pub(super) struct TapSumArgs<'a> {
        part: ReadBuf<'a> as "float",
        acc: WriteBuf<'a> as "float",
        dw: WriteBuf<'a> as "S",
        nb: i64, k: i64, c: i64, rest: i64, parts: i64,
        first: i64, last: i64,
    }
}

kernel_params! {
    /// The bias (optional) and activation over `planes` planes of `p` values, in place.
    pub(super) struct BiasActArgs<'a> {
        y: WriteBuf<'a> as "S",
        bias: MaybeRead<'a> as "S",
        planes: i64, k: i64, p: i64, relu: i64,
    }
}

kernel_params! {
    /// Winograd's transform of `k x c` kernels of `3 x 3`, filters `ld` and channels `cs` apart
    /// (see `winograd.cu`).
    pub(super) struct WinoFilterArgs<'a> {
        w: ReadBuf<'a> as "S",
        u: WriteBuf<'a> as "S",
        k: i64, c: i64, ld: i64, cs: i64, flip0: i64, flip1: i64,
    }
}

kernel_params! {
    /// Winograd's transform of the input windows of `tiles` tiles over `c` channels (see
    /// `winograd.cu`).
    pub(super) struct WinoInputArgs<'a> {
        x: ReadBuf<'a> as "S",
        v: WriteBuf<'a> as "S",
        c: i64, h: i64, w: i64, th: i64, tw: i64, tiles: i64, p0: i64, p1: i64,
    }
}

kernel_params! {
    /// Winograd's inverse transform of the products of `tiles` tiles of `k` filters into the
    /// output (see `winograd.cu`).
    pub(super) struct WinoOutputArgs<'a> {
        m: ReadBuf<'a> as "S",
        y: WriteBuf<'a> as "S",
        k: i64, oh: i64, ow: i64, th: i64, tw: i64, tiles: i64,
    }
}

kernel_params! {
    /// Max (`avg` 0) or average pooling of `planes` planes (see `pool.cu`).
    pub(super) struct PoolArgs<'a> {
        x: ReadBuf<'a> as "S",
        y: WriteBuf<'a> as "S",
        planes: i64,
        i0: i64, i1: i64, i2: i64,
        k0: i64, k1: i64, k2: i64,
        o0: i64, o1: i64, o2: i64,
        st0: i64, st1: i64, st2: i64,
        pd0: i64, pd1: i64, pd2: i64,
        avg: i64, include_pad: i64,
    }
}

kernel_params! {
    /// The pooling's gradient onto `planes` input planes (`x` only for max pooling).
    pub(super) struct PoolGradArgs<'a> {
        x: MaybeRead<'a> as "S",
        dy: ReadBuf<'a> as "S",
        dx: WriteBuf<'a> as "S",
        planes: i64,
        i0: i64, i1: i64, i2: i64,
        k0: i64, k1: i64, k2: i64,
        o0: i64, o1: i64, o2: i64,
        st0: i64, st1: i64, st2: i64,
        pd0: i64, pd1: i64, pd2: i64,
        avg: i64, include_pad: i64,
    }
}

/// The kernels of the family, each an entry point over one device function of a `.cu` body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum NnKernel {
    Im2col,
    Col2im,
    Swap,
    TileSwap,
    BiasAct,
    TapSum,
    Pool,
    PoolGrad,
    WinoFilter,
    WinoInput,
    WinoOutput,
}

impl NnKernel {
    /// The device function the entry calls.
    fn func(self) -> &'static str {
        match self {
            NnKernel::Im2col => "nn_im2col",
            NnKernel::Col2im => "nn_col2im",
            NnKernel::Swap => "nn_swap",
            NnKernel::TileSwap => "nn_tile_swap",
            NnKernel::BiasAct => "nn_bias_act",
            NnKernel::TapSum => "nn_tap_sum",
            NnKernel::Pool => "nn_pool",
            NnKernel::PoolGrad => "nn_pool_grad",
            NnKernel::WinoFilter => "nn_wino_filter",
            NnKernel::WinoInput => "nn_wino_input",
            NnKernel::WinoOutput => "nn_wino_output",
        }
    }

    fn body(self) -> &'static str {
        match self {
            NnKernel::Pool | NnKernel::PoolGrad => include_str!("pool.cu"),
            NnKernel::WinoFilter | NnKernel::WinoInput | NnKernel::WinoOutput => {
                include_str!("winograd.cu")
            }
            _ => include_str!("lower.cu"),
        }
    }

    fn entry(self, name: &str) -> String {
        let b = THREADS.to_string();
        match self {
            NnKernel::Im2col => entry::<Im2colArgs>(name, &b, self.func()),
            NnKernel::Col2im => entry::<Col2imArgs>(name, &b, self.func()),
            NnKernel::Swap => entry::<SwapArgs>(name, &b, self.func()),
            NnKernel::TileSwap => entry::<TileSwapArgs>(name, &b, self.func()),
            NnKernel::BiasAct => entry::<BiasActArgs>(name, &b, self.func()),
            NnKernel::TapSum => entry::<TapSumArgs>(name, &b, self.func()),
            NnKernel::Pool => entry::<PoolArgs>(name, &b, self.func()),
            NnKernel::PoolGrad => entry::<PoolGradArgs>(name, &b, self.func()),
            NnKernel::WinoFilter => entry::<WinoFilterArgs>(name, &b, self.func()),
            NnKernel::WinoInput => entry::<WinoInputArgs>(name, &b, self.func()),
            NnKernel::WinoOutput => entry::<WinoOutputArgs>(name, &b, self.func()),
        }
    }

    /// The kernel's source for elements of `d` (`f16`, `bf16`, `f32` or `f64`).
    pub(super) fn source(self, d: DType) -> Result<KernelSource> {
        let name = format!("cuprite_{}_{}", self.func(), d.name());
        let src = format!("{}{}{}", header(d)?, self.body(), self.entry(&name));
        Ok(KernelSource::generated(name, &src, Helpers::of_dtype(d)))
    }

    fn key(self, d: DType) -> u64 {
        let mut h = KeyHasher(0x4e4e_c0de);
        self.func().hash(&mut h);
        d.code().hash(&mut h);
        h.finish()
    }

    /// Launches this kernel for `d` with `params` on `lane`: threads over `span` items of a
    /// plane (`x`: positions, or for the lowering kernels groups of [`lane_width`] positions)
    /// and `planes` planes (`y`), each a grid-stride loop in the kernel.
    ///
    /// # Safety
    /// `params` is this kernel's parameter struct, every buffer in it a checked view
    /// (`ReadBuf::part`, `WriteBuf::part`), and the kernel, given these parameters, reads and
    /// writes only inside those views.
    pub(super) unsafe fn launch<'a, P: KernelParams<'a>>(
        self,
        lane: &CudaLane<'_>,
        d: DType,
        params: &P,
        span: usize,
        planes: usize,
    ) -> Result<()> {
        if span == 0 || planes == 0 {
            return Ok(());
        }
        let src = self.source(d)?;
        let k = crate::jit::library_kernel(lane.st, self.key(d), move || src)?;
        let (bx, by) = block_shape(span, planes);
        let gx = span.div_ceil(bx).min(i32::MAX as usize) as u32;
        let gy = planes.div_ceil(by).min(65_535) as u32;
        let a = params.args();
        // SAFETY: the caller's contract: the buffers are checked views and the kernel stays
        // inside them for these parameters; the grid is within the device's limits.
        unsafe {
            lane.stream.launch_packed(
                &k.func,
                (gx, gy, 1),
                (bx as u32, by as u32, 1),
                0,
                &a.words,
                &a.accesses(),
            )
        }?;
        Ok(())
    }
}

/// The block shape `(x, y)` for `span` positions and `planes` planes: of the shapes of
/// [`THREADS`] threads with `x` a power of two from 32 up, the one that launches the fewest
/// threads past the work (`span` and `planes` rounded up to whole blocks), the widest on a tie.
fn block_shape(span: usize, planes: usize) -> (usize, usize) {
    let mut best = (THREADS, 1);
    let mut best_cost = usize::MAX;
    let mut bx = THREADS;
    while bx >= 32 {
        let by = THREADS / bx;
        let cost = span
            .div_ceil(bx)
            .saturating_mul(bx)
            .saturating_mul(planes.min(65_535 * by).div_ceil(by).saturating_mul(by));
        if cost < best_cost {
            best = (bx, by);
            best_cost = cost;
        }
        bx /= 2;
    }
    best
}

/// Elements of `d` one access of the lowering kernels moves (`NN_V` in `lower.cu`): 8 bytes.
pub(super) fn lane_width(d: DType) -> usize {
    (8 / d.size()).max(1)
}

/// The most planes one thread of `nn_im2col` and `nn_col2im` takes (`NN_PL` in `lower.cu`).
pub(super) const LOWER_PLANES: usize = 4;

/// Threads that fill the device: below this many, a thread of the lowering kernels takes fewer
/// planes.
const FILL_THREADS: usize = 1 << 18;

/// The planes a thread of `nn_im2col` or `nn_col2im` takes for `span` groups of positions and
/// `planes` planes (their `pg`): the most, up to [`LOWER_PLANES`] and `planes`, that still
/// launch [`FILL_THREADS`] threads, else one.
pub(super) fn planes_per_thread(span: usize, planes: usize) -> usize {
    let mut pg = LOWER_PLANES;
    while pg > 1 && (pg > planes || span.saturating_mul(planes.div_ceil(pg)) < FILL_THREADS) {
        pg /= 2;
    }
    pg
}

/// `v` as a count the lowering kernels index in 32 bits (planes of a batch, `lower.cu`), or an
/// `Err` naming `what` and the value.
pub(super) fn count32(what: &str, v: usize) -> Result<i64> {
    if v > i32::MAX as usize {
        return Err(Error::InvalidArgument(format!(
            "the convolution's fallback: {what} ({v}) exceed {} (split the batch)",
            i32::MAX
        )));
    }
    Ok(v as i64)
}

/// The typed header of the family's kernels for element type `d`: the storage type `S`, the
/// working type `A` (`float` for the half types and `f32`, `double` for `f64`), `nn_ld` and
/// `nn_st` between them, and the working type's `-inf`.
fn header(d: DType) -> Result<String> {
    let (s, a, ld, st, ninf) = match d {
        DType::F16 => (
            "unsigned short",
            "float",
            "h2f(v)",
            "f2h(v)",
            "__int_as_float(0xff800000)",
        ),
        DType::BF16 => (
            "unsigned short",
            "float",
            "bf2f(v)",
            "f2bf(v)",
            "__int_as_float(0xff800000)",
        ),
        DType::F32 => ("float", "float", "v", "v", "__int_as_float(0xff800000)"),
        DType::F64 => (
            "double",
            "double",
            "v",
            "v",
            "__longlong_as_double(0xfff0000000000000LL)",
        ),
        d => {
            return Err(Error::InvalidArgument(format!(
                "the convolution and pooling kernels take f16, bf16, f32 and f64, not {d}"
            )));
        }
    };
    Ok(format!(
        "typedef {s} S;\ntypedef {a} A;\n\
         __device__ __forceinline__ A nn_ld(S v) {{ return {ld}; }}\n\
         __device__ __forceinline__ S nn_st(A v) {{ return {st}; }}\n\
         __device__ __forceinline__ A nn_neg_inf() {{ return {ninf}; }}\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's launch constants are the ones `lower.cu` is written for.
    #[test]
    fn constants_match_lower_cu() {
        let src = include_str!("lower.cu");
        assert!(src.contains(&format!("constexpr int NN_PL = {LOWER_PLANES};")));
        assert_eq!(planes_per_thread(784, 4096), 4);
        assert_eq!(planes_per_thread(784, 64), 1);
        assert_eq!(planes_per_thread(1 << 16, 8), 2);
        assert_eq!(planes_per_thread(1 << 20, 1), 1);
        assert_eq!(planes_per_thread(1 << 20, 3), 2);
        assert!(src.contains("constexpr int NN_V = 8 / (int)sizeof(S);"));
        for (d, v) in [
            (DType::F16, 4),
            (DType::BF16, 4),
            (DType::F32, 2),
            (DType::F64, 1),
        ] {
            assert_eq!(lane_width(d), v, "{d}");
        }
    }
}
