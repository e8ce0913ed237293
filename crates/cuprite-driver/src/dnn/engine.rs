//! cuDNN's graph (backend) API for one convolution pass: the operation graph of a checked
//! [`Geometry`], the engine configurations cuDNN's heuristics (mode A, then the fallback list)
//! rank for it, filtered by cuprite's precision and determinism rules, each finalized into an
//! execution plan, and the execution of a plan on a call's buffers.
//!
//! Invariants: every descriptor is destroyed on drop, after the descriptors made from it (a
//! plan keeps the graph and its parts alive); every status is checked and an error names the
//! call; the tensors' byte alignment is the one the call's pointers actually have (a plan is
//! kept per alignment), so no engine assumes wider loads than the buffers allow; the workspace
//! a plan runs with is the size cuDNN reports for that plan.

use super::element::DnnElement;
use super::pass::{Pass, Policy};
use super::shape::Geometry;
use crate::error::Result;
use cuprite_sys::cudnn::{
    self as sys, cudnnBackendAttributeName_t as A, cudnnBackendAttributeType_t as Ty,
    cudnnBackendBehaviorNote_t as Behavior, cudnnBackendDescriptor_t,
    cudnnBackendDescriptorType_t as D, cudnnBackendHeurMode_t, cudnnBackendNumericalNote_t as Note,
    cudnnConvolutionMode_t, cudnnDataType_t, cudnnHandle_t,
};
use std::ffi::c_void;
use std::sync::Arc;

/// The tensors' ids in a plan's variant pack.
const UID_X: i64 = 1;
const UID_W: i64 = 2;
const UID_Y: i64 = 3;

/// The most engine configurations asked of one heuristics mode.
const MAX_CONFIGS: i64 = 64;

/// One backend descriptor, destroyed on drop.
pub(super) struct Desc(cudnnBackendDescriptor_t);

// SAFETY: a backend descriptor is a host object with no thread affinity; cuprite uses each one
// from one thread at a time (under the handle's lock).
unsafe impl Send for Desc {}
// SAFETY: as above: shared descriptors are only read, under the handle's lock.
unsafe impl Sync for Desc {}

impl Desc {
    fn new(kind: D) -> Result<Desc> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a valid out-pointer.
        unsafe { cudnn!(cudnnBackendCreateDescriptor(kind, &mut raw)) }?;
        Ok(Desc(raw))
    }

    /// Sets attribute `name` to `count` values of type `ty` at `values`.
    ///
    /// # Safety
    /// `values` points to `count` values of the C type `ty` names.
    unsafe fn set_raw(&self, name: A, ty: Ty, count: usize, values: *const c_void) -> Result<()> {
        // SAFETY: a live descriptor; the caller's contract covers `values`.
        unsafe {
            cudnn!(cudnnBackendSetAttribute(
                self.0,
                name,
                ty,
                count as i64,
                values
            ))
        }
    }

    fn set_i64s(&self, name: A, v: &[i64]) -> Result<()> {
        // SAFETY: `v` holds `v.len()` `int64_t` values.
        unsafe { self.set_raw(name, Ty::CUDNN_TYPE_INT64, v.len(), v.as_ptr().cast()) }
    }

    fn set_desc(&self, name: A, d: &Desc) -> Result<()> {
        // SAFETY: one live descriptor handle.
        unsafe {
            self.set_raw(
                name,
                Ty::CUDNN_TYPE_BACKEND_DESCRIPTOR,
                1,
                (&d.0 as *const cudnnBackendDescriptor_t).cast(),
            )
        }
    }

    fn set_data_type(&self, name: A, t: cudnnDataType_t) -> Result<()> {
        // SAFETY: one `cudnnDataType_t` (a C enum, `int`).
        unsafe {
            self.set_raw(
                name,
                Ty::CUDNN_TYPE_DATA_TYPE,
                1,
                (&t as *const cudnnDataType_t).cast(),
            )
        }
    }

    fn set_handle(&self, name: A, h: cudnnHandle_t) -> Result<()> {
        // SAFETY: one live handle.
        unsafe {
            self.set_raw(
                name,
                Ty::CUDNN_TYPE_HANDLE,
                1,
                (&h as *const cudnnHandle_t).cast(),
            )
        }
    }

    /// Sets a scaling factor in the compute type's width (`double` for `f64`, else `float`).
    fn set_scale<T: DnnElement>(&self, name: A, v: f64) -> Result<()> {
        if T::COMPUTE_TYPE == cudnnDataType_t::CUDNN_DATA_DOUBLE {
            // SAFETY: one `double`.
            unsafe { self.set_raw(name, Ty::CUDNN_TYPE_DOUBLE, 1, (&v as *const f64).cast()) }
        } else {
            let f = v as f32;
            // SAFETY: one `float`.
            unsafe { self.set_raw(name, Ty::CUDNN_TYPE_FLOAT, 1, (&f as *const f32).cast()) }
        }
    }

    fn finalize(&self) -> Result<()> {
        // SAFETY: a live descriptor.
        unsafe { cudnn!(cudnnBackendFinalize(self.0)) }
    }

    /// One `int64_t` attribute.
    fn get_i64(&self, name: A) -> Result<i64> {
        let (mut v, mut n) = (0i64, 0i64);
        // SAFETY: a live descriptor; room for one value.
        unsafe {
            cudnn!(cudnnBackendGetAttribute(
                self.0,
                name,
                Ty::CUDNN_TYPE_INT64,
                1,
                &mut n,
                (&mut v as *mut i64).cast()
            ))
        }?;
        Ok(v)
    }
}

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: made by one create call and destroyed only here.
        let _ = unsafe { sys::cudnnBackendDestroyDescriptor(self.0) };
    }
}

/// The largest power of two (at most 16) that divides every address in `ptrs`: the byte
/// alignment a plan may assume of them.
pub(super) fn alignment(ptrs: &[usize]) -> i64 {
    let mut a = 16i64;
    for &p in ptrs {
        while a > 1 && p % a as usize != 0 {
            a /= 2;
        }
    }
    a
}

/// A tensor of `T` with the first `nb` of `dims` and `strides`.
fn tensor<T: DnnElement>(
    uid: i64,
    nb: usize,
    dims: &[i32; 5],
    strides: &[i32; 5],
    align: i64,
) -> Result<Desc> {
    let d = Desc::new(D::CUDNN_BACKEND_TENSOR_DESCRIPTOR)?;
    let dims: Vec<i64> = dims[..nb].iter().map(|&v| i64::from(v)).collect();
    let strides: Vec<i64> = strides[..nb].iter().map(|&v| i64::from(v)).collect();
    d.set_data_type(A::CUDNN_ATTR_TENSOR_DATA_TYPE, T::DATA_TYPE)?;
    d.set_i64s(A::CUDNN_ATTR_TENSOR_DIMENSIONS, &dims)?;
    d.set_i64s(A::CUDNN_ATTR_TENSOR_STRIDES, &strides)?;
    d.set_i64s(A::CUDNN_ATTR_TENSOR_UNIQUE_ID, &[uid])?;
    d.set_i64s(A::CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, &[align])?;
    d.finalize()?;
    Ok(d)
}

/// The finalized operation graph of `pass` over `g`, and the descriptors it was made of.
fn op_graph<T: DnnElement>(
    h: cudnnHandle_t,
    pass: Pass,
    g: &Geometry,
    align: i64,
) -> Result<(Desc, Vec<Desc>)> {
    let nb = g.nb;
    let sp = g.spatial();
    let x = tensor::<T>(UID_X, nb, &g.x_dims, &g.x_strides, align)?;
    let w = tensor::<T>(UID_W, nb, &g.w_dims, &g.strides(&g.w_dims), align)?;
    let y = tensor::<T>(UID_Y, nb, &g.y_dims, &g.y_strides, align)?;
    let conv = Desc::new(D::CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR)?;
    let wide = |v: &[i32; 3]| -> Vec<i64> { v[..sp].iter().map(|&e| i64::from(e)).collect() };
    conv.set_data_type(A::CUDNN_ATTR_CONVOLUTION_COMP_TYPE, T::COMPUTE_TYPE)?;
    let mode = cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION;
    // SAFETY: one `cudnnConvolutionMode_t` (a C enum, `int`).
    unsafe {
        conv.set_raw(
            A::CUDNN_ATTR_CONVOLUTION_CONV_MODE,
            Ty::CUDNN_TYPE_CONVOLUTION_MODE,
            1,
            (&mode as *const cudnnConvolutionMode_t).cast(),
        )
    }?;
    conv.set_i64s(A::CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, &[sp as i64])?;
    conv.set_i64s(A::CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, &wide(&g.pad))?;
    conv.set_i64s(A::CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, &wide(&g.pad))?;
    conv.set_i64s(A::CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, &wide(&g.stride))?;
    conv.set_i64s(A::CUDNN_ATTR_CONVOLUTION_DILATIONS, &wide(&g.dilation))?;
    conv.finalize()?;
    let (kind, ax, aw, ay, ac, aa, ab) = match pass {
        Pass::Forward => (
            D::CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
        ),
        Pass::BackwardData => (
            D::CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
        ),
        Pass::BackwardFilter => (
            D::CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
            A::CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
        ),
    };
    let op = Desc::new(kind)?;
    op.set_desc(ax, &x)?;
    op.set_desc(aw, &w)?;
    op.set_desc(ay, &y)?;
    op.set_desc(ac, &conv)?;
    op.set_scale::<T>(aa, 1.0)?;
    op.set_scale::<T>(ab, 0.0)?;
    op.finalize()?;
    let graph = Desc::new(D::CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR)?;
    graph.set_desc(A::CUDNN_ATTR_OPERATIONGRAPH_OPS, &op)?;
    graph.set_handle(A::CUDNN_ATTR_OPERATIONGRAPH_HANDLE, h)?;
    graph.finalize()?;
    Ok((graph, vec![op, conv, x, w, y]))
}

/// The engine configurations heuristics `mode` ranks for `graph`, best first.
fn configs(graph: &Desc, mode: cudnnBackendHeurMode_t) -> Result<Vec<Desc>> {
    let heur = Desc::new(D::CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR)?;
    heur.set_desc(A::CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)?;
    // SAFETY: one `cudnnBackendHeurMode_t` (a C enum, `int`).
    unsafe {
        heur.set_raw(
            A::CUDNN_ATTR_ENGINEHEUR_MODE,
            Ty::CUDNN_TYPE_HEUR_MODE,
            1,
            (&mode as *const cudnnBackendHeurMode_t).cast(),
        )
    }?;
    heur.finalize()?;
    let mut count = 0i64;
    // SAFETY: a live descriptor; asking only the count (no values written).
    unsafe {
        cudnn!(cudnnBackendGetAttribute(
            heur.0,
            A::CUDNN_ATTR_ENGINEHEUR_RESULTS,
            Ty::CUDNN_TYPE_BACKEND_DESCRIPTOR,
            0,
            &mut count,
            std::ptr::null_mut()
        ))
    }?;
    let count = count.clamp(0, MAX_CONFIGS);
    let cfgs = (0..count)
        .map(|_| Desc::new(D::CUDNN_BACKEND_ENGINECFG_DESCRIPTOR))
        .collect::<Result<Vec<_>>>()?;
    if cfgs.is_empty() {
        return Ok(cfgs);
    }
    let mut raws: Vec<cudnnBackendDescriptor_t> = cfgs.iter().map(|d| d.0).collect();
    let mut got = 0i64;
    // SAFETY: `raws` holds `count` live engine-configuration descriptors for cuDNN to fill.
    unsafe {
        cudnn!(cudnnBackendGetAttribute(
            heur.0,
            A::CUDNN_ATTR_ENGINEHEUR_RESULTS,
            Ty::CUDNN_TYPE_BACKEND_DESCRIPTOR,
            count,
            &mut got,
            raws.as_mut_ptr().cast()
        ))
    }?;
    let mut cfgs = cfgs;
    cfgs.truncate(got.clamp(0, count) as usize);
    Ok(cfgs)
}

/// The engine of configuration `cfg`: its numerical notes, and whether its kernels are
/// compiled at run time (counted so when cuDNN does not say).
fn engine_of(cfg: &Desc) -> Result<(Vec<Note>, bool)> {
    let engine = Desc::new(D::CUDNN_BACKEND_ENGINE_DESCRIPTOR)?;
    let mut n = 0i64;
    let mut raw = engine.0;
    // SAFETY: one live engine descriptor for cuDNN to fill.
    unsafe {
        cudnn!(cudnnBackendGetAttribute(
            cfg.0,
            A::CUDNN_ATTR_ENGINECFG_ENGINE,
            Ty::CUDNN_TYPE_BACKEND_DESCRIPTOR,
            1,
            &mut n,
            (&mut raw as *mut cudnnBackendDescriptor_t).cast()
        ))
    }?;
    let cap = Note::CUDNN_NUMERICAL_NOTE_TYPE_COUNT.0 as usize;
    let mut notes = vec![Note::CUDNN_NUMERICAL_NOTE_TYPE_COUNT; cap];
    let mut got = 0i64;
    // SAFETY: `notes` holds `cap` values of the enum.
    unsafe {
        cudnn!(cudnnBackendGetAttribute(
            engine.0,
            A::CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
            Ty::CUDNN_TYPE_NUMERICAL_NOTE,
            cap as i64,
            &mut got,
            notes.as_mut_ptr().cast()
        ))
    }?;
    notes.truncate(got.clamp(0, cap as i64) as usize);
    let cap = Behavior::CUDNN_BEHAVIOR_NOTE_TYPE_COUNT.0 as usize;
    let mut behavior = vec![Behavior::CUDNN_BEHAVIOR_NOTE_TYPE_COUNT; cap];
    let mut got = 0i64;
    // SAFETY: `behavior` holds `cap` values of the enum.
    let asked = unsafe {
        cudnn!(cudnnBackendGetAttribute(
            engine.0,
            A::CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
            Ty::CUDNN_TYPE_BEHAVIOR_NOTE,
            cap as i64,
            &mut got,
            behavior.as_mut_ptr().cast()
        ))
    };
    let compiled = match asked {
        Ok(()) => behavior[..got.clamp(0, cap as i64) as usize]
            .contains(&Behavior::CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION),
        Err(_) => true,
    };
    Ok((notes, compiled))
}

/// Whether an engine with `notes` keeps `policy` for `T`: sums accumulate in `T`'s compute
/// type (no reduced-precision reduction); `f32` and `f64` data is never converted to a
/// narrower type, and `f32` reaches tensor cores (TF32) only when allowed; only deterministic
/// engines when that is asked.
pub(super) fn notes_allowed<T: DnnElement>(notes: &[Note], policy: Policy) -> bool {
    let has = |n: Note| notes.contains(&n);
    if has(Note::CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) {
        return false;
    }
    let full = match T::DATA_TYPE {
        // Full-precision data is never converted to a narrower type; `f32` reaches tensor
        // cores (TF32) only when allowed.
        cudnnDataType_t::CUDNN_DATA_FLOAT => {
            !has(Note::CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)
                && (policy.allow_tf32 || !has(Note::CUDNN_NUMERICAL_NOTE_TENSOR_CORE))
        }
        cudnnDataType_t::CUDNN_DATA_DOUBLE => !has(Note::CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS),
        _ => true,
    };
    full && !(policy.deterministic && has(Note::CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC))
}

/// A finalized operation graph and the descriptors it was made of.
struct Graph {
    _desc: Desc,
    _parts: Vec<Desc>,
}

/// A finalized execution plan of one pass over one geometry, with the engine configuration and
/// the graph it was made from (fields drop in order: the plan first, the graph last).
pub(super) struct Plan {
    plan: Desc,
    _cfg: Desc,
    _graph: Arc<Graph>,
    /// Workspace bytes the plan needs.
    pub workspace: usize,
}

/// Up to `want` plans for `pass` over `g` (tensors aligned to `align` bytes), in the order
/// cuDNN's heuristics rank their engines (mode A; the fallback list when mode A gives no
/// plan), each keeping `policy` (configurations of one engine differ in their knobs: tile
/// sizes, splits); configurations that do not build here are skipped. Configurations whose
/// kernels are compiled at run time come last: the first allowed one of a mode is tried only
/// when none of the mode's precompiled configurations builds, since each finalization of one
/// compiles kernels, which costs far more than a run, also when it then fails to build. Empty
/// when none builds; an `Err` only when the operation graph itself cannot be described.
pub(super) fn plans<T: DnnElement>(
    h: cudnnHandle_t,
    pass: Pass,
    g: &Geometry,
    policy: Policy,
    align: i64,
    want: usize,
) -> Result<Vec<Plan>> {
    let mut out: Vec<Plan> = Vec::new();
    for mode in [
        cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_A,
        cudnnBackendHeurMode_t::CUDNN_HEUR_MODE_FALLBACK,
    ] {
        // The fallback list (generic engines, some far slower) only when mode A gave nothing.
        if !out.is_empty() {
            break;
        }
        let (graph, parts) = op_graph::<T>(h, pass, g, align)?;
        // A mode that fails here leaves the choice to the next (or to the legacy API).
        let Ok(cfgs) = configs(&graph, mode) else {
            continue;
        };
        // The configurations refer to this graph: every plan made from them keeps it.
        let graph = Arc::new(Graph {
            _desc: graph,
            _parts: parts,
        });
        // The first allowed configuration whose kernels are compiled at run time, for when no
        // precompiled one builds.
        let mut compiled_first: Option<Desc> = None;
        for cfg in cfgs {
            if out.len() >= want {
                return Ok(out);
            }
            // A configuration cuDNN cannot describe or build here is skipped: building a plan
            // enqueues nothing, so a failure leaves no trace.
            let Ok((notes, compiled)) = engine_of(&cfg) else {
                continue;
            };
            if !notes_allowed::<T>(&notes, policy) {
                continue;
            }
            if compiled {
                compiled_first.get_or_insert(cfg);
                continue;
            }
            out.extend(build_plan(h, cfg, &graph)?);
        }
        // One compilation is the most a problem's first call pays per mode.
        if let (true, Some(cfg)) = (out.is_empty(), compiled_first) {
            out.extend(build_plan(h, cfg, &graph)?);
        }
    }
    Ok(out)
}

/// The execution plan of configuration `cfg` of `graph`, finalized; `None` when cuDNN does not
/// build it here (nothing is enqueued either way). An `Err` only when a descriptor cannot be
/// made or set.
fn build_plan(h: cudnnHandle_t, cfg: Desc, graph: &Arc<Graph>) -> Result<Option<Plan>> {
    let plan = Desc::new(D::CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)?;
    plan.set_handle(A::CUDNN_ATTR_EXECUTION_PLAN_HANDLE, h)?;
    plan.set_desc(A::CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, &cfg)?;
    if plan.finalize().is_err() {
        return Ok(None);
    }
    let Some(workspace) = plan
        .get_i64(A::CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)
        .ok()
        .and_then(|ws| usize::try_from(ws).ok())
    else {
        return Ok(None);
    };
    Ok(Some(Plan {
        plan,
        _cfg: cfg,
        _graph: graph.clone(),
        workspace,
    }))
}

impl Plan {
    /// Enqueues the plan on the handle's stream: `a` and `b` are the pass's inputs and `out`
    /// its output, in [`Pass`]' operand order (forward `x, w → y`; backward-data `w, dy → dx`;
    /// backward-filter `x, dy → dw`), with `workspace` of at least [`Plan::workspace`] bytes.
    ///
    /// # Safety
    /// The buffers hold the elements the plan's geometry spans, are aligned as the plan was
    /// made for, and the inputs are readable and the output writable by the stream's work; the
    /// handle's context is current and it is bound to the stream that orders these buffers.
    pub unsafe fn execute(
        &self,
        h: cudnnHandle_t,
        pass: Pass,
        a: *const c_void,
        b: *const c_void,
        out: *mut c_void,
        workspace: *mut c_void,
    ) -> Result<()> {
        let (x, w, y): (*mut c_void, *mut c_void, *mut c_void) = match pass {
            Pass::Forward => (a as *mut c_void, b as *mut c_void, out),
            Pass::BackwardData => (out, a as *mut c_void, b as *mut c_void),
            Pass::BackwardFilter => (a as *mut c_void, out, b as *mut c_void),
        };
        let uids = [UID_X, UID_W, UID_Y];
        let ptrs = [x, w, y];
        let pack = Desc::new(D::CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)?;
        pack.set_i64s(A::CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, &uids)?;
        // SAFETY: `ptrs` holds three device pointers (`void *`).
        unsafe {
            pack.set_raw(
                A::CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                Ty::CUDNN_TYPE_VOID_PTR,
                3,
                ptrs.as_ptr().cast(),
            )
        }?;
        // SAFETY: one device pointer.
        unsafe {
            pack.set_raw(
                A::CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                Ty::CUDNN_TYPE_VOID_PTR,
                1,
                (&workspace as *const *mut c_void).cast(),
            )
        }?;
        pack.finalize()?;
        // SAFETY: the caller's contract covers the buffers, the handle and the stream.
        unsafe { cudnn!(cudnnBackendExecute(h, self.plan.0, pack.0)) }
    }
}

#[cfg(test)]
mod tests {
    use super::{Note, alignment, notes_allowed};
    use crate::dnn::algo::Policy;
    use half::{bf16, f16};

    const FREE: Policy = Policy {
        allow_tf32: false,
        deterministic: false,
    };

    #[test]
    fn alignment_is_the_largest_shared_power_of_two() {
        assert_eq!(alignment(&[0x1000, 0x2000, 0x3000]), 16);
        assert_eq!(alignment(&[0x1000, 0x2008, 0x3000]), 8);
        assert_eq!(alignment(&[0x1004, 0x2000, 0x3000]), 4);
        // A bf16 view one element into its buffer.
        assert_eq!(alignment(&[0x1002, 0x2000, 0x3000]), 2);
        assert_eq!(alignment(&[0x1001, 0x2000, 0x3000]), 1);
        // Never more than 16, and an empty list promises the most.
        assert_eq!(alignment(&[1 << 20]), 16);
        assert_eq!(alignment(&[]), 16);
    }

    #[test]
    fn engine_notes_keep_the_policy() {
        use Note as N;
        let tc = [N::CUDNN_NUMERICAL_NOTE_TENSOR_CORE];
        let nondet = [
            N::CUDNN_NUMERICAL_NOTE_TENSOR_CORE,
            N::CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC,
        ];
        let reduced = [N::CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION];
        let convert = [N::CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS];
        let det = Policy {
            deterministic: true,
            ..FREE
        };
        let tf32 = Policy {
            allow_tf32: true,
            ..FREE
        };
        // Half types: tensor cores and input conversion are theirs; sums stay in f32.
        assert!(notes_allowed::<bf16>(&tc, FREE));
        assert!(notes_allowed::<f16>(&convert, FREE));
        assert!(!notes_allowed::<bf16>(&reduced, FREE));
        assert!(!notes_allowed::<f16>(&reduced, tf32));
        // Determinism when asked.
        assert!(notes_allowed::<bf16>(&nondet, FREE));
        assert!(!notes_allowed::<bf16>(&nondet, det));
        assert!(notes_allowed::<bf16>(&tc, det));
        // f32: TF32 tensor cores only when allowed, never converted, never reduced.
        assert!(!notes_allowed::<f32>(&tc, FREE));
        assert!(notes_allowed::<f32>(&tc, tf32));
        assert!(!notes_allowed::<f32>(&convert, tf32));
        assert!(!notes_allowed::<f32>(&reduced, tf32));
        assert!(notes_allowed::<f32>(&[], det));
        // f64: never converted or reduced.
        assert!(notes_allowed::<f64>(&tc, FREE));
        assert!(!notes_allowed::<f64>(&convert, FREE));
        assert!(!notes_allowed::<f64>(&reduced, FREE));
    }
}
