//! The chunked scan: the body is CUDA in `chunked.cu` (persistent blocks taking tickets that
//! interleave a reduce pass and a scan pass over chunks of tiles sized to stay in L2, so that
//! no tile waits for a look-back); this file emits the scan's element code, the entry point
//! with its typed parameters ([`ChunkArgs`](super::args::ChunkArgs)) and the two lambdas
//! through which `chunked.cu` reaches the program: `load_` (the program at four elements, its
//! input read as one vector under an L2 eviction policy) and `store_` (one vector of results,
//! streamed). For one long contiguous line of an unkeyed scan of one input with a packed status
//! (accumulators of up to 4 bytes), on devices whose L2 holds several chunks.
//!
//! Each tile is read from device memory once (the reduce pass) and from L2 once (the scan pass,
//! a chunk later in ticket order), so the device-memory traffic is a copy's: `n` reads and `n`
//! writes.

use super::args::chunk_signature;
use super::vec::{lanes_loaded, store_lambda};
use super::*;

/// The body of the chunked kernel.
const CHUNKED_CU: &str = include_str!("chunked.cu");

/// Rows of 1024 elements in a tile of the chunked kernel (each thread holds 64 accumulators).
pub(crate) const CHUNKED_ROWS: usize = 16;

/// Blocks an SM the chunked kernel is built for (its launch bound) and launched with.
pub(crate) const CHUNKED_BLOCKS: usize = 2;

/// Elements of a tile of the chunked kernel.
pub(crate) const CHUNKED_TILE: usize = CHUNKED_ROWS * BLOCK as usize * VEC;

/// The smallest L2 the chunked kernel runs on: below it a chunk holds too few tiles to keep the
/// scan pass's waits away (and the look-back kernel is the faster one).
pub(crate) const CHUNKED_MIN_L2: usize = 24 << 20;

/// Tiles of a chunk for inputs of `in_size` bytes an element on a device with `l2_bytes` of L2:
/// a sixth of the L2 (a chunk's tiles stay there while the next chunk's are read and the scan
/// pass's stores go out), at least one tile. `None` below [`CHUNKED_MIN_L2`].
pub(crate) fn chunk_tiles(l2_bytes: usize, in_size: usize) -> Option<usize> {
    (l2_bytes >= CHUNKED_MIN_L2).then(|| (l2_bytes / 6 / (CHUNKED_TILE * in_size.max(1))).max(1))
}

/// Whether [`scan_chunked`] can run `spec` on `p` structurally: an unkeyed scan (not a
/// compaction) with a packed status, of a vectorisable program of exactly one input (a second
/// input would double what a chunk keeps in L2). The caller checks the rest at run time: one
/// line, contiguous and innermost, a multiple of [`VEC`] long, the input and the output aligned
/// to a vector, and the device's L2 ([`chunk_tiles`]).
pub(crate) fn scan_chunked_possible(p: &Program, spec: ScanSpec) -> bool {
    matches!(spec.sink, Sink::Scan { keyed: false, .. })
        && spec.packed()
        && p.inputs.len() == 1
        && vectorisable(p)
}

/// The chunked kernel of `spec` over `p` (see [`scan_chunked_possible`]).
pub(crate) fn scan_chunked(p: &Program, spec: ScanSpec) -> KernelSource {
    let exclusive = matches!(
        spec.sink,
        Sink::Scan {
            exclusive: true,
            ..
        }
    );
    let name = kernel_name(spec, &format!("chunked{CHUNKED_ROWS}"));
    let mut s = element_code(spec);
    s.push_str(CHUNKED_CU);
    let _ = write!(
        s,
        r#"extern "C" __global__ void __launch_bounds__({BLOCK}, {CHUNKED_BLOCKS}) {name}({}, {}) {{
  auto load_ = [&](long long b_, unsigned long long pol_, E_ *x_) {{
"#,
        params(p, V, 1, &[spec.out]),
        chunk_signature(),
    );
    lanes_loaded(
        p,
        &mut s,
        &|i| format!("in{i} + off{i} + b_"),
        &|at| format!("chk_ld_({at}, pol_)"),
        &|lane, v0, _| format!("      x_[{lane}] = mk_({v0});\n"),
    );
    s.push_str("  };\n");
    s.push_str(&store_lambda(spec, &|at| format!("chk_st_({at}, z_)")));
    let _ = write!(
        s,
        r#"  scan_chunked<{CHUNKED_ROWS}, {exclusive}>(load_, store_, (long long)len_, (long long)tiles_,
      (long long)chunk_, (volatile unsigned long long *)flags_, (volatile unsigned long long *)carry_, ctr_);
}}
"#
    );
    KernelSource::generated(name, &s, spec.helpers(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Array, Device};

    /// The program `x * 2` over a contiguous input of `n` elements of `T`.
    fn doubled<T: crate::dtype::Numeric + From<u8>>(n: usize) -> Program {
        let x =
            Array::<T>::from_slice_on(Device::CPU, &vec![T::from(1u8); n], &[n]).expect("array");
        let y = &x * T::from(2u8);
        Program::build(std::slice::from_ref(&y.node))
    }

    /// The kernel of every packed scan over one input compiles with NVRTC for sm_80 and sm_90
    /// (skipped without NVRTC), and the structural test takes exactly those scans.
    #[test]
    fn kernels_compile() {
        let progs = [
            (doubled::<f32>(64), DType::F32),
            (doubled::<i32>(64), DType::I32),
            (doubled::<u8>(64), DType::U8),
            (doubled::<f64>(64), DType::F64),
        ];
        let nvrtc = cuprite_driver::nvrtc::version().is_ok();
        for (p, out) in &progs {
            for op in [ScanKind::Sum, ScanKind::Max] {
                for exclusive in [false, true] {
                    let spec = ScanSpec {
                        sink: Sink::Scan {
                            op,
                            exclusive,
                            keyed: false,
                        },
                        out: *out,
                    };
                    assert_eq!(scan_chunked_possible(p, spec), out.size() <= 4, "{spec:?}");
                    if !scan_chunked_possible(p, spec) || !nvrtc {
                        continue;
                    }
                    let s = scan_chunked(p, spec);
                    for arch in [80, 90] {
                        let o = crate::jit::compile_options(arch, true);
                        if let Err(e) = cuprite_driver::nvrtc::compile(&s.source, &o) {
                            panic!("sm_{arch} {spec:?}: {e}\n{}", s.source);
                        }
                    }
                }
            }
        }
    }

    /// A chunk is a sixth of L2 in whole tiles, at least one; small caches take no chunked scan.
    #[test]
    fn chunks_follow_the_cache() {
        // 50 MiB of L2 and f32: 8.3 MiB a chunk, 133 tiles of 64 KiB.
        assert_eq!(chunk_tiles(50 << 20, 4), Some(133));
        // Half-precision inputs: tiles of half the bytes, twice as many of them.
        assert_eq!(chunk_tiles(50 << 20, 2), Some(266));
        assert_eq!(chunk_tiles(CHUNKED_MIN_L2 - 1, 4), None);
        assert!(chunk_tiles(CHUNKED_MIN_L2, 64).is_some_and(|t| t >= 1));
        assert_eq!(CHUNKED_TILE, 16 * 1024);
    }
}
