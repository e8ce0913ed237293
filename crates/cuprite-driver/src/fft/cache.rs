//! [`PlanCache`]: recently used cuFFT plans, keyed by context and [`PlanDesc`], bounded, with
//! the least recently used plan dropped first; and its hit, miss and eviction counts.
//!
//! This module owns which plans are kept. It must not make plans itself beyond calling
//! [`Plan::new`], nor lock: a cache shared between threads is put behind the caller's mutex.

use super::desc::PlanDesc;
use super::plan::Plan;
use crate::error::{Error, Result};
use crate::stream::Stream;
use std::collections::HashMap;
use std::sync::Arc;

/// What a cache has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found a plan.
    pub hits: u64,
    /// Lookups that did not (a plan was made, or making it failed).
    pub misses: u64,
    /// Plans dropped to stay within the bound.
    pub evictions: u64,
    /// Plans held now.
    pub len: usize,
    /// The most plans it holds.
    pub capacity: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    /// The context's id (a plan belongs to one context, hence one device).
    ctx: u64,
    desc: PlanDesc,
}

#[derive(Debug)]
struct Entry {
    plan: Plan,
    last_used: u64,
}

/// A bounded cache of cuFFT plans with least-recently-used replacement, keyed by (context,
/// kind, precision, sizes, batch, layouts) — everything in a [`PlanDesc`] — and not by stream:
/// a plan found for another stream of the same context is moved to the one asked for
/// ([`Plan::set_stream`], no synchronisation). Each plan keeps its work area, so the bound
/// also bounds the device memory held. Dropping a plan that ran transforms waits for its
/// context's work first (see [`Plan`]), so an eviction may block the host briefly.
///
/// Lookups take `&mut self`; share one between threads behind a `Mutex` (a lookup that hits
/// costs a hash and, when the stream changed, one `cufftSetStream`).
///
/// ```no_run
/// use cuprite_driver::fft::{PlanCache, PlanDesc, Precision};
/// # fn main() -> cuprite_driver::Result<()> {
/// let ctx = cuprite_driver::Context::new(0)?;
/// let (a, b) = (ctx.default_stream(), ctx.new_stream()?);
/// let mut cache = PlanCache::new(8);
/// let desc = PlanDesc::c2c(Precision::F64, &[64, 64]);
/// cache.get(&a, &desc)?;
/// let plan = cache.get(&b, &desc)?; // the same plan, now on b
/// assert!(std::sync::Arc::ptr_eq(plan.stream(), &b));
/// assert_eq!(cache.stats().hits, 1);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct PlanCache {
    capacity: usize,
    map: HashMap<Key, Entry>,
    tick: u64,
    hits: u64,
    misses: u64,
    evictions: u64,
}

impl Default for PlanCache {
    fn default() -> Self {
        PlanCache::new(PlanCache::DEFAULT_CAPACITY)
    }
}

impl PlanCache {
    /// The bound of [`PlanCache::default`].
    pub const DEFAULT_CAPACITY: usize = 64;

    /// An empty cache holding at most `capacity` plans (at least 1).
    pub fn new(capacity: usize) -> PlanCache {
        PlanCache {
            capacity: capacity.max(1),
            map: HashMap::new(),
            tick: 0,
            hits: 0,
            misses: 0,
            evictions: 0,
        }
    }

    /// The plan for `desc` in `stream`'s context, bound to `stream`: the cached one (moved to
    /// `stream` if it was on another), or a new one ([`Plan::new`]), kept in place of the
    /// least recently used plan when the cache is full. `Err` when the plan cannot be made (an
    /// unsound description, no cuFFT, cuFFT refusing it); nothing is cached then.
    pub fn get(&mut self, stream: &Arc<Stream>, desc: &PlanDesc) -> Result<&mut Plan> {
        let key = Key {
            ctx: stream.context().id(),
            desc: *desc,
        };
        self.tick += 1;
        let tick = self.tick;
        if self.map.contains_key(&key) {
            self.hits += 1;
        } else {
            self.misses += 1;
            let plan = Plan::new(stream, desc)?;
            self.shrink_to(self.capacity - 1);
            self.map.insert(
                key,
                Entry {
                    plan,
                    last_used: tick,
                },
            );
        }
        let entry = self.map.get_mut(&key).ok_or_else(|| {
            Error::InvalidArgument("fft::PlanCache: a plan just cached is missing".into())
        })?;
        entry.last_used = tick;
        // A no-op for a plan already on `stream` (every new one).
        entry.plan.set_stream(stream)?;
        Ok(&mut entry.plan)
    }

    /// Whether a plan for `desc` in `stream`'s context is cached (no counting, no reordering).
    pub fn contains(&self, stream: &Stream, desc: &PlanDesc) -> bool {
        self.map.contains_key(&Key {
            ctx: stream.context().id(),
            desc: *desc,
        })
    }

    /// Drops least recently used plans until at most `n` remain.
    fn shrink_to(&mut self, n: usize) {
        while self.map.len() > n {
            let Some(oldest) = self
                .map
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| *k)
            else {
                return;
            };
            self.map.remove(&oldest);
            self.evictions += 1;
        }
    }

    /// The counts so far and the current size.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits,
            misses: self.misses,
            evictions: self.evictions,
            len: self.map.len(),
            capacity: self.capacity,
        }
    }

    /// Plans held now.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds no plan.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The most plans it holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Changes the bound (at least 1), dropping least recently used plans beyond it.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        self.shrink_to(self.capacity);
    }

    /// Drops every plan (the counts stay).
    pub fn clear(&mut self) {
        self.map.clear();
    }
}
