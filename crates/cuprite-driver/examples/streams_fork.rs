//! Forks a second stream, launches on it, and copies back on the first: the buffer tracking
//! makes the copy wait for the kernel.

use cuprite_driver::nvrtc::Ptx;
use cuprite_driver::{Context, LaunchConfig};

const SIN_SRC: &str = r#"extern "C" __global__ void sin_kernel(float *out, const float *inp, const int numel) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numel) {
        out[i] = sin(inp[i]);
    }
}"#;

fn load_sin(
    ctx: &std::sync::Arc<Context>,
) -> cuprite_driver::Result<std::sync::Arc<cuprite_driver::Module>> {
    for p in [
        "./examples/sin.ptx",
        "crates/cuprite-driver/examples/sin.ptx",
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sin.ptx"),
    ] {
        if std::path::Path::new(p).is_file() {
            return ctx.load_module(Ptx::from_file(p)?);
        }
    }
    ctx.load_module(cuprite_driver::nvrtc::compile_ptx(SIN_SRC)?)
}

fn main() -> cuprite_driver::Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.default_stream();

    let module = load_sin(&ctx)?;
    let f = module.load_function("sin_kernel")?;

    // Big enough that the kernel is still running when the copy is enqueued.
    let n = 1 << 22;
    let a_host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.01).collect();
    let a_dev = stream.memcpy_stod(&a_host)?;
    let mut b_dev = stream.alloc_zeros::<f32>(n)?;

    // we can safely create a second stream using [Stream::fork()].
    // This synchronizes with the source stream, so
    // the `memcpy_stod` & `alloc_zeros` above will complete **before**
    // work on this stream can start.
    let stream2 = stream.fork()?;

    // now we launch this work on the other stream
    let mut builder = stream2.launch_builder(&f);
    builder.arg(&mut b_dev); // NOTE: tells cuprite that we are mutating this.
    builder.arg(&a_dev); // NOTE: tells cuprite that we are reading from this buffer
    let n_i32 = n as i32;
    builder.arg(&n_i32);
    // SAFETY: sin_kernel(float*, const float*, int) with two n-element buffers.
    unsafe { builder.launch(LaunchConfig::for_num_elems(n as u32)) }?;

    // cuprite automatically manages multi stream synchronization,
    // so even though we launched the above on a separate stream,
    // doing this device to host transfer will still properly synchronize.
    // a_dev doesn't need to synchronize at all since we specified it is just
    // being read from.
    // b_dev DOES need to be synchronized, because it was mutated on a different stream.
    let a_host_2 = stream.memcpy_dtov(&a_dev)?;
    let b_host = stream.memcpy_dtov(&b_dev)?;

    println!("Found {:?}...", &b_host[..4]);
    println!(
        "Expected {:?}...",
        a_host[..4].iter().map(|x| x.sin()).collect::<Vec<_>>()
    );
    assert_eq!(a_host, a_host_2);
    let worst = b_host
        .iter()
        .zip(&a_host)
        .map(|(b, a)| (b - a.sin()).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-5, "largest error {worst}");
    println!("streams_fork: OK ({n} elements, largest error {worst:e})");
    Ok(())
}
