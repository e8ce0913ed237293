//! cuDNN bindings: status names and categories, the values of the enums as cuDNN 9's headers
//! number them, the layout of the algorithm result structs, every function's symbol present
//! when the library is, and a missing cuDNN as an `Err` at the first call naming every place
//! tried (in a child process, since a library is opened once per process).

use crate::child;
use cuprite_sys::cudnn::{
    CUDNNSTATUS_NAMES, cudnnActivationMode_t, cudnnConvolutionBwdDataAlgo_t,
    cudnnConvolutionBwdFilterAlgo_t, cudnnConvolutionFwdAlgo_t, cudnnConvolutionFwdAlgoPerf_t,
    cudnnConvolutionMode_t, cudnnDataType_t, cudnnDeterminism_t, cudnnMathType_t,
    cudnnNanPropagation_t, cudnnPoolingMode_t, cudnnStatus_t, cudnnTensorFormat_t,
};
use cuprite_testkit::{Test, TestResult, temp_dir};
use std::collections::HashSet;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("cudnn::status_names", status_names),
        Test::cpu("cudnn::enum_values", enum_values),
        Test::cpu("cudnn::perf_struct_layout", perf_struct_layout),
        Test::cpu("cudnn::symbols_when_present", symbols_when_present),
        Test::cpu(
            "cudnn::missing_library_is_err_at_first_call",
            missing_library,
        ),
        Test::cpu("cudnn::wrong_file_override_names_it", wrong_file_override),
    ]
}

fn status_names() -> TestResult {
    let mut codes = HashSet::new();
    let mut names = HashSet::new();
    for &(code, name) in CUDNNSTATUS_NAMES {
        assert!(codes.insert(code.0), "duplicate code {}", code.0);
        assert!(names.insert(name), "duplicate name {name}");
        assert!(name.starts_with("CUDNN_STATUS_"), "{name}");
        assert_eq!(code.name(), Some(name));
        assert_eq!(format!("{code:?}"), format!("{name}({})", code.0));
        assert_eq!(code.is_success(), code.0 == 0);
    }
    // cuDNN 9 declares 48 statuses: success, 8 of 1xxx, 13 of 2xxx, 14 of 3xxx, 7 of 4xxx and
    // 5 of 5xxx, each group counting up from its thousand.
    assert_eq!(CUDNNSTATUS_NAMES.len(), 48);
    for (base, count) in [(1001, 8), (2000, 13), (3000, 14), (4000, 7), (5000, 5)] {
        for c in base..base + count {
            assert!(codes.contains(&c), "status {c} missing");
        }
    }
    assert_eq!(cudnnStatus_t::CUDNN_STATUS_BAD_PARAM.0, 2000);
    assert_eq!(cudnnStatus_t::CUDNN_STATUS_NOT_SUPPORTED.0, 3000);
    assert_eq!(cudnnStatus_t::CUDNN_STATUS_EXECUTION_FAILED.0, 5000);
    assert_eq!(cudnnStatus_t(2013).name(), None);
    assert_eq!(format!("{:?}", cudnnStatus_t(7)), "cudnnStatus_t(7)");
    assert_eq!(cudnnStatus_t(2006).category(), "bad parameter");
    assert_eq!(cudnnStatus_t(3004).category(), "not supported");
    assert_eq!(cudnnStatus_t(1008).category(), "initialisation or version");
    assert_eq!(cudnnStatus_t(4004).category(), "internal error");
    assert_eq!(cudnnStatus_t(5001).category(), "execution failed");
    assert_eq!(cudnnStatus_t(7).category(), "unknown");
    Ok(())
}

fn enum_values() -> TestResult {
    assert_eq!(cudnnDataType_t::CUDNN_DATA_FLOAT.0, 0);
    assert_eq!(cudnnDataType_t::CUDNN_DATA_DOUBLE.0, 1);
    assert_eq!(cudnnDataType_t::CUDNN_DATA_HALF.0, 2);
    assert_eq!(cudnnDataType_t::CUDNN_DATA_BFLOAT16.0, 9);
    assert_eq!(cudnnTensorFormat_t::CUDNN_TENSOR_NHWC.0, 1);
    assert_eq!(cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION.0, 1);
    assert_eq!(cudnnMathType_t::CUDNN_TENSOR_OP_MATH.0, 1);
    assert_eq!(cudnnMathType_t::CUDNN_FMA_MATH.0, 3);
    assert_eq!(cudnnDeterminism_t::CUDNN_DETERMINISTIC.0, 1);
    assert_eq!(
        cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM.0,
        1
    );
    assert_eq!(
        cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED.0,
        7
    );
    assert_eq!(
        cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_COUNT.0,
        8
    );
    assert_eq!(
        cudnnConvolutionBwdDataAlgo_t::CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT.0,
        6
    );
    assert_eq!(
        cudnnConvolutionBwdFilterAlgo_t::CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING.0,
        6
    );
    assert_eq!(
        cudnnConvolutionBwdFilterAlgo_t::CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT.0,
        7
    );
    assert_eq!(
        cudnnPoolingMode_t::CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING.0,
        2
    );
    assert_eq!(cudnnPoolingMode_t::CUDNN_POOLING_MAX_DETERMINISTIC.0, 3);
    assert_eq!(cudnnNanPropagation_t::CUDNN_PROPAGATE_NAN.0, 1);
    assert_eq!(cudnnActivationMode_t::CUDNN_ACTIVATION_RELU.0, 1);
    assert_eq!(cudnnActivationMode_t::CUDNN_ACTIVATION_IDENTITY.0, 5);
    Ok(())
}

/// The C struct is `{ int algo; int status; float time; size_t memory; int determinism; int
/// mathType; int reserved[3]; }`: `memory` at offset 16 after 4 bytes of padding, 48 bytes
/// in all on a 64-bit target.
fn perf_struct_layout() -> TestResult {
    assert_eq!(std::mem::size_of::<cudnnConvolutionFwdAlgoPerf_t>(), 48);
    assert_eq!(std::mem::offset_of!(cudnnConvolutionFwdAlgoPerf_t, time), 8);
    assert_eq!(
        std::mem::offset_of!(cudnnConvolutionFwdAlgoPerf_t, memory),
        16
    );
    assert_eq!(
        std::mem::offset_of!(cudnnConvolutionFwdAlgoPerf_t, determinism),
        24
    );
    assert_eq!(
        std::mem::offset_of!(cudnnConvolutionFwdAlgoPerf_t, reserved),
        32
    );
    Ok(())
}

/// With a cuDNN present, it is version 9, every declared function resolves, and the status
/// strings come back; without one there is nothing to check.
fn symbols_when_present() -> TestResult {
    use cuprite_sys::cudnn as d;
    // SAFETY: no arguments and no precondition.
    let v = match unsafe { d::cudnnGetVersion() } {
        Err(e) => {
            println!("skipped: no cuDNN here ({e})");
            return Ok(());
        }
        Ok(v) => v,
    };
    if v / 10000 != 9 {
        println!("skipped: cuDNN version {v} is not 9.x");
        return Ok(());
    }
    let resolved = d::resolve_symbols()?;
    // The 54 functions `cuprite_sys::cudnn` declares (the legacy convolution API and the
    // graph API's backend descriptors), all present since cuDNN 9.0.
    assert_eq!(resolved, 54, "every declared cuDNN function resolves");
    // SAFETY: a status is a plain value; cuDNN returns a static NUL-terminated string.
    let s = unsafe { d::cudnnGetErrorString(cudnnStatus_t::CUDNN_STATUS_BAD_PARAM) }?;
    assert!(!s.is_null());
    // SAFETY: as above.
    let s = unsafe { std::ffi::CStr::from_ptr(s) }.to_string_lossy();
    assert!(s.contains("BAD_PARAM"), "{s}");
    Ok(())
}

/// `CUPRITE_CUDNN_PATH` naming an empty folder: the first cuDNN call is an `Err` naming
/// libcudnn and every file tried there.
fn missing_library() -> TestResult {
    let dir = temp_dir("nocudnn");
    let out = child::spawn(
        "cudnnGetVersion",
        &[("CUPRITE_CUDNN_PATH", dir.as_os_str())],
    )?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child failed: {text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("ERR LibraryNotFound"), "{text}");
    assert!(text.contains("libcudnn not found"), "{text}");
    let names = cuprite_sys::libraries::CUDNN_SPEC.unix_names;
    assert!(names.contains(&"libcudnn.so.9"), "{names:?}");
    for sub in ["", "lib64", "lib", "bin"] {
        for n in names {
            let p = if sub.is_empty() {
                dir.join(n)
            } else {
                dir.join(sub).join(n)
            };
            let p = p.display().to_string();
            assert!(
                text.contains(&format!("{p}: not found")),
                "{p} not in:\n{text}"
            );
        }
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// `CUPRITE_CUDNN_PATH` naming a file that does not exist: that file is the only place tried.
fn wrong_file_override() -> TestResult {
    let dir = temp_dir("nocudnnfile");
    let file = dir.join("libcudnn.so.99");
    let out = child::spawn(
        "cudnnGetVersion",
        &[("CUPRITE_CUDNN_PATH", file.as_os_str())],
    )?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "child failed: {text}");
    assert!(
        text.contains("libcudnn not found; tried 1 places:"),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}: not found", file.display())),
        "{text}"
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
