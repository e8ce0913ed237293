//! Fast Fourier transforms through cuFFT: plans bound to a stream, with their work areas from
//! the stream-ordered pool, and an LRU plan cache.
//!
//! - [`PlanDesc`] says what to compute: [`FftKind`] (C2C, R2C, C2R), [`Precision`] (f32, f64;
//!   f16 and bf16 for power-of-two sizes), sizes of rank 1 to 3, a batch, and optionally
//!   cuFFT's advanced [`Layout`] (embed, stride, dist) per side. Its checks need no GPU.
//! - [`Plan`] is the cuFFT plan made from it on a [`Stream`](crate::Stream); its transforms
//!   (`exec_forward`, `exec_inverse`, `exec_r2c`, `exec_c2r`...) take cuprite buffers and are
//!   tracked across streams like kernel launches.
//! - [`PlanCache`] keeps recently used plans, keyed by context and description, with a bound.
//!
//! cuFFT is opened on first use; without it, [`Plan::new`] (and [`version`]) return
//! [`Error::LibraryNotFound`](crate::Error::LibraryNotFound) naming every place tried, and
//! nothing else in cuprite is affected.
//!
//! ```no_run
//! use cuprite_driver::fft::{PlanCache, PlanDesc, Precision};
//! # fn main() -> cuprite_driver::Result<()> {
//! let ctx = cuprite_driver::Context::new(0)?;
//! let stream = ctx.default_stream();
//! let x = stream.clone_htod(&vec![1.0f32; 4096 * 16])?;
//! let desc = PlanDesc::r2c(Precision::F32, &[4096]).with_batch(16);
//! let mut spectrum = stream.alloc_zeros(desc.check()?.output)?;
//! let mut cache = PlanCache::new(16);
//! cache.get(&stream, &desc)?.exec_r2c(&x, &mut spectrum)?;
//! cache.get(&stream, &desc)?.exec_r2c(&x, &mut spectrum)?; // the same plan
//! assert_eq!((cache.stats().hits, cache.stats().misses), (1, 1));
//! # Ok(()) }
//! ```

mod cache;
mod desc;
mod plan;

pub use cache::{CacheStats, PlanCache};
pub use desc::{Direction, Extents, FftFloat, FftKind, Layout, PlanDesc, Precision};
pub use plan::{Plan, is_available, version};
