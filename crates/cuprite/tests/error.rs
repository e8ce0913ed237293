//! The error type: driver codes become named errors, loader errors keep what they carry.

use cuprite::Error;
use cuprite::sys::LoadError;
use cuprite::sys::driver::{CURESULT_NAMES, CUresult};
use cuprite_testkit::{Rng, Test, TestResult};

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu(
            "error::every_driver_code_is_named",
            every_driver_code_is_named,
        ),
        Test::cpu("error::loader_errors_convert", loader_errors_convert),
    ]
}

fn every_driver_code_is_named() -> TestResult {
    for &(code, name) in CURESULT_NAMES.iter().filter(|(c, _)| !c.is_success()) {
        let e = Error::driver(code, "cuSomething");
        assert_eq!(e.code(), Some(code));
        let shown = e.to_string();
        assert!(shown.starts_with("cuSomething failed: "), "{shown}");
        assert!(shown.contains(name), "{shown}");
        assert!(shown.contains(&format!("({})", code.0)), "{shown}");
        let deferred = Error::Deferred {
            operation: "free".into(),
            source: Box::new(e.clone()),
        };
        assert_eq!(deferred.code(), Some(code));
        assert_eq!(deferred.is_sticky(), e.is_sticky());
    }
    let unknown = CUresult(54_321);
    let e = Error::driver(unknown, "cuX");
    assert!(e.to_string().contains("CUresult(54321)"), "{e}");
    assert!(Error::driver(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS, "cuX").is_sticky());
    assert!(!Error::driver(CUresult::CUDA_ERROR_OUT_OF_MEMORY, "cuX").is_sticky());
    // A use of a destroyed context: that context is gone, but nothing else is broken.
    let destroyed = Error::driver(CUresult::CUDA_ERROR_CONTEXT_IS_DESTROYED, "cuX");
    assert!(!destroyed.is_sticky());
    assert!(!destroyed.to_string().contains("sticky"), "{destroyed}");
    // Every sticky code says so in its message, and no other does.
    for &(code, _) in CURESULT_NAMES.iter().filter(|(c, _)| !c.is_success()) {
        let e = Error::driver(code, "cuX");
        assert_eq!(e.to_string().contains("sticky"), e.is_sticky(), "{e}");
    }
    Ok(())
}

fn loader_errors_convert() -> TestResult {
    let mut rng = Rng::fresh();
    let tried: Vec<String> = (0..3)
        .map(|i| format!("/opt/x{}/libcuda.so.{i}: not found", rng.next_u64() % 1000))
        .collect();
    let e: Error = LoadError::LibraryNotFound {
        library: "libcuda",
        tried: tried.clone(),
    }
    .into();
    match &e {
        Error::LibraryNotFound { library, tried: t } => {
            assert_eq!(*library, "libcuda");
            assert_eq!(t, &tried);
        }
        other => return Err(format!("expected LibraryNotFound, got {other:?}").into()),
    }
    let shown = e.to_string();
    for t in &tried {
        assert!(shown.contains(t.as_str()), "{shown}");
    }
    let e: Error = LoadError::SymbolNotFound {
        library: "libcuda",
        symbol: "cuNewThing",
        path: "/lib/libcuda.so.1".into(),
    }
    .into();
    let shown = e.to_string();
    assert!(
        shown.contains("cuNewThing") && shown.contains("/lib/libcuda.so.1"),
        "{shown}"
    );
    Ok(())
}
