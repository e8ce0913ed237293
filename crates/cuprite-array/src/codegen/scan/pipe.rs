//! The pipelined look-back scan: the body is CUDA in `pipe.cu` (persistent, warp-specialised
//! blocks whose loads are bulk copies into a ring of shared-memory stages, so that no load
//! waits for a look-back), specialised by template parameters; this file emits the scan's
//! element code, the entry point with its typed parameters ([`PipeArgs`]) and the three
//! lambdas through which `pipe.cu` reaches the program: `load_` (the bulk copies of a tile's
//! inputs), `at_` (the program at four elements read back from a stage) and `store_` (one
//! vector of results). For long contiguous lines of an unkeyed scan with a packed status
//! (accumulators of up to 4 bytes) on devices with bulk copies and large shared memory.

use super::args::pipe_signature;
use super::vec::{lanes_at, store_lambda};
use super::*;

/// The body of the pipelined kernel.
const PIPE_CU: &str = include_str!("pipe.cu");

/// Shared memory a block of the pipelined kernel may use for its stages (one block an SM;
/// devices that run the kernel allow 227 KiB a block, of which the block's static shared
/// memory takes a few KiB).
const STAGE_BUDGET: usize = 192 * 1024;

/// The shape of the pipelined kernel for a program: tiles of `chunks * 1024` elements,
/// `stages` of them in flight, the warps of each role (see `pipe.cu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PipeShape {
    pub chunks: usize,
    pub stages: usize,
    pub reduce_warps: usize,
    pub scan_warps: usize,
    pub look_back_warps: usize,
}

impl PipeShape {
    /// The shape for a program whose inputs take `row` bytes an element together: the longest
    /// tile of up to 8 chunks of which four stages fit [`STAGE_BUDGET`] (a tile's look-back
    /// overlaps the loads of the tiles after it only while stages are free), and as many
    /// stages of it as fit (at most 8). Longer tiles need fewer look-backs: a look-back's
    /// round trip is paid once a tile, however long.
    pub(crate) fn of(row: usize) -> PipeShape {
        let row = row.max(1);
        let mut chunks = 8;
        while chunks > 1 && 4 * chunks * 1024 * row > STAGE_BUDGET {
            chunks /= 2;
        }
        let stages = (STAGE_BUDGET / (chunks * 1024 * row)).clamp(4, 8);
        PipeShape {
            chunks,
            stages,
            reduce_warps: 4,
            scan_warps: 8,
            look_back_warps: 4,
        }
    }

    /// Elements of a tile.
    pub(crate) fn tile(self) -> usize {
        self.chunks * 1024
    }

    /// Threads of a block: the scan and reduce squads, the producer and the look-back warps.
    pub(crate) fn threads(self) -> u32 {
        (32 * (self.scan_warps + self.reduce_warps + 1 + self.look_back_warps)) as u32
    }

    /// Dynamic shared memory of a block: `stages` tiles of `row` bytes an element.
    pub(crate) fn smem_bytes(self, row: usize) -> usize {
        self.stages * self.tile() * row
    }
}

/// Bytes of one element of every input of `p` together (a stage holds a tile of each).
pub(crate) fn pipe_row(p: &Program) -> usize {
    p.inputs.iter().map(|i| i.dtype.size()).sum()
}

/// Whether [`scan_pipe`] can run `spec` on `p` structurally: an unkeyed scan (not a
/// compaction) with a packed look-back status, of a vectorisable program with at least one
/// input. The caller checks the rest at run time: the device, the scanned axis innermost, its
/// length a multiple of [`VEC`] and of 16 bytes of every input, every input aligned to 16
/// bytes and the output to a vector.
pub(crate) fn scan_pipe_possible(p: &Program, spec: ScanSpec) -> bool {
    matches!(spec.sink, Sink::Scan { keyed: false, .. })
        && spec.packed()
        && !p.inputs.is_empty()
        && vectorisable(p)
}

/// The pipelined look-back kernel of `spec` over `p` (see [`scan_pipe_possible`]).
pub(crate) fn scan_pipe(p: &Program, spec: ScanSpec) -> KernelSource {
    let exclusive = matches!(
        spec.sink,
        Sink::Scan {
            exclusive: true,
            ..
        }
    );
    let row = pipe_row(p);
    let sh = PipeShape::of(row);
    let tile = sh.tile();
    let name = kernel_name(spec, &format!("pipe{}", sh.chunks));
    let mut s = element_code(spec);
    s.push_str(PIPE_CU);
    let _ = write!(
        s,
        r#"extern "C" __global__ void __launch_bounds__({threads}, 1) {name}({}, {}) {{
  extern __shared__ __align__(128) unsigned char pipe_smem_[];
"#,
        params(p, V, 1, &[spec.out]),
        pipe_signature(),
        threads = sh.threads(),
    );
    // Input `i` of a stage starts `tile` elements of every input before it on.
    let mut at = 0;
    let offs: Vec<usize> = p
        .inputs
        .iter()
        .map(|i| {
            let o = at;
            at += tile * i.dtype.size();
            o
        })
        .collect();
    s.push_str("  auto load_ = [&](unsigned char *stg_, long long b_, unsigned cnt_, unsigned long long *bar_) {\n");
    for (i, inp) in p.inputs.iter().enumerate() {
        let _ = writeln!(
            s,
            "    pipe_bulk_(stg_ + {}, in{i} + off{i} + b_, cnt_ * {}u, bar_);",
            offs[i],
            inp.dtype.size()
        );
    }
    s.push_str(
        "  };\n  auto at_ = [&](const unsigned char *stg_, int i0_, long long b_, E_ *x_) {\n",
    );
    lanes_at(
        p,
        &mut s,
        &|i| format!("stg_ + {} + i0_ * {}", offs[i], p.inputs[i].dtype.size()),
        &|lane, v0, _| format!("      x_[{lane}] = mk_({v0});\n"),
    );
    s.push_str("  };\n");
    s.push_str(&store_lambda(spec, &|at| format!("*{at} = z_")));
    let _ = write!(
        s,
        r#"  scan_pipe<{ch}, {stg}, {nr}, {ns}, {nl}, {exclusive}, {row}>(pipe_smem_, load_, at_, store_,
      (long long)len_, (long long)tpl_, (long long)tiles_, (volatile unsigned long long *)flags_, ctr_);
}}
"#,
        ch = sh.chunks,
        stg = sh.stages,
        nr = sh.reduce_warps,
        ns = sh.scan_warps,
        nl = sh.look_back_warps,
    );
    KernelSource::generated(name, &s, spec.helpers(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape keeps its stages within the budget (for rows of up to 48 bytes), has at
    /// least as many stages as look-back warps (`pipe.cu` needs it) and tiles of whole chunks.
    #[test]
    fn shapes_fit() {
        for row in 1..=48 {
            let sh = PipeShape::of(row);
            assert!(sh.smem_bytes(row) <= STAGE_BUDGET, "row {row}: {sh:?}");
            assert!(sh.look_back_warps <= sh.stages && sh.stages >= 2, "{sh:?}");
            assert!(sh.chunks.is_power_of_two() && sh.chunks <= 8, "{sh:?}");
            assert!(sh.threads() <= 1024, "{sh:?}");
        }
        // One f32 input: 8 chunks, 6 stages; three (the fused a*b+c): 4 chunks, 4 stages.
        assert_eq!((PipeShape::of(4).chunks, PipeShape::of(4).stages), (8, 6));
        assert_eq!((PipeShape::of(12).chunks, PipeShape::of(12).stages), (4, 4));
    }
}
