//! Interop: the seed API (device pointers, locks, devices, the array stream), safe buffer and
//! view hand-offs with stream tracking, custom NVRTC kernels over array memory with counted
//! host synchronisations and stream waits, foreign streams, DLPack, and ndarray.

use cuprite_array::interop::dlpack::{
    DLDataType, DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPackTensor, DLPackVersion,
    DLTensor, FLAG_READ_ONLY, KDL_CPU, KDL_CUDA, KDL_FLOAT,
};
use cuprite_array::interop::{self, thread_stats};
use cuprite_array::{Array, Device, mem_stats, with_device, with_stream};
use cuprite_driver::{Context, DeviceBuffer, Function, LaunchConfig, Stream};
use cuprite_testkit::{Rng, Test, TestResult};
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const SRC: &str = r#"
extern "C" __global__ void axpb(const float* x, float* y, float a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
"#;

fn cuda() -> Device {
    Device::cuda(0)
}

/// The array library's context and the `axpb` kernel loaded in it.
fn axpb() -> Result<(Arc<Context>, Function), Box<dyn std::error::Error + Send + Sync>> {
    let ctx = cuprite_array::get_stream(0)?.context().clone();
    let m = ctx.load_module(cuprite_driver::nvrtc::compile_ptx(SRC)?)?;
    Ok((ctx.clone(), m.load_function("axpb")?))
}

fn close32(got: &[f32], want: &[f32], tol: f32, what: &str) -> TestResult {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()).into());
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > tol * (1.0 + w.abs()) {
            return Err(format!("{what}: element {i} is {g}, expected {w}").into());
        }
    }
    Ok(())
}

/// ArrayFire's custom-kernel example without its host synchronisation: a custom kernel on the array stream over array memory, the result an
/// array again; no host synchronisation and no stream wait between the two array steps.
fn custom_kernel_on_array_stream() -> TestResult {
    with_device(cuda(), || {
        let (ctx, f) = axpb()?;
        // Deterministic counts whatever other tests did: the switch to multi-stream tracking
        // (one device-wide synchronisation) happens here, before the counted part.
        ctx.enable_multi_stream_tracking()?;
        let mut rng = Rng::fresh();
        let n = 100_000 + (rng.next_u64() % 5000) as usize;
        let (ha, hb) = (rng.vec_f32(n, -2.0, 2.0), rng.vec_f32(n, -2.0, 2.0));
        let a = Array::from_slice(&ha, &[n])?;
        let b = Array::from_slice(&hb, &[n])?;
        let stream = cuprite_array::get_stream(0)?;
        let mut out = stream.clone_htod(&vec![f32::NAN; n])?; // poisoned
        let before = thread_stats();
        let c = (&a * &b + 1.0).sin(); // lazy
        let view = c.device_view()?; // evaluates on the array stream
        assert!(c.is_locked(), "a live view locks the array");
        let (alpha, beta, nn) = (3.0f32, -0.5f32, n as u32);
        let mut lb = stream.launch_builder(&f);
        lb.arg(&view).arg(&mut out).arg(&alpha).arg(&beta).arg(&nn);
        // SAFETY: axpb reads n floats of x, writes n floats of y; both hold n elements.
        unsafe { lb.launch(LaunchConfig::for_num_elems(nn)) }?;
        drop(view);
        assert!(!c.is_locked(), "the lock ends with the last view");
        let y = Array::from_buffer(out, &[n])?;
        let z = (&y - &a).sum()?; // array work on the kernel's output
        z.eval()?;
        let d = thread_stats().since(&before);
        assert_eq!(d.host_syncs, 0, "host synchronisations: {d:?}");
        assert_eq!(d.stream_waits, 0, "cross-stream waits: {d:?}");
        let want: Vec<f32> = (0..n)
            .map(|i| alpha * (ha[i] * hb[i] + 1.0).sin() + beta)
            .collect();
        close32(&y.to_vec()?, &want, 1e-5, "kernel output")?;
        let s: f64 = (0..n).map(|i| (want[i] - ha[i]) as f64).sum();
        let got = z.item()? as f64;
        assert!(
            (got - s).abs() <= 1e-3 * (1.0 + s.abs()),
            "sum {got} vs {s}"
        );
        Ok(())
    })
}

/// A kernel on the user's own stream reads array memory and writes a buffer that becomes an
/// array: ordered by the tracking alone (device-side waits, no host synchronisation).
fn user_stream_ordered_by_tracking() -> TestResult {
    with_device(cuda(), || {
        let (ctx, f) = axpb()?;
        ctx.enable_multi_stream_tracking()?;
        let mut rng = Rng::fresh();
        let n = (1 << 22) + (rng.next_u64() % 1000) as usize;
        let hx = rng.vec_f32(n, -1.0, 1.0);
        let x = Array::from_slice(&hx, &[n])?;
        let user = ctx.new_stream()?;
        let mut out = user.clone_htod(&vec![f32::NAN; n])?;
        let before = thread_stats();
        // A long fused chain on the array stream, read right away on the user stream.
        let mut t = x.clone();
        for _ in 0..6 {
            t = (&t * 1.5).sin() + 0.25;
        }
        let view = t.device_view()?;
        let (alpha, beta, nn) = (2.0f32, 1.0f32, n as u32);
        let mut lb = user.launch_builder(&f);
        lb.arg(&view).arg(&mut out).arg(&alpha).arg(&beta).arg(&nn);
        // SAFETY: axpb reads n floats of x, writes n floats of y; both hold n elements.
        unsafe { lb.launch(LaunchConfig::for_num_elems(nn)) }?;
        drop(view);
        let y = Array::from_buffer(out, &[n])?;
        let r = (&y * 0.5).exp(); // array stream reads what the user stream wrote
        r.eval()?;
        let d = thread_stats().since(&before);
        assert_eq!(d.host_syncs, 0, "host synchronisations: {d:?}");
        assert!(
            (1..=2).contains(&d.stream_waits),
            "exactly the needed waits (user after array write, array after user write): {d:?}"
        );
        let got = r.to_vec()?;
        let want: Vec<f32> = hx
            .iter()
            .map(|&v| {
                let mut t = v;
                for _ in 0..6 {
                    t = (t * 1.5).sin() + 0.25;
                }
                ((alpha * t + beta) * 0.5).exp()
            })
            .collect();
        close32(&got, &want, 1e-5, "user stream result")
    })
}

/// A stream created outside cuprite, wrapped with `Stream::from_raw`, adopted as this thread's
/// array stream: array kernels and a custom kernel share it with no waits and no syncs.
fn foreign_stream_adopted() -> TestResult {
    use cuprite_driver::sys::driver as sys;
    with_device(cuda(), || {
        let (ctx, f) = axpb()?;
        ctx.enable_multi_stream_tracking()?;
        ctx.bind_to_thread()?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        let r = unsafe { sys::cuStreamCreate(&mut raw, 1) };
        cuprite_driver::error::check(r, "cuStreamCreate")?;
        // SAFETY: `raw` is a stream of `ctx`, destroyed below after everything on it is done.
        let foreign: Arc<Stream> = unsafe { Stream::from_raw(&ctx, raw) };
        let mut rng = Rng::fresh();
        let n = 50_000 + (rng.next_u64() % 999) as usize;
        let hx = rng.vec_f32(n, 0.0, 3.0);
        let result = with_stream(
            &foreign,
            || -> Result<Vec<f32>, Box<dyn std::error::Error + Send + Sync>> {
                assert_eq!(
                    interop::current_stream(0)?.raw(),
                    raw,
                    "the thread's array stream"
                );
                let x = Array::from_slice(&hx, &[n])?;
                let mut out = foreign.clone_htod(&vec![f32::NAN; n])?;
                let before = thread_stats();
                let s = x.sqrt();
                let v = s.device_view()?;
                let (alpha, beta, nn) = (-1.0f32, 4.0f32, n as u32);
                let mut lb = foreign.launch_builder(&f);
                lb.arg(&v).arg(&mut out).arg(&alpha).arg(&beta).arg(&nn);
                // SAFETY: axpb reads n floats of x, writes n floats of y; both hold n elements.
                unsafe { lb.launch(LaunchConfig::for_num_elems(nn)) }?;
                drop(v);
                let y = Array::from_buffer(out, &[n])? * 2.0;
                y.eval()?;
                let d = thread_stats().since(&before);
                assert_eq!((d.host_syncs, d.stream_waits), (0, 0), "{d:?}");
                Ok(y.to_vec()?)
            },
        )?;
        let want: Vec<f32> = hx.iter().map(|&v| (4.0 - v.sqrt()) * 2.0).collect();
        close32(&result, &want, 1e-5, "foreign stream")?;
        foreign.synchronize()?;
        drop(foreign);
        // SAFETY: we created `raw`; all work on it is done and no wrapper is left.
        let r = unsafe { sys::cuStreamDestroy_v2(raw) };
        cuprite_driver::error::check(r, "cuStreamDestroy")?;
        Ok(())
    })
}

/// Regression: the library kept small buffers of dropped arrays for reuse even when they were
/// made on a foreign stream; once its owner destroyed that stream, releasing them in
/// `device_gc` (as out-of-memory does) enqueued frees on a dead stream, which failed with
/// CUDA_ERROR_CONTEXT_IS_DESTROYED, deferred to whichever call on the primary context came
/// next (other tests failed with it). Now array memory of a user stream is freed on that
/// stream when the array drops (no wait, no host sync), and never kept for reuse.
fn foreign_stream_arrays_freed_on_it() -> TestResult {
    use cuprite_driver::sys::driver as sys;
    with_device(cuda(), || {
        let ctx = cuprite_array::get_stream(0)?.context().clone();
        ctx.bind_to_thread()?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        // SAFETY: valid out-pointer; the context is current.
        let r = unsafe { sys::cuStreamCreate(&mut raw, 1) };
        cuprite_driver::error::check(r, "cuStreamCreate")?;
        // SAFETY: `raw` is a stream of `ctx`; it is destroyed below, once the arrays made on it
        // and the wrapper are gone, as `from_raw`'s contract asks.
        let foreign: Arc<Stream> = unsafe { Stream::from_raw(&ctx, raw) };
        let mut rng = Rng::fresh();
        // Sizes no other test uses: small buffers on the array stream are kept by exact size.
        let n = 3_001 + (rng.next_u64() % 997) as usize;
        let big = 300_007 + (rng.next_u64() % 997) as usize; // over a thread's own reuse (1 MiB)
        let h = rng.vec_f32(n, -2.0, 2.0);
        let hb = rng.vec_f32(big, -2.0, 2.0);
        let before = thread_stats();
        let (small, large, own_buf) = with_stream(
            &foreign,
            || -> Result<_, Box<dyn std::error::Error + Send + Sync>> {
                assert!(foreign.is_foreign());
                let a = Array::from_slice(&h, &[n])?;
                let b = &a * 2.0 + 1.0;
                b.eval()?;
                let c = Array::from_slice(&hb, &[big])? - 0.5;
                c.eval()?;
                let t = &a + 3.0;
                t.eval()?;
                drop(t); // freed on the foreign stream now: not kept for reuse
                drop(a); // likewise, after b's kernel (same stream)
                let small = b.to_vec()?;
                let large = c.to_vec()?;
                // A driver-layer buffer made on the foreign stream, moved to a stream of ours.
                let mut own = foreign.clone_htod(&h)?;
                own.set_stream(&ctx.default_stream())?;
                Ok((small, large, own))
            },
        )?;
        // Freeing array memory on the stream it was made on cost no wait and no host sync
        // beyond the two copies back (to_vec).
        let d = thread_stats().since(&before);
        assert_eq!(d.stream_waits, 0, "{d:?}");
        close32(
            &small,
            &h.iter().map(|v| v * 2.0 + 1.0).collect::<Vec<_>>(),
            1e-6,
            "array made on the foreign stream",
        )?;
        close32(
            &large,
            &hb.iter().map(|v| v - 0.5).collect::<Vec<_>>(),
            1e-6,
            "large array made on the foreign stream",
        )?;
        foreign.synchronize()?;
        drop(foreign);
        // SAFETY: we created `raw`; its arrays are gone, its work is done, the wrapper dropped.
        let r = unsafe { sys::cuStreamDestroy_v2(raw) };
        cuprite_driver::error::check(r, "cuStreamDestroy")?;
        assert_eq!(ctx.default_stream().clone_dtoh(&own_buf)?, h);
        assert!(own_buf.stream().is_default());
        drop(own_buf);
        // Releasing the buffers kept for reuse (what out-of-memory does before its retry)
        // frees nothing on the destroyed stream: none of its buffers were kept.
        cuprite_array::device_gc(cuda())?;
        ctx.synchronize()?;
        ctx.check_deferred()?;
        // A stream of another context is not adopted: the array stream is used instead.
        let owned = Context::create_and_push(
            cuprite_driver::ContextFlags::SCHED_AUTO,
            cuprite_driver::Device::get(0)?,
        )?;
        cuprite_driver::ContextStack::pop()?;
        let other = owned.new_stream()?;
        let mut other_buf = other.clone_htod(&h)?;
        crate::common::assert_err(
            other_buf.set_stream(&ctx.default_stream()),
            "InvalidArgument",
            "belongs to another context",
        );
        let got = with_stream(&other, || -> cuprite_array::Result<Vec<f32>> {
            assert_eq!(
                interop::current_stream(0)?.raw(),
                cuprite_array::get_stream(0)?.raw()
            );
            (Array::from_slice(&h, &[n])? * 4.0).to_vec()
        })?;
        close32(
            &got,
            &h.iter().map(|v| v * 4.0).collect::<Vec<_>>(),
            1e-6,
            "with_stream of another context",
        )?;
        drop(other_buf);
        drop(other);
        owned.synchronize()?;
        drop(owned);
        cuprite_array::sync(cuda())?;
        ctx.check_deferred()?;
        Ok(())
    })
}

/// `new_from_device_ptr` takes ownership; bad pointers are errors; `device_ptr` locks; a locked
/// array's memory outlives the array and is the caller's.
fn device_pointers_and_locks() -> TestResult {
    with_device(cuda(), || {
        let stream = cuprite_array::get_stream(0)?;
        let mut rng = Rng::fresh();
        let n = 4096 + (rng.next_u64() % 64) as usize;
        let h = rng.vec_f32(n, -5.0, 5.0);
        let ptr = stream.clone_htod(&h)?.leak();
        // Bad pointers first (nothing is taken over on error).
        // SAFETY: every pointer below is refused by the checks (so nothing is taken over).
        unsafe {
            crate::common::assert_err(
                Array::<f32>::new_from_device_ptr(std::ptr::null_mut(), &[4]),
                "InvalidArgument",
                "a null device pointer",
            );
            let e = Array::<f32>::new_from_device_ptr((ptr + 2) as *mut f32, &[4]).unwrap_err();
            assert!(e.to_string().contains("aligned"), "{e}");
            let e = Array::<f32>::new_from_device_ptr((ptr + 256) as *mut f32, &[4]).unwrap_err();
            assert!(e.to_string().contains("into an allocation"), "{e}");
            let e = Array::<f32>::new_from_device_ptr(ptr as *mut f32, &[n + 4096]).unwrap_err();
            assert!(e.to_string().contains("bytes"), "{e}");
            let host = [1.0f32; 16];
            // A host pointer: CUDA knows it not, or not as device memory.
            let e = Array::<f32>::new_from_device_ptr(host.as_ptr() as *mut f32, &[16]);
            crate::common::assert_err(
                e,
                "InvalidArgument",
                &format!("{:#x}", host.as_ptr() as u64),
            );
            // The CPU backend has no device memory.
            let e = with_device(Device::CPU, || {
                Array::<f32>::new_from_device_ptr(ptr as *mut f32, &[n])
            });
            crate::common::assert_err(e, "DeviceMismatch", "this thread's device is cpu:0");
        }
        // Counted as allocated: the cumulative count only grows (what is in use also moves
        // with other tests freeing memory in parallel).
        let allocated = mem_stats(cuda()).bytes_allocated_total;
        // SAFETY: the start of an n-float allocation of device 0, given up by `leak`.
        let a = unsafe { Array::<f32>::new_from_device_ptr(ptr as *mut f32, &[n]) }?;
        assert!(mem_stats(cuda()).bytes_allocated_total >= allocated + n * 4);
        close32(
            &(&a * 2.0).to_vec()?,
            &h.iter().map(|v| v * 2.0).collect::<Vec<_>>(),
            0.0,
            "owned",
        )?;
        // device_ptr evaluates and locks; the pointer is the array's memory.
        let b = (&a + 1.0).cast::<f32>();
        let p = b.device_ptr()?;
        assert!(b.is_locked());
        let locked = mem_stats(cuda()).bytes_locked;
        assert!(locked >= n * 4, "locked bytes counted: {locked}");
        drop(b); // locked: not freed, now the caller's
        // SAFETY: p is the start of an n-float allocation of this context that the array
        // library left to us (locked when its last array dropped).
        let back = unsafe { DeviceBuffer::<f32>::from_raw_parts(p, n, &stream) };
        close32(
            &stream.clone_dtoh(&back)?,
            &h.iter().map(|v| v + 1.0).collect::<Vec<_>>(),
            0.0,
            "locked memory",
        )?;
        drop(back);
        // lock / unlock round trip.
        a.lock()?;
        assert!(a.is_locked());
        a.unlock()?;
        assert!(!a.is_locked());
        a.unlock()?; // unlocking an unlocked array does nothing
        // Devices and the stream.
        assert_eq!(interop::get_device_native_id(0)?, 0);
        crate::common::assert_err(
            interop::get_device_native_id(1 << 20),
            "InvalidArgument",
            "array device 1048576 does not exist",
        );
        interop::set_device_native_id(0)?;
        assert_eq!(cuprite_array::get_device(), 0);
        crate::common::assert_err(
            interop::set_device_native_id(-1),
            "InvalidArgument",
            "CUDA device -1 does not exist",
        );
        assert_eq!(
            cuprite_array::get_stream(0)?.raw(),
            interop::current_stream(0)?.raw()
        );
        cuprite_array::sync(cuda())?;
        Ok(())
    })
}

/// `from_buffer` and `into_buffer` move ownership without copying; bad cases are errors.
fn buffers_in_and_out() -> TestResult {
    with_device(cuda(), || {
        let stream = cuprite_array::get_stream(0)?;
        let mut rng = Rng::fresh();
        let n = 10_000 + (rng.next_u64() % 100) as usize;
        let h = rng.vec_f32(n, -1.0, 1.0);
        let buf = stream.clone_htod(&h)?;
        let p0 = cuprite_driver::DeviceRead::device_ptr(&buf);
        crate::common::assert_err(
            Array::from_buffer(stream.clone_htod(&h)?, &[n + 1]),
            "Shape",
            &format!("[{}]", n + 1),
        );
        let a = Array::from_buffer(buf, &[n])?;
        assert_eq!(a.device_view()?.device_ptr(), p0, "no copy");
        let b = a.clone();
        let a = a.into_buffer().expect_err("shared with b");
        drop(b);
        let back = a.into_buffer().map_err(|_| "sole owner")?;
        assert_eq!(
            cuprite_driver::DeviceRead::device_ptr(&back),
            p0,
            "the same memory back"
        );
        assert_eq!(stream.clone_dtoh(&back)?, h);
        // A lazy result is evaluated and handed over too.
        let c = Array::from_slice(&h, &[n])? * 3.0;
        let cb = c.into_buffer().map_err(|_| "a fresh result is its own")?;
        close32(
            &stream.clone_dtoh(&cb)?,
            &h.iter().map(|v| v * 3.0).collect::<Vec<_>>(),
            0.0,
            "into_buffer",
        )?;
        // Borrowed memory that must stay the caller's: a copy on the array stream.
        let keep = stream.clone_htod(&h)?;
        let cp = Array::from_device_view(&keep.as_view(), &[n])?;
        assert_ne!(
            cp.device_view()?.device_ptr(),
            cuprite_driver::DeviceRead::device_ptr(&keep)
        );
        assert_eq!(cp.to_vec()?, h);
        // A locked array keeps its memory.
        let d = Array::from_slice(&h, &[n])?;
        d.lock()?;
        let d = d.into_buffer().expect_err("locked");
        d.unlock()?;
        // A buffer of another context is refused.
        let owned = Context::create_and_push(
            cuprite_driver::ContextFlags::SCHED_AUTO,
            cuprite_driver::Device::get(0)?,
        )?;
        cuprite_driver::ContextStack::pop()?;
        let other = owned.new_stream()?.clone_htod(&h)?;
        crate::common::assert_err(
            Array::from_buffer(other, &[n]),
            "DeviceMismatch",
            "another context",
        );
        Ok(())
    })
}

/// Deleter runs, one counter per test that asserts on them (tests run in parallel): a
/// producer records the counter of the thread that made it (in `manager_ctx`) and its deleter
/// counts there, on whatever thread it runs.
static CPU_DELETES: AtomicUsize = AtomicUsize::new(0);
static GPU_DELETES: AtomicUsize = AtomicUsize::new(0);
static OTHER_DELETES: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    static DELETES: std::cell::Cell<&'static AtomicUsize> = const { std::cell::Cell::new(&OTHER_DELETES) };
}

/// A foreign producer: a versioned managed tensor over a cuprite buffer or host memory.
#[repr(C)]
struct Producer {
    managed: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Vec<i64>,
    owner: Option<DeviceBuffer<f32>>,
    host: Vec<f32>,
}

unsafe extern "C" fn producer_delete(m: *mut DLManagedTensorVersioned) {
    // SAFETY: `m` is the first field of a boxed Producer made by `produce`, whose
    // `manager_ctx` is one of the `'static` counters above.
    let counter = unsafe { &*((*m).manager_ctx as *const AtomicUsize) };
    // SAFETY: as above.
    drop(unsafe { Box::from_raw(m.cast::<Producer>()) });
    counter.fetch_add(1, Ordering::SeqCst);
}

fn produce(
    device: DLDevice,
    dtype: DLDataType,
    shape: Vec<i64>,
    strides: Option<Vec<i64>>,
    owner: Option<DeviceBuffer<f32>>,
    host: Vec<f32>,
    major: u32,
) -> DLPackTensor {
    let data = match &owner {
        Some(b) => cuprite_driver::DeviceRead::device_ptr(b) as *mut c_void,
        None => host.as_ptr() as *mut c_void,
    };
    let has_strides = strides.is_some();
    let p = Box::into_raw(Box::new(Producer {
        managed: DLManagedTensorVersioned {
            version: DLPackVersion { major, minor: 0 },
            manager_ctx: DELETES.with(|c| c.get()) as *const AtomicUsize as *mut c_void,
            deleter: Some(producer_delete),
            flags: FLAG_READ_ONLY,
            dl_tensor: DLTensor {
                data,
                device,
                ndim: shape.len() as i32,
                dtype,
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
        },
        shape,
        strides: strides.unwrap_or_default(),
        owner,
        host,
    }));
    // SAFETY: a fresh Box; its Vecs are not modified while it lives.
    unsafe {
        (*p).managed.dl_tensor.shape = (*p).shape.as_mut_ptr();
        if has_strides {
            (*p).managed.dl_tensor.strides = (*p).strides.as_mut_ptr();
        }
        DLPackTensor::from_raw_versioned(p.cast()).expect("non-null")
    }
}

const F32: DLDataType = DLDataType {
    code: KDL_FLOAT,
    bits: 32,
    lanes: 1,
};
const CPU_DEV: DLDevice = DLDevice {
    device_type: KDL_CPU,
    device_id: 0,
};

/// Export and import on the CPU backend: struct fields, own round trip, legacy form.
fn dlpack_cpu_roundtrip() -> TestResult {
    with_device(Device::CPU, || {
        let mut rng = Rng::fresh();
        let h = rng.vec_f32(12, -3.0, 3.0);
        let a = Array::from_slice(&h, &[3, 4])?;
        for versioned in [true, false] {
            let t = if versioned {
                a.to_dlpack()?
            } else {
                a.to_dlpack_legacy()?
            };
            assert_eq!(t.is_versioned(), versioned);
            let d = t.tensor();
            assert_eq!((d.device.device_type, d.ndim), (KDL_CPU, 2));
            assert_eq!(d.dtype, F32);
            assert_eq!(t.shape(), vec![3, 4]);
            assert_eq!(t.strides(), Some(vec![4, 1]));
            if versioned {
                assert_eq!(t.version(), Some(DLPackVersion { major: 1, minor: 0 }));
            }
            // SAFETY: a CPU tensor of 12 f32 from our export.
            let seen = unsafe { std::slice::from_raw_parts(t.data_ptr() as *const f32, 12) };
            assert_eq!(seen, &h[..], "zero-copy export of the array's memory");
            let b = Array::<f32>::from_dlpack(t)?;
            assert_eq!(b.to_vec()?, h);
        }
        // A transposed view exports its strides.
        let at = a.t();
        let t = at.to_dlpack()?;
        assert_eq!(t.strides(), Some(vec![1, 4]));
        // A flipped view (negative strides) exports a contiguous copy.
        let fl = a.flip(&[1])?;
        let tf = fl.to_dlpack()?;
        assert_eq!(tf.strides(), Some(vec![4, 1]));
        // SAFETY: a CPU tensor of 12 f32 from our export.
        let seen = unsafe { std::slice::from_raw_parts(tf.data_ptr() as *const f32, 12) };
        assert_eq!(seen, &fl.to_vec()?[..]);
        assert_eq!(seen[0], h[3], "flipped along the last axis");
        drop(tf);
        // Dropping an exported tensor after every array of the producer is gone is safe.
        let t2 = (&a * 2.0).to_dlpack()?;
        drop((a, at));
        // SAFETY: our export keeps the memory alive until its deleter runs.
        let seen = unsafe { std::slice::from_raw_parts(t2.data_ptr() as *const f32, 12) };
        assert_eq!(seen, &h.iter().map(|v| v * 2.0).collect::<Vec<_>>()[..]);
        drop(t);
        drop(t2);
        Ok(())
    })
}

/// A foreign CPU tensor (transposed strides) imports with the right values; its deleter runs
/// exactly once; unsupported dtypes, devices, versions and element types are errors naming
/// them, and still release the tensor.
fn dlpack_foreign_and_bad_input() -> TestResult {
    DELETES.with(|c| c.set(&CPU_DELETES));
    with_device(Device::CPU, || {
        let mut rng = Rng::fresh();
        let h = rng.vec_f32(6, -1.0, 1.0); // a 2x3 row-major matrix, exported transposed
        let deletes = CPU_DELETES.load(Ordering::SeqCst);
        let t = produce(
            CPU_DEV,
            F32,
            vec![3, 2],
            Some(vec![1, 3]),
            None,
            h.clone(),
            1,
        );
        let a = Array::<f32>::from_dlpack(t)?;
        assert_eq!(a.shape(), &[3, 2]);
        assert_eq!(a.to_vec()?, vec![h[0], h[3], h[1], h[4], h[2], h[5]]);
        let bad = [
            (
                DLDataType {
                    code: KDL_FLOAT,
                    bits: 8,
                    lanes: 1,
                },
                CPU_DEV,
                1,
                "code 2",
            ),
            (
                DLDataType {
                    code: KDL_FLOAT,
                    bits: 32,
                    lanes: 4,
                },
                CPU_DEV,
                1,
                "4 lane",
            ),
            (
                DLDataType {
                    code: 2,
                    bits: 64,
                    lanes: 1,
                },
                CPU_DEV,
                1,
                "f64",
            ),
            (
                F32,
                DLDevice {
                    device_type: 10,
                    device_id: 0,
                },
                1,
                "kDLROCM",
            ),
            (
                F32,
                DLDevice {
                    device_type: 13,
                    device_id: 0,
                },
                1,
                "kDLCUDAManaged",
            ),
            (F32, CPU_DEV, 2, "version 2"),
            (
                F32,
                DLDevice {
                    device_type: KDL_CUDA,
                    device_id: 7,
                },
                1,
                "CUDA device 7",
            ),
        ];
        for (dt, dev, major, needle) in bad {
            let t = produce(dev, dt, vec![6], None, None, h.clone(), major);
            let e = Array::<f32>::from_dlpack(t).expect_err(needle);
            assert!(e.to_string().contains(needle), "{e} should name {needle}");
        }
        // A CUDA tensor whose element count overflows is a shape error, as a CPU one (its
        // product must not read as an empty tensor that skips the pointer checks).
        let cuda0 = DLDevice {
            device_type: KDL_CUDA,
            device_id: 0,
        };
        let t = produce(
            cuda0,
            F32,
            vec![1 << 32, 1 << 32, 2],
            None,
            None,
            h.clone(),
            1,
        );
        crate::common::assert_err(
            Array::<f32>::from_dlpack(t),
            "Shape",
            "[4294967296, 4294967296, 2]",
        );
        drop(a);
        assert_eq!(CPU_DELETES.load(Ordering::SeqCst) - deletes, 2 + bad.len());
        // A null managed tensor.
        // SAFETY: null is checked.
        crate::common::assert_err(
            unsafe { DLPackTensor::from_raw_versioned(std::ptr::null_mut()) },
            "InvalidArgument",
            "a null DLManagedTensorVersioned",
        );
        let null = std::ptr::null_mut::<DLManagedTensor>();
        // SAFETY: null is checked.
        let r = unsafe { DLPackTensor::from_raw_legacy(null) };
        crate::common::assert_err(r, "InvalidArgument", "a null DLManagedTensor");
        Ok(())
    })
}

/// Every element type maps to its DLPack type and back.
fn dlpack_dtypes() -> TestResult {
    use cuprite_array::interop::dlpack::{dl_dtype, dtype_of};
    for d in cuprite_array::DType::ALL {
        let t = dl_dtype(d);
        assert_eq!(t.lanes, 1);
        assert_eq!(t.bits as usize, 8 * d.size(), "{d:?}");
        assert_eq!(dtype_of(t)?, d);
    }
    assert_eq!(dl_dtype(cuprite_array::DType::BF16).code, 4);
    assert_eq!(dl_dtype(cuprite_array::DType::Bool).code, 6);
    assert_eq!(dl_dtype(cuprite_array::DType::C32).code, 5);
    Ok(())
}

/// The CPU backend's answers to the device-memory API: errors, and a safe `unlock`.
fn seed_api_on_cpu() -> TestResult {
    with_device(Device::CPU, || {
        let a = Array::from_slice(&[1.0f32, 2.0], &[2])?;
        // No device memory on the CPU backend.
        crate::common::assert_err(a.device_ptr(), "DeviceMismatch", "cpu:0");
        crate::common::assert_err(a.device_view(), "DeviceMismatch", "cpu:0");
        a.unlock()?; // never locked, never device memory: a documented no-op
        a.lock()?;
        assert!(a.is_locked());
        a.unlock()?;
        assert!(!a.is_locked());
        crate::common::assert_err(
            interop::set_device_native_id(-3),
            "InvalidArgument",
            "CUDA device -3 does not exist",
        );
        let s = interop::stats();
        let t = thread_stats();
        assert!(s.host_syncs >= t.host_syncs && s.stream_waits >= t.stream_waits);
        Ok(())
    })
}

/// DLPack on the GPU: zero-copy both ways, a foreign CUDA tensor (strided) imported and its
/// deleter run after the array work, the consumer-stream hand-off with no host sync, `unlock`
/// on imported memory, and an export outliving its arrays.
fn dlpack_gpu() -> TestResult {
    DELETES.with(|c| c.set(&GPU_DELETES));
    with_device(cuda(), || {
        let stream = cuprite_array::get_stream(0)?;
        let ctx = stream.context().clone();
        ctx.enable_multi_stream_tracking()?;
        let mut rng = Rng::fresh();
        let (r, c) = (300 + (rng.next_u64() % 10) as usize, 257);
        let h = rng.vec_f32(r * c, -2.0, 2.0);
        let a = Array::from_slice(&h, &[r, c])?;
        let ptr = a.device_view()?.device_ptr();
        let t = a.to_dlpack()?;
        assert_eq!(t.data_ptr(), ptr, "export shares the memory");
        assert_eq!(
            t.tensor().device,
            DLDevice {
                device_type: KDL_CUDA,
                device_id: 0
            }
        );
        let b = Array::<f32>::from_dlpack(t)?;
        assert_eq!(b.device_view()?.device_ptr(), ptr, "and import too");
        // Legacy, through a consumer stream: one device-side wait, no host sync.
        let consumer = ctx.new_stream()?;
        let before = thread_stats();
        let lazy = (&a * 2.0).exp();
        let t = lazy.to_dlpack_for(Some(&consumer), false)?;
        let d = thread_stats().since(&before);
        assert_eq!((d.host_syncs, d.stream_waits), (0, 1), "{d:?}");
        // The consumer reads it on its stream: right values.
        let got = {
            // SAFETY: the tensor's memory holds r*c f32 and stays alive while `t` lives.
            let view =
                unsafe { DeviceBuffer::<f32>::from_raw_parts(t.data_ptr(), r * c, &consumer) };
            let v = consumer.clone_dtoh(&view)?;
            let _ = view.leak(); // not ours to free
            v
        };
        close32(
            &got,
            &h.iter().map(|v| (v * 2.0).exp()).collect::<Vec<_>>(),
            1e-6,
            "consumer",
        )?;
        drop((lazy, a, b)); // the producer's arrays are gone
        drop(t); // the export is still safe to drop
        // A foreign CUDA tensor, strided (transposed view of an r x c matrix).
        let deletes = GPU_DELETES.load(Ordering::SeqCst);
        let owner = stream.clone_htod(&h)?;
        let fptr = cuprite_driver::DeviceRead::device_ptr(&owner);
        let cuda_dev = DLDevice {
            device_type: KDL_CUDA,
            device_id: 0,
        };
        let t = produce(
            cuda_dev,
            F32,
            vec![c as i64, r as i64],
            Some(vec![1, c as i64]),
            Some(owner),
            vec![],
            1,
        );
        let x = Array::<f32>::from_dlpack(t)?;
        assert_eq!(x.shape(), &[c, r]);
        let y = (&x + 1.0).to_vec()?;
        let want: Vec<f32> = (0..c * r).map(|k| h[(k % r) * c + k / r] + 1.0).collect();
        close32(&y, &want, 0.0, "strided import")?;
        x.unlock()?; // never owned: the memory still goes back to the producer
        let sum = x.sum()?; // array work still pending on it when the last array drops
        assert_eq!(
            GPU_DELETES.load(Ordering::SeqCst),
            deletes,
            "alive while x lives"
        );
        drop(x);
        let s: f64 = h.iter().map(|&v| v as f64).sum();
        assert!((sum.item()? as f64 - s).abs() < 1e-2 * (1.0 + s.abs()));
        drop(sum);
        assert_eq!(
            GPU_DELETES.load(Ordering::SeqCst),
            deletes + 1,
            "deleter ran once"
        );
        // A contiguous foreign import is zero-copy.
        let owner = stream.clone_htod(&h)?;
        let fp2 = cuprite_driver::DeviceRead::device_ptr(&owner);
        let t = produce(
            cuda_dev,
            F32,
            vec![(r * c) as i64],
            None,
            Some(owner),
            vec![],
            1,
        );
        let z = Array::<f32>::from_dlpack(t)?;
        assert_eq!(z.device_view()?.device_ptr(), fp2);
        // Imported memory is not the library's to give: the array comes back, unchanged.
        let z = z
            .into_buffer()
            .expect_err("imported memory is not the library's to give");
        assert_eq!(z.device_view()?.device_ptr(), fp2);
        assert_ne!(fptr, 0);
        Ok(())
    })
}

#[cfg(feature = "ndarray")]
fn ndarray_roundtrip(device: Device) -> TestResult {
    with_device(device, || {
        let mut rng = Rng::fresh();
        // Large enough for pinned staging (several chunks, a partial last one).
        let (r, c) = (1531, 4099);
        let v = rng.vec_f32(r * c, -9.0, 9.0);
        let m = ndarray::Array2::from_shape_vec((r, c), v)?;
        let a = Array::from_ndarray(&m)?;
        assert_eq!(a.shape(), &[r, c]);
        let back = a.to_ndarray()?;
        assert_eq!(back, m.clone().into_dyn());
        let t = Array::from_ndarray(&m.t())?; // strided source
        assert_eq!((t * 2.0).to_ndarray()?, (m.t().to_owned() * 2.0).into_dyn());
        let small = ndarray::arr1(&[1i32, -2, 3]);
        assert_eq!(Array::from_ndarray(&small)?.to_ndarray()?, small.into_dyn());
        Ok(())
    })
}

pub fn tests() -> Vec<Test> {
    #[allow(unused_mut)]
    let mut v = vec![
        Test::cpu("interop::dlpack_cpu_roundtrip", dlpack_cpu_roundtrip),
        Test::cpu(
            "interop::dlpack_foreign_and_bad_input",
            dlpack_foreign_and_bad_input,
        ),
        Test::cpu("interop::seed_api_on_cpu", seed_api_on_cpu),
        Test::cpu("interop::dlpack_dtypes", dlpack_dtypes),
        // Alone: it counts its thread's cross-stream waits, and a buffer recycled after other
        // threads' work on other streams (compiled programs' private streams) is rightly
        // waited for.
        Test::gpu_alone(
            "interop::custom_kernel_on_array_stream",
            custom_kernel_on_array_stream,
        ),
        Test::gpu(
            "interop::user_stream_ordered_by_tracking",
            user_stream_ordered_by_tracking,
        ),
        Test::gpu("interop::foreign_stream_adopted", foreign_stream_adopted),
        Test::gpu(
            "interop::foreign_stream_arrays_freed_on_it",
            foreign_stream_arrays_freed_on_it,
        ),
        Test::gpu(
            "interop::device_pointers_and_locks",
            device_pointers_and_locks,
        ),
        Test::gpu("interop::buffers_in_and_out", buffers_in_and_out),
        Test::gpu("interop::dlpack_gpu", dlpack_gpu),
    ];
    #[cfg(feature = "ndarray")]
    {
        v.push(Test::cpu("interop::ndarray_cpu", || {
            ndarray_roundtrip(Device::CPU)
        }));
        v.push(Test::gpu("interop::ndarray_gpu_staged", || {
            ndarray_roundtrip(Device::cuda(0))
        }));
    }
    v
}
