//! Modules, functions, launches, argument passing, launch validation, multi-stream tracking of
//! kernel arguments, and the device-side trap (in a child process).

use cuprite_driver::nvrtc::{self, CompileOptions, Output};
use cuprite_driver::{
    Context, DevicePtr, DeviceRepr, Error, EventFlags, LaunchConfig, Module, ModuleImage,
};
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Rng, Test, TestResult, ignore};
use std::sync::Arc;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("kernels::launch_config_for_num_elems", launch_config),
        Test::cpu("kernels::device_ptr_arithmetic", device_ptr_arithmetic),
        Test::cpu("kernels::derived_struct_layout", derived_struct_layout),
        Test::cpu(
            "kernels::module_image_classifies_bytes",
            module_image_classify,
        ),
        Test::cpu("kernels::fatbin_container_layout", fatbin_container_layout),
        Test::gpu("kernels::ptx_cubin_fatbin_run", ptx_cubin_fatbin_run),
        Test::gpu("kernels::ptx_file_loads", ptx_file_loads),
        Test::gpu("kernels::modules_unload_on_drop", modules_unload_on_drop),
        Test::gpu("kernels::builder_moved_between_launches", builder_moved),
        Test::gpu(
            "kernels::unknown_function_is_named",
            unknown_function_is_named,
        ),
        Test::gpu("kernels::bad_ptx_is_err", bad_ptx_is_err),
        Test::gpu("kernels::typed_globals", typed_globals),
        Test::gpu(
            "kernels::attributes_and_occupancy",
            attributes_and_occupancy,
        ),
        Test::gpu("kernels::dynamic_shared_memory", dynamic_shared_memory),
        Test::gpu(
            "kernels::validation_before_launch",
            validation_before_launch,
        ),
        Test::gpu("kernels::param_count_and_size_checked", param_checks),
        Test::gpu("kernels::axpy_random", axpy_random),
        Test::gpu("kernels::twenty_args_spill", twenty_args_spill),
        Test::gpu("kernels::packed_words_reach_their_parameters", packed_words),
        Test::gpu(
            "kernels::half_array_ptr_struct_args",
            half_array_ptr_struct_args,
        ),
        Test::gpu("kernels::views_as_args", views_as_args),
        Test::gpu("kernels::record_kernel_launch_events", record_events),
        Test::gpu("kernels::cooperative_launch", cooperative_launch),
        Test::gpu(
            "kernels::cluster_and_priority_attributes",
            cluster_and_priority,
        ),
        Test::gpu(
            "kernels::writer_then_reader_other_stream",
            writer_then_reader,
        ),
        Test::gpu(
            "kernels::all_readers_waited_before_writer",
            readers_before_writer,
        ),
        Test::gpu(
            "kernels::device_trap_is_sticky_err",
            device_trap_child_process,
        ),
    ]
}

fn ctx() -> Result<Arc<Context>, Error> {
    Context::new(0)
}

fn load(ctx: &Arc<Context>, src: &str) -> Result<Arc<Module>, Error> {
    ctx.load_module(nvrtc::compile_ptx(src)?)
}

const SCALE: &str = r#"
extern "C" __global__ void scale(float *y, const float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
"#;

fn launch_config() -> TestResult {
    let mut rng = Rng::fresh();
    for _ in 0..100 {
        let n = (rng.next_u64() % 10_000_000) as u32 + 1;
        let c = LaunchConfig::for_num_elems(n);
        assert_eq!(c.block_dim, (1024, 1, 1));
        assert!(c.grid_dim.0 as u64 * 1024 >= n as u64);
        assert!((c.grid_dim.0 as u64 - 1) * 1024 < n as u64);
        assert_eq!(c.threads_per_block(), 1024);
    }
    assert_eq!(LaunchConfig::for_num_elems(0).grid_dim, (0, 1, 1));
    Ok(())
}

fn device_ptr_arithmetic() -> TestResult {
    let base = Rng::fresh().next_u64() & 0xffff_ffff_fff0;
    let p: DevicePtr<f64> = DevicePtr::new(base);
    assert_eq!(p.offset(3).map(|q| q.addr()), Some(base + 24));
    assert_eq!(p.cast::<u8>().offset(3).map(|q| q.addr()), Some(base + 3));
    // Byte counts and addresses past 2^64 are refused, never wrapped.
    assert!(p.offset(1 << 61).is_none(), "8 · 2^61 bytes wrap to 0");
    let top = DevicePtr::<u8>::new(u64::MAX - 2);
    assert_eq!(top.offset(2).map(|q| q.addr()), Some(u64::MAX));
    assert!(top.offset(3).is_none(), "u64::MAX - 2 + 3 wraps");
    assert!(!p.is_null());
    assert_eq!(std::mem::size_of::<DevicePtr<f64>>(), 8);
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceRepr)]
#[repr(C)]
struct Params {
    a: f32,
    b: f64,
    c: u32,
    d: [i16; 3],
    e: half::f16,
    p: DevicePtr<f32>,
}

fn derived_struct_layout() -> TestResult {
    fn is_repr<T: DeviceRepr>(_: &T) -> usize {
        std::mem::size_of::<T>()
    }
    let p = Params {
        a: 1.0,
        b: 2.0,
        c: 3,
        d: [4, 5, 6],
        e: half::f16::from_f32(7.0),
        p: DevicePtr::null(),
    };
    // C layout: a@0, b@8, c@16, d@20..26, e@26, p@32: 40 bytes.
    assert_eq!(is_repr(&p), 40);
    assert_eq!(std::mem::offset_of!(Params, e), 26);
    assert_eq!(std::mem::offset_of!(Params, p), 32);
    Ok(())
}

fn module_image_classify() -> TestResult {
    let mut rng = Rng::fresh();
    let tail: Vec<u8> = (0..32).map(|_| rng.next_u64() as u8).collect();
    let elf = [b"\x7fELF".as_slice(), &tail].concat();
    assert!(matches!(
        ModuleImage::from_bytes(elf),
        ModuleImage::Cubin(_)
    ));
    let fat = [0xBA55_ED50u32.to_le_bytes().as_slice(), &tail].concat();
    assert!(matches!(
        ModuleImage::from_bytes(fat),
        ModuleImage::Fatbin(_)
    ));
    let ptx = b".version 8.0\n.target sm_90\n".to_vec();
    assert!(matches!(ModuleImage::from_bytes(ptx), ModuleImage::Ptx(_)));
    let e = ModuleImage::from_file("/no/such/dir/k.cubin").unwrap_err();
    assert!(e.to_string().contains("/no/such/dir/k.cubin"), "{e}");
    Ok(())
}

fn fatbin_container_layout() -> TestResult {
    let mut rng = Rng::fresh();
    let len = 100 + (rng.next_u64() % 50) as usize;
    let elf: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    let fb = cuprite_driver::module::fatbin_from_cubin(&elf, 90);
    let padded = len.div_ceil(8) * 8;
    assert_eq!(fb.len(), 16 + 64 + padded);
    assert_eq!(&fb[0..4], &0xBA55_ED50u32.to_le_bytes());
    assert_eq!(
        u64::from_le_bytes(fb[8..16].try_into()?),
        (64 + padded) as u64
    );
    assert_eq!(u16::from_le_bytes(fb[16..18].try_into()?), 2, "kind ELF");
    assert_eq!(u32::from_le_bytes(fb[16 + 0x1c..16 + 0x20].try_into()?), 90);
    assert_eq!(&fb[80..80 + len], &elf[..]);
    Ok(())
}

/// Runs `scale` from `module` on fresh data and checks it.
fn run_scale(ctx: &Arc<Context>, module: &Arc<Module>) -> TestResult {
    let stream = ctx.default_stream();
    let f = module.load_function("scale")?;
    let mut rng = Rng::fresh();
    let n = 1000 + (rng.next_u64() % 5000) as usize;
    let x = rng.vec_f32(n, -10.0, 10.0);
    let a = rng.f32_in(0.5, 3.0);
    let xd = stream.clone_htod(&x)?;
    let mut yd = stream.clone_htod(&vec![f32::NAN; n])?;
    let ni = n as i32;
    // SAFETY: scale(float*, const float*, float, int) with n-element buffers.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut yd)
            .arg(&xd)
            .arg(&a)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))?;
    }
    let y = stream.clone_dtoh(&yd)?;
    for i in 0..n {
        assert_eq!(y[i], a * x[i], "element {i}");
    }
    Ok(())
}

fn ptx_cubin_fatbin_run() -> TestResult {
    let ctx = ctx()?;
    let (major, minor) = ctx.device().compute_capability()?;
    let arch = major * 10 + minor;
    // PTX (through the Ptx type and through ModuleImage).
    let ptx = nvrtc::compile_ptx(SCALE)?;
    run_scale(&ctx, &ctx.load_module(ptx.clone())?)?;
    run_scale(&ctx, &Module::load(&ctx, ModuleImage::ptx(ptx.as_str()))?)?;
    // CUBIN for the device.
    let opts = CompileOptions::new()
        .arch(format!("sm_{arch}"))
        .output(Output::Cubin);
    let compiled = nvrtc::compile(SCALE, &opts)?;
    let cubin = compiled.cubin().ok_or("no cubin")?.to_vec();
    assert!(cubin.starts_with(b"\x7fELF"));
    run_scale(&ctx, &ctx.load_module(&compiled)?)?;
    run_scale(&ctx, &ctx.load_module(ModuleImage::cubin(cubin.clone()))?)?;
    // A fatbin holding that CUBIN.
    let fat = cuprite_driver::module::fatbin_from_cubin(&cubin, arch);
    run_scale(&ctx, &ctx.load_module(ModuleImage::fatbin(fat))?)?;
    // Garbage bytes are an Err, not a crash.
    let junk: Vec<u8> = (0..256).map(|i| (i * 7) as u8).collect();
    crate::assert_err(
        ctx.load_module(ModuleImage::cubin(junk)),
        "InvalidArgument",
        "not a loadable CUBIN (256 bytes): it does not start with the ELF magic",
    );
    Ok(())
}

fn ptx_file_loads() -> TestResult {
    let ctx = ctx()?;
    let ptx = nvrtc::compile_ptx(SCALE)?;
    let path = std::env::temp_dir().join(format!(
        "cuprite-kernels-{}-{}.ptx",
        std::process::id(),
        Rng::fresh().next_u64()
    ));
    std::fs::write(&path, ptx.as_str())?;
    let module = Module::load_file(&ctx, &path)?;
    std::fs::remove_file(&path)?;
    run_scale(&ctx, &module)
}

fn modules_unload_on_drop() -> TestResult {
    // Each module holds a 256 MiB __device__ array: 40 loads would hold 10 GiB if modules
    // were not unloaded when dropped. What is checked is what this test owns: the modules of
    // an owned context that no other test uses (device-wide free memory also moves with the
    // memory pools of the tests running beside this one).
    const BIG: &str = r#"
        __device__ char big[256 << 20];
        extern "C" __global__ void touch(int *out, int i) { big[i] = (char)i; out[0] = big[i]; }
    "#;
    let ctx = Context::create_and_push(
        cuprite_driver::ContextFlags::SCHED_AUTO,
        cuprite_driver::Device::get(0)?,
    )?;
    cuprite_driver::ContextStack::pop()?;
    assert_eq!(ctx.loaded_modules(), 0);
    let stream = ctx.default_stream();
    let ptx = nvrtc::compile_ptx(BIG)?;
    let mut out = stream.clone_htod(&[-1i32])?;
    let mut rng = Rng::fresh();
    for _ in 0..40 {
        // The function keeps its module loaded after the module handle is dropped.
        let f = ctx.load_module(ptx.clone())?.load_function("touch")?;
        assert_eq!(ctx.loaded_modules(), 1);
        let i = (rng.next_u64() % 100) as i32 + 1;
        // SAFETY: touch(int*, int) with a 1-element buffer and an index inside `big`.
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut out)
                .arg(&i)
                .launch(LaunchConfig::for_num_elems(1))?
        };
        assert_eq!(stream.clone_dtoh(&out)?, [i]);
        drop(f);
        assert_eq!(ctx.loaded_modules(), 0, "the module was not unloaded");
    }
    // A global handle keeps its module too.
    let m = ctx.load_module(ptx)?;
    let g = m.get_global::<u8>("big")?;
    drop(m);
    assert_eq!(ctx.loaded_modules(), 1);
    drop(g);
    assert_eq!(ctx.loaded_modules(), 0);
    ctx.check_deferred()?;
    Ok(())
}

fn builder_moved() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, SCALE)?.load_function("scale")?;
    let mut rng = Rng::fresh();
    let n = 777;
    let x = rng.vec_f32(n, -3.0, 3.0);
    let xd = stream.clone_htod(&x)?;
    let mut yd = stream.clone_htod(&vec![f32::NAN; n])?;
    let (a, ni) = (rng.f32_in(1.0, 2.0), n as i32);
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut b = stream.launch_builder(&f);
    b.arg(&mut yd).arg(&xd).arg(&a).arg(&ni);
    // SAFETY: scale with n-element buffers.
    unsafe { b.launch(cfg)? };
    // Move the builder (its inline argument storage moves with it) and launch again.
    let mut moved = Box::new(b);
    // SAFETY: as above.
    unsafe { moved.launch(cfg)? };
    drop(moved);
    let y = stream.clone_dtoh(&yd)?;
    for i in 0..n {
        assert_eq!(y[i], a * x[i], "{i}");
    }
    Ok(())
}

fn unknown_function_is_named() -> TestResult {
    let ctx = ctx()?;
    let m = load(&ctx, SCALE)?;
    let name = format!("no_such_kernel_{}", Rng::fresh().next_u64() % 100_000);
    match m.load_function(&name) {
        Err(e) => {
            let msg = e.to_string();
            assert!(msg.contains(&name), "{msg}");
            assert!(msg.contains("CUDA_ERROR_NOT_FOUND"), "{msg}");
        }
        Ok(_) => return Err("an unknown kernel was found".into()),
    }
    match m.get_global::<f32>("no_such_global") {
        Err(e) => assert!(e.to_string().contains("no_such_global"), "{e}"),
        Ok(_) => return Err("an unknown global was found".into()),
    }
    Ok(())
}

fn bad_ptx_is_err() -> TestResult {
    let ctx = ctx()?;
    let bad =
        ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() { bogus.instr; }\n";
    let e = ctx.load_module(ModuleImage::ptx(bad)).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("cuModuleLoadDataEx"), "{msg}");
    assert!(
        msg.contains("bogus"),
        "the JIT log should name the bad instruction: {msg}"
    );
    // PTX from a compiler newer than the driver: the error says why and what to do.
    let future = ".version 99.9\n.target sm_90\n.address_size 64\n.visible .entry k() { ret; }\n";
    let e = ctx.load_module(ModuleImage::ptx(future)).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
            || msg.contains("CUDA_ERROR_INVALID_PTX"),
        "{msg}"
    );
    assert!(msg.contains("ISA version 99.9"), "{msg}");
    assert!(msg.contains("Output::Cubin"), "{msg}");
    Ok(())
}

const GLOBALS: &str = r#"
__device__ float table[8];
__constant__ int offset;
extern "C" __global__ void gather(float *out, const int *idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[idx[i] & 7] + offset;
}
extern "C" __global__ void store_table(float v) {
    table[threadIdx.x] = v * threadIdx.x;
}
"#;

fn typed_globals() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let m = load(&ctx, GLOBALS)?;
    let mut table = m.get_global::<f32>("table")?;
    assert_eq!(table.len(), 8);
    let mut offset = m.get_global::<i32>("offset")?;
    assert_eq!(offset.len(), 1);
    // 32 bytes are not [u8; 3]s.
    crate::assert_err(
        m.get_global::<[u8; 3]>("table"),
        "InvalidArgument",
        "global `table` has 32 bytes, not a whole number of",
    );

    let mut rng = Rng::fresh();
    let t = rng.vec_f32(8, -5.0, 5.0);
    let off = (rng.next_u64() % 100) as i32;
    stream.memcpy_htod(&t, &mut table)?;
    stream.memcpy_htod(&[off], &mut offset)?;
    let n = 500;
    let idx: Vec<i32> = (0..n).map(|_| (rng.next_u64() % 8) as i32).collect();
    let idx_d = stream.clone_htod(&idx)?;
    let mut out = stream.clone_htod(&vec![f32::NAN; n])?;
    let f = m.load_function("gather")?;
    let ni = n as i32;
    // SAFETY: gather(float*, const int*, int) with n-element buffers.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut out)
            .arg(&idx_d)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))?;
    }
    let got = stream.clone_dtoh(&out)?;
    for i in 0..n {
        assert_eq!(got[i], t[idx[i] as usize] + off as f32, "element {i}");
    }
    // A kernel writes the global; the host reads it back through the view.
    let v = rng.f32_in(1.0, 2.0);
    let st = m.load_function("store_table")?;
    // SAFETY: store_table(float) writes table[0..8] with 8 threads.
    unsafe {
        stream.launch_builder(&st).arg(&v).launch(LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (8, 1, 1),
            shared_mem_bytes: 0,
        })?;
    }
    let back = stream.clone_dtoh(&table)?;
    for (i, b) in back.iter().enumerate() {
        assert_eq!(*b, v * i as f32);
    }
    Ok(())
}

const SHARED: &str = r#"
extern "C" __global__ void static_shared(float *out) {
    __shared__ float s[256];
    s[threadIdx.x] = threadIdx.x * 2.0f;
    __syncthreads();
    out[threadIdx.x] = s[255 - threadIdx.x];
}
extern "C" __global__ void dyn_shared(float *out, int n) {
    extern __shared__ float s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = i * 0.5f;
    __syncthreads();
    float acc = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += s[n - 1 - i];
    out[threadIdx.x] = acc;
}
"#;

fn attributes_and_occupancy() -> TestResult {
    let ctx = ctx()?;
    let m = load(&ctx, SHARED)?;
    let f = m.load_function("static_shared")?;
    let a = f.attributes()?;
    assert_eq!(a.static_shared_bytes, 1024);
    assert!(a.num_regs >= 1 && a.num_regs <= 255, "{a:?}");
    assert!(a.max_threads_per_block >= 256 && a.max_threads_per_block <= 1024);
    let (major, minor) = ctx.device().compute_capability()?;
    assert_eq!(a.binary_version, major * 10 + minor);
    assert!(a.ptx_version >= 50, "{a:?}");
    let blocks = f.max_active_blocks_per_sm(256, 0)?;
    assert!((1..=32).contains(&blocks), "{blocks}");
    let (grid, block) = f.suggested_block_size(0)?;
    assert!((32..=1024).contains(&block) && block % 32 == 0, "{block}");
    assert!(grid >= ctx.device().multiprocessor_count()?, "{grid}");
    assert_eq!(f.name(), "static_shared");
    // It runs and reads its shared memory back.
    let stream = ctx.default_stream();
    let mut out = stream.clone_htod(&[f32::NAN; 256])?;
    // SAFETY: static_shared(float*) with 256 threads and a 256-element buffer.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut out)
            .launch(LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            })?;
    }
    let got = stream.clone_dtoh(&out)?;
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, (255 - i) as f32 * 2.0);
    }
    Ok(())
}

fn dynamic_shared_memory() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let m = load(&ctx, SHARED)?;
    let f = m.load_function("dyn_shared")?;
    let default_limit = f.max_dynamic_shared_memory();
    assert!(default_limit <= 48 * 1024, "{default_limit}");
    let big = 96 * 1024u32;
    let optin = ctx
        .device()
        .attribute(cuprite_driver::DeviceAttribute::MaxSharedMemoryPerBlockOptin)?;
    if (optin as u32) < big {
        return ignore(format!(
            "needs {big} bytes of dynamic shared memory per block; device 0 allows at most {optin}"
        ));
    }
    let n = (big / 4) as i32;
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: big,
    };
    let mut out = stream.clone_htod(&[f32::NAN; 128])?;
    // Above the default limit: refused before launch, output untouched.
    // SAFETY: refused before reaching the driver.
    let e = unsafe { stream.launch_builder(&f).arg(&mut out).arg(&n).launch(cfg) }.unwrap_err();
    assert!(e.to_string().contains("dynamic shared memory"), "{e}");
    assert!(stream.clone_dtoh(&out)?.iter().all(|x| x.is_nan()));
    // Raised: runs.
    f.set_max_dynamic_shared_memory(big)?;
    assert_eq!(f.max_dynamic_shared_memory(), big);
    assert_eq!(f.attributes()?.max_dynamic_shared_bytes, big);
    // SAFETY: dyn_shared(float*, int) with n floats of dynamic shared memory, 128 threads.
    unsafe { stream.launch_builder(&f).arg(&mut out).arg(&n).launch(cfg) }?;
    let got = stream.clone_dtoh(&out)?;
    for (t, &g) in got.iter().enumerate() {
        let want: f64 = (t..n as usize)
            .step_by(128)
            .map(|i| (n as usize - 1 - i) as f64 * 0.5)
            .sum();
        assert!((g as f64 - want).abs() <= want * 1e-5, "{t}: {g} vs {want}");
    }
    // Above what the device allows at all: refused before the driver is asked.
    crate::assert_err(
        f.set_max_dynamic_shared_memory(1 << 20),
        "InvalidArgument",
        "1048576 bytes of dynamic shared memory asked for",
    );
    Ok(())
}

fn validation_before_launch() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let m = load(&ctx, SCALE)?;
    let f = m.load_function("scale")?;
    let x = stream.clone_htod(&[1.0f32; 64])?;
    let mut y = stream.clone_htod(&[f32::NAN; 64])?;
    let (a, n) = (2.0f32, 64i32);
    let cfg = |grid_dim, block_dim, shared_mem_bytes| LaunchConfig {
        grid_dim,
        block_dim,
        shared_mem_bytes,
    };
    let bad = [
        (cfg((0, 1, 1), (64, 1, 1), 0), "empty grid"),
        (cfg((1, 0, 1), (64, 1, 1), 0), "empty grid"),
        (cfg((1, 1, 1), (1025, 1, 1), 0), "threads per block"),
        (cfg((1, 1, 1), (32, 32, 2), 0), "threads per block"),
        (cfg((1, 1, 1), (0, 1, 1), 0), "empty block"),
        (cfg((1, 1, 1), (64, 1, 1), 200_000), "dynamic shared memory"),
    ];
    for (cfg, what) in bad {
        // SAFETY: every one of these is refused before reaching the driver.
        let r = unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut y)
                .arg(&x)
                .arg(&a)
                .arg(&n)
                .launch(cfg)
        };
        match r {
            Err(Error::InvalidArgument(msg)) => {
                assert!(msg.contains(what), "{cfg:?}: {msg}");
                assert!(msg.contains("scale"), "names the kernel: {msg}");
            }
            other => return Err(format!("{cfg:?}: expected InvalidArgument, got {other:?}").into()),
        }
    }
    assert!(
        stream.clone_dtoh(&y)?.iter().all(|v| v.is_nan()),
        "nothing ran"
    );
    // The good one runs.
    // SAFETY: scale with 64-element buffers.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&a)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(64))?;
    }
    assert_eq!(stream.clone_dtoh(&y)?, vec![2.0f32; 64]);
    Ok(())
}

fn param_checks() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let m = load(&ctx, SCALE)?;
    let f = m.load_function("scale")?;
    let Some(sizes) = f.param_sizes() else {
        let (v, minor) = cuprite_driver::driver_version()?;
        assert!(v < 13, "a CUDA {v} driver has cuFuncGetParamInfo");
        return ignore(format!(
            "the driver (CUDA {v}.{minor}) has no cuFuncGetParamInfo: argument counts and \
             sizes cannot be checked"
        ));
    };
    assert_eq!(sizes, [8, 8, 4, 4]);
    assert_eq!(f.num_params(), Some(4));
    let x = stream.clone_htod(&[1.0f32; 16])?;
    let mut y = stream.clone_htod(&[f32::NAN; 16])?;
    let cfg = LaunchConfig::for_num_elems(16);
    // SAFETY: each is refused before reaching the driver.
    let e = unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&2.0f32)
            .launch(cfg)
    }
    .unwrap_err();
    assert!(e.to_string().contains("takes 4 parameter(s), but 3"), "{e}");
    // SAFETY: as above.
    let e = unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&2.0f64)
            .arg(&16i32)
            .launch(cfg)
    }
    .unwrap_err();
    assert!(e.to_string().contains("argument 2"), "{e}");
    assert!(e.to_string().contains("8 bytes"), "{e}");
    assert!(
        stream.clone_dtoh(&y)?.iter().all(|v| v.is_nan()),
        "nothing ran"
    );
    Ok(())
}

const AXPY: &str = r#"
extern "C" __global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"#;

fn axpy_random() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, AXPY)?.load_function("axpy")?;
    let mut rng = Rng::fresh();
    for _ in 0..3 {
        let n = 1 + (rng.next_u64() % 300_000) as usize;
        let x = rng.vec_f32(n, -1.0, 1.0);
        let y0 = rng.vec_f32(n, -1.0, 1.0);
        let a = rng.f32_in(-2.0, 2.0);
        let xd = stream.clone_htod(&x)?;
        let mut yd = stream.clone_htod(&y0)?;
        let ni = n as i32;
        // SAFETY: axpy(float, const float*, float*, int) with n-element buffers.
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&a)
                .arg(&xd)
                .arg(&mut yd)
                .arg(&ni)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        let y = stream.clone_dtoh(&yd)?;
        for i in 0..n {
            let want = a.mul_add(x[i], y0[i]);
            assert!(
                (y[i] - want).abs() <= 1e-6 * (1.0 + want.abs()),
                "{i}: {} vs {want}",
                y[i]
            );
        }
    }
    Ok(())
}

fn twenty_args_spill() -> TestResult {
    // 20 arguments: more than the builder keeps inline.
    let params: Vec<String> = (0..19).map(|i| format!("int a{i}")).collect();
    let sum: Vec<String> = (0..19).map(|i| format!("a{i} * {}", i + 1)).collect();
    let src = format!(
        "extern \"C\" __global__ void many(long long *out, {}) {{ out[0] = {}; }}",
        params.join(", "),
        sum.join(" + ")
    );
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, &src)?.load_function("many")?;
    const { assert!(cuprite_driver::INLINE_ARGS < 20) };
    let mut rng = Rng::fresh();
    let vals: Vec<i32> = (0..19)
        .map(|_| (rng.next_u64() % 100_000) as i32 - 50_000)
        .collect();
    let mut out = stream.clone_htod(&[i64::MIN])?;
    let mut b = stream.launch_builder(&f);
    b.arg(&mut out);
    for v in &vals {
        b.arg(v);
    }
    assert_eq!(b.num_args(), 20);
    // SAFETY: many(long long*, 19 × int) with a 1-element buffer.
    unsafe { b.launch(LaunchConfig::for_num_elems(1)) }?;
    let want: i64 = vals
        .iter()
        .enumerate()
        .map(|(i, &v)| v as i64 * (i as i64 + 1))
        .sum();
    assert_eq!(stream.clone_dtoh(&out)?, [want]);
    Ok(())
}

const PACKED: &str = r#"
extern "C" __global__ void packed(const double *x, long long off, double *y,
                                  unsigned long long n, double a, unsigned long long bits) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[off + i] + (double)(bits >> 32);
}
extern "C" __global__ void forty(unsigned long long *out,
    unsigned long long w0, unsigned long long w1, unsigned long long w2, unsigned long long w3,
    unsigned long long w4, unsigned long long w5, unsigned long long w6, unsigned long long w7,
    unsigned long long w8, unsigned long long w9, unsigned long long w10, unsigned long long w11,
    unsigned long long w12, unsigned long long w13, unsigned long long w14, unsigned long long w15,
    unsigned long long w16, unsigned long long w17, unsigned long long w18, unsigned long long w19,
    unsigned long long w20, unsigned long long w21, unsigned long long w22, unsigned long long w23,
    unsigned long long w24, unsigned long long w25, unsigned long long w26, unsigned long long w27,
    unsigned long long w28, unsigned long long w29, unsigned long long w30, unsigned long long w31,
    unsigned long long w32, unsigned long long w33, unsigned long long w34, unsigned long long w35,
    unsigned long long w36, unsigned long long w37, unsigned long long w38) {
    unsigned long long w[39] = {w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14,
        w15, w16, w17, w18, w19, w20, w21, w22, w23, w24, w25, w26, w27, w28, w29, w30, w31, w32,
        w33, w34, w35, w36, w37, w38};
    unsigned long long s = 0;
    for (int i = 0; i < 39; i++) s = s * 1000003ull + w[i];
    out[0] = s;
}
extern "C" __global__ void narrow(float *y, int n) { if (threadIdx.x == 0) y[0] = (float)n; }
"#;

fn packed_words() -> TestResult {
    use cuprite_driver::Access;
    let ctx = ctx()?;
    let stream = ctx.new_stream()?;
    let m = load(&ctx, PACKED)?;
    let f = m.load_function("packed")?;
    let mut rng = Rng::fresh();
    let (n, off) = (1000usize, 3usize);
    let xs: Vec<f64> = (0..n + off).map(|_| rng.next_u64() as f64 / 1e15).collect();
    let x = stream.clone_htod(&xs)?;
    let y = stream.alloc_zeros::<f64>(n)?;
    // A power of two: the product is exact, so the kernel's fused multiply-add and the host's
    // multiply then add round alike.
    let a = -2.0f64;
    let words = [
        x.device_ptr(),
        off as u64,
        y.device_ptr(),
        n as u64,
        a.to_bits(),
        7u64 << 32,
    ];
    let acc = [Access::read(&x), Access::write(&y)];
    // SAFETY: packed(x, off, y, n, a, bits) with x of n + off and y of n elements, both declared.
    unsafe { stream.launch_packed(&f, (4, 1, 1), (256, 1, 1), 0, &words, &acc) }?;
    let got = stream.clone_dtoh(&y)?;
    for i in 0..n {
        assert_eq!(got[i], a * xs[off + i] + 7.0, "element {i}");
    }

    // 40 parameters: the words are handed over as one block whatever their number.
    let g = m.load_function("forty")?;
    let out = stream.alloc_zeros::<u64>(1)?;
    let mut many = vec![out.device_ptr()];
    many.extend((0..39).map(|_| rng.next_u64()));
    let want = many[1..]
        .iter()
        .fold(0u64, |s, &w| s.wrapping_mul(1_000_003).wrapping_add(w));
    // SAFETY: forty(out, 39 words) with a 1-element `out`, declared.
    unsafe { stream.launch_packed(&g, (1, 1, 1), (1, 1, 1), 0, &many, &[Access::write(&out)]) }?;
    assert_eq!(stream.clone_dtoh(&out)?, [want]);

    // Refused before the driver sees them: a word short, and a kernel with a 4-byte parameter.
    // SAFETY: refused by the checks (nothing is launched).
    let e = unsafe { stream.launch_packed(&f, (1, 1, 1), (1, 1, 1), 0, &words[..5], &acc) }
        .expect_err("five words for six parameters");
    assert!(e.to_string().contains("5 parameters"), "{e}");
    let h = m.load_function("narrow")?;
    if h.param_sizes().is_some() {
        // SAFETY: refused by the checks (nothing is launched).
        let e =
            unsafe { stream.launch_packed(&h, (1, 1, 1), (1, 1, 1), 0, &[y.device_ptr(), 5], &[]) }
                .expect_err("a 4-byte parameter");
        assert!(e.to_string().contains("[8, 4]"), "{e}");
    }
    // The context stays usable: the first launch again.
    // SAFETY: as the first launch.
    unsafe { stream.launch_packed(&f, (4, 1, 1), (256, 1, 1), 0, &words, &acc) }?;
    assert_eq!(stream.clone_dtoh(&y)?, got);
    assert_eq!(y.len(), n);
    Ok(())
}

// f16/bf16 arrive as their 16-bit patterns (no header needed): the kernel returns the bits.
const MIXED: &str = r#"
struct Params { float a; double b; unsigned int c; short d[3]; unsigned short e; float *p; };
struct Arr4 { float v[4]; };
extern "C" __global__ void mixed(double *out, unsigned short h, unsigned short bf, Arr4 arr,
                                 Params s, const float *raw) {
    out[0] = h;
    out[1] = bf;
    out[2] = arr.v[0] + 10 * arr.v[1] + 100 * arr.v[2] + 1000 * arr.v[3];
    out[3] = s.a; out[4] = s.b; out[5] = s.c;
    out[6] = s.d[0] + 10 * s.d[1] + 100 * s.d[2];
    out[7] = s.e;
    out[8] = s.p[1];
    out[9] = raw[2];
}
"#;

fn half_array_ptr_struct_args() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, MIXED)?.load_function("mixed")?;
    let mut rng = Rng::fresh();
    let data = rng.vec_f32(4, 1.0, 2.0);
    let buf = stream.clone_htod(&data)?;
    let ptr: DevicePtr<f32> = DevicePtr::new(cuprite_driver::DeviceRead::device_ptr(&buf));
    let h = half::f16::from_f32(rng.f32_in(-4.0, 4.0));
    let bf = half::bf16::from_f32(rng.f32_in(-4.0, 4.0));
    let arr = [1.0f32, 2.0, 3.0, (rng.next_u64() % 9) as f32];
    let s = Params {
        a: rng.f32_in(0.0, 1.0),
        b: rng.f32_in(0.0, 1.0) as f64 * 1e3,
        c: rng.next_u64() as u32 >> 8,
        d: [1, 2, (rng.next_u64() % 9) as i16],
        e: half::f16::from_f32(0.75),
        p: ptr,
    };
    let mut out = stream.clone_htod(&[f64::NAN; 10])?;
    // SAFETY: mixed(double*, half bits, bf16 bits, Arr4, Params, const float*), same layouts
    // (the parameter sizes are checked by the launch), `ptr` points into `buf`, alive here.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut out)
            .arg(&h)
            .arg(&bf)
            .arg(&arr)
            .arg(&s)
            .arg(&ptr.offset(1).ok_or("offset of a live pointer overflowed")?)
            .launch(LaunchConfig::for_num_elems(1))?;
    }
    let got = stream.clone_dtoh(&out)?;
    assert_eq!(got[0], h.to_bits() as f64);
    assert_eq!(got[1], bf.to_bits() as f64);
    assert_eq!(
        got[2],
        (arr[0] + 10.0 * arr[1] + 100.0 * arr[2] + 1000.0 * arr[3]) as f64
    );
    assert_eq!(got[3], s.a as f64);
    assert_eq!(got[4], s.b);
    assert_eq!(got[5], s.c as f64);
    assert_eq!(got[6], (s.d[0] + 10 * s.d[1] + 100 * s.d[2]) as f64);
    assert_eq!(got[7], half::f16::from_f32(0.75).to_bits() as f64);
    assert_eq!(got[8], data[1] as f64);
    assert_eq!(got[9], data[3] as f64);
    Ok(())
}

fn views_as_args() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, SCALE)?.load_function("scale")?;
    let mut rng = Rng::fresh();
    let n = 3000;
    let x = rng.vec_f32(n, -1.0, 1.0);
    let xd = stream.clone_htod(&x)?;
    let mut yd = stream.clone_htod(&vec![f32::NAN; n])?;
    let (lo, hi) = (1000usize, 2000usize);
    {
        let xv = xd.try_slice(lo..hi).ok_or("x view")?;
        let mut yv = yd.try_slice_mut(lo..hi).ok_or("y view")?;
        let (a, m) = (3.0f32, (hi - lo) as i32);
        // SAFETY: scale on 1000-element views.
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut yv)
                .arg(&xv)
                .arg(&a)
                .arg(&m)
                .launch(LaunchConfig::for_num_elems(m as u32))?;
        }
    }
    let y = stream.clone_dtoh(&yd)?;
    for i in 0..n {
        if (lo..hi).contains(&i) {
            assert_eq!(y[i], 3.0 * x[i], "{i}");
        } else {
            assert!(y[i].is_nan(), "{i} outside the view was written");
        }
    }
    Ok(())
}

const SPIN: &str = r#"
extern "C" __global__ void spin_copy(float *dst, const float *src, int n, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
extern "C" __global__ void spin_fill(float *dst, float v, int n, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = v;
}
"#;

fn record_events() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, SPIN)?.load_function("spin_fill")?;
    let n = 4096;
    let mut d = stream.clone_htod(&vec![f32::NAN; n])?;
    let v = Rng::fresh().f32_in(1.0, 9.0);
    let (ni, cycles) = (n as i32, 2_000_000i64); // about 1 ms at ~1.8 GHz
    // SAFETY: spin_fill(float*, float, int, long long) with an n-element buffer.
    let events = unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut d)
            .arg(&v)
            .arg(&ni)
            .arg(&cycles)
            .record_kernel_launch(EventFlags::DEFAULT)
            .launch(LaunchConfig::for_num_elems(n as u32))?
    };
    let (start, end) = events.ok_or("no events returned")?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)?;
    assert!(ms > 0.3 && ms < 100.0, "kernel took {ms} ms");
    assert!(stream.clone_dtoh(&d)?.iter().all(|&x| x == v));
    // Without the flag: no events.
    // SAFETY: as above.
    let none = unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut d)
            .arg(&v)
            .arg(&ni)
            .arg(&0i64)
            .launch(LaunchConfig::for_num_elems(n as u32))?
    };
    assert!(none.is_none());
    Ok(())
}

const COOP: &str = r#"
extern "C" __global__ void grid_count(unsigned int *counter, unsigned int *seen) {
    // Every block arrives, then block 0 waits for all of them: only safe when all blocks are
    // resident at once, which a cooperative launch guarantees.
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(counter, 1u);
        if (blockIdx.x == 0) {
            while (atomicAdd(counter, 0u) < gridDim.x) { }
            seen[0] = atomicAdd(counter, 0u);
        }
    }
}
"#;

fn cooperative_launch() -> TestResult {
    let ctx = ctx()?;
    let stream = ctx.default_stream();
    let f = load(&ctx, COOP)?.load_function("grid_count")?;
    let sms = ctx.device().multiprocessor_count()?;
    let per_sm = f.max_active_blocks_per_sm(128, 0)?;
    let blocks = sms * per_sm.min(2);
    let mut counter = stream.alloc_zeros::<u32>(1)?;
    let mut seen = stream.clone_htod(&[u32::MAX])?;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (128, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: grid_count(unsigned*, unsigned*) with 1-element buffers; all blocks resident.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut counter)
            .arg(&mut seen)
            .launch_cooperative(cfg)
    }?;
    assert_eq!(stream.clone_dtoh(&seen)?, [blocks]);
    // The same through cuLaunchKernelEx (a launch attribute is set): cooperative becomes an
    // attribute.
    stream.memset_zeros(&mut counter)?;
    let prio = ctx.stream_priority_range()?.least;
    // SAFETY: as above.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut counter)
            .arg(&mut seen)
            .priority(prio)
            .launch_cooperative(cfg)
    }?;
    assert_eq!(stream.clone_dtoh(&seen)?, [blocks]);
    // A grid larger than can be resident at once is refused by the driver.
    let too_big = LaunchConfig {
        grid_dim: (sms * per_sm + 1, 1, 1),
        ..cfg
    };
    // SAFETY: refused by the driver before running.
    let e = unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut counter)
            .arg(&mut seen)
            .launch_cooperative(too_big)
    }
    .unwrap_err();
    assert_eq!(
        e.code(),
        Some(cuprite_driver::sys::driver::CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE),
        "{e}"
    );
    Ok(())
}

const CLUSTER: &str = r#"
extern "C" __global__ void cluster_info(unsigned int *rank, unsigned int *size) {
    unsigned int r, s;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(s));
    if (threadIdx.x == 0) { rank[blockIdx.x] = r; size[blockIdx.x] = s; }
}
"#;

fn cluster_and_priority() -> TestResult {
    let ctx = ctx()?;
    let (major, _) = ctx.device().compute_capability()?;
    if major < 9 {
        return ignore(format!(
            "thread-block clusters need compute capability 9.0 or later; device 0 is {major}.x"
        ));
    }
    let stream = ctx.default_stream();
    let f = load(&ctx, CLUSTER)?.load_function("cluster_info")?;
    let blocks = 8u32;
    let mut rank = stream.clone_htod(&vec![u32::MAX; blocks as usize])?;
    let mut size = stream.clone_htod(&vec![u32::MAX; blocks as usize])?;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let range = ctx.stream_priority_range()?;
    // SAFETY: cluster_info(unsigned*, unsigned*) with `blocks`-element buffers.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut rank)
            .arg(&mut size)
            .cluster_dim((4, 1, 1))
            .priority(range.greatest)
            .launch(cfg)?;
    }
    assert_eq!(stream.clone_dtoh(&size)?, vec![4; blocks as usize]);
    let r = stream.clone_dtoh(&rank)?;
    assert_eq!(r, (0..blocks).map(|b| b % 4).collect::<Vec<_>>());
    // Without the attribute, each block is its own cluster.
    // SAFETY: as above.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut rank)
            .arg(&mut size)
            .launch(cfg)?
    };
    assert_eq!(stream.clone_dtoh(&size)?, vec![1; blocks as usize]);
    // A grid that is not a multiple of the cluster is refused before the driver is asked.
    // SAFETY: refused before running.
    let r = unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut rank)
            .arg(&mut size)
            .cluster_dim((3, 1, 1))
            .launch(cfg)
    };
    crate::assert_err(r, "InvalidArgument", "clusters of (3, 1, 1)");
    Ok(())
}

fn writer_then_reader() -> TestResult {
    let ctx = ctx()?;
    let s1 = ctx.default_stream();
    let s2 = ctx.new_stream()?;
    let m = load(&ctx, SPIN)?;
    let fill = m.load_function("spin_fill")?;
    let copy = m.load_function("spin_copy")?;
    let n = 1 << 16;
    let mut a = s1.clone_htod(&vec![f32::NAN; n])?;
    let mut b = s1.clone_htod(&vec![f32::NAN; n])?;
    let mut rng = Rng::fresh();
    for round in 0..3 {
        let v = rng.f32_in(1.0, 100.0) + round as f32;
        let ni = n as i32;
        let cfg = LaunchConfig::for_num_elems(n as u32);
        // s2 writes `a` slowly; s1 copies a -> b with no delay: must wait for s2.
        // SAFETY: both kernels get n-element buffers.
        unsafe {
            s2.launch_builder(&fill)
                .arg(&mut a)
                .arg(&v)
                .arg(&ni)
                .arg(&5_000_000i64)
                .launch(cfg)?;
            s1.launch_builder(&copy)
                .arg(&mut b)
                .arg(&a)
                .arg(&ni)
                .arg(&0i64)
                .launch(cfg)?;
        }
        let got = s1.clone_dtoh(&b)?;
        assert!(
            got.iter().all(|&x| x == v),
            "round {round}: reader ran before the writer"
        );
    }
    assert!(ctx.is_multi_stream());
    Ok(())
}

fn readers_before_writer() -> TestResult {
    let ctx = ctx()?;
    let streams = [ctx.new_stream()?, ctx.new_stream()?, ctx.new_stream()?];
    let writer = ctx.new_stream()?;
    let m = load(&ctx, SPIN)?;
    let fill = m.load_function("spin_fill")?;
    let copy = m.load_function("spin_copy")?;
    let n = 1 << 14;
    let mut rng = Rng::fresh();
    let src_host = rng.vec_f32(n, -1.0, 1.0);
    let mut src = writer.clone_htod(&src_host)?;
    let mut outs = Vec::new();
    for s in &streams {
        outs.push(s.clone_htod(&vec![f32::NAN; n])?);
    }
    let ni = n as i32;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    // Three slow readers of `src` on three streams, with different delays.
    for (k, (s, out)) in streams.iter().zip(outs.iter_mut()).enumerate() {
        let cycles = 2_000_000i64 * (k as i64 + 1);
        // SAFETY: spin_copy with n-element buffers.
        unsafe {
            s.launch_builder(&copy)
                .arg(out)
                .arg(&src)
                .arg(&ni)
                .arg(&cycles)
                .launch(cfg)?
        };
    }
    // A fast writer of `src` on a fourth stream: must wait for all three readers.
    let poison = -1234.5f32;
    // SAFETY: spin_fill with an n-element buffer.
    unsafe {
        writer
            .launch_builder(&fill)
            .arg(&mut src)
            .arg(&poison)
            .arg(&ni)
            .arg(&0i64)
            .launch(cfg)?
    };
    for (k, (s, out)) in streams.iter().zip(&outs).enumerate() {
        assert_eq!(
            s.clone_dtoh(out)?,
            src_host,
            "reader {k} saw the later write"
        );
    }
    assert!(writer.clone_dtoh(&src)?.iter().all(|&x| x == poison));
    Ok(())
}

/// Environment variable that makes the test binary run the trap child instead of the tests.
pub const TRAP_CHILD_ENV: &str = "CUPRITE_KERNELS_TRAP_CHILD";

/// The child process: launches a kernel that traps, then reports what the next sync says.
pub fn trap_child() -> i32 {
    let run = || -> Result<String, Box<dyn std::error::Error>> {
        let ctx = ctx()?;
        let stream = ctx.default_stream();
        let f = load(
            &ctx,
            "extern \"C\" __global__ void boom(int *x) { if (x[0] == 7) __trap(); x[0] = 1; }",
        )?
        .load_function("boom")?;
        let mut x = stream.clone_htod(&[7i32])?;
        // SAFETY: boom(int*) with a 1-element buffer (it traps on purpose).
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut x)
                .launch(LaunchConfig::for_num_elems(1))?
        };
        let e = match stream.synchronize() {
            Err(e) => e,
            Ok(()) => return Err("the trap was not reported at the next sync".into()),
        };
        assert!(e.is_sticky(), "{e}");
        // Every later call on the context fails too.
        let later = match stream.clone_htod(&[1i32]) {
            Err(e2) => e2,
            Ok(_) => return Err("the context still worked after a trap".into()),
        };
        Ok(format!("SYNC-ERROR: {e}\nLATER-ERROR: {later}"))
    };
    match run() {
        Ok(s) => {
            println!("{s}");
            0
        }
        Err(e) => {
            println!("CHILD-FAILED: {e}");
            1
        }
    }
}

fn device_trap_child_process() -> TestResult {
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .env(TRAP_CHILD_ENV, "1")
        .output_within(CHILD_LIMIT)?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("SYNC-ERROR:"))
        .ok_or_else(|| format!("no sync error line in: {stdout}"))?;
    assert!(
        line.contains("CUDA_ERROR_LAUNCH_FAILED")
            || line.contains("CUDA_ERROR_ILLEGAL_INSTRUCTION"),
        "{line}"
    );
    assert!(line.contains("cuStreamSynchronize"), "{line}");
    assert!(line.contains("context can no longer be used"), "{line}");
    println!("{stdout}");
    Ok(())
}
