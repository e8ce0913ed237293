//! The cudarc 0.9-style flow through `cuprite_driver::compat::CudaDevice`: allocation and copies, loading PTX
//! by module name, tuple launches, sub-slices, and a second stream.

use cuprite_driver::compat::{CudaDevice, CudaSlice, CudaViewMut, LaunchConfig};
use cuprite_driver::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void my_function(float *out) { }
extern "C" __global__ void affine(float *out, const float *inp, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * inp[i] + b;
}
extern "C" __global__ void fill_batch(float *out, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value + i;
}
"#;

fn main() -> cuprite_driver::Result<()> {
    // 1. Instantiate a CudaDevice.
    let device = CudaDevice::new(0)?;

    // 2. Allocate device memory with host data.
    let a_dev: CudaSlice<f32> = device.alloc_zeros(10)?;
    let b_dev: CudaSlice<f32> = device.htod_copy(vec![0.5; 10])?;
    let c_dev: CudaSlice<f32> = device.htod_sync_copy(&[1.0, 2.0, 3.0])?;
    let mut d_dev: CudaSlice<f32> = device.alloc_zeros(3)?;
    device.htod_sync_copy_into(&[4.0, 5.0, 6.0], &mut d_dev)?;

    // 3. Transfer to host memory.
    let mut a_buf: [f32; 10] = [1.0; 10];
    device.dtoh_sync_copy_into(&a_dev, &mut a_buf)?;
    assert_eq!(a_buf, [0.0; 10]);
    let a_host: Vec<f32> = device.sync_reclaim(a_dev)?;
    assert_eq!(&a_host, &[0.0; 10]);
    assert_eq!(device.dtoh_sync_copy(&b_dev)?, vec![0.5; 10]);
    assert_eq!(device.dtoh_sync_copy(&c_dev)?, [1.0, 2.0, 3.0]);
    assert_eq!(device.dtoh_sync_copy(&d_dev)?, [4.0, 5.0, 6.0]);
    println!("allocation and copies: OK");

    // Loading kernels by module name.
    let ptx = compile_ptx(SRC)?;
    device.load_ptx(ptx, "module_name", &["my_function", "affine", "fill_batch"])?;
    let func = device.get_func("module_name", "my_function")?;
    let mut a = device.alloc_zeros::<f32>(10)?;
    let cfg = LaunchConfig::for_num_elems(10);
    // SAFETY: my_function(float*) does nothing with its 10-element buffer.
    unsafe { func.launch(cfg, (&mut a,)) }?;
    match device.get_func("module_name", "no_such_fn") {
        Err(e) => println!("unknown function: {e}"),
        Ok(_) => panic!("an unknown function was found"),
    }

    // A tuple launch with buffers and scalars.
    let affine = device.get_func("module_name", "affine")?;
    let mut out = device.htod_copy(vec![f32::NAN; 10])?;
    // SAFETY: affine(float*, const float*, float, float, int) with 10-element buffers.
    unsafe { affine.launch(cfg, (&mut out, &b_dev, 3.0f32, 1.0f32, 10i32)) }?;
    assert_eq!(device.dtoh_sync_copy(&out)?, vec![2.5; 10]);
    println!("tuple launch: OK");

    // Sub-slices: one launch per batch item on a view of it.
    let mut batches: CudaSlice<f32> = device.htod_copy(vec![f32::NAN; 3 * 10])?;
    let fill = device.get_func("module_name", "fill_batch")?;
    for i_batch in 0..3usize {
        let mut a_sub_view: CudaViewMut<f32> = batches
            .try_slice_mut(i_batch * 10..(i_batch + 1) * 10)
            .expect("in bounds");
        let cfg = LaunchConfig::for_num_elems(10);
        // SAFETY: fill_batch(float*, float, int) on a 10-element view.
        unsafe { fill.launch(cfg, (&mut a_sub_view, 100.0 * i_batch as f32, 10i32)) }?;
    }
    assert!(batches.try_slice(25..31).is_none());
    let got = device.dtoh_sync_copy(&batches)?;
    let want: Vec<f32> = (0..30)
        .map(|i| 100.0 * (i / 10) as f32 + (i % 10) as f32)
        .collect();
    assert_eq!(got, want);
    println!("sub-slices: OK");

    // A second stream, synchronised with the default one when made and when dropped.
    let mut e = device.htod_copy(vec![f32::NAN; 1 << 20])?;
    {
        let stream = device.fork_default_stream()?;
        let cfg = LaunchConfig::for_num_elems(1 << 20);
        // SAFETY: fill_batch on a 2^20-element buffer.
        unsafe { fill.launch_on_stream(&stream, cfg, (&mut e, 7.0f32, 1i32 << 20)) }?;
    }
    let got = device.dtoh_sync_copy(&e)?;
    assert!(got.iter().enumerate().all(|(i, &v)| v == 7.0 + i as f32));
    println!("second stream: OK");

    // Another thread, bound first as the cudarc 0.9-style API asks.
    let dev2 = device.clone();
    std::thread::spawn(move || -> cuprite_driver::Result<()> {
        dev2.bind_to_thread()?;
        let x = dev2.htod_sync_copy(&[9u32, 8, 7])?;
        assert_eq!(dev2.sync_reclaim(x)?, [9, 8, 7]);
        Ok(())
    })
    .join()
    .expect("thread panicked")?;
    println!("other thread: OK");
    println!("device_flow: OK");
    Ok(())
}
