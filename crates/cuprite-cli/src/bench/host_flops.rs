//! The host's peak floating-point rate, the ceiling the CPU backend's matrix products are
//! stated against: every core runs chains of fused multiply-adds that never wait for memory,
//! with the widest vectors the CPU has (AVX-512, else AVX2 with FMA, detected at run time), and
//! enough independent chains to hide the FMA latency.
//!
//! A fused multiply-add counts as two floating-point operations, as GEMM's `2·m·n·k` does.

use super::kit::{BenchCtx, BenchResult, Benchmark, Figure, Samples};
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::time::Instant;

/// The host-FLOP benchmark.
pub fn benchmarks() -> Vec<Benchmark> {
    vec![Benchmark {
        name: "ceiling/host_flops",
        group: "ceiling",
        needs_gpu: false,
        run: host_flops,
    }]
}

/// Independent accumulators per thread: enough to cover two FMA ports of 4-cycle latency.
const CHAINS: usize = 12;

/// Which instructions a measurement used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// 512-bit vectors (`vfmadd` on zmm registers).
    Avx512,
    /// 256-bit vectors with FMA.
    Avx2Fma,
    /// Scalar `mul_add` (no vector FMA found, or not an x86-64 host).
    Scalar,
}

impl Isa {
    /// The widest this CPU has.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Isa::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Isa::Avx2Fma;
            }
        }
        Isa::Scalar
    }

    fn name(self) -> &'static str {
        match self {
            Isa::Avx512 => "AVX-512",
            Isa::Avx2Fma => "AVX2 + FMA",
            Isa::Scalar => "scalar mul_add",
        }
    }
}

/// One of the `fma_chains!` kernels: `iters` rounds, the accumulators' final sum.
#[cfg(target_arch = "x86_64")]
type ChainKernel = unsafe fn(u64) -> f64;

/// Floating-point operations one thread does in `iters` rounds (`f64` when `double`), and the
/// chains' final sum (returned so that the work cannot be optimised away).
fn run_chains(isa: Isa, double: bool, iters: u64) -> (f64, f64) {
    let lanes = |bits: usize| {
        let w = if double { 64 } else { 32 };
        (bits / w) as f64
    };
    #[cfg(target_arch = "x86_64")]
    {
        // The kernel of this width and precision, and its vector width in bits.
        let simd: Option<(ChainKernel, usize)> = match (isa, double) {
            (Isa::Avx512, false) => Some((avx512_f32, 512)),
            (Isa::Avx512, true) => Some((avx512_f64, 512)),
            (Isa::Avx2Fma, false) => Some((avx2_f32, 256)),
            (Isa::Avx2Fma, true) => Some((avx2_f64, 256)),
            (Isa::Scalar, _) => None,
        };
        if let Some((kernel, bits)) = simd {
            // SAFETY: `isa` comes from `Isa::detect`, which found the features `kernel` is
            // compiled for (AVX-512F, or AVX2 and FMA) on this CPU.
            let s = unsafe { kernel(iters) };
            return (2.0 * CHAINS as f64 * lanes(bits) * iters as f64, s);
        }
    }
    let _ = isa;
    let mut acc = [0.0f64; CHAINS];
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = a.mul_add(0.999_999, 1e-7);
        }
    }
    (2.0 * CHAINS as f64 * iters as f64, acc.iter().sum::<f64>())
}

/// Defines `$name(iters) -> f64`: `iters` rounds of one FMA on each of [`CHAINS`] vector
/// accumulators of `$lanes` lanes of `$t` (the intrinsics of one vector width), and the sum of
/// the accumulators' lanes at the end.
macro_rules! fma_chains {
    ($name:ident, $feature:literal, $t:ty, $lanes:literal, $set1:ident, $fmadd:ident, $add:ident, $store:ident) => {
        /// `iters` rounds of one FMA on each of `CHAINS` accumulators (see `fma_chains!`).
        ///
        /// # Safety
        /// The CPU must have the target features this function is compiled for.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $feature)]
        unsafe fn $name(iters: u64) -> f64 {
            let (a, b) = ($set1(0.999_999), $set1(1e-7));
            let mut acc = [$set1(0.0); CHAINS];
            for _ in 0..iters {
                for x in acc.iter_mut() {
                    *x = $fmadd(*x, a, b);
                }
            }
            let mut s = acc[0];
            for x in &acc[1..] {
                s = $add(s, *x);
            }
            let mut out = [0.0 as $t; $lanes];
            // SAFETY: `out` holds one vector's lanes, what an unaligned store writes.
            unsafe { $store(out.as_mut_ptr(), s) };
            out.iter().map(|&v| v as f64).sum()
        }
    };
}

fma_chains!(
    avx512_f32,
    "avx512f",
    f32,
    16,
    _mm512_set1_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps,
    _mm512_storeu_ps
);
fma_chains!(
    avx512_f64,
    "avx512f",
    f64,
    8,
    _mm512_set1_pd,
    _mm512_fmadd_pd,
    _mm512_add_pd,
    _mm512_storeu_pd
);
fma_chains!(
    avx2_f32,
    "avx2,fma",
    f32,
    8,
    _mm256_set1_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps,
    _mm256_storeu_ps
);
fma_chains!(
    avx2_f64,
    "avx2,fma",
    f64,
    4,
    _mm256_set1_pd,
    _mm256_fmadd_pd,
    _mm256_add_pd,
    _mm256_storeu_pd
);

/// Seconds per sample of every thread doing `iters` rounds at once, and the operations done.
fn sample(isa: Isa, double: bool, threads: usize, iters: u64) -> (f64, f64) {
    let t0 = Instant::now();
    let flops: f64 = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| s.spawn(move || run_chains(isa, double, iters)))
            .collect();
        hs.into_iter()
            .map(|h| {
                let (f, sum) = h.join().unwrap_or((0.0, 0.0));
                std::hint::black_box(sum);
                f
            })
            .sum()
    });
    (t0.elapsed().as_secs_f64(), flops)
}

/// The host's measured peak in GFLOP/s (median of `repeats` samples of about 0.1 s on every
/// core), the operations counted per sample, and the instructions used.
pub fn peak(double: bool, repeats: usize) -> (Samples, f64, Isa, usize) {
    let isa = Isa::detect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Calibrate to about 0.1 s a sample on one thread's rate.
    let mut iters = 1u64 << 16;
    loop {
        let (t, _) = sample(isa, double, 1, iters);
        if t > 0.02 || iters > 1 << 34 {
            iters = ((iters as f64) * (0.1 / t.max(1e-6))).max(1.0) as u64;
            break;
        }
        iters *= 4;
    }
    let _ = sample(isa, double, threads, iters / 4 + 1); // warm every core
    let mut times = Vec::with_capacity(repeats.max(1));
    let mut flops = 0.0;
    for _ in 0..repeats.max(1) {
        let (t, f) = sample(isa, double, threads, iters);
        times.push(t);
        flops = f;
    }
    (Samples(times), flops, isa, threads)
}

fn host_flops(ctx: &mut BenchCtx) -> BenchResult {
    let mut figs = Vec::new();
    for double in [false, true] {
        let ty = if double { "f64" } else { "f32" };
        ctx.status(format!("{ty} fused multiply-adds on every core"));
        let (samples, flops, isa, threads) = peak(double, ctx.repeats.clamp(3, 10));
        figs.push(
            Figure::rate(
                format!("host peak {ty} rate, {threads} threads, {}", isa.name()),
                "GFLOP/s",
                flops / 1e9,
                &samples,
            )
            .with_note(format!(
                "{CHAINS} independent FMA chains a thread, no memory traffic; an FMA counts 2; \
                 the CPU ceiling of the CPU backend's matrix products"
            )),
        );
    }
    Ok(figs)
}
