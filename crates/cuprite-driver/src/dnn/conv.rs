//! The convolution calls of [`Dnn`]: forward, the gradients with respect to the input and to
//! the filters, and the forward pass fused with a bias and an activation.
//!
//! Each call checks the shape and every buffer (context, length) first, answers an empty
//! operand by zero-filling its output without calling cuDNN, takes the algorithm from the
//! handle's cache (or measures it on the call's own buffers, or asks cuDNN's heuristics), its
//! workspace from the stream-ordered pool, and declares its accesses to the stream tracker
//! around each enqueuing cuDNN call (the measurement's and the computation's).

use super::algo::{AlgoCache, PlanKey};
use super::algo::{
    Choice, FindBuffers, Measured, Pass, find, find_falls_back, precomp_gemm, search_workspace,
    settle,
};
use super::desc::{ActDesc, ConvDescs, TensorDesc};
use super::element::{DnnElement, one_zero, requested_math, run_math};
use super::engine::{Plan, alignment, plans};
use super::shape::{ConvShape, Geometry, check_lens};
use super::{Api, Dnn};
use crate::blas::{check_context, invalid};
use crate::error::Result;
use crate::event::{Event, EventFlags};
use crate::memory::{Access, DeviceBuffer, DeviceRead, DeviceViewMut, DeviceWrite};
use crate::stream::Stream;
use cuprite_sys::cudnn::{
    cudnnActivationMode_t, cudnnConvolutionBwdDataAlgo_t, cudnnConvolutionBwdFilterAlgo_t,
    cudnnConvolutionFwdAlgo_t, cudnnHandle_t,
};
use std::ffi::c_void;

/// How many graph-API plans a measuring handle times for a new problem.
const PLAN_CANDIDATES: usize = 8;

/// Timed runs of each graph-API plan (after one untimed run).
const PLAN_RUNS: usize = 5;

/// Rounds of [`PLAN_RUNS`] timed runs each API takes, in turn, where a problem's first call
/// times both; and each of the legacy API's [`RETIMED`] fastest algorithms, in turn.
const DUEL_ROUNDS: usize = 3;

/// How many of the algorithms cuDNN's measurement ranks fastest (of those the handle's settings
/// allow) a measuring handle times again itself before it keeps one.
const RETIMED: usize = 3;

/// Whether `CUPRITE_DNN_DUEL_TRACE` is set (not empty, not `0`): each problem timed on both
/// APIs then prints the two times to stderr.
fn duel_trace() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| {
        std::env::var("CUPRITE_DNN_DUEL_TRACE").is_ok_and(|v| !v.is_empty() && v != "0")
    })
}

/// The activation of [`Dnn::conv_bias_act_forward`] (the two cuDNN fuses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Activation {
    /// None: `y = conv(x, w) + bias`.
    #[default]
    Identity,
    /// `y = max(conv(x, w) + bias, 0)` (NaN stays NaN).
    Relu,
}

/// Zero-fills the first `n` elements of `out` (the result of an empty sum).
fn zero_prefix<T>(s: &Stream, out: &mut dyn DeviceWrite<T>, n: usize) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let ptr = out.device_ptr_mut();
    // SAFETY: the caller checked that `out` holds at least `n` elements; `out` is borrowed
    // exclusively for the view's life, and the view shares its tracker.
    let mut view = unsafe { DeviceViewMut::<T>::from_raw_parts(ptr, n, out.tracker()) };
    s.memset_zeros(&mut view)
}

/// The operand names of a pass, in the order (first input, second input, output).
fn names(pass: Pass) -> [&'static str; 3] {
    match pass {
        Pass::Forward => ["x", "w", "y"],
        Pass::BackwardData => ["w", "dy", "dx"],
        Pass::BackwardFilter => ["x", "dy", "dw"],
    }
}

/// The element counts a pass's operands need, in [`names`]' order.
fn needs(pass: Pass, g: &Geometry) -> [usize; 3] {
    match pass {
        Pass::Forward => [g.x_len, g.w_len, g.y_len],
        Pass::BackwardData => [g.w_len, g.y_len, g.x_len],
        Pass::BackwardFilter => [g.x_len, g.y_len, g.w_len],
    }
}

/// The device addresses of a pass's two inputs (in [`names`]' order), its output and its
/// workspace, as cuDNN takes them.
#[derive(Clone, Copy)]
struct Operands {
    a: *const c_void,
    b: *const c_void,
    out: *mut c_void,
    ws: *mut c_void,
}

/// The addresses of `inputs`, `out` and `ws`, and the accesses a pass over them declares: the
/// inputs read, the output and the workspace written.
fn operands<'a, T>(
    inputs: [&'a dyn DeviceRead<T>; 2],
    out: &'a dyn DeviceWrite<T>,
    ws: &'a DeviceBuffer<u8>,
) -> (Operands, [Access<'a>; 4]) {
    let ops = Operands {
        a: inputs[0].device_ptr() as *const c_void,
        b: inputs[1].device_ptr() as *const c_void,
        out: out.device_ptr() as *mut c_void,
        ws: ws.device_ptr() as *mut c_void,
    };
    let acc = [
        Access::read(inputs[0]),
        Access::read(inputs[1]),
        Access::write(out),
        Access::write(ws),
    ];
    (ops, acc)
}

impl Dnn {
    /// `y = conv(x, w)`: the cross-correlation of `x` with the filters `w` as `shape` says,
    /// overwriting `y` (PyTorch's `conv1d`/`conv2d`/`conv3d` without bias). `x`, `w` and `y`
    /// hold at least [`x_len`](ConvShape::x_len), [`w_len`](ConvShape::w_len) and
    /// [`y_len`](ConvShape::y_len) elements in `shape.layout`. Only enqueues.
    ///
    /// ```no_run
    /// use cuprite_driver::dnn::{ConvShape, Dnn, Layout};
    /// # fn main() -> cuprite_driver::Result<()> {
    /// let ctx = cuprite_driver::Context::new(0)?;
    /// let s = ctx.default_stream();
    /// let dnn = Dnn::new(&s)?;
    /// // A depthwise 1-d convolution over channels-last data: 2 channels, 2 groups.
    /// let mut shape = ConvShape::new(1, 2, [4], 2, [2]);
    /// shape.groups = 2;
    /// shape.layout = Layout::Nhwc;
    /// let x = s.clone_htod(&[1.0f64, 10.0, 2.0, 20.0, 3.0, 30.0, 4.0, 40.0])?; // [L, C]
    /// let w = s.clone_htod(&[1.0f64, -1.0, 1.0, 1.0])?; // [K, kernel, C/g]: differences, sums
    /// let mut y = s.alloc_zeros::<f64>(shape.y_len()?)?;
    /// dnn.conv_forward(&shape, &x, &w, &mut y)?;
    /// assert_eq!(s.clone_dtoh(&y)?, [-1.0, 30.0, -1.0, 50.0, -1.0, 70.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for an unsound shape (see
    /// [`ConvShape::check`]), a buffer of another context or shorter than the shape needs;
    /// a library error naming the cuDNN call that refused.
    pub fn conv_forward<T: DnnElement, const N: usize>(
        &self,
        shape: &ConvShape<N>,
        x: &dyn DeviceRead<T>,
        w: &dyn DeviceRead<T>,
        y: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.conv(Pass::Forward, "conv_forward", shape, x, w, y)
    }

    /// `dx = conv_backward_data(w, dy)`: the gradient of a convolution's input from the
    /// gradient `dy` of its output (PyTorch's `conv_transpose` of `dy` with the same filters),
    /// overwriting `dx`. `dx` has `x`'s shape, `dy` has `y`'s. Only enqueues.
    ///
    /// A shape whose padding on some axis is more than the dilated kernel's reach
    /// ([`ConvShape::padding_past_kernel`]) is refused before anything is enqueued: on such
    /// shapes, some of the backward-data engines this handle may pick ran kernels that never
    /// finished (a spinning kernel cannot be stopped without ending the process). Compute
    /// those by other means (cuprite-array's convolution does it with its own kernels).
    ///
    /// # Errors
    /// As [`conv_forward`](Self::conv_forward), and
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the axis, its padding,
    /// kernel and dilation for padding past the kernel.
    pub fn conv_backward_data<T: DnnElement, const N: usize>(
        &self,
        shape: &ConvShape<N>,
        w: &dyn DeviceRead<T>,
        dy: &dyn DeviceRead<T>,
        dx: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.conv(Pass::BackwardData, "conv_backward_data", shape, w, dy, dx)
    }

    /// `dw = conv_backward_filter(x, dy)`: the gradient of a convolution's filters from its
    /// input `x` and the gradient `dy` of its output, overwriting `dw` (not accumulating into
    /// it). Only enqueues.
    ///
    /// # Errors
    /// As [`conv_forward`](Self::conv_forward).
    pub fn conv_backward_filter<T: DnnElement, const N: usize>(
        &self,
        shape: &ConvShape<N>,
        x: &dyn DeviceRead<T>,
        dy: &dyn DeviceRead<T>,
        dw: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        self.conv(
            Pass::BackwardFilter,
            "conv_backward_filter",
            shape,
            x,
            dy,
            dw,
        )
    }

    /// The checks every convolution call shares: the shape, each buffer's context and length.
    fn conv_checks<T: DnnElement, const N: usize>(
        &self,
        call: &'static str,
        pass: Pass,
        shape: &ConvShape<N>,
        bufs: [&dyn DeviceRead<T>; 3],
    ) -> Result<Geometry> {
        let g = shape.geometry(call)?;
        let names = names(pass);
        let needs = needs(pass, &g);
        for (name, buf) in names.iter().zip(bufs) {
            check_context(call, name, &self.stream, buf)?;
        }
        check_lens(
            call,
            &[
                (names[0], bufs[0].len(), needs[0]),
                (names[1], bufs[1].len(), needs[1]),
                (names[2], bufs[2].len(), needs[2]),
            ],
        )?;
        Ok(g)
    }

    fn conv<T: DnnElement, const N: usize>(
        &self,
        pass: Pass,
        call: &'static str,
        shape: &ConvShape<N>,
        a: &dyn DeviceRead<T>,
        b: &dyn DeviceRead<T>,
        out: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        let g = self.conv_checks(call, pass, shape, [a, b, &*out])?;
        let s = &*self.stream;
        if g.x_len == 0 || g.w_len == 0 || g.y_len == 0 {
            return zero_prefix(s, out, needs(pass, &g)[2]);
        }
        if let (Pass::BackwardData, Some(i)) = (pass, shape.padding_past_kernel()) {
            return Err(invalid(format!(
                "{call}: along spatial axis {i}, pad = {} is more than the dilated kernel \
                 reaches past its first tap (kernel = {}, dilation = {}): windows of only \
                 padding, which cuDNN's backward-data kernels do not take",
                shape.pad[i], shape.kernel[i], shape.dilation[i]
            )));
        }
        let policy = self.policy();
        // Held until the work is enqueued: one handle serves one thread at a time.
        let mut cache = self.begin()?;
        let (pa, pb, po) = (
            a.device_ptr() as *const c_void,
            b.device_ptr() as *const c_void,
            out.device_ptr_mut() as *mut c_void,
        );
        let key = PlanKey {
            pass,
            data_type: T::DATA_TYPE.0,
            geometry: g,
            policy,
            align: alignment(&[pa as usize, pb as usize, po as usize]),
        };
        let graph = match self.api_for::<T>() {
            Api::Legacy => false,
            Api::Graph => true,
            Api::Faster => match cache.faster_api(&key) {
                Some(graph) => graph,
                None => self.faster_api::<T>(&mut cache, key, [a, b], out)?,
            },
        };
        if graph && self.conv_plan::<T>(&mut cache, key, [a, b], out)? {
            return Ok(());
        }
        let (descs, choice) = self.legacy_choice::<T>(&mut cache, key, [a, b], &*out)?;
        let ws = self.workspace(choice.workspace)?;
        let (ops, acc) = operands([a, b], &*out, &ws);
        s.with_access(&acc, || {
            // SAFETY: the descriptors were made for this checked geometry and each buffer was
            // checked to hold the elements its descriptor spans; the workspace holds the bytes
            // cuDNN asked for this algorithm and math type; the handle is bound to this stream
            // and its context is current.
            unsafe { legacy_run::<T>(self.raw, pass, &descs, choice, ops) }
        })
    }

    /// The descriptors of `key`'s problem and its legacy algorithm: cached, measured on the
    /// call's buffers (while the handle measures `T`'s problems), or cuDNN's heuristic choice.
    /// The descriptors' convolution carries the choice's math type.
    fn legacy_choice<T: DnnElement>(
        &self,
        cache: &mut AlgoCache,
        key: PlanKey,
        inputs: [&dyn DeviceRead<T>; 2],
        out: &dyn DeviceWrite<T>,
    ) -> Result<(ConvDescs, Choice)> {
        let descs = ConvDescs::new::<T>(&key.geometry, requested_math::<T>(key.policy.allow_tf32))?;
        let mut measure = || self.measure::<T>(key.pass, &descs, key.policy, inputs, out);
        let measure: Option<&mut dyn FnMut() -> Result<Measured>> = if self.algo_search_for::<T>() {
            Some(&mut measure)
        } else {
            None
        };
        let choice = cache.choose::<T>(
            self.raw,
            key.pass,
            &key.geometry,
            &descs,
            key.policy,
            measure,
        )?;
        Ok((descs, choice))
    }

    /// Settles which API computes `key`'s problem from now on, on its first call: its
    /// graph-API plan and its legacy algorithm (each measured as its API measures) take
    /// [`DUEL_ROUNDS`] turns of [`PLAN_RUNS`] runs between two events on the call's buffers,
    /// and the one with the lesser best round is kept (`true`: the graph API). No plan here,
    /// or one cuDNN refuses to run: the legacy API. On a capturing stream nothing is timed or
    /// kept, and the call takes the legacy API.
    fn faster_api<T: DnnElement>(
        &self,
        cache: &mut AlgoCache,
        key: PlanKey,
        inputs: [&dyn DeviceRead<T>; 2],
        out: &mut dyn DeviceWrite<T>,
    ) -> Result<bool> {
        let s = &*self.stream;
        if s.is_capturing()? {
            return Ok(false);
        }
        if !cache.planned(&key) {
            if !cache.plan_room() {
                cache.set_faster_api(key, false);
                return Ok(false);
            }
            self.make_plan::<T>(cache, key, inputs, &*out)?;
        }
        let Some(plan) = cache.plan(&key, false).cloned() else {
            cache.set_faster_api(key, false);
            return Ok(false);
        };
        let (descs, choice) = self.legacy_choice::<T>(cache, key, inputs, &*out)?;
        let ws = match self.workspace(plan.workspace.max(choice.workspace)) {
            Ok(ws) => ws,
            // No room to time both now: the legacy API computes this call, and a later one
            // times them.
            Err(e) if find_falls_back(&e) => return Ok(false),
            Err(e) => return Err(e),
        };
        let (ops, acc) = operands(inputs, &*out, &ws);
        let timed = s.with_access(&acc, || {
            // SAFETY: as in `conv_plan` (the plan was made for this geometry and these
            // pointers' alignment) and in `conv` (the descriptors and algorithm); the
            // workspace holds the larger of the two needs.
            let graph =
                || unsafe { plan.execute(self.raw, key.pass, ops.a, ops.b, ops.out, ops.ws) };
            // SAFETY: as above.
            let legacy = || unsafe { legacy_run::<T>(self.raw, key.pass, &descs, choice, ops) };
            Ok(self.best_turns(&[&graph, &legacy]).map(|t| (t[0], t[1])))
        })?;
        if duel_trace() {
            eprintln!(
                "cuprite dnn: {:?} {:?} {:?}: graph-API plan {:?} ms, legacy algorithm {} {:?} ms \
                 ({PLAN_RUNS} runs, best of {DUEL_ROUNDS} rounds)",
                key.pass,
                T::DATA_TYPE,
                key.geometry,
                timed.as_ref().ok().map(|t| t.0),
                choice.algo,
                timed.as_ref().ok().map(|t| t.1),
            );
        }
        let graph = match timed {
            Ok((Some(g), Some(l))) => g < l,
            Ok((Some(_), None)) => true,
            Ok((None, _)) => false,
            Err(e) => {
                let _ = s.synchronize();
                return Err(e);
            }
        };
        cache.set_faster_api(key, graph);
        Ok(graph)
    }

    /// The milliseconds [`PLAN_RUNS`] runs of `run` take between two events on the handle's
    /// stream, after one untimed run, waited for: `None` when that first run reports "not
    /// supported" (nothing more runs). Call inside the runs' declared accesses.
    fn timed_runs(&self, run: &dyn Fn() -> Result<()>) -> Result<Option<f32>> {
        let s = &*self.stream;
        match run() {
            Ok(()) => {}
            Err(e) if find_falls_back(&e) => return Ok(None),
            Err(e) => return Err(e),
        }
        let ctx = s.context();
        let start = Event::new(ctx, EventFlags::DEFAULT)?;
        let end = Event::new(ctx, EventFlags::DEFAULT)?;
        start.record(s)?;
        for _ in 0..PLAN_RUNS {
            run()?;
        }
        end.record(s)?;
        end.synchronize()?;
        Ok(Some(start.elapsed_ms(&end)?))
    }

    /// The least time of [`DUEL_ROUNDS`] turns of [`timed_runs`](Self::timed_runs) for each of
    /// `runs`, taken in turn, so that a change of clocks or a stray delay during one turn does
    /// not decide; `None` for a run that reports "not supported" (left out of later turns).
    /// Call inside the runs' declared accesses.
    fn best_turns(&self, runs: &[&dyn Fn() -> Result<()>]) -> Result<Vec<Option<f32>>> {
        let mut best = vec![Some(f32::INFINITY); runs.len()];
        for _ in 0..DUEL_ROUNDS {
            for (run, b) in runs.iter().zip(best.iter_mut()) {
                let Some(so_far) = *b else { continue };
                *b = self.timed_runs(*run)?.map(|ms| so_far.min(ms));
            }
        }
        Ok(best)
    }

    /// Computes the pass of `key` with its graph-API plan: `Ok(true)` when enqueued,
    /// `Ok(false)` when the legacy API must compute it (nothing was enqueued): no plan keeps
    /// the policy here, or none was made yet and this call may not make one (the stream is
    /// capturing, or the handle keeps as many plans as it may), or cuDNN refused to run its
    /// plan. A new problem's plan is the first that cuDNN's heuristics rank and that builds
    /// here, or, when this handle measures ([`Dnn::algo_search`], whatever the element type),
    /// the fastest of the first [`PLAN_CANDIDATES`] timed on the call's buffers.
    fn conv_plan<T: DnnElement>(
        &self,
        cache: &mut AlgoCache,
        key: PlanKey,
        inputs: [&dyn DeviceRead<T>; 2],
        out: &mut dyn DeviceWrite<T>,
    ) -> Result<bool> {
        let s = &*self.stream;
        let fresh = !cache.planned(&key);
        if fresh {
            if !cache.plan_room() || s.is_capturing()? {
                return Ok(false);
            }
            self.make_plan::<T>(cache, key, inputs, &*out)?;
        }
        let Some(plan) = cache.plan(&key, !fresh) else {
            return Ok(false);
        };
        self.keep_plan(plan);
        let ws = self.workspace(plan.workspace)?;
        let (ops, acc) = operands(inputs, &*out, &ws);
        // The outcome is carried out of `with_access` so that its accesses are closed either
        // way.
        let ran = s.with_access(&acc, || {
            // SAFETY: the plan was made for this checked geometry, with the alignment of these
            // very pointers, and each buffer was checked to hold the elements its tensor spans;
            // the workspace holds the bytes cuDNN asked for this plan; the handle is bound to
            // this stream and its context is current.
            Ok(unsafe { plan.execute(self.raw, key.pass, ops.a, ops.b, ops.out, ops.ws) })
        })?;
        match ran {
            Ok(()) => Ok(true),
            // Refused before anything ran ("not supported"): the legacy API computes this
            // problem from now on (the plan stays kept, unused, so no enqueued work of it can
            // outlive it).
            Err(e) if find_falls_back(&e) => {
                cache.refuse_plan(&key);
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Makes and keeps `key`'s plan (`None` where none keeps the policy here): the first that
    /// cuDNN's heuristics rank and that builds, or, when this handle measures, the fastest of
    /// the first [`PLAN_CANDIDATES`] timed on the call's buffers. Call outside a capture, with
    /// room for a plan.
    fn make_plan<T: DnnElement>(
        &self,
        cache: &mut AlgoCache,
        key: PlanKey,
        inputs: [&dyn DeviceRead<T>; 2],
        out: &dyn DeviceWrite<T>,
    ) -> Result<()> {
        let measure = self.algo_search();
        let want = if measure { PLAN_CANDIDATES } else { 1 };
        // Making plans enqueues nothing: any failure leaves the problem to the legacy API,
        // which reports its own errors.
        let candidates = plans::<T>(
            self.raw,
            key.pass,
            &key.geometry,
            key.policy,
            key.align,
            want,
        )
        .unwrap_or_default();
        let pick = if measure && candidates.len() > 1 {
            self.fastest_plan(key.pass, candidates, inputs, out)?
        } else {
            candidates.into_iter().next()
        };
        cache.insert_plan(key, pick, measure);
        Ok(())
    }

    /// The fastest of `candidates` on the call's own buffers (`out`'s contents are not needed:
    /// every timed run overwrites it, and the call computes it next): each runs once, then
    /// [`PLAN_RUNS`] times between two events; the least time wins. A candidate whose run
    /// reports "not supported" is skipped; `None` when every one is.
    fn fastest_plan<T: DnnElement>(
        &self,
        pass: Pass,
        candidates: Vec<Plan>,
        inputs: [&dyn DeviceRead<T>; 2],
        out: &dyn DeviceWrite<T>,
    ) -> Result<Option<Plan>> {
        let s = &*self.stream;
        let most = candidates.iter().map(|p| p.workspace).max().unwrap_or(0);
        let ws = match self.workspace(most) {
            Ok(ws) => ws,
            Err(e) if find_falls_back(&e) => return Ok(candidates.into_iter().next()),
            Err(e) => return Err(e),
        };
        let (ops, acc) = operands(inputs, out, &ws);
        // Each candidate's runs are complete (its end event waited for) before the next
        // starts, so the candidates not kept are dropped with no work of theirs pending; a
        // failure part-way waits for the stream before they go. The outcome is carried out of
        // `with_access` so that its accesses are closed either way.
        let timed = s.with_access(&acc, || {
            let time_all = || -> Result<Vec<f32>> {
                let mut times = Vec::with_capacity(candidates.len());
                for plan in &candidates {
                    // SAFETY: as in `conv_plan`; the workspace holds the most any candidate
                    // asks.
                    let run =
                        || unsafe { plan.execute(self.raw, pass, ops.a, ops.b, ops.out, ops.ws) };
                    times.push(self.timed_runs(&run)?.unwrap_or(f32::INFINITY));
                }
                Ok(times)
            };
            Ok(time_all())
        })?;
        let times = match timed {
            Ok(t) => t,
            Err(e) => {
                let _ = s.synchronize();
                return Err(e);
            }
        };
        let best = times
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_finite())
            .min_by(|x, y| x.1.total_cmp(y.1))
            .map(|(i, _)| i);
        Ok(best.and_then(|i| candidates.into_iter().nth(i)))
    }

    /// Times `pass`'s candidates on the call's own buffers (`inputs` in [`names`]' order, `out`
    /// overwritten by every timed run before the call computes it) with cuDNN's measurement,
    /// times the [`RETIMED`] fastest allowed ones again in turns as the plans are timed, and
    /// settles the one with the least best turn. [`Measured::NotNow`] while the stream is
    /// capturing; [`Measured::FellBack`] when cuDNN lacks the function, refuses as not
    /// supported, offers no allowed candidate, or there is no device memory for the workspace.
    fn measure<T: DnnElement>(
        &self,
        pass: Pass,
        descs: &ConvDescs,
        policy: super::algo::Policy,
        inputs: [&dyn DeviceRead<T>; 2],
        out: &dyn DeviceWrite<T>,
    ) -> Result<Measured> {
        let s = &*self.stream;
        if s.is_capturing()? {
            return Ok(Measured::NotNow);
        }
        let bytes = search_workspace(self.raw, pass, descs);
        let ws = match self.workspace(bytes) {
            Ok(ws) => ws,
            Err(e) if find_falls_back(&e) => return Ok(Measured::FellBack),
            Err(e) => return Err(e),
        };
        let (ops, acc) = operands(inputs, out, &ws);
        let bufs = FindBuffers {
            a: ops.a,
            b: ops.b,
            out: ops.out,
            workspace: ops.ws,
            workspace_bytes: bytes,
        };
        let h = self.raw;
        // The measurement's own outcome is carried out of `with_access` so that its accesses
        // are closed whether it succeeded or not (a failed measurement may have run some
        // candidates on these buffers).
        let found = s.with_access(&acc, || {
            // SAFETY: the descriptors describe exactly the checked shape; the caller checked
            // that each buffer holds the elements its descriptor spans (`out`'s contents are
            // not needed: the call overwrites it next); the workspace holds `bytes` bytes;
            // the handle is bound to this stream, ordered after the buffers' earlier work by
            // the declared accesses, and its context is current.
            Ok(unsafe { find::<T>(h, pass, descs, &bufs, policy, RETIMED) })
        })?;
        let picks = match found {
            Ok(p) if !p.is_empty() => p,
            Ok(_) => return Ok(Measured::FellBack),
            Err(e) if find_falls_back(&e) => return Ok(Measured::FellBack),
            Err(e) => return Err(e),
        };
        let mut best = picks[0];
        if picks.len() > 1 {
            // cuDNN's order of algorithms of near times moves between processes: its fastest
            // few take turns here, timed as the plans are, and the least best turn wins. A
            // candidate whose workspace with its settled math type is more than `bytes`, or
            // that cuDNN refuses to run, is left out.
            let mut usable = Vec::with_capacity(picks.len());
            for c in &picks {
                let choice = settle::<T>(h, pass, descs, c, policy)?;
                if choice.workspace <= bytes {
                    usable.push((*c, choice));
                }
            }
            let runs: Vec<_> = usable
                .iter()
                .map(|&(_, choice)| {
                    move || {
                        descs.conv.set_math(choice.math)?;
                        // SAFETY: as for `find`; `descs` carry `choice`'s math type (set just
                        // above) and the workspace holds `bytes` bytes, at least what `choice`
                        // needs.
                        unsafe { legacy_run::<T>(h, pass, descs, choice, ops) }
                    }
                })
                .collect();
            let runs: Vec<&dyn Fn() -> Result<()>> =
                runs.iter().map(|r| r as &dyn Fn() -> Result<()>).collect();
            let timed = s.with_access(&acc, || Ok(self.best_turns(&runs)))?;
            match timed {
                Ok(times) => {
                    let fastest = times
                        .iter()
                        .enumerate()
                        .filter_map(|(i, t)| t.map(|t| (i, t)))
                        .min_by(|x, y| x.1.total_cmp(&y.1));
                    if let Some((i, _)) = fastest {
                        best = usable[i].0;
                    }
                }
                Err(e) => {
                    let _ = s.synchronize();
                    return Err(e);
                }
            }
        }
        Ok(Measured::Chose(settle::<T>(h, pass, descs, &best, policy)?))
    }

    /// `y = act(conv(x, w) + bias)` in one cuDNN call (`cudnnConvolutionBiasActivationForward`),
    /// overwriting `y`; `bias` holds one value per output channel (at least
    /// `shape.out_channels`). [`Activation::Identity`] runs the implicit precomputed GEMM
    /// algorithm (the one cuDNN fuses it with), [`Activation::Relu`] the heuristic choice.
    /// Only enqueues (a zero-fill of `y`, then the fused call).
    ///
    /// # Errors
    /// As [`conv_forward`](Self::conv_forward); also for a shape whose `x` or filters are empty
    /// while `y` is not (the result would be the bias alone: add it without a convolution),
    /// and a library error when cuDNN does not fuse this type or layout.
    pub fn conv_bias_act_forward<T: DnnElement, const N: usize>(
        &self,
        shape: &ConvShape<N>,
        x: &dyn DeviceRead<T>,
        w: &dyn DeviceRead<T>,
        bias: &dyn DeviceRead<T>,
        act: Activation,
        y: &mut dyn DeviceWrite<T>,
    ) -> Result<()> {
        const CALL: &str = "conv_bias_act_forward";
        let g = self.conv_checks(CALL, Pass::Forward, shape, [x, w, &*y])?;
        check_context(CALL, "bias", &self.stream, bias)?;
        check_lens(CALL, &[("bias", bias.len(), shape.out_channels)])?;
        if g.y_len == 0 {
            return Ok(());
        }
        if g.x_len == 0 || g.w_len == 0 {
            return Err(invalid(format!(
                "{CALL}: x ({} elements) or the filters ({} elements) are empty, so y would be \
                 the bias alone; add the bias without a convolution",
                g.x_len, g.w_len
            )));
        }
        let s = &*self.stream;
        // The fused call reads `z` (here `y`, scaled by 0); zeroing it first keeps stale
        // non-finite values out of the result.
        zero_prefix(s, y, g.y_len)?;
        let policy = self.policy();
        // Held until the work is enqueued: one handle serves one thread at a time.
        let mut cache = self.begin()?;
        let descs = ConvDescs::new::<T>(&g, requested_math::<T>(policy.allow_tf32))?;
        let (choice, mode): (Choice, _) = match act {
            Activation::Identity => {
                let math = run_math::<T>(requested_math::<T>(policy.allow_tf32), policy.allow_tf32);
                (
                    precomp_gemm(self.raw, &descs, math)?,
                    cudnnActivationMode_t::CUDNN_ACTIVATION_IDENTITY,
                )
            }
            // Not measured here: the timed runs would overwrite `y`, zeroed above for the fused
            // call's `z`; a measured forward choice cached by `conv_forward` is used.
            Activation::Relu => (
                cache.choose::<T>(self.raw, Pass::Forward, &g, &descs, policy, None)?,
                cudnnActivationMode_t::CUDNN_ACTIVATION_RELU,
            ),
        };
        let bias_desc = TensorDesc::bias::<T>(&g)?;
        let act_desc = ActDesc::new(mode)?;
        let ws = self.workspace(choice.workspace)?;
        let (px, pw, pb, py) = (
            x.device_ptr() as *const c_void,
            w.device_ptr() as *const c_void,
            bias.device_ptr() as *const c_void,
            y.device_ptr_mut() as *mut c_void,
        );
        let pws = ws.device_ptr() as *mut c_void;
        let (one, zero) = one_zero::<T>();
        let h = self.raw;
        let acc = [
            Access::read(x),
            Access::read(w),
            Access::read(bias),
            Access::write(&*y),
            Access::write(&ws),
        ];
        let d = &descs;
        s.with_access(&acc, || {
            // SAFETY: as in `conv`; `z` is `y` itself (same descriptor, scaled by 0, zeroed
            // above), the bias descriptor spans `out_channels` elements, which `bias` holds.
            unsafe {
                cudnn!(cudnnConvolutionBiasActivationForward(
                    h,
                    one,
                    d.x.0,
                    px,
                    d.w.0,
                    pw,
                    d.conv.0,
                    cudnnConvolutionFwdAlgo_t(choice.algo),
                    pws,
                    choice.workspace,
                    zero,
                    d.y.0,
                    py as *const c_void,
                    bias_desc.0,
                    pb,
                    act_desc.0,
                    d.y.0,
                    py
                ))
            }
        })
    }
}

/// Enqueues `pass` with the legacy algorithm `choice` on `h`'s stream, over `ops`.
///
/// # Safety
/// `descs` describe a checked geometry and carry `choice`'s math type; each operand holds the
/// elements its descriptor spans, the workspace at least `choice.workspace` bytes, all of
/// `h`'s context, declared to its stream's tracker; `h` is bound to that stream with its
/// context current.
unsafe fn legacy_run<T: DnnElement>(
    h: cudnnHandle_t,
    pass: Pass,
    d: &ConvDescs,
    choice: Choice,
    ops: Operands,
) -> Result<()> {
    let (one, zero) = one_zero::<T>();
    let Operands {
        a: pa,
        b: pb,
        out: po,
        ws: pw,
    } = ops;
    // SAFETY: the caller's contract; the scalars are static host values of the type cuDNN
    // reads for `T`.
    unsafe {
        match pass {
            Pass::Forward => cudnn!(cudnnConvolutionForward(
                h,
                one,
                d.x.0,
                pa,
                d.w.0,
                pb,
                d.conv.0,
                cudnnConvolutionFwdAlgo_t(choice.algo),
                pw,
                choice.workspace,
                zero,
                d.y.0,
                po
            )),
            Pass::BackwardData => cudnn!(cudnnConvolutionBackwardData(
                h,
                one,
                d.w.0,
                pa,
                d.y.0,
                pb,
                d.conv.0,
                cudnnConvolutionBwdDataAlgo_t(choice.algo),
                pw,
                choice.workspace,
                zero,
                d.x.0,
                po
            )),
            Pass::BackwardFilter => cudnn!(cudnnConvolutionBackwardFilter(
                h,
                one,
                d.x.0,
                pa,
                d.y.0,
                pb,
                d.conv.0,
                cudnnConvolutionBwdFilterAlgo_t(choice.algo),
                pw,
                choice.workspace,
                zero,
                d.w.0,
                po
            )),
        }
    }
}
