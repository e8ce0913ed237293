//! Fault injection (`cuprite_driver::fault`, on in this binary through the `fault-injection` feature):
//! the Nth device allocation, NVRTC compile, module load or kernel launch fails. Each failure
//! is an `Err` at the call that failed, nothing leaks (the memory pool, the loaded modules and
//! the NVRTC programs are back at their baseline), and the library works on. Measured on an
//! owned context, whose pool and modules no other test uses.

use cuprite_driver::fault::{self, FaultPoint};
use cuprite_driver::{
    Context, ContextFlags, ContextStack, Device, DeviceBuffer, Error, LaunchConfig,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::sync::Arc;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("fault::switch_is_per_thread", switch_is_per_thread),
        Test::nvrtc("fault::nvrtc_compile", nvrtc_compile),
        Test::gpu("fault::device_alloc", device_alloc),
        Test::gpu("fault::module_load", module_load),
        Test::gpu("fault::kernel_launch", kernel_launch),
    ]
}

const SRC: &str = r#"
extern "C" __global__ void twice(float *y, const float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"#;

/// Disarms this thread's faults when the test ends, even by a panic.
struct Disarm;
impl Drop for Disarm {
    fn drop(&mut self) {
        fault::clear();
    }
}

fn owned() -> Result<Arc<Context>, Error> {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    Ok(ctx)
}

/// `twice` over fresh data on `ctx`: the library works.
fn works(ctx: &Arc<Context>) -> TestResult {
    let s = ctx.new_stream()?;
    let f = ctx
        .load_module(cuprite_driver::nvrtc::compile_ptx(SRC)?)?
        .load_function("twice")?;
    let mut rng = Rng::fresh();
    let n = 500 + (rng.next_u64() % 500) as usize;
    let x = rng.vec_f32(n, -5.0, 5.0);
    let xd = s.clone_htod(&x)?;
    let mut yd = s.clone_htod(&vec![f32::NAN; n])?;
    let ni = n as i32;
    // SAFETY: twice(float*, const float*, int) with n-element buffers.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut yd)
            .arg(&xd)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))?
    };
    let y = s.clone_dtoh(&yd)?;
    for i in 0..n {
        assert_eq!(y[i], 2.0 * x[i], "{i}");
    }
    Ok(())
}

fn assert_injected(e: &Error, call: &str) {
    let m = e.to_string();
    assert!(m.contains(call) && m.contains("injected fault"), "{m}");
    assert!(!e.is_sticky(), "{m}");
}

fn switch_is_per_thread() -> TestResult {
    let _d = Disarm;
    fault::fail_nth(FaultPoint::ModuleLoad, 3);
    assert!(fault::armed(FaultPoint::ModuleLoad));
    assert!(!fault::armed(FaultPoint::DeviceAlloc));
    let other = std::thread::spawn(|| fault::armed(FaultPoint::ModuleLoad))
        .join()
        .map_err(|_| "thread panicked")?;
    assert!(!other, "another thread sees no fault");
    fault::fail_nth(FaultPoint::ModuleLoad, 0);
    assert!(!fault::armed(FaultPoint::ModuleLoad));
    Ok(())
}

fn nvrtc_compile() -> TestResult {
    let _d = Disarm;
    let k = 1 + Rng::fresh().next_u64() % 3;
    fault::fail_nth(FaultPoint::NvrtcCompile, k);
    for i in 1..=k {
        let r = cuprite_driver::nvrtc::compile_ptx(SRC);
        if i < k {
            assert!(r?.as_str().contains(".entry twice"));
        } else {
            let e = r.unwrap_err();
            assert!(matches!(e, Error::Nvrtc { .. }), "{e:?}");
            assert_injected(&e, "nvrtcCompileProgram");
        }
    }
    assert!(!fault::armed(FaultPoint::NvrtcCompile), "fired once");
    // The failed compile's program was destroyed (other tests may compile meanwhile: wait for
    // a moment with none in flight rather than reading once).
    let gone = (0..200).any(|_| {
        let idle = cuprite_driver::nvrtc::live_programs() == 0;
        if !idle {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        idle
    });
    assert!(gone, "NVRTC programs still alive");
    assert!(
        cuprite_driver::nvrtc::compile_ptx(SRC)?
            .as_str()
            .contains(".entry twice")
    );
    Ok(())
}

fn device_alloc() -> TestResult {
    let _d = Disarm;
    let ctx = owned()?;
    let s = ctx.new_stream()?;
    s.synchronize()?;
    let base = ctx.pool_stats()?.used;
    let k = 1 + Rng::fresh().next_u64() % 4;
    fault::fail_nth(FaultPoint::DeviceAlloc, k);
    let mut kept: Vec<DeviceBuffer<u32>> = Vec::new();
    for i in 1..=k {
        let r = s.clone_htod(&vec![i as u32; 1 << 16]);
        if i < k {
            kept.push(r?);
        } else {
            assert_injected(&r.unwrap_err(), "cuMemAllocAsync");
        }
    }
    for (i, b) in kept.iter().enumerate() {
        assert_eq!(s.clone_dtoh(b)?, vec![i as u32 + 1; 1 << 16]);
    }
    drop(kept);
    s.synchronize()?;
    assert_eq!(
        ctx.pool_stats()?.used,
        base,
        "pool memory back to the baseline"
    );
    ctx.check_deferred()?;
    works(&ctx)?;
    s.synchronize()?;
    assert_eq!(ctx.pool_stats()?.used, base);
    Ok(())
}

fn module_load() -> TestResult {
    let _d = Disarm;
    let ctx = owned()?;
    let ptx = cuprite_driver::nvrtc::compile_ptx(SRC)?;
    assert_eq!(ctx.loaded_modules(), 0);
    let k = 1 + Rng::fresh().next_u64() % 3;
    fault::fail_nth(FaultPoint::ModuleLoad, k);
    let mut kept = Vec::new();
    for i in 1..=k {
        let r = ctx.load_module(ptx.clone());
        if i < k {
            kept.push(r?);
        } else {
            assert_injected(&r.unwrap_err(), "cuModuleLoadData");
        }
    }
    assert_eq!(ctx.loaded_modules(), kept.len());
    drop(kept);
    assert_eq!(ctx.loaded_modules(), 0, "every module unloaded");
    works(&ctx)?;
    assert_eq!(ctx.loaded_modules(), 0);
    ctx.check_deferred()?;
    Ok(())
}

fn kernel_launch() -> TestResult {
    let _d = Disarm;
    let ctx = owned()?;
    let s = ctx.new_stream()?;
    let other = ctx.new_stream()?;
    // Multi-stream tracking on, so that the failed launch's declared accesses are recorded.
    ctx.enable_multi_stream_tracking()?;
    let f = ctx
        .load_module(cuprite_driver::nvrtc::compile_ptx(SRC)?)?
        .load_function("twice")?;
    let n = 4096;
    let x = s.clone_htod(&vec![3.0f32; n])?;
    let mut y = s.clone_htod(&vec![f32::NAN; n])?;
    let ni = n as i32;
    fault::fail_nth(FaultPoint::KernelLaunch, 1);
    // SAFETY: twice with n-element buffers.
    let r = unsafe {
        s.launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))
    };
    assert_injected(&r.unwrap_err(), "cuLaunchKernel");
    // Nothing ran, and the buffers are consistent for both streams.
    assert!(other.clone_dtoh(&y)?.iter().all(|v| v.is_nan()));
    // SAFETY: as above.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))?
    };
    assert_eq!(other.clone_dtoh(&y)?, vec![6.0f32; n]);
    drop((x, y));
    s.synchronize()?;
    other.synchronize()?;
    assert_eq!(ctx.pool_stats()?.used, 0, "all freed");
    ctx.check_deferred()?;
    works(&ctx)
}
