//! The integration tests of `cuprite-cli`: one binary, run by `cargo test`; GPU tests are
//! ignored at run time when there is no GPU (see `cuprite-testkit`).

use cuprite_testkit::{Test, run};

mod bench;
mod demo;
mod fuzz;
mod headline;
mod info;

/// The `cuprite` binary: the one cargo built, or (on a GPU host that received only packed
/// binaries) `cuprite`/`bin-cuprite` beside this test binary, or `$CUPRITE_BIN`.
pub fn cuprite_bin() -> Result<std::path::PathBuf, String> {
    let mut tried = Vec::new();
    if let Some(p) = std::env::var_os("CUPRITE_BIN") {
        return Ok(p.into());
    }
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_cuprite"));
    if built.is_file() {
        return Ok(built);
    }
    tried.push(built);
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Into::into))
    {
        let dir: std::path::PathBuf = dir;
        for n in ["cuprite", "bin-cuprite"] {
            let p = dir.join(n);
            if p.is_file() {
                return Ok(p);
            }
            tried.push(p);
        }
    }
    Err(format!(
        "the cuprite binary is not found; tried {tried:?} (set CUPRITE_BIN)"
    ))
}

fn main() {
    let mut tests: Vec<Test> = Vec::new();
    tests.extend(info::tests());
    tests.extend(bench::tests());
    tests.extend(demo::tests());
    tests.extend(fuzz::tests());
    tests.extend(headline::tests());
    run(tests);
}
