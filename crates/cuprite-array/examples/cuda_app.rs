//! Arrays inside an existing CUDA application, in the seven steps of ArrayFire's CUDA interop
//! guide.
//!
//! The "application" owns a raw CUDA stream (created with `cuStreamCreate`, as C code would)
//! and device memory filled by its own kernel. cuprite wraps the stream (`Stream::from_raw`)
//! and adopts it as this thread's array stream, so array work and the application's kernels
//! share one stream: no `cudaDeviceSynchronize`, no `af::sync`, no copies. Both of the guide's
//! ways of making an array from device memory are shown (a `DeviceBuffer`, a raw allocation).
//!
//! Needs a CUDA GPU; without one it says so and exits successfully.

use cuprite_array::{Array, Backend, current_device, with_stream};
use cuprite_driver::sys::driver as sys;
use cuprite_driver::{LaunchConfig, Stream, thread_stats};
use std::sync::Arc;

const APP_KERNELS: &str = r#"
extern "C" __global__ void fill(float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * (float)(i % 1000) / 1000.0f;
}
extern "C" __global__ void add_into(float* acc, const float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if current_device().backend != Backend::Cuda {
        println!("cuda_app: no CUDA GPU here: this example is a CUDA application; nothing to run");
        return Ok(());
    }
    let n: usize = 1 << 20;
    let nn = n as u32;
    let cfg = LaunchConfig::for_num_elems(nn);
    let ctx = cuprite_array::get_stream(0)?.context().clone(); // the device's primary context
    let module = ctx.load_module(cuprite_driver::nvrtc::compile_ptx(APP_KERNELS)?)?;
    let (fill, add_into) = (
        module.load_function("fill")?,
        module.load_function("add_into")?,
    );

    // The application's own stream, made outside cuprite.
    ctx.bind_to_thread()?;
    let mut raw: sys::CUstream = std::ptr::null_mut();
    // SAFETY: a valid out-pointer; the context is current. Flag 1: non-blocking.
    let r = unsafe { sys::cuStreamCreate(&mut raw, 1) };
    cuprite_driver::error::check(r, "cuStreamCreate")?;
    // SAFETY: `raw` is a stream of `ctx`, destroyed at the end after all work on it is done.
    let app: Arc<Stream> = unsafe { Stream::from_raw(&ctx, raw) };

    // The application's data: two buffers its kernels fill.
    let mut d_x = app.alloc_zeros::<f32>(n)?;
    let mut d_y = app.alloc_zeros::<f32>(n)?;
    let (a, b) = (2.0f32, -3.0f32);
    for (buf, s) in [(&mut d_x, &a), (&mut d_y, &b)] {
        let mut l = app.launch_builder(&fill);
        l.arg(buf).arg(s).arg(&nn);
        // SAFETY: fill writes n floats into a buffer of n.
        unsafe { l.launch(cfg) }?;
    }

    let mut acc = app.clone_htod(&vec![1.0f32; n])?; // the application's accumulator
    let before = thread_stats();
    let (result_ptr, result) = with_stream(&app, || -> Result<_, Box<dyn std::error::Error>> {
        // 1. Finish pending CUDA operations: nothing to do. The arrays below run on the
        //    application's stream, after its kernels, and buffers carry their tracking.
        // 2. Create arrays from existing CUDA memory, the guide's two ways:
        //    a DeviceBuffer (moved in, no copy, no lock needed)...
        let x = Array::from_buffer(d_x, &[1024, n / 1024])?;
        //    ...and a raw allocation, whose ownership the library takes.
        let raw_ptr = d_y.leak();
        // SAFETY: the start of an n-float allocation of this device's primary context, given
        // up by `leak`; the only work on it is on `app`, this thread's array stream.
        let y =
            unsafe { Array::<f32>::new_from_device_ptr(raw_ptr as *mut f32, &[1024, n / 1024]) }?;
        // 3. Perform operations on the arrays (fused into one kernel).
        let r = (&x * &x + &y).abs().sqrt();
        // 4. eval (ArrayFire also needs sync; here the application's stream is the array
        //    stream, so its next kernels are ordered after this one).
        r.eval()?;
        // 5. Obtain pointers to the memory (device_ptr locks it).
        let p = r.device_ptr()?;
        Ok((p, r))
    })?;

    // 6. Continue the CUDA application: its kernel adds the array result into its buffer.
    {
        let view = result.device_view()?; // the same memory as result_ptr, tracked
        assert_eq!(view.device_ptr(), result_ptr);
        let mut l = app.launch_builder(&add_into);
        l.arg(&mut acc).arg(&view).arg(&nn);
        // SAFETY: add_into reads n floats of x and updates n floats of acc.
        unsafe { l.launch(cfg) }?;
    }
    let d = thread_stats().since(&before);
    assert_eq!(
        (d.host_syncs, d.stream_waits),
        (0, 0),
        "arrays inside the application cost no synchronisation"
    );
    let got = app.clone_dtoh(&acc)?;
    for (i, g) in got.iter().enumerate() {
        let v = (i % 1000) as f32 / 1000.0;
        let want = 1.0 + ((a * v) * (a * v) + b * v).abs().sqrt();
        assert!(
            (g - want).abs() <= 1e-5 * (1.0 + want),
            "element {i}: {g} vs {want}"
        );
    }
    println!(
        "cuda_app: seven steps on the application's own stream: {n} values checked; {} host \
         syncs and {} stream waits from array creation to the application's next kernel",
        d.host_syncs, d.stream_waits
    );

    // 7. Free non-managed memory: give the locked result back to the library, drop the
    //    arrays (freed stream-ordered), then the application frees its own things.
    result.unlock()?;
    drop(result);
    drop(acc);
    app.synchronize()?;
    drop(app);
    // SAFETY: the application's stream, with all work done and no wrapper left.
    cuprite_driver::error::check(unsafe { sys::cuStreamDestroy_v2(raw) }, "cuStreamDestroy")?;
    Ok(())
}
