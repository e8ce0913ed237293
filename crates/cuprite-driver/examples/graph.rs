//! Captures a stream into a CUDA graph, replays it, re-captures it with other arguments and
//! updates the executable graph in place.

use cuprite_driver::nvrtc::compile_ptx;
use cuprite_driver::{CaptureMode, Context, LaunchConfig};

const SRC: &str = r#"
extern "C" __global__ void axpb(float *y, const float *x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
extern "C" __global__ void add_into(float *acc, const float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += y[i];
}
"#;

fn main() -> cuprite_driver::Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let axpb = module.load_function("axpb")?;
    let add_into = module.load_function("add_into")?;

    let n = 4096usize;
    let x_host: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 * 0.25).collect();
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let mut acc = stream.alloc_zeros::<f32>(n)?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let ni = n as i32;

    // Capture: y = a*x + b; acc += y.
    let capture = |a: f32,
                   b: f32,
                   y: &mut cuprite_driver::DeviceBuffer<f32>,
                   acc: &mut cuprite_driver::DeviceBuffer<f32>|
     -> cuprite_driver::Result<cuprite_driver::Graph> {
        stream.begin_capture(CaptureMode::Global)?;
        // SAFETY: both kernels get n-element buffers and n.
        unsafe {
            stream
                .launch_builder(&axpb)
                .arg(&mut *y)
                .arg(&x)
                .arg(&a)
                .arg(&b)
                .arg(&ni)
                .launch(cfg)?;
            stream
                .launch_builder(&add_into)
                .arg(acc)
                .arg(&*y)
                .arg(&ni)
                .launch(cfg)?;
        }
        stream.end_capture()
    };
    let graph = capture(2.0, 1.0, &mut y, &mut acc)?;
    println!("captured {} nodes", graph.num_nodes()?);
    let mut exec = graph.instantiate()?;
    exec.upload(&stream)?;

    // Replay three times: acc = 3 * (2x + 1).
    for _ in 0..3 {
        exec.launch(&stream)?;
    }
    let got = stream.clone_dtoh(&acc)?;
    for (i, (&g, &xv)) in got.iter().zip(&x_host).enumerate() {
        assert_eq!(g, 3.0 * (2.0 * xv + 1.0), "element {i}");
    }
    println!("3 replays: OK");

    // Re-capture with a = -1, b = 0.5 and update the executable graph in place.
    let graph2 = capture(-1.0, 0.5, &mut y, &mut acc)?;
    exec.update(&graph2)?;
    exec.launch(&stream)?;
    let got = stream.clone_dtoh(&acc)?;
    for (i, (&g, &xv)) in got.iter().zip(&x_host).enumerate() {
        assert_eq!(g, 3.0 * (2.0 * xv + 1.0) + (-xv + 0.5), "element {i}");
    }
    println!("update + replay: OK");
    println!("graph: OK");
    Ok(())
}
