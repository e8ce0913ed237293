use cuprite_driver::{
    CacheConfig, Context, ContextFlags, ContextStack, CurrentContext, Device, DeviceBuffer, Error,
    ResourceLimit, SharedMemoryConfig,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::sync::Arc;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("context::flags_bits", flags_bits),
        Test::gpu("context::primary_is_shared", primary_is_shared),
        Test::gpu("context::ordinal_out_of_range", ordinal_out_of_range),
        Test::gpu("context::bound_on_any_thread", bound_on_any_thread),
        Test::gpu("context::limits_roundtrip", limits_roundtrip),
        Test::gpu("context::cache_and_shared_config", cache_and_shared_config),
        Test::gpu("context::priority_range", priority_range),
        Test::gpu("context::mem_info", mem_info),
        Test::gpu("context::owned_and_stack", owned_and_stack),
        Test::gpu("context::unowned_in_threads", unowned_in_threads),
        Test::gpu("context::current_context_api", current_context_api),
        Test::gpu("context::deferred_drop_error", deferred_drop_error),
        Test::gpu(
            "context::host_fn_panic_is_reported",
            host_fn_panic_is_reported,
        ),
        Test::gpu("context::released_when_unused", released_when_unused),
        Test::gpu("context::primary_flags", primary_flags),
        Test::gpu(
            "context::host_memory_of_another_context_refused",
            host_memory_of_another_context_refused,
        ),
    ]
}

/// Serialises the tests that change settings of the (shared) primary context.
fn settings_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn flags_bits() -> TestResult {
    let f = ContextFlags::MAP_HOST | ContextFlags::SCHED_BLOCKING_SYNC;
    assert_eq!(f.bits(), 8 | 4);
    assert!(f.contains(ContextFlags::MAP_HOST));
    assert!(!f.contains(ContextFlags::SCHED_SPIN));
    assert_eq!(ContextFlags::from_bits(12), f);
    Ok(())
}

/// Round trip of fresh random data through `ctx`'s default stream.
fn roundtrip(ctx: &Arc<Context>, rng: &mut Rng, n: usize) -> TestResult {
    let s = ctx.default_stream();
    let host = rng.vec_u32(n);
    let d: DeviceBuffer<u32> = s.clone_htod(&host)?;
    let mut back = vec![0xDEAD_BEEFu32; n];
    s.memcpy_dtoh(&d, &mut back)?;
    assert_eq!(back, host);
    Ok(())
}

fn primary_is_shared() -> TestResult {
    let a = Context::new(0)?;
    let b = Context::new(0)?;
    assert!(Arc::ptr_eq(&a, &b));
    assert!(a.is_primary());
    assert_eq!(a.ordinal(), 0);
    assert_eq!(a.device(), Device::get(0)?);
    assert!(a.uses_memory_pool(), "an H100 supports memory pools");
    assert_eq!(a.pool_release_threshold()?, u64::MAX);
    roundtrip(&a, &mut Rng::fresh(), 1000)
}

fn ordinal_out_of_range() -> TestResult {
    let n = Device::count()?;
    let e = Context::new(n).err().ok_or("ordinal == count must fail")?;
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("{n} CUDA device")),
        "message should name the device count: {msg}"
    );
    assert!(matches!(e, Error::InvalidArgument(_)));
    Ok(())
}

fn bound_on_any_thread() -> TestResult {
    let ctx = Context::new(0)?;
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let ctx = ctx.clone();
            std::thread::spawn(move || -> Result<(), String> {
                let mut rng = Rng::seeded(1000 + i);
                roundtrip(&ctx, &mut rng, 4096 + i as usize).map_err(|e| e.to_string())?;
                let cur = CurrentContext::get_current().map_err(|e| e.to_string())?;
                assert_eq!(cur.map(|c| c.raw()), Some(ctx.raw()));
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "thread panicked")??;
    }
    Ok(())
}

fn limits_roundtrip() -> TestResult {
    let _settings = settings_lock();
    let ctx = Context::new(0)?;
    let old = ctx.limit(ResourceLimit::PrintfFifoSize)?;
    let want = old + (1 << 20) + (Rng::fresh().next_u64() as usize % 16) * 4096;
    ctx.set_limit(ResourceLimit::PrintfFifoSize, want)?;
    let got = ctx.limit(ResourceLimit::PrintfFifoSize)?;
    assert!(got >= want, "printf FIFO {got} < requested {want}");
    ctx.set_limit(ResourceLimit::PrintfFifoSize, old)?;
    let stack = ctx.limit(ResourceLimit::StackSize)?;
    assert!(stack >= 512, "stack size {stack}");
    let heap = ctx.limit(ResourceLimit::MallocHeapSize)?;
    assert!(heap > 0);
    Ok(())
}

fn cache_and_shared_config() -> TestResult {
    let _settings = settings_lock();
    let ctx = Context::new(0)?;
    let old = ctx.cache_config()?;
    ctx.set_cache_config(CacheConfig::PreferL1)?;
    assert_eq!(ctx.cache_config()?, CacheConfig::PreferL1);
    ctx.set_cache_config(CacheConfig::PreferShared)?;
    assert_eq!(ctx.cache_config()?, CacheConfig::PreferShared);
    ctx.set_cache_config(old)?;
    // What cuprite reports is what the driver reports, value for value.
    let raw_shared_config = || -> Result<u32, cuprite_driver::Error> {
        ctx.bind_to_thread()?;
        let mut c = cuprite_driver::sys::driver::CUsharedconfig::default();
        // SAFETY: a valid out-pointer; the context is current.
        unsafe { cuprite_driver::drv!(cuCtxGetSharedMemConfig(&mut c)) }?;
        Ok(c.0)
    };
    let expected = |raw: u32| match raw {
        0 => SharedMemoryConfig::DefaultBankSize,
        1 => SharedMemoryConfig::FourByteBankSize,
        2 => SharedMemoryConfig::EightByteBankSize,
        other => panic!("the driver reported shared-memory config {other}"),
    };
    let sm = ctx.shared_memory_config()?;
    assert_eq!(sm, expected(raw_shared_config()?));
    for want in [
        SharedMemoryConfig::FourByteBankSize,
        SharedMemoryConfig::EightByteBankSize,
        SharedMemoryConfig::DefaultBankSize,
    ] {
        // Devices without configurable banks ignore the set; the two reads still agree.
        ctx.set_shared_memory_config(want)?;
        assert_eq!(ctx.shared_memory_config()?, expected(raw_shared_config()?));
    }
    ctx.set_shared_memory_config(sm)?;
    let flags = ctx.flags()?;
    assert!(
        flags.bits() & !0xff == 0,
        "unknown flag bits {:#x}",
        flags.bits()
    );
    Ok(())
}

fn priority_range() -> TestResult {
    let ctx = Context::new(0)?;
    let r = ctx.stream_priority_range()?;
    assert!(r.greatest <= r.least, "{r:?}");
    assert!(r.greatest < 0, "an H100 has several priorities: {r:?}");
    let hi = ctx.new_stream_with_priority(r.greatest)?;
    assert_eq!(hi.priority()?, r.greatest);
    let lo = ctx.new_stream_with_priority(r.least)?;
    assert_eq!(lo.priority()?, r.least);
    let forked = hi.fork()?;
    assert_eq!(forked.priority()?, r.greatest);
    let x = forked.clone_htod(&[7u8, 8, 9])?;
    assert_eq!(forked.clone_dtoh(&x)?, vec![7, 8, 9]);
    Ok(())
}

fn mem_info() -> TestResult {
    let ctx = Context::new(0)?;
    let (free, total) = ctx.mem_info()?;
    assert!(free <= total && free > 0);
    assert_eq!(total, ctx.device().total_memory()?);
    Ok(())
}

fn owned_and_stack() -> TestResult {
    let dev = Device::get(0)?;
    let owned = Context::create_and_push(ContextFlags::MAP_HOST | ContextFlags::SCHED_AUTO, dev)?;
    assert!(!owned.is_primary());
    let cur = CurrentContext::get_current()?.ok_or("no current context")?;
    assert_eq!(cur.raw(), owned.raw());
    assert!(cur.api_version()? >= 3020);
    let flags = owned.flags()?;
    assert!(flags.contains(ContextFlags::MAP_HOST), "{flags:?}");
    let popped = ContextStack::pop()?;
    assert_eq!(popped.raw(), owned.raw());
    let after = CurrentContext::get_current()?;
    assert_ne!(after.map(|c| c.raw()), Some(owned.raw()));
    ContextStack::push(&popped)?;
    assert_eq!(
        CurrentContext::get_current()?.map(|c| c.raw()),
        Some(owned.raw())
    );
    // The owned context is distinct from the primary one and works on its own.
    let primary = Context::new(0)?;
    assert_ne!(primary.raw(), owned.raw());
    let mut rng = Rng::fresh();
    roundtrip(&owned, &mut rng, 3333)?;
    roundtrip(&primary, &mut rng, 2222)?;
    ContextStack::pop()?;
    Ok(())
}

fn unowned_in_threads() -> TestResult {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    let mut handles = vec![];
    for i in 0..4u64 {
        let unowned = ctx.get_unowned();
        let ctx = ctx.clone();
        handles.push(std::thread::spawn(move || -> Result<(), String> {
            CurrentContext::set_current(&unowned).map_err(|e| e.to_string())?;
            let cur = CurrentContext::get_current().map_err(|e| e.to_string())?;
            assert_eq!(cur, Some(unowned));
            let mut rng = Rng::seeded(i * 77 + 5);
            roundtrip(&ctx, &mut rng, 1000 * (i as usize + 1)).map_err(|e| e.to_string())
        }));
    }
    for h in handles {
        h.join().map_err(|_| "thread panicked")??;
    }
    ContextStack::pop()?;
    Ok(())
}

fn current_context_api() -> TestResult {
    let _settings = settings_lock();
    let ctx = Context::new(0)?;
    CurrentContext::set_current(&ctx)?;
    assert_eq!(CurrentContext::get_device()?, ctx.device());
    let r = CurrentContext::get_stream_priority_range()?;
    assert_eq!(r, ctx.stream_priority_range()?);
    CurrentContext::set_resource_limit(ResourceLimit::StackSize, 2048)?;
    assert!(CurrentContext::get_resource_limit(ResourceLimit::StackSize)? >= 2048);
    CurrentContext::set_cache_config(CacheConfig::PreferEqual)?;
    assert_eq!(
        CurrentContext::get_cache_config()?,
        CacheConfig::PreferEqual
    );
    CurrentContext::set_cache_config(CacheConfig::PreferNone)?;
    CurrentContext::get_shared_memory_config()?;
    CurrentContext::synchronize()?;
    Ok(())
}

fn deferred_drop_error() -> TestResult {
    // An owned context, so the provoked error cannot reach other tests.
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    // Ordinary (pageable) host memory handed over as if it were pinned: the driver refuses to
    // free it with cuMemFreeHost, on the host, without touching the device.
    let mut v = std::mem::ManuallyDrop::new(Rng::fresh().vec_u32(64));
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: deliberately breaks from_raw_parts' "from cuMemHostAlloc" contract (without
    // DEVICEMAP, so no device address is asked for): the free fails, which is what this test
    // needs; the memory stays valid and is given back to Rust below.
    let fake = unsafe {
        cuprite_driver::PinnedHostBuffer::from_raw_parts(
            &ctx,
            ptr,
            len,
            cuprite_driver::HostAllocFlags::NONE,
        )
    }?;
    drop(fake);
    // SAFETY: the Vec's own parts; cuMemFreeHost refused them, so they are still allocated.
    drop(unsafe { Vec::from_raw_parts(ptr, len, cap) });
    let e = ctx
        .synchronize()
        .err()
        .ok_or("the failed free must be reported")?;
    match &e {
        Error::Deferred { operation, source } => {
            assert!(operation.contains("cuMemFreeHost"), "{operation}");
            assert!(source.code().is_some(), "{source}");
        }
        other => return Err(format!("expected Error::Deferred, got {other}").into()),
    }
    // Reported once; the context stays usable.
    ctx.synchronize()?;
    roundtrip(&ctx, &mut Rng::fresh(), 100)
}

fn host_fn_panic_is_reported() -> TestResult {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let s = ctx.new_stream()?;
    // The panic happens on the driver's callback thread: its message carries the marker that
    // keeps it off stderr.
    crate::quietly(|| ()); // installs the hook
    s.launch_host_fn(|| panic!("boom in a host function {}", crate::EXPECTED_PANIC))?;
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let setter = |f: &Arc<std::sync::atomic::AtomicBool>| {
        let f = f.clone();
        move || f.store(true, std::sync::atomic::Ordering::SeqCst)
    };
    // The panic is returned by the first call that binds the context after it was recorded:
    // this launch, the synchronize below, or (recorded after synchronize's bind check) neither.
    let early = s.launch_host_fn(setter(&flag)).err();
    if early.is_some() {
        s.launch_host_fn(setter(&flag))?;
    }
    let e = match early.or_else(|| s.synchronize().err()) {
        Some(e) => e,
        None => ctx.check_deferred().err().ok_or("panic not reported")?,
    };
    assert!(e.to_string().contains("boom in a host function"), "{e}");
    s.synchronize()?;
    assert!(
        flag.load(std::sync::atomic::Ordering::SeqCst),
        "the stream keeps running after a panic"
    );
    roundtrip(&ctx, &mut Rng::fresh(), 10)
}

fn released_when_unused() -> TestResult {
    // Streams, buffers and tracking events hold their context; nothing may hold it in a cycle.
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let weak = Arc::downgrade(&ctx);
    {
        let d = ctx.default_stream();
        let p = ctx.per_thread_stream();
        let s = ctx.new_stream()?;
        let mut rng = Rng::fresh();
        let a = d.clone_htod(&rng.vec_u32(1000))?;
        let b = s.clone_dtod(&a)?; // multi-stream mode: events recorded
        let _c = p.clone_dtod(&b)?;
        assert!(ctx.is_multi_stream());
        s.synchronize()?;
    }
    drop(ctx);
    assert!(weak.upgrade().is_none(), "the context leaked");
    Ok(())
}

fn primary_state(dev: &Device) -> Result<(u32, bool), Box<dyn std::error::Error + Send + Sync>> {
    let (mut flags, mut active) = (0u32, 0i32);
    // SAFETY: valid out-pointers and device handle.
    let r = unsafe {
        cuprite_driver::sys::driver::cuDevicePrimaryCtxGetState(dev.raw(), &mut flags, &mut active)
    }?;
    assert!(r.is_success(), "{r:?}");
    Ok((flags, active != 0))
}

fn primary_flags() -> TestResult {
    let _settings = settings_lock();
    // The driver updates the flags of an active primary context (CUDA >= 11).
    let ctx = Context::new_with_flags(0, ContextFlags::SCHED_YIELD | ContextFlags::MAP_HOST)?;
    let (flags, active) = primary_state(&ctx.device())?;
    assert!(active);
    assert_eq!(flags & 7, ContextFlags::SCHED_YIELD.bits(), "{flags:#x}");
    let back = Context::new_with_flags(0, ContextFlags::SCHED_AUTO)?;
    assert!(Arc::ptr_eq(&ctx, &back));
    assert_eq!(primary_state(&ctx.device())?.0 & 7, 0);
    roundtrip(&ctx, &mut Rng::fresh(), 512)
}

/// Pinned and managed memory of one context used by a copy on a stream of another (whose work
/// the buffer's host accessors would not wait for) is refused with an `Err` naming both
/// contexts, before anything is enqueued; the same copies on the buffer's own context work.
fn host_memory_of_another_context_refused() -> TestResult {
    use cuprite_driver::{HostAllocFlags, ManagedBuffer, PinnedHostBuffer};
    let primary = Context::new(0)?;
    let other = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let s = other.new_stream()?;
    let n = 4096;
    let mut pinned = PinnedHostBuffer::<u32>::new(&primary, n, HostAllocFlags::PORTABLE)?;
    let mut managed = ManagedBuffer::<u32>::new(&primary, n)?;
    let mut d = s.clone_htod(&vec![3u32; n])?;
    let names_both = |e: &Error| {
        let m = e.to_string();
        m.contains(&format!("{:?}", primary.raw())) && m.contains(&format!("{:?}", other.raw()))
    };
    let e = s
        .memcpy_dtoh(&d, &mut pinned)
        .expect_err("dtoh into foreign pinned");
    assert!(names_both(&e), "{e}");
    let e = s
        .memcpy_htod(&pinned, &mut d)
        .expect_err("htod from foreign pinned");
    assert!(names_both(&e), "{e}");
    let e = s
        .memcpy_dtod(&d, &mut managed)
        .expect_err("dtod into foreign managed");
    assert!(names_both(&e), "{e}");
    s.synchronize()?;
    assert!(pinned.as_slice()?.iter().all(|&v| v == 0));
    assert!(managed.as_slice()?.iter().all(|&v| v == 0));
    let own = primary.new_stream()?;
    let src = own.clone_htod(&vec![5u32; n])?;
    own.memcpy_dtoh(&src, &mut pinned)?;
    own.memcpy_dtod(&src, &mut managed)?;
    assert!(pinned.as_slice()?.iter().all(|&v| v == 5));
    assert!(managed.as_slice()?.iter().all(|&v| v == 5));
    Ok(())
}
