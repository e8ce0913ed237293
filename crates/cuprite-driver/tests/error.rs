//! The error type: driver codes become named errors, loader errors keep what they carry.

use cuprite_driver::Error;
use cuprite_driver::sys::LoadError;
use cuprite_driver::sys::driver::{CURESULT_NAMES, CUresult};
use cuprite_testkit::{Rng, Test, TestResult};

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu(
            "error::every_driver_code_is_named",
            every_driver_code_is_named,
        ),
        Test::cpu("error::loader_errors_convert", loader_errors_convert),
        Test::cpu("error::debug_is_the_readable_message", debug_is_readable),
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

/// `Debug` (what `fn main() -> Result` prints after `Error: `) is the variant's name and the
/// `Display` text: a missing library shows one place per line, not a one-line struct dump.
fn debug_is_readable() -> TestResult {
    let mut rng = Rng::fresh();
    let tried: Vec<String> = (0..40)
        .map(|i| {
            format!(
                "/opt/cuda-{}/lib64/libcuda.so.{i}: cannot open shared object file",
                rng.next_u64() % 1000
            )
        })
        .collect();
    let e: Error = LoadError::LibraryNotFound {
        library: "libcuda",
        tried: tried.clone(),
    }
    .into();
    let debug = format!("{e:?}");
    assert_eq!(debug, format!("LibraryNotFound: {e}"));
    // As `main` shows it: every place on its own line, no struct syntax.
    let shown = format!("Error: {e:?}");
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 1 + tried.len(), "{shown}");
    assert_eq!(
        lines[0],
        "Error: LibraryNotFound: libcuda not found; tried:"
    );
    for (line, t) in lines[1..].iter().zip(&tried) {
        assert_eq!(*line, format!("  - {t}"));
    }
    assert!(
        !shown.contains("tried: [") && !shown.contains('{'),
        "{shown}"
    );

    let cases: Vec<(Error, &str)> = vec![
        (
            Error::driver(CUresult::CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc_v2"),
            "Driver",
        ),
        (
            LoadError::SymbolNotFound {
                library: "libcuda",
                symbol: "cuNewThing",
                path: "/lib/libcuda.so.1".into(),
            }
            .into(),
            "SymbolNotFound",
        ),
        (
            Error::Nvrtc {
                name: "NVRTC_ERROR_COMPILATION".into(),
                call: "nvrtcCompileProgram",
                log: "k.cu(1): error: identifier \"x\" is undefined".into(),
            },
            "Nvrtc",
        ),
        (Error::InvalidArgument("n = 0".into()), "InvalidArgument"),
        (
            Error::Library {
                library: "libcufft",
                call: "cufftPlan1d",
                code: 4,
                name: "CUFFT_INVALID_VALUE".into(),
                description: "a bad argument".into(),
            },
            "Library",
        ),
        (
            Error::OutOfMemory {
                requested: 1 << 40,
                free: 5,
                total: 80,
            },
            "OutOfMemory",
        ),
        (
            Error::Deferred {
                operation: "free of DeviceBuffer<f32>".into(),
                source: Box::new(Error::InvalidArgument("inner".into())),
            },
            "Deferred",
        ),
        (
            Error::HostFnPanicked {
                message: "boom".into(),
            },
            "HostFnPanicked",
        ),
    ];
    for (e, name) in cases {
        assert_eq!(e.variant_name(), name);
        assert_eq!(format!("{e:?}"), format!("{name}: {e}"));
        assert_eq!(format!("{e:#?}"), format!("{e:?}"));
    }
    // The wrapped error reads the same way inside Deferred.
    let d = Error::Deferred {
        operation: "free".into(),
        source: Box::new(Error::InvalidArgument("inner".into())),
    };
    assert_eq!(
        format!("{d:?}"),
        "Deferred: an earlier free (in a Drop) failed: invalid argument: inner"
    );
    Ok(())
}
