//! Tuning: a problem's algorithm chosen by timing cuBLASLt's candidates on its first call.
//!
//! The heuristic's first choice is often not the fastest kernel for large products: another
//! candidate is measurably faster for several large bf16 and f32 products (figures in
//! docs/perf-log/tuning-notes.md), less so under sustained load, where the GPU's power limit
//! sets the pace. With tuning on, the first call of a large enough problem runs each candidate
//! on the call's own operands, interleaved over a few rounds so that the GPU's clock and power
//! state weigh on all alike, and keeps the fastest by median time when it beats the first
//! choice by a margin. The call then runs once more with the chosen algorithm, so its result
//! is that algorithm's.

use super::cache::Plan;
use super::handle::BlasLt;
use super::tuning::{Tuning, trace};
use crate::error::Result;
use crate::event::{Event, EventFlags};
use cuprite_sys::cublaslt::cublasLtMatmulAlgo_t;

/// Rounds of timed runs, each running every candidate once between two events.
const ROUNDS: usize = 3;

impl BlasLt {
    /// Sets how this handle chooses the algorithm of problems it plans from now on (`None`, the
    /// default: the heuristic's first choice). Plans made before keep their algorithm.
    pub fn set_tuning(&self, tuning: Option<Tuning>) {
        if let Ok(mut p) = self.plans.lock() {
            p.tuning = tuning;
        }
    }

    /// How this handle chooses algorithms (see [`set_tuning`](Self::set_tuning)).
    pub fn tuning(&self) -> Option<Tuning> {
        self.plans.lock().ok().and_then(|p| p.tuning)
    }

    /// How many cached problems had their algorithm chosen by timing.
    pub fn tuned_plans(&self) -> usize {
        self.plans
            .lock()
            .map(|p| p.list.iter().filter(|x| x.tuned).count())
            .unwrap_or(0)
    }

    /// Times `plan`'s pending candidates with `run` (which enqueues the product with the given
    /// algorithm and workspace size on this handle's stream) and settles its algorithm: the
    /// fastest by median over [`ROUNDS`] rounds when below `margin` times the first working
    /// candidate's median, else that first one. A candidate whose run fails is left out. Waits
    /// for the timed work (one host synchronisation).
    pub(super) fn tune(
        &self,
        plan: &mut Plan,
        margin: f64,
        run: impl Fn(&cublasLtMatmulAlgo_t, usize) -> Result<()>,
    ) -> Result<()> {
        let cands = std::mem::take(&mut plan.pending);
        // A first run of each (loading its kernels); those that fail are left out.
        let mut ok: Vec<usize> = (0..cands.len())
            .filter(|&i| run(&cands[i].0, cands[i].1).is_ok())
            .collect();
        if ok.len() < 2 {
            if let Some(&i) = ok.first() {
                (plan.algo, plan.workspace) = cands[i];
            }
            return Ok(());
        }
        let ctx = self.stream.context();
        let mut marks = Vec::with_capacity(ROUNDS * ok.len());
        for _ in 0..ROUNDS {
            for &i in &ok {
                let start = Event::new(ctx, EventFlags::DEFAULT)?;
                start.record(&self.stream)?;
                let ran = run(&cands[i].0, cands[i].1).is_ok();
                let end = Event::new(ctx, EventFlags::DEFAULT)?;
                end.record(&self.stream)?;
                marks.push((i, ran, start, end));
            }
        }
        if let Some((.., end)) = marks.last() {
            end.synchronize()?;
        }
        let mut times: Vec<Vec<f32>> = vec![Vec::new(); cands.len()];
        for (i, ran, start, end) in &marks {
            if *ran {
                times[*i].push(start.elapsed_ms(end)?);
            } else {
                ok.retain(|j| j != i);
            }
        }
        let median = |i: usize| -> f32 {
            let mut t = times[i].clone();
            t.sort_by(f32::total_cmp);
            t[t.len() / 2]
        };
        let Some(&first) = ok.first() else {
            return Ok(());
        };
        let best = ok
            .iter()
            .copied()
            .min_by(|&x, &y| median(x).total_cmp(&median(y)))
            .unwrap_or(first);
        let chosen = if (median(best) as f64) < margin * median(first) as f64 {
            best
        } else {
            first
        };
        (plan.algo, plan.workspace) = cands[chosen];
        plan.tuned = true;
        if trace() {
            let line: Vec<String> = ok
                .iter()
                .map(|&i| {
                    let mark = if i == chosen { "*" } else { "" };
                    format!("#{i}{mark} {:.4}", median(i))
                })
                .collect();
            eprintln!(
                "cuprite blaslt tuning ({} candidates, ms by median of {ROUNDS}): {}",
                cands.len(),
                line.join(", ")
            );
        }
        Ok(())
    }
}
