//! NVRTC: compiling to PTX and CUBIN, errors with their log, name expressions, defines and
//! include paths. These need only the NVRTC library, no GPU.

use cuprite_driver::Error;
use cuprite_driver::nvrtc::{self, CompileOptions, Image, Output, Ptx};
use cuprite_testkit::{Rng, Test, TestResult, temp_dir};

pub fn tests() -> Vec<Test> {
    vec![
        Test::nvrtc("nvrtc::small_kernel_to_ptx", small_kernel_to_ptx),
        Test::nvrtc("nvrtc::broken_kernel_log_names_line", broken_kernel_log),
        Test::nvrtc("nvrtc::cubin_sm90_is_elf", cubin_sm90_is_elf),
        Test::nvrtc("nvrtc::template_lowered_name", template_lowered_name),
        Test::nvrtc(
            "nvrtc::defines_and_include_paths",
            defines_and_include_paths,
        ),
        Test::nvrtc("nvrtc::in_memory_header", in_memory_header),
        Test::nvrtc("nvrtc::options_reach_compiler", options_reach_compiler),
        Test::nvrtc("nvrtc::version_and_library", version_and_library),
        Test::nvrtc("nvrtc::cuda_headers_found", cuda_headers_found),
        Test::cpu("nvrtc::bad_arguments", bad_arguments),
        Test::cpu("nvrtc::ptx_from_file", ptx_from_file),
        Test::gpu("nvrtc::default_arch_is_device", default_arch_is_device),
    ]
}

const SCALE: &str = r#"
extern "C" __global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"#;

fn small_kernel_to_ptx() -> TestResult {
    let ptx = nvrtc::compile_ptx(SCALE)?;
    let text = ptx.as_str();
    assert!(text.contains(".entry scale"), "{text}");
    assert!(text.contains(".version"), "{text}");
    assert!(text.contains(".target sm_"), "{text}");
    assert!(text.contains("mul.f32"), "{text}");
    Ok(())
}

fn broken_kernel_log() -> TestResult {
    // A different undefined identifier each run, on line 4 of the program.
    let ident = format!("undefined_thing_{}", Rng::fresh().next_u64() % 1_000_000);
    let src = format!(
        "extern \"C\" __global__ void k(float *x) {{\n  int i = threadIdx.x;\n  x[i] = 1.0f;\n  x[i] += {ident};\n}}\n"
    );
    let opts = CompileOptions::new().name("broken.cu").output(Output::Ptx);
    match nvrtc::compile(&src, &opts) {
        Err(Error::Nvrtc { name, call, log }) => {
            assert_eq!(name, "NVRTC_ERROR_COMPILATION");
            assert_eq!(call, "nvrtcCompileProgram");
            assert!(
                log.contains("broken.cu(4)"),
                "log does not name line 4: {log}"
            );
            assert!(
                log.contains(&ident),
                "log does not name the identifier: {log}"
            );
            let shown = Error::Nvrtc { name, call, log }.to_string();
            assert!(shown.contains(&ident), "{shown}");
            Ok(())
        }
        other => Err(format!("expected Error::Nvrtc, got {other:?}").into()),
    }
}

fn cubin_sm90_is_elf() -> TestResult {
    let opts = CompileOptions::new().arch("sm_90").output(Output::Cubin);
    let c = nvrtc::compile(SCALE, &opts)?;
    assert_eq!(c.arch(), "sm_90");
    let bin = c.cubin().ok_or("no CUBIN")?;
    assert!(bin.len() > 64, "{} bytes", bin.len());
    assert_eq!(&bin[..4], b"\x7fELF");
    assert!(c.ptx().is_none());
    // Auto with a real architecture also gives CUBIN; with a virtual one, PTX.
    let auto = nvrtc::compile(SCALE, &CompileOptions::new().arch("sm_80"))?;
    assert!(matches!(auto.image(), Image::Cubin(b) if b.starts_with(b"\x7fELF")));
    let auto = nvrtc::compile(SCALE, &CompileOptions::new().arch("compute_80"))?;
    assert!(
        auto.ptx()
            .is_some_and(|p| p.as_str().contains(".target sm_80"))
    );
    // PTX asked with a real architecture: PTX for its virtual twin.
    let p = nvrtc::compile(
        SCALE,
        &CompileOptions::new().arch("sm_90").output(Output::Ptx),
    )?;
    assert_eq!(p.arch(), "compute_90");
    assert!(p.ptx().ok_or("no PTX")?.as_str().contains(".target sm_90"));
    Ok(())
}

fn template_lowered_name() -> TestResult {
    let src = r#"
template <typename T, int N>
__global__ void axpy(T a, const T *x, T *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) y[i] = a * x[i] + y[i];
}
"#;
    let opts = CompileOptions::new()
        .output(Output::Ptx)
        .name_expression("axpy<float, 256>")
        .name_expression("axpy<double, 64>");
    let c = nvrtc::compile(src, &opts)?;
    let f = c
        .lowered_name("axpy<float, 256>")
        .ok_or("no lowered name")?;
    let d = c
        .lowered_name("axpy<double, 64>")
        .ok_or("no lowered name")?;
    assert!(f.starts_with("_Z") && f.contains("axpy"), "{f}");
    assert!(d.starts_with("_Z") && d.contains("axpy"), "{d}");
    assert_ne!(f, d);
    let ptx = c.ptx().ok_or("no PTX")?.as_str();
    assert!(ptx.contains(&format!(".entry {f}")), "{ptx}");
    assert!(ptx.contains(&format!(".entry {d}")), "{ptx}");
    assert_eq!(c.lowered_names().len(), 2);
    assert!(c.lowered_name("axpy<int, 1>").is_none());
    Ok(())
}

fn defines_and_include_paths() -> TestResult {
    let mut rng = Rng::fresh();
    let value = 1000 + (rng.next_u64() % 9000) as u32;
    let factor = 2 + (rng.next_u64() % 97) as u32;
    let dir = temp_dir("inc");
    std::fs::write(
        dir.join("cuprite_test_factor.h"),
        format!("#pragma once\n#define FACTOR {factor}\n"),
    )?;
    let src = r#"
#include "cuprite_test_factor.h"
#ifndef ENABLE_KERNEL
#error ENABLE_KERNEL is not defined
#endif
extern "C" __global__ void k(int *x) { x[threadIdx.x] = MAGIC * FACTOR; }
"#;
    let opts = CompileOptions::new()
        .output(Output::Ptx)
        .include_path(&dir)
        .define("MAGIC", value)
        .define_flag("ENABLE_KERNEL");
    let c = nvrtc::compile(src, &opts)?;
    let product = value * factor;
    let ptx = c.ptx().ok_or("no PTX")?.as_str();
    assert!(ptx.contains(&product.to_string()), "{product} not in {ptx}");
    // Without the include path the header is not found, and the log says which.
    let no_inc = CompileOptions::new()
        .output(Output::Ptx)
        .define("MAGIC", value)
        .define_flag("ENABLE_KERNEL");
    match nvrtc::compile(src, &no_inc) {
        Err(Error::Nvrtc { log, .. }) => assert!(log.contains("cuprite_test_factor.h"), "{log}"),
        other => return Err(format!("expected a missing-header error, got {other:?}").into()),
    }
    // Without the flag define, the #error fires.
    let no_flag = CompileOptions::new()
        .output(Output::Ptx)
        .include_path(&dir)
        .define("MAGIC", value);
    match nvrtc::compile(src, &no_flag) {
        Err(Error::Nvrtc { log, .. }) => assert!(log.contains("ENABLE_KERNEL"), "{log}"),
        other => return Err(format!("expected the #error, got {other:?}").into()),
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn in_memory_header() -> TestResult {
    let v = 100 + Rng::fresh().next_u64() % 900;
    let opts = CompileOptions::new()
        .output(Output::Ptx)
        .header("consts.h", format!("#define OFFSET {v}\n"));
    let c = nvrtc::compile(
        "#include \"consts.h\"\nextern \"C\" __global__ void k(int *x) { x[0] = OFFSET + 7; }",
        &opts,
    )?;
    assert!(
        c.ptx()
            .ok_or("no PTX")?
            .as_str()
            .contains(&(v + 7).to_string())
    );
    Ok(())
}

fn options_reach_compiler() -> TestResult {
    // Line info shows in the PTX; fast math turns division into div.approx. (maxrregcount is
    // a ptxas option: it is checked to be accepted, for PTX and for CUBIN.)
    let src = "extern \"C\" __global__ void k(float *x, float y) { x[threadIdx.x] = x[threadIdx.x] / y; }";
    let precise = nvrtc::compile(src, &CompileOptions::new().output(Output::Ptx))?;
    let fast = nvrtc::compile(
        src,
        &CompileOptions::new()
            .output(Output::Ptx)
            .use_fast_math(true)
            .maxrregcount(32)
            .line_info(true),
    )?;
    let p = precise.ptx().ok_or("no PTX")?.as_str();
    let f = fast.ptx().ok_or("no PTX")?.as_str();
    assert!(p.contains("div.rn.f32"), "{p}");
    assert!(f.contains("div.approx") || f.contains("div.full"), "{f}");
    assert!(f.contains(".loc"), "no line info in {f}");
    assert!(!p.contains(".loc"));
    let ftz = nvrtc::compile(
        src,
        &CompileOptions::new()
            .output(Output::Ptx)
            .ftz(true)
            .prec_div(false),
    )?;
    assert!(ftz.ptx().ok_or("no PTX")?.as_str().contains(".ftz"));
    let no_fmad = nvrtc::compile(
        "extern \"C\" __global__ void k(float *x, float a, float b) { x[0] = x[0] * a + b; }",
        &CompileOptions::new()
            .output(Output::Ptx)
            .fmad(false)
            .prec_sqrt(true),
    )?;
    let nf = no_fmad.ptx().ok_or("no PTX")?.as_str();
    assert!(
        !nf.contains("fma.rn.f32") && nf.contains("mul.rn.f32"),
        "{nf}"
    );
    let cubin = nvrtc::compile(src, &CompileOptions::new().arch("sm_90").maxrregcount(24))?;
    assert!(cubin.cubin().is_some_and(|b| b.starts_with(b"\x7fELF")));
    // An option NVRTC does not know is an Err naming the option problem.
    match nvrtc::compile(src, &CompileOptions::new().option("--no-such-option")) {
        Err(Error::Nvrtc { name, .. }) => assert_eq!(name, "NVRTC_ERROR_INVALID_OPTION"),
        other => return Err(format!("expected INVALID_OPTION, got {other:?}").into()),
    }
    Ok(())
}

fn version_and_library() -> TestResult {
    let (major, minor) = nvrtc::version()?;
    assert!((11..=20).contains(&major), "{major}.{minor}");
    let path = nvrtc::library_path()?;
    assert!(path.contains("nvrtc"), "{path}");
    let archs = nvrtc::supported_archs()?;
    assert!(archs.contains(&90), "{archs:?}");
    assert!(archs.windows(2).all(|w| w[0] < w[1]), "{archs:?}");
    Ok(())
}

fn bad_arguments() -> TestResult {
    for (arch, output) in [("compute_90", Output::Cubin), ("sm_nine", Output::Ptx)] {
        match nvrtc::compile(SCALE, &CompileOptions::new().arch(arch).output(output)) {
            Err(Error::InvalidArgument(msg)) => {
                assert!(msg.contains(arch) || msg.contains("90"), "{msg}")
            }
            other => return Err(format!("{arch}: expected InvalidArgument, got {other:?}").into()),
        }
    }
    match nvrtc::compile("int x;\0", &CompileOptions::new()) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("NUL"), "{msg}"),
        other => return Err(format!("expected InvalidArgument, got {other:?}").into()),
    }
    Ok(())
}

fn ptx_from_file() -> TestResult {
    let dir = temp_dir("ptx");
    let text = format!(
        "// {}\n.version 8.0\n.target sm_75\n",
        Rng::fresh().next_u64()
    );
    let path = dir.join("k.ptx");
    std::fs::write(&path, &text)?;
    let ptx = Ptx::from_file(&path)?;
    assert_eq!(ptx.as_str(), text);
    assert_eq!(ptx.to_cstring()?.as_bytes(), text.as_bytes());
    std::fs::remove_dir_all(&dir)?;
    match Ptx::from_file(&path) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("k.ptx"), "{msg}"),
        other => return Err(format!("expected InvalidArgument, got {other:?}").into()),
    }
    Ok(())
}

fn default_arch_is_device() -> TestResult {
    let d = cuprite_driver::Device::get(0)?;
    let (major, minor) = d.compute_capability()?;
    let arch = major * 10 + minor;
    assert_eq!(nvrtc::device_arch(), Some(arch));
    if !cuprite_testkit::has_nvrtc() {
        return Err("this GPU test also needs NVRTC".into());
    }
    let ptx = nvrtc::compile(SCALE, &CompileOptions::new().output(Output::Ptx))?;
    assert_eq!(ptx.arch(), format!("compute_{arch}"));
    assert!(
        ptx.ptx()
            .ok_or("no PTX")?
            .as_str()
            .contains(&format!(".target sm_{arch}"))
    );
    let cubin = nvrtc::compile(SCALE, &CompileOptions::new().output(Output::Cubin))?;
    assert_eq!(cubin.arch(), format!("sm_{arch}"));
    assert!(cubin.cubin().ok_or("no CUBIN")?.starts_with(b"\x7fELF"));
    // Auto picks CUBIN exactly when NVRTC is newer than the driver.
    let auto = nvrtc::compile(SCALE, &CompileOptions::new())?;
    let newer = nvrtc::nvrtc_newer_than_driver();
    assert_eq!(auto.cubin().is_some(), newer.is_some(), "{newer:?}");
    println!(
        "device sm_{arch}; NVRTC {:?} from {}; driver {:?}; auto output: {}",
        nvrtc::version()?,
        nvrtc::library_path()?,
        cuprite_driver::driver_version()?,
        if auto.cubin().is_some() {
            "CUBIN"
        } else {
            "PTX"
        }
    );
    Ok(())
}

/// `cuda_fp16.h` and `cuda_bf16.h` are found without any include option (NVRTC does not carry
/// them built in), and are not found when the default folders are switched off.
fn cuda_headers_found() -> TestResult {
    let dirs = nvrtc::default_include_paths();
    if dirs.is_empty() {
        return Err(
            "no CUDA headers found (cuda_fp16.h): install the toolkit headers or the \
                    nvidia-cuda-runtime wheel, or set CUPRITE_NVRTC_INCLUDE"
                .into(),
        );
    }
    let v = 1.0 + (Rng::fresh().next_u64() % 16) as f32 * 0.5;
    let src = format!(
        "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\
         extern \"C\" __global__ void k(__half *h, __nv_bfloat16 *b) {{\n\
           h[threadIdx.x] = __float2half({v:.1}f);\n  b[threadIdx.x] = __float2bfloat16({v:.1}f);\n}}\n"
    );
    let c = nvrtc::compile(&src, &CompileOptions::new().output(Output::Ptx))?;
    assert!(c.ptx().ok_or("no PTX")?.as_str().contains(".entry k"));
    match nvrtc::compile(
        &src,
        &CompileOptions::new()
            .output(Output::Ptx)
            .default_includes(false),
    ) {
        Err(Error::Nvrtc { log, .. }) => assert!(log.contains("cuda_fp16.h"), "{log}"),
        other => return Err(format!("expected a missing-header error, got {other:?}").into()),
    }
    Ok(())
}
