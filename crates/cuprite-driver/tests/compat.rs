//! The cudarc 0.9-style layer: `compat::CudaDevice`, tuple launches, the module registry, sub-slices
//! and extra streams.

use cuprite_driver::compat::{CudaDevice, LaunchConfig};
use cuprite_testkit::{Rng, Test, TestResult};

pub fn tests() -> Vec<Test> {
    vec![
        Test::gpu("compat::copies_roundtrip", copies_roundtrip),
        Test::gpu("compat::registry_and_errors", registry_and_errors),
        Test::gpu("compat::twelve_arg_tuple", twelve_arg_tuple),
        Test::gpu("compat::extra_stream_syncs", extra_stream_syncs),
    ]
}

fn copies_roundtrip() -> TestResult {
    let dev = CudaDevice::new(0)?;
    let mut rng = Rng::fresh();
    let n = 1 + (rng.next_u64() % 10_000) as usize;
    let host = rng.vec_u32(n);
    let a = dev.htod_copy(host.clone())?;
    let b = dev.htod_sync_copy(&host)?;
    let mut c = dev.alloc_zeros::<u32>(n)?;
    assert!(dev.dtoh_sync_copy(&c)?.iter().all(|&v| v == 0));
    dev.htod_sync_copy_into(&host, &mut c)?;
    let mut out = vec![0u32; n];
    dev.dtoh_sync_copy_into(&a, &mut out)?;
    assert_eq!(out, host);
    assert_eq!(dev.dtoh_sync_copy(&b)?, host);
    assert_eq!(dev.sync_reclaim(c)?, host);
    crate::assert_err(
        dev.htod_sync_copy_into(&host[..n / 2], &mut dev.alloc_zeros::<u32>(n + 1)?),
        "InvalidArgument",
        &format!(
            "source has {} elements but destination has {}",
            n / 2,
            n + 1
        ),
    );
    Ok(())
}

const SRC: &str = r#"
extern "C" __global__ void twelve(float *out, const float *a, const float *b, float s0, float s1,
                                   int i0, int i1, double d, unsigned int u, short h, long long l,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * s0 + b[i] * s1 + i0 - i1 + (float)d + u + h + (float)l;
}
extern "C" __global__ void fill(float *out, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v + i;
}
"#;

fn registry_and_errors() -> TestResult {
    let dev = CudaDevice::new(0)?;
    dev.load_ptx(
        cuprite_driver::nvrtc::compile_ptx(SRC)?,
        "m",
        &["twelve", "fill"],
    )?;
    assert!(dev.has_func("m", "fill"));
    assert!(!dev.has_func("m", "nope"));
    assert!(!dev.has_func("other", "fill"));
    let e = dev.get_func("no_module", "fill").unwrap_err();
    assert!(e.to_string().contains("no_module"), "{e}");
    let e = dev.get_func("m", "no_fn").unwrap_err();
    assert!(e.to_string().contains("no_fn"), "{e}");
    let e = dev
        .load_ptx(
            cuprite_driver::nvrtc::compile_ptx(SRC)?,
            "m2",
            &["fill", "missing_kernel"],
        )
        .unwrap_err();
    assert!(e.to_string().contains("missing_kernel"), "{e}");
    assert!(
        !dev.has_func("m2", "fill"),
        "a failed load registers nothing"
    );
    Ok(())
}

fn twelve_arg_tuple() -> TestResult {
    let dev = CudaDevice::new(0)?;
    dev.load_ptx(cuprite_driver::nvrtc::compile_ptx(SRC)?, "m", &["twelve"])?;
    let f = dev.get_func("m", "twelve")?;
    let mut rng = Rng::fresh();
    let n = 2000;
    let a: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 16) as f32).collect();
    let b: Vec<f32> = (0..n).map(|_| (rng.next_u64() % 16) as f32).collect();
    let ad = dev.htod_sync_copy(&a)?;
    let bd = dev.htod_sync_copy(&b)?;
    let mut out = dev.htod_copy(vec![f32::NAN; n])?;
    let (s0, s1) = (2.0f32, 3.0f32);
    let (i0, i1) = ((rng.next_u64() % 100) as i32, 7i32);
    let (d, u, h, l) = (0.5f64, 4u32, -2i16, 1000i64);
    // Sub-slices through the tuple API: only the second half.
    let half = n / 2;
    {
        let av = ad.try_slice(half..).ok_or("view")?;
        let mut ov = out.try_slice_mut(half..).ok_or("view")?;
        let bv = bd.try_slice(half..).ok_or("view")?;
        let m = (n - half) as i32;
        // SAFETY: twelve(...) with (n - half)-element views and matching scalar types.
        unsafe {
            f.launch(
                LaunchConfig::for_num_elems(m as u32),
                (&mut ov, &av, &bv, s0, s1, i0, i1, d, u, h, &l, m),
            )
        }?;
    }
    let got = dev.dtoh_sync_copy(&out)?;
    for i in 0..n {
        if i < half {
            assert!(got[i].is_nan(), "{i} outside the view was written");
        } else {
            let want = a[i] * s0
                + b[i] * s1
                + (i0 - i1) as f32
                + d as f32
                + u as f32
                + h as f32
                + l as f32;
            assert_eq!(got[i], want, "{i}");
        }
    }
    assert!(out.try_slice(0..n + 1).is_none());
    Ok(())
}

fn extra_stream_syncs() -> TestResult {
    let dev = CudaDevice::new(0)?;
    dev.load_ptx(cuprite_driver::nvrtc::compile_ptx(SRC)?, "m", &["fill"])?;
    let f = dev.get_func("m", "fill")?;
    let n = 1 << 20;
    let v = Rng::fresh().f32_in(0.0, 10.0).round();
    let mut a = dev.htod_copy(vec![f32::NAN; n])?;
    {
        let s = dev.fork_default_stream()?;
        // SAFETY: fill(float*, float, int) with an n-element buffer.
        unsafe {
            f.launch_on_stream(
                &s,
                LaunchConfig::for_num_elems(n as u32),
                (&mut a, v, n as i32),
            )
        }?;
        dev.wait_for(&s)?;
    }
    let got = dev.dtoh_sync_copy(&a)?;
    assert!(got.iter().enumerate().all(|(i, &x)| x == v + i as f32));
    Ok(())
}
