//! Known-answer tests of the scalar building blocks.

use cuprite_array::ops::special;
use cuprite_testkit::{Test, TestResult};

fn special_functions() -> TestResult {
    assert!((special::erf(0.5) - 0.520_499_877_813_046_5).abs() < 1e-14);
    assert!((special::erf(-2.5) + 0.999_593_047_982_555).abs() < 1e-14);
    assert!((special::erfc(3.0) - 2.209_049_699_858_544e-5).abs() < 1e-18);
    assert!((special::lgamma(10.5) - 13.940_625_219_403_763).abs() < 1e-12);
    assert!((special::tgamma(4.5) - 11.631_728_396_567_45).abs() < 1e-11);
    assert!((special::tgamma(-1.5) - 2.363_271_801_207_355).abs() < 1e-12);
    assert_eq!(special::tgamma(5.0), 24.0);
    Ok(())
}

fn philox_known_answer() -> TestResult {
    // Random123's known-answer vectors for philox4x32_10.
    assert_eq!(
        cuprite_array::random::philox4x32_10(0, 0),
        [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
    );
    Ok(())
}

fn arrays_are_send_and_sync() -> TestResult {
    fn check<T: Send + Sync + Clone>() {}
    check::<cuprite_array::Array<f32>>();
    check::<cuprite_array::Array<cuprite_array::c64>>();
    check::<cuprite_array::Array<bool>>();
    // A clone shares the data and sees the same values from another thread.
    let a = cuprite_array::Array::from_slice_on(cuprite_array::Device::CPU, &[1u16, 2, 3], &[3])?;
    let b = a.clone();
    let v = std::thread::spawn(move || b.to_vec())
        .join()
        .expect("thread")?;
    assert_eq!(v, a.to_vec()?);
    Ok(())
}

fn devices_on_the_cpu_backend() -> TestResult {
    use cuprite_array::{Backend, Device};
    // Runs on its own thread: the current device is per thread.
    std::thread::spawn(|| -> TestResult {
        cuprite_array::set_backend(Backend::Cpu)?;
        assert_eq!(cuprite_array::current_device(), Device::CPU);
        assert_eq!(cuprite_array::device_count(), 1);
        cuprite_array::set_device(0)?;
        assert_eq!(cuprite_array::get_device(), 0);
        crate::common::assert_err(
            cuprite_array::set_device(1),
            "InvalidArgument",
            "device 1 does not exist",
        );
        assert!(cuprite_array::info().contains("CPU"));
        cuprite_array::sync(Device::CPU)?;
        let n = ["cpu", "cuda"];
        assert!(n.contains(&cuprite_array::default_backend_name()));
        Ok(())
    })
    .join()
    .expect("thread")
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("units::special_functions", special_functions),
        Test::cpu("units::philox_known_answer", philox_known_answer),
        Test::cpu("units::arrays_are_send_and_sync", arrays_are_send_and_sync),
        Test::cpu("units::error_debug_is_readable", error_debug_is_readable),
        Test::cpu(
            "units::devices_on_the_cpu_backend",
            devices_on_the_cpu_backend,
        ),
        Test::gpu(
            "units::out_of_memory_is_err_and_recovers",
            out_of_memory_is_err_and_recovers,
        ),
    ]
}

/// An array twice the size of the device: `Err` (after the library's release-and-retry), and
/// the device stays usable: a fresh computation afterwards gives the right values.
fn out_of_memory_is_err_and_recovers() -> TestResult {
    let dev = cuprite_array::Device::cuda(0);
    let (_free, total) = cuprite_array::mem_info(dev)?;
    let huge = 2 * total / std::mem::size_of::<f32>();
    let r = cuprite_array::with_device(dev, || {
        let a = cuprite_array::Array::<f32>::full(&[huge], 1.5);
        a.eval()
    });
    let e = match r {
        Err(e) => e.to_string(),
        Ok(()) => {
            return Err(
                format!("an array of {huge} f32 ({} bytes) was allocated", 4 * huge).into(),
            );
        }
    };
    assert!(
        e.to_lowercase().contains("out of"),
        "not an out-of-memory error: {e}"
    );
    let mut rng = cuprite_testkit::Rng::fresh();
    let x = rng.vec_f32(4096, -2.0, 2.0);
    let y = cuprite_array::with_device(dev, || -> cuprite_array::Result<Vec<f32>> {
        let a = cuprite_array::Array::from_slice(&x, &[4096])?;
        (&a * 3.0f32 + 1.0f32).to_vec()
    })?;
    for (i, (g, v)) in y.iter().zip(&x).enumerate() {
        assert!(
            (g - (v * 3.0 + 1.0)).abs() <= 1e-6 * (1.0 + g.abs()),
            "element {i}: {g} vs {v}"
        );
    }
    Ok(())
}

/// `Debug` of the array error (what `fn main() -> cuprite_array::Result<()>` prints) is the
/// variant's name and the readable message; a wrapped driver-layer error names both variants
/// and keeps the driver layer's multi-line text.
fn error_debug_is_readable() -> TestResult {
    use cuprite_array::Error;
    // A real error from the library: a shape mismatch.
    let a = cuprite_array::Array::from_slice_on(cuprite_array::Device::CPU, &[1.0f32; 6], &[2, 3])?;
    let b = cuprite_array::Array::from_slice_on(cuprite_array::Device::CPU, &[1.0f32; 4], &[4])?;
    let e = a.try_add(&b).err().ok_or("[2, 3] + [4] did not fail")?;
    assert!(matches!(e, Error::Shape(_)), "{e}");
    assert_eq!(format!("{e:?}"), format!("Shape: {e}"));
    assert!(format!("{e:?}").contains("[2, 3]"), "{e:?}");
    for (e, name) in [
        (Error::Axis("axis 3 of a 2-d array".into()), "Axis"),
        (Error::Index("index 9 of length 4".into()), "Index"),
        (
            Error::DeviceMismatch("cpu and cuda:0".into()),
            "DeviceMismatch",
        ),
        (Error::InvalidArgument("n = 0".into()), "InvalidArgument"),
    ] {
        assert_eq!(format!("{e:?}"), format!("{name}: {e}"));
    }
    let inner = cuprite_driver::Error::LibraryNotFound {
        library: "libnvrtc",
        tried: vec![
            "/a/libnvrtc.so.13: not found".into(),
            "/b/libnvrtc.so.13: not found".into(),
        ],
    };
    let e = Error::from(inner);
    let debug = format!("{e:?}");
    assert_eq!(debug, format!("Cuda(LibraryNotFound): {e}"));
    assert_eq!(
        debug.lines().collect::<Vec<_>>(),
        [
            "Cuda(LibraryNotFound): libnvrtc not found; tried:",
            "  - /a/libnvrtc.so.13: not found",
            "  - /b/libnvrtc.so.13: not found"
        ]
    );
    Ok(())
}
