//! The README's example of the `cuprite` layer, kept runnable (and run on the GPU by
//! `scripts/gpu-check.sh`): NVRTC, a module, a tracked launch, a second stream.

use cuprite_driver::{Context, LaunchConfig, nvrtc};

fn main() -> cuprite_driver::Result<()> {
    let ptx = nvrtc::compile_ptx(
        r#"
        extern "C" __global__ void scale(float *x, float a, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) x[i] *= a;
        }"#,
    )?;
    let ctx = Context::new(0)?; // primary context of device 0, shared
    let stream = ctx.default_stream();
    let f = ctx.load_module(ptx)?.load_function("scale")?;
    let mut x = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
    let (a, n) = (10.0f32, 3i32);
    let mut launch = stream.launch_builder(&f);
    launch.arg(&mut x).arg(&a).arg(&n); // &mut: a write, for cross-stream tracking
    // SAFETY: `scale` takes (float*, float, int) and touches x[0..n), which `x` holds.
    unsafe { launch.launch(LaunchConfig::for_num_elems(3)) }?;
    let side = stream.fork()?; // a second stream: waits for `stream`'s work
    let y = side.clone_dtoh(&x)?; // ordered after the kernel by the tracking
    assert_eq!(y, [10.0, 20.0, 30.0]);
    Ok(())
}
