//! The CUDA twin of `random::dists`: one kernel for every sampler kind (`sampler.cu`), the same
//! arithmetic in the same order (kernels build with `--fmad=false`), so the two backends differ
//! only where CUDA's `log`, `exp`, `pow`, `cos` and `acos` differ from Rust's in the last bits.

use super::dists::{STREAM_TAG, TRIES};
use crate::codegen::{
    BLOCK, Helpers, KernelSource, MaybeRead, PHILOX_C, WriteBuf, entry, kernel_params,
};

/// The kernel's entry point.
pub(crate) const SAMPLER_NAME: &str = "cuprite_sampler_f64";

/// The samplers' bodies.
const BODY: &str = include_str!("sampler.cu");

kernel_params! {
    /// The sampler kernel's parameters: `n` draws into `out`, from the Philox streams of `key`,
    /// of sampler `kind` (see `Kind::words`) with scalars `a` and `b` and the per-element
    /// parameter `xs[i]` (`n` values), or `x0` everywhere when `xs` is null; the key is `key ^
    /// word[0]` where `word` (a compiled program's call key word) is not null.
    pub(crate) struct SamplerArgs<'a> {
        out: WriteBuf<'a> as "double",
        n: i64,
        key: u64,
        kind: i64,
        a: f64,
        b: f64,
        x0: f64,
        xs: MaybeRead<'a> as "double",
        word: MaybeRead<'a> as "u64t",
    }
}

/// The sampler kernel, taking [`SamplerArgs`].
pub(crate) fn sampler_kernel() -> KernelSource {
    let text = format!(
        "{PHILOX_C}#define SP_TAG {STREAM_TAG}u\n#define SP_TRIES {TRIES}u\n{BODY}{}",
        entry::<SamplerArgs>(SAMPLER_NAME, &BLOCK.to_string(), "sampler_f64")
    );
    KernelSource::generated(SAMPLER_NAME.to_string(), &text, Helpers::default())
}
