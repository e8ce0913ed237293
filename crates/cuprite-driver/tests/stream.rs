use cuprite_driver::{
    Context, ContextFlags, ContextStack, Device, Error, Event, EventFlags, Stream,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("event::flags_bits", event_flags_bits),
        Test::gpu("stream::default_and_per_thread", default_and_per_thread),
        Test::gpu("stream::fork_waits_for_source", fork_waits_for_source),
        Test::gpu("stream::join_waits_for_other", join_waits_for_other),
        Test::gpu("stream::wait_event", wait_event),
        Test::gpu("stream::join_across_contexts", join_across_contexts),
        Test::gpu(
            "event::record_on_other_context_is_err",
            record_on_other_context_is_err,
        ),
        Test::gpu("stream::is_idle", is_idle),
        Test::gpu("stream::host_fns_run_in_order", host_fns_run_in_order),
        Test::gpu(
            "stream::driver_calls_refused_in_host_fn",
            driver_calls_refused_in_host_fn,
        ),
        Test::gpu("stream::from_raw_null_is_default", from_raw_null_is_default),
        Test::gpu(
            "stream::from_raw_does_not_destroy",
            from_raw_does_not_destroy,
        ),
        Test::gpu("event::timing_and_query", event_timing_and_query),
        Test::gpu("event::flags_create", event_flags_create),
    ]
}

fn event_flags_bits() -> TestResult {
    let f = EventFlags::DISABLE_TIMING | EventFlags::INTERPROCESS;
    assert_eq!(f.bits(), 6);
    assert!(f.contains(EventFlags::INTERPROCESS));
    assert!(!f.contains(EventFlags::BLOCKING_SYNC));
    Ok(())
}

/// Enqueues a host function that sleeps `ms` and then stores `value` into `cell`.
fn slow_set(s: &Stream, ms: u64, cell: &Arc<AtomicU32>, value: u32) -> cuprite_driver::Result<()> {
    let cell = cell.clone();
    s.launch_host_fn(move || {
        std::thread::sleep(Duration::from_millis(ms));
        cell.store(value, Ordering::SeqCst);
    })
}

/// Enqueues a host function that copies `from` into `into` when it runs.
fn observe(s: &Stream, from: &Arc<AtomicU32>, into: &Arc<AtomicU32>) -> cuprite_driver::Result<()> {
    let (from, into) = (from.clone(), into.clone());
    s.launch_host_fn(move || into.store(from.load(Ordering::SeqCst), Ordering::SeqCst))
}

/// A cuprite call inside a host function is an `Err` made before any driver call; a buffer
/// whose last owner is the closure leaks, its refused free reported once as a deferred error;
/// the context, on its own so that no other test sees that error, stays usable.
fn driver_calls_refused_in_host_fn() -> TestResult {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let s = ctx.new_stream()?;
    let other = ctx.new_stream()?;
    let (tx, rx) = std::sync::mpsc::channel();
    let o = other.clone();
    s.launch_host_fn(move || {
        let copy = o.clone_htod(&[1u32, 2, 3]).map(|_| ());
        let sync = o.synchronize();
        let _ = tx.send((
            copy.map_err(|e| e.to_string()),
            sync.map_err(|e| e.to_string()),
        ));
    })?;
    s.synchronize()?;
    let (copy, sync) = rx.recv_timeout(Duration::from_secs(30))?;
    for (what, r) in [("a copy", copy), ("a synchronisation", sync)] {
        let e = r.expect_err(what);
        assert!(e.contains("inside a host function"), "{what}: {e}");
    }
    ctx.check_deferred()?;
    let buf = other.clone_htod(&[7u32; 64])?;
    s.launch_host_fn(move || drop(buf))?;
    // The error is deferred while the host function runs: the synchronisation returns it when
    // the function ran before its call, else the next check does.
    let e = match s.synchronize() {
        Err(e) => e,
        Ok(()) => ctx.check_deferred().expect_err("the refused free"),
    };
    assert!(e.to_string().contains("inside a host function"), "{e}");
    ctx.check_deferred()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_f32(4096, -1.0, 1.0);
    let x = other.clone_htod(&host)?;
    assert_eq!(s.clone_dtoh(&x)?, host);
    Ok(())
}

fn default_and_per_thread() -> TestResult {
    let ctx = Context::new(0)?;
    let d = ctx.default_stream();
    assert!(d.is_default() && d.raw().is_null());
    assert!(ctx.default_stream().is_default());
    let p = ctx.per_thread_stream();
    assert!(p.is_per_thread());
    assert_eq!(p.raw(), cuprite_driver::sys::driver::CU_STREAM_PER_THREAD);
    let mut rng = Rng::fresh();
    let host = rng.vec_f32(5000, -3.0, 3.0);
    let x = p.clone_htod(&host)?;
    assert_eq!(p.clone_dtoh(&x)?, host);
    let y = d.clone_dtod(&x)?;
    assert_eq!(d.clone_dtoh(&y)?, host);
    Ok(())
}

fn fork_waits_for_source() -> TestResult {
    let ctx = Context::new(0)?;
    let a = ctx.new_stream()?;
    let cell = Arc::new(AtomicU32::new(0));
    let seen = Arc::new(AtomicU32::new(99));
    let v = Rng::fresh().next_u64() as u32 | 1;
    slow_set(&a, 150, &cell, v)?;
    let b = a.fork()?;
    observe(&b, &cell, &seen)?;
    b.synchronize()?;
    assert_eq!(
        seen.load(Ordering::SeqCst),
        v,
        "fork must wait for the source"
    );
    Ok(())
}

fn join_waits_for_other() -> TestResult {
    let ctx = Context::new(0)?;
    let a = ctx.new_stream()?;
    let b = ctx.new_stream()?;
    let cell = Arc::new(AtomicU32::new(0));
    let seen = Arc::new(AtomicU32::new(99));
    let v = Rng::fresh().next_u64() as u32 | 1;
    slow_set(&b, 150, &cell, v)?;
    a.join(&b)?;
    observe(&a, &cell, &seen)?;
    a.synchronize()?;
    assert_eq!(
        seen.load(Ordering::SeqCst),
        v,
        "join must wait for the other"
    );
    Ok(())
}

fn wait_event() -> TestResult {
    let ctx = Context::new(0)?;
    let a = ctx.new_stream()?;
    let b = ctx.new_stream()?;
    let cell = Arc::new(AtomicU32::new(0));
    let seen = Arc::new(AtomicU32::new(99));
    let v = Rng::fresh().next_u64() as u32 | 1;
    slow_set(&b, 150, &cell, v)?;
    let ev = b.record_event(EventFlags::DISABLE_TIMING)?;
    a.wait(&ev)?;
    observe(&a, &cell, &seen)?;
    a.synchronize()?;
    assert_eq!(seen.load(Ordering::SeqCst), v);
    Ok(())
}

/// A stream of the primary context and one of an owned context of the same device: each
/// waits for the other's work, both through `join` and through an event of the other context.
fn join_across_contexts() -> TestResult {
    let primary = Context::new(0)?;
    let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let a = primary.new_stream()?;
    let b = owned.new_stream()?;
    let mut rng = Rng::fresh();
    for (waiter, worker) in [(&a, &b), (&b, &a), (&a, &owned.default_stream())] {
        let cell = Arc::new(AtomicU32::new(0));
        let seen = Arc::new(AtomicU32::new(99));
        let v = rng.next_u64() as u32 | 1;
        slow_set(worker, 100, &cell, v)?;
        waiter.join(worker)?;
        observe(waiter, &cell, &seen)?;
        waiter.synchronize()?;
        assert_eq!(seen.load(Ordering::SeqCst), v, "join across contexts");
        // The same through an event of the worker's context.
        let v2 = v.wrapping_add(2);
        slow_set(worker, 100, &cell, v2)?;
        let ev = worker.record_event(EventFlags::DISABLE_TIMING)?;
        waiter.wait(&ev)?;
        observe(waiter, &cell, &seen)?;
        waiter.synchronize()?;
        assert_eq!(
            seen.load(Ordering::SeqCst),
            v2,
            "wait on another context's event"
        );
    }
    Ok(())
}

/// An event of one context cannot be recorded on a stream of another (the driver refuses):
/// a clear `Err` naming both, and both streams work on.
fn record_on_other_context_is_err() -> TestResult {
    let primary = Context::new(0)?;
    let owned = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    let b = owned.new_stream()?;
    let ev = Event::new(&primary, EventFlags::DISABLE_TIMING)?;
    let e = ev.record(&b).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("own context"), "{msg}");
    assert!(msg.contains(&format!("{:?}", owned.raw())), "{msg}");
    assert!(msg.contains(&format!("{:?}", primary.raw())), "{msg}");
    // Nothing is broken: both contexts' streams still record and run.
    let host = Rng::fresh().vec_u32(1000);
    assert_eq!(b.clone_dtoh(&b.clone_htod(&host)?)?, host);
    ev.record(&primary.default_stream())?;
    ev.synchronize()?;
    Ok(())
}

fn is_idle() -> TestResult {
    let ctx = Context::new(0)?;
    let s = ctx.new_stream()?;
    assert!(s.is_idle()?);
    let cell = Arc::new(AtomicU32::new(0));
    slow_set(&s, 300, &cell, 5)?;
    assert!(
        !s.is_idle()?,
        "a sleeping host function keeps the stream busy"
    );
    s.synchronize()?;
    assert!(s.is_idle()?);
    assert_eq!(cell.load(Ordering::SeqCst), 5);
    Ok(())
}

fn host_fns_run_in_order() -> TestResult {
    let ctx = Context::new(0)?;
    let s = ctx.new_stream()?;
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut rng = Rng::fresh();
    let values: Vec<u32> = rng.vec_u32(20);
    for &v in &values {
        let log = log.clone();
        s.launch_host_fn(move || log.lock().unwrap().push(v))?;
    }
    s.synchronize()?;
    assert_eq!(*log.lock().unwrap(), values);
    Ok(())
}

fn from_raw_null_is_default() -> TestResult {
    let ctx = Context::new(0)?;
    // SAFETY: the null handle names the context's default stream.
    let s = unsafe { Stream::from_raw(&ctx, std::ptr::null_mut()) };
    assert!(s.is_default() && s.raw().is_null());
    let host: Vec<u32> = Rng::fresh().vec_u32(77);
    let x = s.clone_htod(&host)?;
    assert_eq!(ctx.default_stream().clone_dtoh(&x)?, host);
    Ok(())
}

fn from_raw_does_not_destroy() -> TestResult {
    use cuprite_driver::sys::driver as sys;
    let ctx = Context::new(0)?;
    ctx.bind_to_thread()?;
    let mut raw = std::ptr::null_mut();
    // SAFETY: valid out-pointer; the context is current.
    let r = unsafe { sys::cuStreamCreate(&mut raw, 1) }?;
    assert!(r.is_success());
    {
        // SAFETY: `raw` is a live stream of `ctx`, destroyed below after the wrapper is gone.
        let s = unsafe { Stream::from_raw(&ctx, raw) };
        assert_eq!(s.raw(), raw);
        let host: Vec<u32> = Rng::fresh().vec_u32(500);
        let x = s.clone_htod(&host)?;
        assert_eq!(s.clone_dtoh(&x)?, host);
    }
    // The wrapper (and the buffer freed on it) are gone; the stream must still be alive.
    // SAFETY: `raw` is still owned by this test.
    let q = unsafe { sys::cuStreamSynchronize(raw) }?;
    assert!(q.is_success(), "{q:?}");
    // SAFETY: this test created the stream and destroys it once.
    let d = unsafe { sys::cuStreamDestroy_v2(raw) }?;
    assert!(d.is_success());
    Ok(())
}

fn event_timing_and_query() -> TestResult {
    let ctx = Context::new(0)?;
    let s = ctx.new_stream()?;
    let start = Event::new(&ctx, EventFlags::DEFAULT)?;
    let end = Event::new(&ctx, EventFlags::BLOCKING_SYNC)?;
    start.record(&s)?;
    let cell = Arc::new(AtomicU32::new(0));
    slow_set(&s, 120, &cell, 1)?;
    end.record(&s)?;
    assert!(
        !end.query()?,
        "the event waits behind a sleeping host function"
    );
    end.synchronize()?;
    assert!(end.query()?);
    let ms = start.elapsed_ms(&end)?;
    assert!((110.0..5000.0).contains(&ms), "elapsed {ms} ms");
    assert_eq!(cell.load(Ordering::SeqCst), 1);
    Ok(())
}

fn event_flags_create() -> TestResult {
    let ctx = Context::new(0)?;
    let s = ctx.default_stream();
    let a = s.record_event(EventFlags::DISABLE_TIMING)?;
    let b = s.record_event(EventFlags::DISABLE_TIMING)?;
    b.synchronize()?;
    // No timing on DISABLE_TIMING events: the driver refuses.
    crate::assert_err(a.elapsed_ms(&b), "Driver", "cuEventElapsedTime");
    let ipc = Event::new(&ctx, EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING)?;
    assert_eq!(
        ipc.flags(),
        EventFlags::INTERPROCESS | EventFlags::DISABLE_TIMING
    );
    ipc.record(&s)?;
    ipc.synchronize()?;
    assert!(ipc.query()?);
    Ok(())
}
