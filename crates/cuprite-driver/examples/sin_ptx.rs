//! Loads a kernel from a `.ptx` file and runs it.
//!
//! `examples/sin.ptx` ships with the crate; if it cannot be found from the working directory,
//! the example compiles the same kernel with NVRTC and writes the file first.

use cuprite_driver::nvrtc::Ptx;
use cuprite_driver::{Context, LaunchConfig};
use std::path::PathBuf;

const SIN_SRC: &str = r#"extern "C" __global__ void sin_kernel(float *out, const float *inp, const int numel) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numel) {
        out[i] = sin(inp[i]);
    }
}"#;

/// Finds `sin.ptx` (from the crate folder, the repository root, or the build's manifest folder),
/// or generates it with NVRTC into the temporary folder.
fn sin_ptx_path() -> cuprite_driver::Result<PathBuf> {
    let candidates = [
        PathBuf::from("./examples/sin.ptx"),
        PathBuf::from("crates/cuprite-driver/examples/sin.ptx"),
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sin.ptx")),
    ];
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let ptx = cuprite_driver::nvrtc::compile_ptx(SIN_SRC)?;
    let path = std::env::temp_dir().join(format!("cuprite-sin-{}.ptx", std::process::id()));
    std::fs::write(&path, ptx.as_str()).map_err(|e| {
        cuprite_driver::Error::InvalidArgument(format!("writing {}: {e}", path.display()))
    })?;
    println!("generated {}", path.display());
    Ok(path)
}

fn main() -> cuprite_driver::Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.default_stream();

    // You can load a function from a pre-compiled PTX like so:
    let path = sin_ptx_path()?;
    let module = ctx.load_module(Ptx::from_file(&path)?)?;

    // and then load a function from it:
    let f = module.load_function("sin_kernel")?;

    let a_host = [1.0f32, 2.0, 3.0];

    let a_dev = stream.memcpy_stod(&a_host)?;
    let mut b_dev = stream.clone_dtod(&a_dev)?;

    // we use a builder pattern to launch kernels.
    let n = 3i32;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut launch_args = stream.launch_builder(&f);
    launch_args.arg(&mut b_dev);
    launch_args.arg(&a_dev);
    launch_args.arg(&n);
    // SAFETY: sin_kernel(float*, const float*, int) gets two 3-element f32 buffers and n = 3.
    unsafe { launch_args.launch(cfg) }?;

    let a_host_2 = stream.memcpy_dtov(&a_dev)?;
    let b_host = stream.memcpy_dtov(&b_dev)?;

    println!("loaded {}", path.display());
    println!("Found {b_host:?}");
    println!("Expected {:?}", a_host.map(f32::sin));
    assert_eq!(&a_host, a_host_2.as_slice());
    for (got, x) in b_host.iter().zip(a_host) {
        assert!((got - x.sin()).abs() < 1e-6, "sin({x}) = {got}");
    }
    println!("sin_ptx: OK");
    Ok(())
}
