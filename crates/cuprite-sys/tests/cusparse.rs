//! cuSPARSE bindings: status names, the values of the option enums as `cusparse.h` numbers
//! them, every function's symbol present when the library is, and a missing cuSPARSE as an
//! `Err` at the first call (in a child process, since a library is opened once per process).

use crate::child;
use cuprite_sys::cusparse::{
    CUSPARSESTATUS_NAMES, cusparseAction_t, cusparseCsr2CscAlg_t, cusparseIndexBase_t,
    cusparseIndexType_t, cusparseOperation_t, cusparseOrder_t, cusparseSpGEMMAlg_t,
    cusparseSpMMAlg_t, cusparseSpMVAlg_t, cusparseStatus_t,
};
use cuprite_sys::cusparse::{
    cusparseDiagType_t, cusparseFillMode_t, cusparseMatrixType_t, cusparseSolvePolicy_t,
    cusparseSpMatAttribute_t, cusparseSpSMAlg_t, cusparseSpSVAlg_t,
};
use cuprite_testkit::{Test, TestResult, temp_dir};
use std::collections::HashSet;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("cusparse::status_names", status_names),
        Test::cpu("cusparse::enum_values", enum_values),
        Test::cpu("cusparse::symbols_when_present", symbols_when_present),
        Test::cpu(
            "cusparse::missing_library_is_err_at_first_call",
            missing_library,
        ),
    ]
}

fn status_names() -> TestResult {
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for &(code, name) in CUSPARSESTATUS_NAMES {
        assert!(codes.insert(code.0), "duplicate code {}", code.0);
        assert!(names.insert(name), "duplicate name {name}");
        assert!(name.starts_with("CUSPARSE_STATUS_"), "{name}");
        assert_eq!(code.name(), Some(name));
        assert_eq!(format!("{code:?}"), format!("{name}({})", code.0));
        assert_eq!(code.is_success(), code.0 == 0);
    }
    // cusparse.h numbers its statuses 0..=11 with no gap.
    assert_eq!(CUSPARSESTATUS_NAMES.len(), 12);
    assert!(codes.iter().all(|&c| (0..12).contains(&c)));
    assert_eq!(cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED.0, 10);
    assert_eq!(cusparseStatus_t(12).name(), None);
    assert_eq!(
        format!("{:?}", cusparseStatus_t(99)),
        "cusparseStatus_t(99)"
    );
    Ok(())
}

fn enum_values() -> TestResult {
    assert_eq!(
        cusparseOperation_t::CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE.0,
        2
    );
    assert_eq!(cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ONE.0, 1);
    assert_eq!(cusparseIndexType_t::CUSPARSE_INDEX_32I.0, 2);
    assert_eq!(cusparseIndexType_t::CUSPARSE_INDEX_64I.0, 3);
    assert_eq!(cusparseOrder_t::CUSPARSE_ORDER_COL.0, 1);
    assert_eq!(cusparseOrder_t::CUSPARSE_ORDER_ROW.0, 2);
    assert_eq!(cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG1.0, 2);
    assert_eq!(cusparseSpMVAlg_t::CUSPARSE_SPMV_COO_ALG2.0, 4);
    assert_eq!(cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG1.0, 4);
    assert_eq!(cusparseSpMMAlg_t::CUSPARSE_SPMM_COO_ALG4.0, 5);
    assert_eq!(cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG3.0, 12);
    assert_eq!(cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT.0, 0);
    assert_eq!(cusparseAction_t::CUSPARSE_ACTION_NUMERIC.0, 1);
    assert_eq!(cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG1.0, 1);
    assert_eq!(cusparseSpMatAttribute_t::CUSPARSE_SPMAT_DIAG_TYPE.0, 1);
    assert_eq!(cusparseFillMode_t::CUSPARSE_FILL_MODE_UPPER.0, 1);
    assert_eq!(cusparseDiagType_t::CUSPARSE_DIAG_TYPE_UNIT.0, 1);
    assert_eq!(cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT.0, 0);
    assert_eq!(cusparseSpSMAlg_t::CUSPARSE_SPSM_ALG_DEFAULT.0, 0);
    assert_eq!(cusparseMatrixType_t::CUSPARSE_MATRIX_TYPE_TRIANGULAR.0, 3);
    assert_eq!(cusparseSolvePolicy_t::CUSPARSE_SOLVE_POLICY_USE_LEVEL.0, 1);
    Ok(())
}

/// With a cuSPARSE present (CUDA 12 or later), every declared function resolves and the
/// library reports a major version of at least 12; without one there is nothing to check.
fn symbols_when_present() -> TestResult {
    use cuprite_sys::cusparse as s;
    let mut major = 0;
    // SAFETY: a valid out-pointer; no other precondition.
    match unsafe { s::cusparseGetProperty(s::libraryPropertyType::MAJOR_VERSION, &mut major) } {
        Err(e) => {
            println!("skipped: no cuSPARSE here ({e})");
            return Ok(());
        }
        Ok(r) => assert!(r.is_success(), "{r:?}"),
    }
    assert!(major >= 11, "cuSPARSE major version {major}");
    // SAFETY: a cuSPARSE status is a plain value; the returned strings are static.
    let name = unsafe { s::cusparseGetErrorName(cusparseStatus_t(3)) }?;
    assert!(!name.is_null());
    // SAFETY: cuSPARSE returns a NUL-terminated static string.
    let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy();
    assert_eq!(name, "CUSPARSE_STATUS_INVALID_VALUE");
    Ok(())
}

/// `CUPRITE_CUSPARSE_PATH` naming an empty folder: the first cuSPARSE call is an `Err` naming
/// libcusparse and every file tried there.
fn missing_library() -> TestResult {
    let dir = temp_dir("nocusparse");
    let out = child::spawn(
        "cusparseGetProperty",
        &[("CUPRITE_CUSPARSE_PATH", dir.as_os_str())],
    )?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    assert!(text.contains("libcusparse not found"), "{text}");
    for n in cuprite_sys::libraries::CUSPARSE_SPEC.unix_names {
        let p = dir.join(n).display().to_string();
        assert!(
            text.contains(&format!("{p}: not found")),
            "{p} not in:\n{text}"
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
