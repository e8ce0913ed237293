//! `CUresult`: every value maps to its name and back.

use cuprite_sys::driver::{CURESULT_NAMES, CUresult};
use cuprite_testkit::{Test, TestResult};
use std::collections::HashSet;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("result::every_code_maps_to_name_and_back", round_trip),
        Test::cpu("result::known_values", known_values),
        Test::gpu("result::names_agree_with_driver", names_agree_with_driver),
    ]
}

fn round_trip() -> TestResult {
    assert!(CURESULT_NAMES.len() >= 100, "{}", CURESULT_NAMES.len());
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for &(code, name) in CURESULT_NAMES {
        assert!(codes.insert(code.0), "duplicate code {}", code.0);
        assert!(names.insert(name), "duplicate name {name}");
        assert!(
            name == "CUDA_SUCCESS" || name.starts_with("CUDA_ERROR_"),
            "{name}"
        );
        assert_eq!(code.name(), Some(name));
        assert_eq!(CUresult::from_name(name), Some(code));
        assert_eq!(format!("{code:?}"), format!("{name}({})", code.0));
        assert_eq!(code.is_success(), code.0 == 0);
    }
    // Values the list does not know have no name, and print as a number.
    for v in [-1, 9, 12345, 998] {
        if !codes.contains(&v) {
            assert_eq!(CUresult(v).name(), None);
            assert_eq!(format!("{:?}", CUresult(v)), format!("CUresult({v})"));
        }
    }
    assert_eq!(CUresult::from_name("CUDA_ERROR_NOT_A_THING"), None);
    Ok(())
}

fn known_values() -> TestResult {
    for (code, v, name) in [
        (CUresult::CUDA_SUCCESS, 0, "CUDA_SUCCESS"),
        (
            CUresult::CUDA_ERROR_INVALID_VALUE,
            1,
            "CUDA_ERROR_INVALID_VALUE",
        ),
        (
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            2,
            "CUDA_ERROR_OUT_OF_MEMORY",
        ),
        (CUresult::CUDA_ERROR_NO_DEVICE, 100, "CUDA_ERROR_NO_DEVICE"),
        (
            CUresult::CUDA_ERROR_INVALID_PTX,
            218,
            "CUDA_ERROR_INVALID_PTX",
        ),
        (
            CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
            222,
            "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        ),
        (CUresult::CUDA_ERROR_NOT_FOUND, 500, "CUDA_ERROR_NOT_FOUND"),
        (
            CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
            700,
            "CUDA_ERROR_ILLEGAL_ADDRESS",
        ),
        (
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            719,
            "CUDA_ERROR_LAUNCH_FAILED",
        ),
        (CUresult::CUDA_ERROR_UNKNOWN, 999, "CUDA_ERROR_UNKNOWN"),
    ] {
        assert_eq!(code.0, v, "{name}");
        assert_eq!(code.name(), Some(name));
        assert_eq!(CUresult::from_name(name), Some(code));
    }
    Ok(())
}

/// The driver's own `cuGetErrorName` agrees with the table for every code it knows.
fn names_agree_with_driver() -> TestResult {
    let mut checked = 0;
    for &(code, name) in CURESULT_NAMES {
        let mut p: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: valid out-pointer; cuGetErrorName accepts any code.
        let r = unsafe { cuprite_sys::driver::cuGetErrorName(code, &mut p) }?;
        if r.is_success() && !p.is_null() {
            // SAFETY: the driver returns a static NUL-terminated string.
            let driver_name = unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy();
            assert_eq!(driver_name, name);
            checked += 1;
        }
    }
    assert!(checked >= 90, "the driver named only {checked} codes");
    Ok(())
}
