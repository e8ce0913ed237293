//! Bad inputs to the driver layer, one row each: every case asserts the kind of the error and
//! that its message names the wrong value, and then a small good operation shows that the
//! process (and, for GPU cases, the device and its context) is still usable. Designed from the
//! public API: devices, contexts, NVRTC, modules, launch, graphs, memory, events, streams.
//! Cases that need no GPU run everywhere.

use cuprite_driver::nvrtc::{self, CompileOptions, Output};
use cuprite_driver::sys::driver::CUresult;
use cuprite_driver::{
    CaptureMode, Context, ContextFlags, ContextStack, Device, DeviceBuffer, Error, Event,
    EventFlags, Function, HostAllocFlags, LaunchConfig, ManagedBuffer, ModuleImage,
    PinnedHostBuffer, ResourceLimit, Stream,
};
use cuprite_testkit::{Rng, Test, TestResult, ignore};
use std::sync::{Arc, OnceLock};

type Case = (&'static str, fn() -> TestResult);

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, case) in CPU {
        v.push(Test::cpu(format!("bad_input::{name}"), case));
    }
    for &(name, case) in NVRTC {
        v.push(Test::nvrtc(format!("bad_input::{name}"), move || {
            case()?;
            nvrtc_usable()
        }));
    }
    for &(name, case) in GPU {
        let body = move || {
            case()?;
            gpu_usable()
        };
        // Captures run alone (see `graph.rs`).
        v.push(if name.starts_with("graph_") {
            Test::gpu_alone(format!("bad_input::{name}"), body)
        } else {
            Test::gpu(format!("bad_input::{name}"), body)
        });
    }
    v
}

/// What kind of error a case expects.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Refused before reaching the driver.
    Invalid,
    /// `Error::OutOfMemory`.
    Oom,
    /// This driver status.
    Driver(CUresult),
    /// Any driver status (which one depends on the driver version).
    AnyDriver,
    /// NVRTC refused to compile.
    Nvrtc,
}

/// Checks that `r` failed with `kind`, that the message names each of `needles`, and that the
/// error is not sticky (the context lives on).
fn expect<T>(r: cuprite_driver::Result<T>, kind: Kind, needles: &[&str]) -> TestResult {
    let e = match r {
        Ok(_) => return Err(format!("expected {kind:?} naming {needles:?}, got Ok").into()),
        Err(e) => e,
    };
    let right_kind = match (kind, &e) {
        (Kind::Invalid, Error::InvalidArgument(_)) => true,
        (Kind::Oom, Error::OutOfMemory { .. }) => true,
        (Kind::Driver(code), e) => e.code() == Some(code),
        (Kind::AnyDriver, Error::Driver { .. }) => true,
        (Kind::Nvrtc, Error::Nvrtc { .. }) => true,
        _ => false,
    };
    if !right_kind {
        return Err(format!("expected {kind:?}, got {e:?}").into());
    }
    let msg = e.to_string();
    for n in needles {
        if !msg.contains(n) {
            return Err(format!("the message does not name {n:?}: {msg}").into());
        }
    }
    if e.is_sticky() {
        return Err(format!("a bad input must never poison the context: {e}").into());
    }
    Ok(())
}

const KERNEL: &str = r#"
extern "C" __global__ void add_one(float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1.0f;
}
extern "C" __global__ void no_args() { }
__device__ float table[3];
extern "C" __global__ void use_table(float *out) { out[0] = table[0]; }
"#;

fn ptx() -> Result<nvrtc::Ptx, Error> {
    static PTX: OnceLock<Result<nvrtc::Ptx, Error>> = OnceLock::new();
    PTX.get_or_init(|| nvrtc::compile_ptx(KERNEL)).clone()
}

/// `KERNEL` as a CUBIN for device 0.
fn device_cubin() -> Result<Vec<u8>, Error> {
    let c = nvrtc::compile(KERNEL, &CompileOptions::new().output(Output::Cubin))?;
    c.cubin()
        .map(<[u8]>::to_vec)
        .ok_or_else(|| Error::InvalidArgument("no CUBIN".into()))
}

fn ctx() -> Result<Arc<Context>, Error> {
    Context::new(0)
}

fn kernel(ctx: &Arc<Context>, name: &str) -> Result<Function, Error> {
    ctx.load_module(ptx()?)?.load_function(name)
}

/// NVRTC still compiles.
fn nvrtc_usable() -> TestResult {
    let p = nvrtc::compile_ptx("extern \"C\" __global__ void ok(int *x) { x[0] = 1; }")?;
    assert!(p.as_str().contains(".entry ok"), "{}", p.as_str());
    Ok(())
}

/// The device still computes: a kernel over fresh data on a new stream of the primary
/// context, checked value for value.
fn gpu_usable() -> TestResult {
    let ctx = ctx()?;
    let s = ctx.new_stream()?;
    let f = kernel(&ctx, "add_one")?;
    let mut rng = Rng::fresh();
    let n = 1000 + (rng.next_u64() % 1000) as usize;
    let x = rng.vec_f32(n, -10.0, 10.0);
    let xd = s.clone_htod(&x)?;
    let mut yd = s.clone_htod(&vec![f32::NAN; n])?;
    let ni = n as i32;
    // SAFETY: add_one(float*, const float*, int) with n-element buffers.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut yd)
            .arg(&xd)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))?
    };
    let y = s.clone_dtoh(&yd)?;
    for i in 0..n {
        assert_eq!(y[i], x[i] + 1.0, "{i}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Without a GPU.

const CPU: &[Case] = &[
    ("module_image_missing_file", || {
        let path = std::env::temp_dir().join("cuprite-no-such-module-8c1f.cubin");
        let e = ModuleImage::from_file(&path).unwrap_err();
        assert!(e.to_string().contains("cuprite-no-such-module-8c1f"), "{e}");
        Ok(())
    }),
    ("ptx_from_missing_file", || {
        let e = nvrtc::Ptx::from_file("/nonexistent/dir/k.ptx").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/dir/k.ptx"), "{e}");
        Ok(())
    }),
    ("ptx_with_nul_byte", || {
        let p = nvrtc::Ptx::from_src("abc\0def");
        expect(p.to_cstring(), Kind::Invalid, &["NUL", "byte 3"])
    }),
    ("launch_config_of_zero_elements", || {
        // Not an error by itself: a grid of zero blocks, which a launch refuses.
        assert_eq!(LaunchConfig::for_num_elems(0).grid_dim, (0, 1, 1));
        assert_eq!(LaunchConfig::for_num_elems(u32::MAX).grid_dim.0, 4_194_304);
        Ok(())
    }),
    ("driver_error_messages", || {
        let e = Error::driver(CUresult::CUDA_ERROR_INVALID_VALUE, "cuMemAlloc_v2");
        let m = e.to_string();
        assert!(
            m.contains("cuMemAlloc_v2") && m.contains("CUDA_ERROR_INVALID_VALUE"),
            "{m}"
        );
        assert!(!e.is_sticky());
        Ok(())
    }),
    ("nvrtc_unparsable_arch", || {
        let opts = CompileOptions::new().arch("sm_banana");
        expect(
            nvrtc::compile("__global__ void k() {}", &opts),
            Kind::Invalid,
            &["sm_banana"],
        )
    }),
    ("nvrtc_cubin_for_virtual_arch", || {
        let opts = CompileOptions::new()
            .arch("compute_80")
            .output(Output::Cubin);
        expect(
            nvrtc::compile("__global__ void k() {}", &opts),
            Kind::Invalid,
            &["compute_80"],
        )
    }),
    ("nvrtc_source_with_nul", || {
        // Refused before NVRTC is asked (an explicit architecture needs no device).
        let opts = CompileOptions::new().arch("compute_80");
        let r = nvrtc::compile("__global__ void k() {}\0", &opts);
        expect(r, Kind::Invalid, &["CUDA source", "NUL", "byte 22"])
    }),
    ("testkit_ignore_is_distinct", || {
        let r = ignore("needs a unicorn");
        let e = r.unwrap_err();
        let i = e
            .downcast_ref::<cuprite_testkit::Ignored>()
            .ok_or("not an Ignored")?;
        assert_eq!(i.0, "needs a unicorn");
        assert_ne!(Rng::fresh().next_u64(), Rng::fresh().next_u64());
        Ok(())
    }),
];

// ---------------------------------------------------------------------------------------------
// NVRTC without a GPU.

const NVRTC: &[Case] = &[
    ("nvrtc_syntax_error", || {
        let r = nvrtc::compile_ptx("extern \"C\" __global__ void k() { int x = ; }");
        expect(
            r,
            Kind::Nvrtc,
            &["NVRTC_ERROR_COMPILATION", "expected an expression"],
        )
    }),
    ("nvrtc_unknown_option", || {
        let opts = CompileOptions::new().option("--no-such-option-x7");
        expect(
            nvrtc::compile("__global__ void k() {}", &opts),
            Kind::Nvrtc,
            &["--no-such-option-x7"],
        )
    }),
    ("nvrtc_option_with_nul", || {
        let opts = CompileOptions::new().option("-DA=1\0");
        expect(
            nvrtc::compile("__global__ void k() {}", &opts),
            Kind::Invalid,
            &["NUL"],
        )
    }),
    ("nvrtc_unknown_name_expression", || {
        let opts = CompileOptions::new().name_expression("no_such_template<int>");
        let r = nvrtc::compile("__global__ void k() {}", &opts);
        expect(r, Kind::Nvrtc, &["no_such_template"])
    }),
    ("nvrtc_missing_header", || {
        let r = nvrtc::compile_ptx("#include \"no_such_header_q9.h\"\n__global__ void k() {}");
        expect(r, Kind::Nvrtc, &["no_such_header_q9.h"])
    }),
];

// ---------------------------------------------------------------------------------------------
// On a GPU.

const GPU: &[Case] = &[
    // Devices and contexts.
    ("device_ordinal_max", || {
        let n = Device::count()?.to_string();
        expect(
            Device::get(usize::MAX),
            Kind::Invalid,
            &[&usize::MAX.to_string(), &n],
        )
    }),
    ("device_ordinal_2_pow_45", || {
        let n = Device::count()?;
        expect(
            Device::get(1 << 45),
            Kind::Invalid,
            &["35184372088832", &n.to_string()],
        )
    }),
    ("device_ordinal_count", || {
        let n = Device::count()?;
        expect(
            Device::get(n),
            Kind::Invalid,
            &[&format!("ordinal {n} is out of range")],
        )
    }),
    ("context_ordinal_out_of_range", || {
        expect(
            Context::new(usize::MAX),
            Kind::Invalid,
            &[&usize::MAX.to_string()],
        )
    }),
    ("context_with_flags_out_of_range", || {
        let r = Context::new_with_flags(1 << 40, ContextFlags::SCHED_AUTO);
        expect(r, Kind::Invalid, &["1099511627776"])
    }),
    ("context_stack_pop_empty", || {
        // A fresh thread has an empty stack.
        std::thread::spawn(|| {
            expect(ContextStack::pop(), Kind::AnyDriver, &["cuCtxPopCurrent"])
                .map_err(|e| e.to_string())
        })
        .join()
        .map_err(|_| "thread panicked")??;
        Ok(())
    }),
    ("context_limit_too_large", || {
        let ctx = ctx()?;
        expect(
            ctx.set_limit(ResourceLimit::StackSize, usize::MAX),
            Kind::AnyDriver,
            &["cuCtxSetLimit"],
        )?;
        assert!(ctx.limit(ResourceLimit::StackSize)? < usize::MAX);
        Ok(())
    }),
    ("peer_access_to_itself", || {
        let ctx = ctx()?;
        expect(
            ctx.enable_peer_access(&ctx),
            Kind::AnyDriver,
            &["cuCtxEnablePeerAccess"],
        )
    }),
    ("set_stream_of_other_context", || {
        let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
        ContextStack::pop()?;
        let s = ctx()?.new_stream()?;
        let mut b = s.alloc_zeros::<u32>(4)?;
        expect(
            b.set_stream(&owned.new_stream()?),
            Kind::Invalid,
            &["another context"],
        )?;
        assert!(Arc::ptr_eq(b.stream(), &s));
        Ok(())
    }),
    // Modules.
    ("module_ptx_with_nul", || {
        expect(
            ctx()?.load_module("// ptx\0 more"),
            Kind::Invalid,
            &["NUL", "byte 6"],
        )
    }),
    ("module_garbage_ptx", || {
        let r = ctx()?.load_module("this is not PTX at all;");
        expect(
            r,
            Kind::Invalid,
            &["loading PTX failed", "cuModuleLoadDataEx"],
        )
    }),
    ("module_empty_cubin", || {
        let r = ctx()?.load_module(ModuleImage::Cubin(Vec::new()));
        expect(r, Kind::Invalid, &["empty"])
    }),
    ("module_garbage_cubin", || {
        // Not ELF: the driver would read it as NUL-terminated PTX, past the end.
        let bytes: Vec<u8> = (1..=4096u32).map(|i| (i % 251) as u8 + 1).collect();
        let r = ctx()?.load_module(ModuleImage::Cubin(bytes));
        expect(r, Kind::Invalid, &["4096 bytes", "ELF magic"])
    }),
    ("module_truncated_cubin", || {
        let cubin = device_cubin()?;
        let half = cubin[..cubin.len() / 2].to_vec();
        let r = ctx()?.load_module(ModuleImage::Cubin(half));
        expect(
            r,
            Kind::Invalid,
            &[&format!("{} bytes", cubin.len() / 2), "past the image"],
        )
    }),
    ("module_garbage_fatbin", || {
        let mut bytes = 0xBA55_ED50u32.to_le_bytes().to_vec();
        bytes.extend((0..256u32).map(|i| i as u8));
        let r = ctx()?.load_module(ModuleImage::Fatbin(bytes));
        expect(r, Kind::Invalid, &["fatbin", "past the image of 260 bytes"])
    }),
    ("module_truncated_fatbin", || {
        let ctx = ctx()?;
        let (major, minor) = ctx.device().compute_capability()?;
        let fat = cuprite_driver::module::fatbin_from_cubin(&device_cubin()?, major * 10 + minor);
        let short = fat[..fat.len() - 8].to_vec();
        let r = ctx.load_module(ModuleImage::Fatbin(short));
        expect(
            r,
            Kind::Invalid,
            &["past the image", &format!("{} bytes", fat.len() - 8)],
        )?;
        // The whole container loads.
        ctx.load_module(ModuleImage::Fatbin(fat))?
            .load_function("add_one")?;
        Ok(())
    }),
    ("module_unknown_function", || {
        let m = ctx()?.load_module(ptx()?)?;
        expect(m.load_function("add_two"), Kind::Invalid, &["add_two"])
    }),
    ("module_function_name_with_nul", || {
        let m = ctx()?.load_module(ptx()?)?;
        expect(m.load_function("add\0one"), Kind::Invalid, &["add\\0one"])
    }),
    ("module_unknown_global", || {
        let m = ctx()?.load_module(ptx()?)?;
        expect(m.get_global::<f32>("tabel"), Kind::Invalid, &["tabel"])
    }),
    ("module_global_wrong_size", || {
        let m = ctx()?.load_module(ptx()?)?;
        expect(
            m.get_global::<f64>("table"),
            Kind::Invalid,
            &["table", "12 bytes", "f64"],
        )
    }),
    ("module_missing_file", || {
        let r = cuprite_driver::Module::load_file(&ctx()?, "/nonexistent/k.cubin");
        let e = r.unwrap_err();
        assert!(e.to_string().contains("/nonexistent/k.cubin"), "{e}");
        Ok(())
    }),
    ("function_shared_memory_limit_too_large", || {
        let f = kernel(&ctx()?, "add_one")?;
        let before = f.max_dynamic_shared_memory();
        let optin = ctx()?
            .device()
            .attribute(cuprite_driver::DeviceAttribute::MaxSharedMemoryPerBlockOptin)?;
        expect(
            f.set_max_dynamic_shared_memory(1 << 30),
            Kind::Invalid,
            &["add_one", "1073741824", &optin.to_string()],
        )?;
        assert_eq!(f.max_dynamic_shared_memory(), before);
        Ok(())
    }),
    // Launch.
    ("launch_empty_grid", || {
        bad_launch(cfg((0, 1, 1), (32, 1, 1), 0), &["(0, 1, 1)"])
    }),
    ("launch_empty_grid_z", || {
        bad_launch(cfg((4, 1, 0), (32, 1, 1), 0), &["(4, 1, 0)"])
    }),
    ("launch_empty_block", || {
        bad_launch(cfg((1, 1, 1), (0, 32, 1), 0), &["(0, 32, 1)"])
    }),
    ("launch_block_too_many_threads", || {
        bad_launch(
            cfg((1, 1, 1), (1024, 2, 1), 0),
            &["(1024, 2, 1)", "2048 threads"],
        )
    }),
    ("launch_block_z_too_large", || {
        bad_launch(cfg((1, 1, 1), (1, 1, 65), 0), &["(1, 1, 65)"])
    }),
    ("launch_grid_x_too_large", || {
        bad_launch(cfg((u32::MAX, 1, 1), (32, 1, 1), 0), &["4294967295"])
    }),
    ("launch_grid_y_too_large", || {
        bad_launch(cfg((1, 65536, 1), (32, 1, 1), 0), &["65536"])
    }),
    ("launch_shared_memory_above_limit", || {
        bad_launch(cfg((1, 1, 1), (32, 1, 1), 100_000), &["100000 bytes"])
    }),
    ("launch_too_few_args", || {
        param_case(
            // SAFETY: refused before launch (the kernel takes three parameters).
            |s, f, y, _| unsafe { s.launch_builder(f).arg(y).launch(one()) },
            &["3 parameter", "1 argument"],
        )
    }),
    ("launch_too_many_args", || {
        param_case(
            // SAFETY: refused before launch (the kernel takes three parameters).
            |s, f, y, x| unsafe {
                s.launch_builder(f)
                    .arg(y)
                    .arg(x)
                    .arg(&1i32)
                    .arg(&2i32)
                    .launch(one())
            },
            &["3 parameter", "4 argument"],
        )
    }),
    ("launch_wrong_arg_size", || {
        param_case(
            // SAFETY: refused before launch (the third parameter is an int).
            |s, f, y, x| unsafe { s.launch_builder(f).arg(y).arg(x).arg(&1u8).launch(one()) },
            &["argument 2", "1 bytes", "4 bytes"],
        )
    }),
    ("launch_function_of_other_context", || {
        let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
        ContextStack::pop()?;
        let f = kernel(&owned, "no_args")?;
        let s = ctx()?.new_stream()?;
        // SAFETY: no_args takes nothing.
        let r = unsafe { s.launch_builder(&f).launch(one()) };
        expect(r, Kind::Invalid, &["no_args", "another context"])
    }),
    ("launch_cooperative_grid_too_large", || {
        let ctx = ctx()?;
        let f = kernel(&ctx, "no_args")?;
        let s = ctx.new_stream()?;
        // SAFETY: no_args takes nothing; the grid cannot be resident at once.
        let r = unsafe {
            s.launch_builder(&f)
                .launch_cooperative(cfg((1 << 20, 1, 1), (1024, 1, 1), 0))
        };
        expect(r, Kind::AnyDriver, &["cuLaunchCooperativeKernel"])
    }),
    ("launch_cluster_not_dividing_grid", || {
        let ctx = ctx()?;
        let f = kernel(&ctx, "no_args")?;
        let s = ctx.new_stream()?;
        // SAFETY: no_args takes nothing.
        let r = unsafe {
            s.launch_builder(&f)
                .cluster_dim((4, 1, 1))
                .launch(cfg((6, 1, 1), (32, 1, 1), 0))
        };
        expect(r, Kind::Invalid, &["no_args", "(6, 1, 1)", "(4, 1, 1)"])
    }),
    // Graphs.
    ("graph_end_without_begin", || {
        let s = ctx()?.new_stream()?;
        expect(s.end_capture(), Kind::AnyDriver, &["cuStreamEndCapture"])
    }),
    ("graph_begin_twice", || {
        let s = ctx()?.new_stream()?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        let second = s.begin_capture(CaptureMode::ThreadLocal);
        // The failed call may have invalidated the capture: ending it is what matters.
        let _ = s.end_capture();
        expect(second, Kind::AnyDriver, &["cuStreamBeginCapture"])?;
        assert_eq!(s.capture_status()?, cuprite_driver::CaptureStatus::None);
        Ok(())
    }),
    ("graph_sync_inside_capture", || {
        let s = ctx()?.new_stream()?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        let r = s.synchronize();
        let end = s.end_capture();
        expect(r, Kind::AnyDriver, &["cuStreamSynchronize", "CAPTURE"])?;
        expect(end, Kind::AnyDriver, &["cuStreamEndCapture", "CAPTURE"])?;
        assert_eq!(s.capture_status()?, cuprite_driver::CaptureStatus::None);
        Ok(())
    }),
    ("graph_pageable_copy_inside_capture", || {
        let s = ctx()?.new_stream()?;
        let mut d = s.alloc_zeros::<u32>(16)?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        let r = s.memcpy_htod(&[7u32; 16], &mut d);
        let end = s.end_capture();
        expect(r, Kind::AnyDriver, &["CAPTURE"])?;
        // The capture was invalidated: ending it says so.
        expect(
            end,
            Kind::AnyDriver,
            &["cuStreamEndCapture", "CAPTURE_INVALIDATED"],
        )?;
        assert_eq!(s.clone_dtoh(&d)?, [0u32; 16], "nothing was copied");
        Ok(())
    }),
    ("graph_launch_on_other_context", || {
        let s = ctx()?.new_stream()?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        let exec = s.end_capture()?.instantiate()?;
        let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
        ContextStack::pop()?;
        let other = owned.new_stream()?;
        expect(
            exec.launch(&other),
            Kind::Invalid,
            &["GraphExec::launch", "own context"],
        )?;
        exec.launch(&s)?;
        Ok(())
    }),
    ("graph_update_from_other_context", || {
        let s = ctx()?.new_stream()?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        let mut exec = s.end_capture()?.instantiate()?;
        let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
        ContextStack::pop()?;
        let os = owned.new_stream()?;
        os.begin_capture(CaptureMode::ThreadLocal)?;
        let g = os.end_capture()?;
        expect(exec.update(&g), Kind::Invalid, &["another context"])
    }),
    ("graph_update_other_topology", || {
        let ctx = ctx()?;
        let f = kernel(&ctx, "no_args")?;
        let s = ctx.new_stream()?;
        let capture = |n: usize| -> cuprite_driver::Result<cuprite_driver::Graph> {
            s.begin_capture(CaptureMode::ThreadLocal)?;
            for _ in 0..n {
                // SAFETY: no_args takes nothing.
                unsafe { s.launch_builder(&f).launch(one()) }?;
            }
            s.end_capture()
        };
        let mut exec = capture(1)?.instantiate()?;
        expect(exec.update(&capture(2)?), Kind::Invalid, &["topology"])?;
        exec.launch(&s)?;
        s.synchronize()?;
        Ok(())
    }),
    // Memory.
    ("alloc_overflowing_length", || {
        let s = ctx()?.new_stream()?;
        expect(
            s.alloc_zeros::<f64>(usize::MAX / 4),
            Kind::Invalid,
            &[&(usize::MAX / 4).to_string()],
        )
    }),
    ("alloc_larger_than_device", || {
        let ctx = ctx()?;
        let s = ctx.new_stream()?;
        let n = ctx.total_memory() + 1;
        expect(
            s.alloc_zeros::<u8>(n),
            Kind::Oom,
            &[&format!("asked for {n} bytes")],
        )
    }),
    ("alloc_2_pow_60_bytes", || {
        let s = ctx()?.new_stream()?;
        expect(
            s.alloc_zeros::<u8>(1 << 60),
            Kind::Oom,
            &["1152921504606846976"],
        )
    }),
    ("alloc_zero_length", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u64>(0)?;
        assert!(b.is_empty() && b.device_ptr() == 0);
        assert_eq!(s.clone_dtoh(&b)?, Vec::<u64>::new());
        let c = s.clone_dtod(&b)?;
        assert!(c.is_empty());
        Ok(())
    }),
    ("copy_htod_length_mismatch", || {
        let s = ctx()?.new_stream()?;
        let mut d = s.alloc_zeros::<u32>(10)?;
        expect(
            s.memcpy_htod(&[1u32; 11], &mut d),
            Kind::Invalid,
            &["11", "10"],
        )?;
        assert_eq!(s.clone_dtoh(&d)?, [0u32; 10]);
        Ok(())
    }),
    ("copy_dtoh_length_mismatch", || {
        let s = ctx()?.new_stream()?;
        let d = s.alloc_zeros::<u16>(7)?;
        let mut host = vec![9u16; 3];
        expect(s.memcpy_dtoh(&d, &mut host), Kind::Invalid, &["7", "3"])?;
        assert_eq!(host, [9u16; 3]);
        Ok(())
    }),
    ("copy_dtod_length_mismatch", || {
        let s = ctx()?.new_stream()?;
        let a = s.alloc_zeros::<f32>(5)?;
        let mut b = s.alloc_zeros::<f32>(6)?;
        expect(s.memcpy_dtod(&a, &mut b), Kind::Invalid, &["5", "6"])
    }),
    ("slice_reversed_range", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u8>(10)?;
        #[allow(clippy::reversed_empty_ranges)]
        let r = b.slice(5..3);
        expect(r, Kind::Invalid, &["5..3", "10 elements"])
    }),
    ("slice_past_the_end", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u8>(10)?;
        expect(b.slice(4..11), Kind::Invalid, &["4..11", "10 elements"])
    }),
    ("slice_inclusive_max", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u8>(10)?;
        assert!(b.try_slice(..=usize::MAX).is_none());
        expect(
            b.slice(..=usize::MAX),
            Kind::Invalid,
            &[&format!("..={}", usize::MAX)],
        )
    }),
    ("slice_mut_start_max", || {
        let s = ctx()?.new_stream()?;
        let mut b = s.alloc_zeros::<u8>(10)?;
        expect(
            b.slice_mut(usize::MAX..),
            Kind::Invalid,
            &[&format!("{}..", usize::MAX)],
        )
    }),
    ("split_at_past_the_end", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u32>(8)?;
        expect(b.split_at(9), Kind::Invalid, &["9", "8 elements"])
    }),
    ("view_as_wrong_size", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u8>(6)?;
        expect(b.view_as::<u32>(), Kind::Invalid, &["6 bytes", "u32"])
    }),
    ("view_as_misaligned", || {
        let s = ctx()?.new_stream()?;
        let b = s.alloc_zeros::<u8>(16)?;
        let v = b.slice(1..9)?;
        expect(v.view_as::<u64>(), Kind::Invalid, &["8 bytes", "u64"])
    }),
    ("memset_d32_odd_size", || {
        let s = ctx()?.new_stream()?;
        let mut b = s.alloc_zeros::<u8>(6)?;
        expect(
            s.memset_d32(&mut b, 7),
            Kind::Invalid,
            &["4-byte", "6 bytes"],
        )?;
        assert_eq!(s.clone_dtoh(&b)?, [0u8; 6]);
        Ok(())
    }),
    ("memset_d16_misaligned", || {
        let s = ctx()?.new_stream()?;
        let mut b = s.alloc_zeros::<u8>(9)?;
        let mut v = b.slice_mut(1..9)?;
        expect(
            s.memset_d16(&mut v, 7),
            Kind::Invalid,
            &["2-byte", "8 bytes"],
        )
    }),
    ("cast_wrong_size_gives_buffer_back", || {
        let s = ctx()?.new_stream()?;
        let b = s.clone_htod(&[1u8, 2, 3])?;
        let b: DeviceBuffer<u8> = match b.try_cast::<u16>() {
            Ok(_) => return Err("3 bytes cast to u16".into()),
            Err(b) => b,
        };
        assert_eq!(s.clone_dtoh(&b)?, [1, 2, 3]);
        Ok(())
    }),
    ("pinned_overflowing_length", || {
        let r = PinnedHostBuffer::<u64>::new(&ctx()?, usize::MAX / 2, HostAllocFlags::NONE);
        expect(r, Kind::Invalid, &[&(usize::MAX / 2).to_string()])
    }),
    ("pinned_zero_length", || {
        let ctx = ctx()?;
        let p = PinnedHostBuffer::<u32>::new(&ctx, 0, HostAllocFlags::NONE)?;
        assert!(p.as_slice()?.is_empty());
        let s = ctx.new_stream()?;
        let d = s.clone_htod(&p)?;
        assert!(d.is_empty());
        Ok(())
    }),
    ("managed_overflowing_length", || {
        let r = ManagedBuffer::<u32>::new(&ctx()?, usize::MAX / 2);
        expect(r, Kind::Invalid, &[&(usize::MAX / 2).to_string()])
    }),
    ("managed_larger_than_device", || {
        let ctx = ctx()?;
        let n = ctx.total_memory() + 1;
        let r = ManagedBuffer::<u8>::new(&ctx, n);
        expect(
            r,
            Kind::Invalid,
            &[&n.to_string(), &ctx.total_memory().to_string()],
        )
    }),
    // Events and streams.
    ("event_elapsed_without_timing", || {
        let ctx = ctx()?;
        let s = ctx.new_stream()?;
        let a = s.record_event(EventFlags::DISABLE_TIMING)?;
        let b = s.record_event(EventFlags::DISABLE_TIMING)?;
        b.synchronize()?;
        expect(a.elapsed_ms(&b), Kind::AnyDriver, &["cuEventElapsedTime"])
    }),
    ("event_elapsed_never_recorded", || {
        let ctx = ctx()?;
        let a = Event::new(&ctx, EventFlags::DEFAULT)?;
        let b = Event::new(&ctx, EventFlags::DEFAULT)?;
        expect(a.elapsed_ms(&b), Kind::AnyDriver, &["cuEventElapsedTime"])
    }),
    ("event_interprocess_with_timing", || {
        let r = Event::new(&ctx()?, EventFlags::INTERPROCESS);
        expect(
            r,
            Kind::Driver(CUresult::CUDA_ERROR_INVALID_VALUE),
            &["cuEventCreate"],
        )
    }),
    ("event_record_on_other_context", || {
        let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
        ContextStack::pop()?;
        let ev = Event::new(&ctx()?, EventFlags::DISABLE_TIMING)?;
        expect(
            ev.record(&*owned.new_stream()?),
            Kind::Invalid,
            &["Event::record", "own context"],
        )
    }),
    ("host_fn_panic_is_deferred", || {
        let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
        ContextStack::pop()?;
        let s = owned.new_stream()?;
        // The panic runs on the driver's callback thread: marked as expected (and the quiet
        // hook installed) so that a passing run prints no panic message.
        crate::quietly(|| s.launch_host_fn(|| panic!("bad input 417 {}", crate::EXPECTED_PANIC)))?;
        // The panic is kept for the next call that binds the context: `synchronize` when it
        // was recorded before synchronize's bind check, else `check_deferred`.
        let e = match s.synchronize() {
            Err(e) => e,
            Ok(()) => owned.check_deferred().err().ok_or("panic not deferred")?,
        };
        assert!(e.to_string().contains("bad input 417"), "{e}");
        owned.check_deferred()?;
        assert_eq!(s.clone_dtoh(&s.clone_htod(&[5u8; 3])?)?, [5u8; 3]);
        Ok(())
    }),
];

fn one() -> LaunchConfig {
    LaunchConfig::for_num_elems(1)
}

fn cfg(grid: (u32, u32, u32), block: (u32, u32, u32), shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: grid,
        block_dim: block,
        shared_mem_bytes: shared,
    }
}

/// A launch of `add_one` with a bad configuration: refused before anything runs.
fn bad_launch(cfg: LaunchConfig, needles: &[&str]) -> TestResult {
    let ctx = ctx()?;
    let s = ctx.new_stream()?;
    let f = kernel(&ctx, "add_one")?;
    let x = s.clone_htod(&[1.0f32; 4])?;
    let mut y = s.clone_htod(&[f32::NAN; 4])?;
    // SAFETY: add_one with 4-element buffers and n = 4 (were it launched).
    let r = unsafe {
        s.launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&4i32)
            .launch(cfg)
    };
    let mut all = vec!["add_one"];
    all.extend_from_slice(needles);
    expect(r, Kind::Invalid, &all)?;
    assert!(s.clone_dtoh(&y)?.iter().all(|v| v.is_nan()), "nothing ran");
    Ok(())
}

type Launch = fn(
    &Stream,
    &Function,
    &mut DeviceBuffer<f32>,
    &DeviceBuffer<f32>,
) -> cuprite_driver::Result<Option<(Event, Event)>>;

/// A launch of `add_one` with wrong arguments (checked where the driver tells parameter
/// sizes).
fn param_case(launch: Launch, needles: &[&str]) -> TestResult {
    let ctx = ctx()?;
    let s = ctx.new_stream()?;
    let f = kernel(&ctx, "add_one")?;
    if f.param_sizes().is_none() {
        return ignore("the driver has no cuFuncGetParamInfo: arguments cannot be checked");
    }
    let x = s.clone_htod(&[1.0f32; 4])?;
    let mut y = s.clone_htod(&[f32::NAN; 4])?;
    let mut all = vec!["add_one"];
    all.extend_from_slice(needles);
    expect(launch(&s, &f, &mut y, &x), Kind::Invalid, &all)?;
    assert!(s.clone_dtoh(&y)?.iter().all(|v| v.is_nan()), "nothing ran");
    Ok(())
}
