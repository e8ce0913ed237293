//! A 2×2 matrix product with a (2, 2, 1) block.

use cuprite_driver::nvrtc::compile_ptx;
use cuprite_driver::{Context, LaunchConfig};

const PTX_SRC: &str = "
extern \"C\" __global__ void matmul(float* A, float* B, float* C, int N) {
    int ROW = blockIdx.y*blockDim.y+threadIdx.y;
    int COL = blockIdx.x*blockDim.x+threadIdx.x;

    float tmpSum = 0;

    if (ROW < N && COL < N) {
        // each thread computes one element of the block sub-matrix
        for (int i = 0; i < N; i++) {
            tmpSum += A[ROW * N + i] * B[i * N + COL];
        }
    }
    C[ROW * N + COL] = tmpSum;
}
";

fn main() -> cuprite_driver::Result<()> {
    let start = std::time::Instant::now();

    let ptx = compile_ptx(PTX_SRC)?;
    println!("Compilation succeeded in {:?}", start.elapsed());

    let ctx = Context::new(0)?;
    let stream = ctx.default_stream();
    println!("Built in {:?}", start.elapsed());

    let module = ctx.load_module(ptx)?;
    let f = module.load_function("matmul")?;
    println!("Loaded in {:?}", start.elapsed());

    let a_host = [1.0f32, 2.0, 3.0, 4.0];
    let b_host = [1.0f32, 2.0, 3.0, 4.0];
    let mut c_host = [f32::NAN; 4];

    let a_dev = stream.memcpy_stod(&a_host)?;
    let b_dev = stream.memcpy_stod(&b_host)?;
    let mut c_dev = stream.memcpy_stod(&c_host)?;

    println!("Copied in {:?}", start.elapsed());

    let mut builder = stream.launch_builder(&f);
    builder.arg(&a_dev);
    builder.arg(&b_dev);
    builder.arg(&mut c_dev);
    builder.arg(&2i32);
    let cfg = LaunchConfig {
        block_dim: (2, 2, 1),
        grid_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: matmul(float*, float*, float*, int) on three 2×2 matrices with N = 2.
    unsafe { builder.launch(cfg) }?;

    stream.memcpy_dtoh(&c_dev, &mut c_host)?;
    println!("Found {:?} in {:?}", c_host, start.elapsed());
    // [1 2; 3 4] × [1 2; 3 4] = [7 10; 15 22]
    assert_eq!(c_host, [7.0, 10.0, 15.0, 22.0]);
    println!("matmul: OK");
    Ok(())
}
