//! Re-running this test binary as a child process with a different environment.

use cuprite_testkit::{CHILD_LIMIT, OutputWithin};
use std::process::{Command, Output};

/// The variable that tells the binary it is a child and what to do.
pub const CHILD_VAR: &str = "CUPRITE_SYS_TEST_CHILD";

/// In a child: does what `CHILD_VAR` asks, prints the outcome, and returns true.
pub fn run_child_if_asked() -> bool {
    let Ok(what) = std::env::var(CHILD_VAR) else {
        return false;
    };
    match what.as_str() {
        "cuInit" => {
            // SAFETY: cuInit takes flags 0 and has no other precondition.
            match unsafe { cuprite_sys::driver::cuInit(0) } {
                Ok(r) => println!("OK {r:?}"),
                Err(e) => println!("ERR {e:?}\nDISPLAY {e}"),
            }
        }
        "ncclGetVersion" => {
            let mut v = 0;
            // SAFETY: `v` is a valid out-pointer.
            match unsafe { cuprite_sys::nccl::ncclGetVersion(&mut v) } {
                Ok(r) => println!("OK {r:?} {v}"),
                Err(e) => println!("ERR {e:?}\nDISPLAY {e}"),
            }
        }
        "cufftGetVersion" => {
            let mut v = 0;
            // SAFETY: `v` is a valid out-pointer; the call has no other precondition.
            match unsafe { cuprite_sys::cufft::cufftGetVersion(&mut v) } {
                Ok(r) => println!("OK {r:?} {v}"),
                Err(e) => println!("ERR {e:?}\nDISPLAY {e}"),
            }
        }
        "cusparseGetProperty" => {
            let mut v = 0;
            let kind = cuprite_sys::library_types::libraryPropertyType::MAJOR_VERSION;
            // SAFETY: `v` is a valid out-pointer; the call has no other precondition.
            match unsafe { cuprite_sys::cusparse::cusparseGetProperty(kind, &mut v) } {
                Ok(r) => println!("OK {r:?} {v}"),
                Err(e) => println!("ERR {e:?}\nDISPLAY {e}"),
            }
        }
        "cudnnGetVersion" => {
            // SAFETY: no arguments and no precondition.
            match unsafe { cuprite_sys::cudnn::cudnnGetVersion() } {
                Ok(v) => println!("OK {v}"),
                Err(e) => println!("ERR {e:?}\nDISPLAY {e}"),
            }
        }
        "wheels" => crate::loader::wheels_child(),
        other => println!("unknown child request {other}"),
    }
    true
}

/// Runs this binary as a child doing `what`, with `env` added.
pub fn spawn(what: &str, env: &[(&str, &std::ffi::OsStr)]) -> std::io::Result<Output> {
    let exe = std::env::current_exe()?;
    let mut cmd = Command::new(exe);
    cmd.env(CHILD_VAR, what);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output_within(CHILD_LIMIT)
}
