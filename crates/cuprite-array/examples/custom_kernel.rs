//! A custom CUDA kernel in an array application.
//!
//! ArrayFire cannot launch a custom kernel on its own stream, so its version of this example
//! creates a second stream and calls `af::sync` (a host synchronisation) before each hand-off.
//! Here the kernel runs on the array stream itself ([`get_stream`]) over the array's memory
//! ([`Array::device_view`]) and its output becomes an array again ([`Array::from_buffer`]):
//! no copy, no host synchronisation, no cross-stream wait — counted and asserted. A second
//! round runs the kernel on a stream of the user's, ordered by the stream tracking alone.
//!
//! Without a GPU the array part runs on the CPU backend and the example says what needed one.

use cuprite_array::{Array, Backend, current_device, get_device, get_stream};
use cuprite_driver::{LaunchConfig, thread_stats};

const KERNEL: &str = r#"
extern "C" __global__ void scale_shift(const float* x, float* y, float a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = 1 << 20;
    // Array work: lazy, fused into one kernel when a value is needed.
    let x = Array::<f32>::rand_uniform(&[n], 7)?;
    let y = Array::<f32>::rand_uniform(&[n], 8)?;
    let z = (&x * 2.0 + &y).sin();
    let (hx, hy) = (x.to_vec()?, y.to_vec()?);
    let (a, b) = (3.0f32, 0.5f32);
    let reference: Vec<f32> = (0..n)
        .map(|i| a * (hx[i] * 2.0 + hy[i]).sin() + b)
        .collect();

    if current_device().backend != Backend::Cuda {
        let w = &z * a + b; // what the kernel computes, as array work
        check(&w.to_vec()?, &reference)?;
        println!(
            "custom_kernel: no GPU: the array part ran on the CPU backend ({} elements checked); \
             the custom NVRTC kernel on the array stream needs a CUDA GPU",
            n
        );
        return Ok(());
    }

    let stream = get_stream(get_device())?;
    let module = stream
        .context()
        .load_module(cuprite_driver::nvrtc::compile_ptx(KERNEL)?)?;
    let kernel = module.load_function("scale_shift")?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let nn = n as u32;

    // 1. On the array stream: no synchronisation of any kind.
    // SAFETY: fully written by the kernel before any read.
    let mut out = unsafe { stream.alloc::<f32>(n) }?;
    let before = thread_stats();
    {
        let view = z.device_view()?; // evaluates z on the array stream; z locked meanwhile
        let mut launch = stream.launch_builder(&kernel);
        launch.arg(&view).arg(&mut out).arg(&a).arg(&b).arg(&nn);
        // SAFETY: the kernel reads n floats of x and writes n floats of y; both hold n.
        unsafe { launch.launch(cfg) }?;
    }
    let w = Array::from_buffer(out, &[n])?; // no copy
    let total = w.sum()?; // more array work on the kernel's output
    total.eval()?;
    let d = thread_stats().since(&before);
    assert_eq!(
        d.host_syncs, 0,
        "no host synchronisation on the array stream"
    );
    assert_eq!(
        d.stream_waits, 0,
        "no cross-stream wait on the array stream"
    );
    check(&w.to_vec()?, &reference)?;
    let want: f64 = reference.iter().map(|&v| v as f64).sum();
    let got = total.item()? as f64;
    assert!(
        (got - want).abs() <= 1e-3 * want.abs().max(1.0),
        "sum {got} vs {want}"
    );
    println!(
        "custom_kernel: kernel on the array stream: {n} values and their sum checked; \
         {} host syncs, {} cross-stream waits between array and kernel",
        d.host_syncs, d.stream_waits
    );

    // 2. On the user's own stream, ordered by the tracking alone (ArrayFire needs af::sync).
    let user = stream.context().new_stream()?;
    // SAFETY: fully written by the kernel before any read.
    let mut out2 = unsafe { user.alloc::<f32>(n) }?;
    let z2 = (&z * 1.0).cos(); // fresh array work on the array stream
    let before = thread_stats();
    {
        let view = z2.device_view()?;
        let mut launch = user.launch_builder(&kernel);
        launch.arg(&view).arg(&mut out2).arg(&a).arg(&b).arg(&nn);
        // SAFETY: as above.
        unsafe { launch.launch(cfg) }?;
    }
    let w2 = Array::from_buffer(out2, &[n])? - 1.0; // back on the array stream
    w2.eval()?;
    let d = thread_stats().since(&before);
    assert_eq!(d.host_syncs, 0, "ordering by device-side waits only");
    let ref2: Vec<f32> = reference
        .iter()
        .map(|&r| a * ((r - b) / a).cos() + b - 1.0)
        .collect();
    check(&w2.to_vec()?, &ref2)?;
    println!(
        "custom_kernel: kernel on a user stream: {n} values checked; {} host syncs, {} \
         device-side stream waits (from the tracking)",
        d.host_syncs, d.stream_waits
    );
    Ok(())
}

fn check(got: &[f32], want: &[f32]) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > 1e-4 * (1.0 + w.abs()) {
            return Err(format!("element {i}: {g}, expected {w}"));
        }
    }
    if got.len() != want.len() {
        return Err(format!("{} values, expected {}", got.len(), want.len()));
    }
    Ok(())
}
