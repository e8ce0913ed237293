//! Library discovery and lazy symbol resolution.

use crate::child;
use cuprite_sys::LoadError;
use cuprite_sys::loader::{DynLibrary, LibrarySpec, candidates};
use cuprite_testkit::{Rng, Test, TestResult, temp_dir};

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu(
            "loader::load_error_debug_is_readable",
            load_error_debug_is_readable,
        ),
        Test::cpu(
            "loader::missing_driver_lists_every_place",
            missing_driver_lists_every_place,
        ),
        Test::cpu(
            "loader::missing_library_lists_every_candidate",
            missing_library_lists_every_candidate,
        ),
        Test::cpu(
            "loader::missing_symbol_fails_only_that_call",
            missing_symbol_fails_only_that_call,
        ),
        Test::cpu("loader::override_file_is_the_only_place", override_file),
        Test::cpu(
            "loader::python_is_asked_only_when_nothing_nearer_loads",
            python_is_asked_only_when_nothing_nearer_loads,
        ),
        Test::cpu(
            "loader::resolve_symbols_resolves_the_present_ones",
            resolve_symbols_resolves_the_present_ones,
        ),
        Test::cpu(
            "loader::preferred_major_goes_first",
            preferred_major_goes_first,
        ),
        Test::gpu("loader::driver_loads_from_a_real_file", driver_loads),
        Test::cpu("loader::missing_nccl_is_an_err", missing_nccl_is_an_err),
    ]
}

/// `CUPRITE_CUDA_PATH` pointing at an empty folder: cuInit is an `Err` listing each file name
/// in the folder and in its lib64/lib/bin subfolders, and nothing else.
fn missing_driver_lists_every_place() -> TestResult {
    let dir = temp_dir("nodriver");
    let out = child::spawn("cuInit", &[("CUPRITE_CUDA_PATH", dir.as_os_str())])?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    let names = cuprite_sys::driver::SPEC.unix_names;
    let mut expected = Vec::new();
    for sub in ["", "lib64", "lib", "bin"] {
        for n in names {
            let p = if sub.is_empty() {
                dir.join(n)
            } else {
                dir.join(sub).join(n)
            };
            expected.push(p.display().to_string());
        }
    }
    for p in &expected {
        assert!(
            text.contains(&format!("{p}: not found")),
            "{p} not listed in:\n{text}"
        );
    }
    assert!(
        text.contains(&format!(
            "libcuda not found; tried {} places",
            expected.len()
        )),
        "{text}"
    );
    // Nothing outside the override folder was tried.
    let display = text.split("DISPLAY ").nth(1).ok_or("no Display output")?;
    let listed: Vec<&str> = display
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .collect();
    assert_eq!(listed.len(), expected.len(), "{display}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// A library that exists nowhere: the error lists exactly the candidates, in order, each with
/// its reason; CUDA toolkit folders, the system loader's names and Python wheel folders
/// included.
fn missing_library_lists_every_candidate() -> TestResult {
    static SPEC: LibrarySpec = LibrarySpec {
        name: "libcuprite_missing",
        env_var: "CUPRITE_TEST_VAR_NEVER_SET",
        unix_names: &["libcuprite_missing.so.7", "libcuprite_missing.so"],
        windows_names: &["cuprite_missing.dll"],
        in_toolkit: true,
        wheel_dirs: &["nvidia/cuprite_missing/lib"],
        companions: &[],
        prefer_major: None,
    };
    static LIB: DynLibrary = DynLibrary::new(&SPEC);
    let cands = candidates(&SPEC);
    assert!(cands.iter().any(|c| c == "libcuprite_missing.so.7"));
    assert!(
        cands
            .iter()
            .any(|c| c.to_string_lossy() == "/usr/local/cuda/lib64/libcuprite_missing.so.7")
    );
    assert!(!LIB.is_available());
    match LIB.path() {
        Err(LoadError::LibraryNotFound { library, tried }) => {
            assert_eq!(library, "libcuprite_missing");
            assert_eq!(tried.len(), cands.len(), "{tried:?}");
            for (t, c) in tried.iter().zip(&cands) {
                assert!(t.starts_with(&*c.to_string_lossy()), "{t} vs {c:?}");
                assert!(t.len() > c.len() + 2, "no reason given: {t}");
            }
            let shown = LoadError::LibraryNotFound {
                library,
                tried: tried.clone(),
            }
            .to_string();
            for t in &tried {
                assert!(shown.contains(t.as_str()));
            }
        }
        other => return Err(format!("expected LibraryNotFound, got {other:?}").into()),
    }
    Ok(())
}

/// A library outside the toolkit, without companions or a preferred version; `names` gives the
/// Linux and the Windows file names.
const fn plain_spec(
    name: &'static str,
    env_var: &'static str,
    names: (&'static [&'static str], &'static [&'static str]),
    wheel_dirs: &'static [&'static str],
) -> LibrarySpec {
    LibrarySpec {
        name,
        env_var,
        unix_names: names.0,
        windows_names: names.1,
        in_toolkit: false,
        wheel_dirs,
        companions: &[],
        prefer_major: None,
    }
}

const LIBM_NAMES: (&[&str], &[&str]) = (&["libm.so.6", "libm.so"], &["ucrtbase.dll"]);
const ABSENT_NAMES: (&[&str], &[&str]) =
    (&["libcuprite-absent-4f1d.so"], &["cuprite-absent-4f1d.dll"]);
const TEST_WHEELS: &[&str] = &["nvidia/cuprite_test/lib"];

static LIBM_SPEC: LibrarySpec = plain_spec("libm", "CUPRITE_TEST_LIBM_PATH", LIBM_NAMES, &[]);
static LIBM: DynLibrary = DynLibrary::new(&LIBM_SPEC);

mod libm {
    use super::LIBM;
    cuprite_sys::dyn_functions! {
        library: LIBM;
        fn cos(x: f64) -> f64;
        fn cuprite_no_such_symbol(x: f64) -> f64;
        fn hypot(x: f64, y: f64) -> f64;
    }
}

fn missing_symbol_fails_only_that_call() -> TestResult {
    let mut rng = Rng::fresh();
    let x = f64::from(rng.f32_in(-10.0, 10.0));
    let y = f64::from(rng.f32_in(-10.0, 10.0));
    // SAFETY: `cos` from libm has exactly this signature.
    let c = unsafe { libm::cos(x) }?;
    assert_eq!(c, x.cos());
    // SAFETY: never called: the symbol does not exist, so the wrapper returns Err first.
    match unsafe { libm::cuprite_no_such_symbol(x) } {
        Err(LoadError::SymbolNotFound {
            library,
            symbol,
            path,
        }) => {
            assert_eq!(library, "libm");
            assert_eq!(symbol, "cuprite_no_such_symbol");
            assert!(path.contains("libm"), "{path}");
            let shown = LoadError::SymbolNotFound {
                library,
                symbol,
                path,
            }
            .to_string();
            assert!(
                shown.contains("cuprite_no_such_symbol") && shown.contains("libm"),
                "{shown}"
            );
        }
        other => return Err(format!("expected SymbolNotFound, got {other:?}").into()),
    }
    // Asking again fails again (not cached as a success), and the others keep working.
    // SAFETY: as above.
    match unsafe { libm::cuprite_no_such_symbol(y) } {
        Err(LoadError::SymbolNotFound { symbol, .. }) => {
            assert_eq!(symbol, "cuprite_no_such_symbol")
        }
        other => return Err(format!("expected SymbolNotFound again, got {other:?}").into()),
    }
    // SAFETY: `hypot` and `cos` from libm have exactly these signatures.
    assert_eq!(unsafe { libm::hypot(x, y) }?, x.hypot(y));
    // SAFETY: as above.
    assert_eq!(unsafe { libm::cos(y) }?, y.cos());
    assert!(LIBM.is_available());
    Ok(())
}

/// Slots of their own (a module per macro use), so that the lazy test above still resolves lazily.
mod libm_eager {
    use super::LIBM;
    cuprite_sys::dyn_functions! {
        library: LIBM;
        fn cos(x: f64) -> f64;
        fn cuprite_no_such_symbol(x: f64) -> f64;
        fn hypot(x: f64, y: f64) -> f64;
        fn fabs(x: f64) -> f64;
    }
}

static ABSENT_SPEC: LibrarySpec = plain_spec(
    "libcuprite-absent",
    "CUPRITE_TEST_ABSENT_PATH",
    ABSENT_NAMES,
    &[],
);
static ABSENT: DynLibrary = DynLibrary::new(&ABSENT_SPEC);

mod absent {
    use super::ABSENT;
    cuprite_sys::dyn_functions! {
        library: ABSENT;
        fn cuprite_absent_fn(x: f64) -> f64;
    }
}

/// `resolve_symbols` counts the symbols the library has (3 of 4), the calls then use them, the
/// missing one is still an `Err` when called, and a missing library is an `Err` naming it.
fn resolve_symbols_resolves_the_present_ones() -> TestResult {
    assert_eq!(libm_eager::resolve_symbols()?, 3);
    // Again: the same count (the resolved slots are kept, the missing one is asked again).
    assert_eq!(libm_eager::resolve_symbols()?, 3);
    let x = f64::from(Rng::fresh().f32_in(0.5, 10.0));
    // SAFETY: `cos`, `hypot` and `fabs` from libm have exactly these signatures.
    unsafe {
        assert_eq!(libm_eager::cos(x)?, x.cos());
        assert_eq!(libm_eager::hypot(x, 2.0)?, x.hypot(2.0));
        assert_eq!(libm_eager::fabs(-x)?, x);
    }
    // SAFETY: never called: the symbol does not exist, so the wrapper returns Err first.
    let missing = unsafe { libm_eager::cuprite_no_such_symbol(x) };
    assert!(
        matches!(
            missing,
            Err(LoadError::SymbolNotFound {
                symbol: "cuprite_no_such_symbol",
                ..
            })
        ),
        "{missing:?}"
    );
    match absent::resolve_symbols() {
        Err(LoadError::LibraryNotFound { library, tried }) => {
            assert_eq!(library, "libcuprite-absent");
            assert!(!tried.is_empty());
        }
        other => return Err(format!("expected LibraryNotFound, got {other:?}").into()),
    }
    Ok(())
}

/// libm, as a library that pip wheels could also hold.
static LIBM_WHEELS_SPEC: LibrarySpec = plain_spec(
    "libm",
    "CUPRITE_TEST_LIBM_WHEELS_PATH",
    LIBM_NAMES,
    TEST_WHEELS,
);

/// A library no place has, that pip wheels could hold.
static ABSENT_WHEELS_SPEC: LibrarySpec = plain_spec(
    "libcuprite-absent",
    "CUPRITE_TEST_ABSENT_WHEELS_PATH",
    ABSENT_NAMES,
    TEST_WHEELS,
);

/// The marker file the fake `python3` of [`python_is_asked_only_when_nothing_nearer_loads`]
/// creates when run.
const PY_MARKER_VAR: &str = "CUPRITE_TEST_PY_MARKER";

/// In a child whose `python3` is a script that creates `$CUPRITE_TEST_PY_MARKER`: opens libm
/// (found by the system loader), then a library found nowhere; prints whether Python had been
/// asked after each.
pub fn wheels_child() {
    let marker = std::path::PathBuf::from(std::env::var_os(PY_MARKER_VAR).unwrap_or_default());
    let near = DynLibrary::new(&LIBM_WHEELS_SPEC).is_available();
    let asked_near = marker.exists();
    let absent = DynLibrary::new(&ABSENT_WHEELS_SPEC)
        .path()
        .map(str::to_string);
    let tried = match &absent {
        Err(LoadError::LibraryNotFound { tried, .. }) => tried.len(),
        _ => 0,
    };
    println!(
        "near={near} asked_near={asked_near} absent_ok={} tried={tried} asked_absent={}",
        absent.is_ok(),
        marker.exists()
    );
}

/// Opening a library that an earlier place holds does not start Python (a process start, far
/// slower than the lookups before it); only a library found nowhere nearer does.
fn python_is_asked_only_when_nothing_nearer_loads() -> TestResult {
    if cfg!(windows) {
        return Ok(());
    }
    let dir = temp_dir("fakepy");
    let marker = dir.join("asked");
    let script = dir.join("python3");
    std::fs::write(&script, "#!/bin/sh\necho > \"$CUPRITE_TEST_PY_MARKER\"\n")?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    let path = std::env::join_paths(std::iter::once(dir.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))?;
    let out = child::spawn(
        "wheels",
        &[
            ("PATH", path.as_os_str()),
            (PY_MARKER_VAR, marker.as_os_str()),
            ("PYTHONPATH", "".as_ref()),
            ("VIRTUAL_ENV", "".as_ref()),
            ("CONDA_PREFIX", "".as_ref()),
        ],
    )?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("near=true asked_near=false absent_ok=false"),
        "{text}"
    );
    assert!(text.contains("asked_absent=true"), "{text}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// An override naming a file that does not exist is the only place tried.
fn override_file() -> TestResult {
    let dir = temp_dir("override");
    let file = dir.join("libcuda-not-here.so.1");
    let out = child::spawn("cuInit", &[("CUPRITE_CUDA_PATH", file.as_os_str())])?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("tried 1 places"), "{text}");
    assert!(text.contains(&file.display().to_string()), "{text}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn driver_loads() -> TestResult {
    let path = cuprite_sys::driver::LIBRARY.path()?;
    assert!(
        path.contains("libcuda") || path.contains("nvcuda"),
        "{path}"
    );
    let mut v = 0;
    // SAFETY: valid out-pointer.
    let r = unsafe { cuprite_sys::driver::cuDriverGetVersion(&mut v) }?;
    assert!(r.is_success(), "{r:?}");
    assert!(v >= 11000, "{v}");
    Ok(())
}

fn twelve() -> Option<u32> {
    Some(12)
}

/// A spec preferring major version 12 tries `.so.12` before `.so.13` in every place, and keeps
/// the rest in order.
fn preferred_major_goes_first() -> TestResult {
    static SPEC: LibrarySpec = LibrarySpec {
        name: "libcuprite_versioned",
        env_var: "CUPRITE_TEST_VERSIONED_NEVER_SET",
        unix_names: &[
            "libcuprite_versioned.so.13",
            "libcuprite_versioned.so.12",
            "libcuprite_versioned.so",
        ],
        windows_names: &["v_130_0.dll", "v_120_0.dll"],
        in_toolkit: true,
        wheel_dirs: &[],
        companions: &[],
        prefer_major: Some(twelve),
    };
    let c: Vec<String> = candidates(&SPEC)
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let pos = |n: &str| c.iter().position(|x| x == n);
    let p12 = pos("libcuprite_versioned.so.12").ok_or("no .so.12")?;
    let p13 = pos("libcuprite_versioned.so.13").ok_or("no .so.13")?;
    let p = pos("libcuprite_versioned.so").ok_or("no .so")?;
    assert!(p12 < p13 && p13 < p, "{c:?}");
    let d12 = pos("/usr/local/cuda/lib64/libcuprite_versioned.so.12").ok_or("no toolkit .so.12")?;
    let d13 = pos("/usr/local/cuda/lib64/libcuprite_versioned.so.13").ok_or("no toolkit .so.13")?;
    assert!(d12 < d13, "{c:?}");
    Ok(())
}

/// `LoadError`'s `Debug` is its variant's name and its `Display` text (one place per line), so
/// an `unwrap()` or `main() -> Result` shows a readable list.
fn load_error_debug_is_readable() -> TestResult {
    let tried: Vec<String> = (0..5)
        .map(|i| format!("/nowhere/{i}/libcuda.so.1: not found"))
        .collect();
    let e = cuprite_sys::LoadError::LibraryNotFound {
        library: "libcuda",
        tried: tried.clone(),
    };
    let debug = format!("{e:?}");
    assert_eq!(debug, format!("LibraryNotFound: {e}"));
    let lines: Vec<&str> = debug.lines().collect();
    assert_eq!(
        lines[0],
        "LibraryNotFound: libcuda not found; tried 5 places:"
    );
    assert_eq!(lines.len(), 6, "{debug}");
    for (line, t) in lines[1..].iter().zip(&tried) {
        assert_eq!(*line, format!("  - {t}"));
    }
    let e = cuprite_sys::LoadError::SymbolNotFound {
        library: "libnvrtc",
        symbol: "nvrtcNewThing",
        path: "/lib/libnvrtc.so.13".into(),
    };
    assert_eq!(format!("{e:?}"), format!("SymbolNotFound: {e}"));
    assert!(format!("{e:?}").contains("nvrtcNewThing"));
    Ok(())
}

/// `CUPRITE_NCCL_PATH` pointing at a file that does not exist: the first NCCL call is an `Err`
/// naming libnccl and that path (and only it), not a panic.
fn missing_nccl_is_an_err() -> TestResult {
    let dir = temp_dir("nonccl");
    let file = dir.join("libnccl.so.2");
    let out = child::spawn("ncclGetVersion", &[("CUPRITE_NCCL_PATH", file.as_os_str())])?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    assert!(text.contains("libnccl not found; tried 1 places"), "{text}");
    assert!(
        text.contains(&format!("{}: not found", file.display())),
        "{text}"
    );
    Ok(())
}
