//! cuFFT bindings: status names, transform-type values, and a missing cuFFT as an `Err` at the
//! first call (in a child process, since a library is opened once per process).

use crate::child;
use cuprite_sys::cufft::{CUFFTRESULT_NAMES, cufftResult, cufftType};
use cuprite_testkit::{Test, TestResult, temp_dir};
use std::collections::HashSet;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("cufft::result_names", result_names),
        Test::cpu("cufft::type_values", type_values),
        Test::cpu(
            "cufft::missing_library_is_err_at_first_call",
            missing_library,
        ),
    ]
}

fn result_names() -> TestResult {
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for &(code, name) in CUFFTRESULT_NAMES {
        assert!(codes.insert(code.0), "duplicate code {}", code.0);
        assert!(names.insert(name), "duplicate name {name}");
        assert!(name.starts_with("CUFFT_"), "{name}");
        assert_eq!(code.name(), Some(name));
        assert_eq!(format!("{code:?}"), format!("{name}({})", code.0));
        assert_eq!(code.is_success(), code.0 == 0);
    }
    // cufft.h of cuFFT 12 numbers its codes 0..=0x14 (three of them retired since).
    assert_eq!(CUFFTRESULT_NAMES.len(), 0x15);
    assert_eq!(cufftResult::CUFFT_NOT_SUPPORTED.0, 0x10);
    assert_eq!(cufftResult::CUFFT_NVSHMEM_FAILURE.0, 0x14);
    assert_eq!(cufftResult(0x15).name(), None);
    assert_eq!(format!("{:?}", cufftResult(99)), "cufftResult(99)");
    Ok(())
}

fn type_values() -> TestResult {
    assert_eq!(cufftType::CUFFT_C2C.0, 0x29);
    assert_eq!(cufftType::CUFFT_R2C.0, 0x2a);
    assert_eq!(cufftType::CUFFT_C2R.0, 0x2c);
    assert_eq!(cufftType::CUFFT_Z2Z.0, 0x69);
    assert_eq!(cufftType::CUFFT_D2Z.0, 0x6a);
    assert_eq!(cufftType::CUFFT_Z2D.0, 0x6c);
    assert_eq!(cuprite_sys::cufft::CUFFT_FORWARD, -1);
    assert_eq!(cuprite_sys::cufft::CUFFT_INVERSE, 1);
    Ok(())
}

/// `CUPRITE_CUFFT_PATH` naming an empty folder: the first cuFFT call is an `Err` naming
/// libcufft and every file tried there; the driver is unaffected.
fn missing_library() -> TestResult {
    let dir = temp_dir("nocufft");
    let out = child::spawn(
        "cufftGetVersion",
        &[("CUPRITE_CUFFT_PATH", dir.as_os_str())],
    )?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    assert!(text.contains("libcufft not found"), "{text}");
    for n in cuprite_sys::libraries::CUFFT_SPEC.unix_names {
        let p = dir.join(n).display().to_string();
        assert!(
            text.contains(&format!("{p}: not found")),
            "{p} not in:\n{text}"
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
