//! Stream-safety tests. Each uses its own owned context, so that its single- or multi-stream
//! mode is not changed by tests running beside it. The hazards are made wide on purpose: a
//! host function that sleeps holds one stream back, so work on another stream that did not
//! wait would run first and produce wrong values.

use cuprite_driver::{
    Access, Context, ContextFlags, ContextStack, Device, DeviceBuffer, DeviceRead, HostAllocFlags,
    PinnedHostBuffer, Stream,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::sync::Arc;
use std::time::Duration;

pub fn tests() -> Vec<Test> {
    vec![
        Test::gpu(
            "tracking::single_stream_records_nothing",
            single_stream_records_nothing,
        ),
        Test::gpu("tracking::read_waits_for_writer", read_waits_for_writer),
        Test::gpu(
            "tracking::write_waits_for_all_readers",
            write_waits_for_all_readers,
        ),
        Test::gpu("tracking::write_waits_for_writer", write_waits_for_writer),
        Test::gpu("tracking::free_waits_for_readers", free_waits_for_readers),
        Test::gpu(
            "tracking::switch_covers_untracked_work",
            switch_covers_untracked_work,
        ),
        Test::gpu(
            "tracking::view_halves_on_two_streams",
            view_halves_on_two_streams,
        ),
        Test::gpu("tracking::pinned_host_waits", pinned_host_waits),
        Test::gpu(
            "tracking::access_api_for_foreign_work",
            access_api_for_foreign_work,
        ),
        Test::gpu(
            "tracking::per_thread_streams_count",
            per_thread_streams_count,
        ),
        Test::gpu(
            "tracking::many_threads_many_streams",
            many_threads_many_streams,
        ),
        Test::gpu(
            "tracking::waits_once_per_recording",
            waits_once_per_recording,
        ),
    ]
}

const N: usize = 16 << 20; // 64 MiB of u32

fn own_context() -> cuprite_driver::Result<Arc<Context>> {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, Device::get(0)?)?;
    ContextStack::pop()?;
    Ok(ctx)
}

fn sleep_on(s: &Stream, ms: u64) -> cuprite_driver::Result<()> {
    s.launch_host_fn(move || std::thread::sleep(Duration::from_millis(ms)))
}

/// An owned context already in multi-stream mode, with three streams.
type Multi = (Arc<Context>, Arc<Stream>, Arc<Stream>, Arc<Stream>);

fn multi() -> cuprite_driver::Result<Multi> {
    let ctx = own_context()?;
    let (a, b, c) = (ctx.new_stream()?, ctx.new_stream()?, ctx.new_stream()?);
    let x = a.alloc_zeros::<u8>(16)?;
    let _y = b.clone_dtod(&x)?; // a second stream: multi-stream mode from here on
    assert!(ctx.is_multi_stream());
    Ok((ctx, a, b, c))
}

fn single_stream_records_nothing() -> TestResult {
    let ctx = own_context()?;
    let s = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(10_000);
    let mut a = s.clone_htod(&host)?;
    let b = s.clone_dtod(&a)?;
    s.memset_d32(&mut a, 5)?;
    let acc = [Access::read(&b), Access::write(&a)];
    s.begin_access(&acc)?;
    s.end_access(&acc)?;
    assert_eq!(s.clone_dtoh(&b)?, host);
    assert!(!ctx.is_multi_stream());
    assert!(!a.tracker().has_recorded_writer() && !b.tracker().has_recorded_writer());
    assert_eq!(b.tracker().pending_reader_streams(), 0);
    // The same stream object reached through another Arc is still the same stream.
    let same = s.clone();
    let _c = same.clone_dtod(&b)?;
    assert!(!ctx.is_multi_stream());
    // A second stream that touches a buffer switches the context.
    let t = ctx.new_stream()?;
    assert!(!ctx.is_multi_stream(), "creating a stream is not using it");
    let d = t.clone_dtod(&b)?;
    assert!(ctx.is_multi_stream());
    assert!(d.tracker().has_recorded_writer());
    assert_eq!(t.clone_dtoh(&d)?, host);
    Ok(())
}

fn read_waits_for_writer() -> TestResult {
    let (_ctx, a, b, _) = multi()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(N);
    let mut buf = a.clone_htod(&host)?;
    let v = rng.next_u64() as u32 | 1;
    sleep_on(&a, 300)?;
    a.memset_d32(&mut buf, v)?; // runs 300 ms from now
    let got = b.clone_dtoh(&buf)?; // must wait for it
    assert!(
        got.iter().all(|&x| x == v),
        "read on b did not wait for a's write"
    );
    Ok(())
}

fn write_waits_for_all_readers() -> TestResult {
    let (_ctx, s1, s2, s3) = multi()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(N);
    let mut src = s3.clone_htod(&host)?;
    // SAFETY: fully written by the copies below before any read.
    let mut r1 = unsafe { s1.alloc::<u32>(N) }?;
    // SAFETY: as above.
    let mut r2 = unsafe { s2.alloc::<u32>(N) }?;
    // Two readers on two streams, the first held back longest, the second recorded last.
    sleep_on(&s1, 400)?;
    s1.memcpy_dtod(&src, &mut r1)?;
    sleep_on(&s2, 150)?;
    s2.memcpy_dtod(&src, &mut r2)?;
    assert_eq!(src.tracker().pending_reader_streams(), 2);
    // The writer must wait for both readers (waiting only for the last one would let s1's
    // copy see the poison).
    s3.memset_d32(&mut src, 0xBAD0_BAD0)?;
    assert_eq!(src.tracker().pending_reader_streams(), 0);
    assert_eq!(
        s3.clone_dtoh(&r1)?,
        host,
        "reader on s1 saw the later write"
    );
    assert_eq!(
        s3.clone_dtoh(&r2)?,
        host,
        "reader on s2 saw the later write"
    );
    assert!(s3.clone_dtoh(&src)?.iter().all(|&x| x == 0xBAD0_BAD0));
    Ok(())
}

fn write_waits_for_writer() -> TestResult {
    let (_ctx, a, b, _) = multi()?;
    let mut rng = Rng::fresh();
    let mut buf = a.clone_htod(&rng.vec_u32(N))?;
    let (x, y) = (rng.next_u64() as u32 | 1, rng.next_u64() as u32 & !1);
    sleep_on(&a, 300)?;
    a.memset_d32(&mut buf, x)?;
    b.memset_d32(&mut buf, y)?; // must land after a's
    assert!(a.clone_dtoh(&buf)?.iter().all(|&v| v == y));
    Ok(())
}

fn free_waits_for_readers() -> TestResult {
    let (_ctx, a, b, _) = multi()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(N);
    let src = a.clone_htod(&host)?;
    // SAFETY: fully written by the copy below before any read.
    let mut out = unsafe { b.alloc::<u32>(N) }?;
    sleep_on(&b, 300)?;
    b.memcpy_dtod(&src, &mut out)?; // reads src 300 ms from now
    drop(src); // freed on a, which must wait for b's read
    // The pool may give src's memory straight back on a: poison it at once.
    let mut again = a.alloc_zeros::<u32>(N)?;
    a.memset_d32(&mut again, 0xDEAD_DEAD)?;
    assert_eq!(
        b.clone_dtoh(&out)?,
        host,
        "the free did not wait for the reader"
    );
    Ok(())
}

fn switch_covers_untracked_work() -> TestResult {
    // Work enqueued in single-stream mode has no events: the switch must still order it.
    let ctx = own_context()?;
    let a = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let mut buf = a.clone_htod(&rng.vec_u32(N))?;
    let v = rng.next_u64() as u32 | 1;
    sleep_on(&a, 300)?;
    a.memset_d32(&mut buf, v)?;
    assert!(!ctx.is_multi_stream());
    let b = ctx.new_stream()?;
    let got = b.clone_dtoh(&buf)?;
    assert!(ctx.is_multi_stream());
    assert!(got.iter().all(|&x| x == v));
    Ok(())
}

fn view_halves_on_two_streams() -> TestResult {
    let (_ctx, a, b, c) = multi()?;
    let mut rng = Rng::fresh();
    let mut buf = c.clone_htod(&rng.vec_u32(N))?;
    let (x, y) = (rng.next_u64() as u32, rng.next_u64() as u32);
    {
        let (mut lo, mut hi) = buf.split_at_mut(N / 2)?;
        sleep_on(&a, 200)?;
        a.memset_d32(&mut lo, x)?;
        b.memset_d32(&mut hi, y)?; // shares the tracker: ordered after a's write
    }
    let got = c.clone_dtoh(&buf)?;
    assert!(got[..N / 2].iter().all(|&v| v == x));
    assert!(got[N / 2..].iter().all(|&v| v == y));
    Ok(())
}

fn pinned_host_waits() -> TestResult {
    let (ctx, a, b, _) = multi()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(1 << 20);
    let d = b.clone_htod(&host)?;
    let mut pinned = PinnedHostBuffer::<u32>::new(&ctx, 1 << 20, HostAllocFlags::NONE)?;
    pinned.as_mut_slice()?.fill(7);
    sleep_on(&a, 250)?;
    a.memcpy_dtoh(&d, &mut pinned)?; // returns at once; lands 250 ms from now
    assert_eq!(pinned.as_slice()?, &host[..], "as_slice did not wait");
    // A copy from pinned memory on another stream waits for the pinned buffer's writer.
    let mut other = a.alloc_zeros::<u32>(1 << 20)?;
    pinned.as_mut_slice()?[0] = 42;
    sleep_on(&a, 200)?;
    a.memcpy_dtoh(&d, &mut pinned)?; // rewrites pinned[0] to host[0]
    b.memcpy_htod(&pinned, &mut other)?;
    assert_eq!(b.clone_dtoh(&other)?, host);
    Ok(())
}

fn access_api_for_foreign_work() -> TestResult {
    use cuprite_driver::sys::driver as sys;
    let (_ctx, a, b, _) = multi()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(N);
    let mut src = a.clone_htod(&rng.vec_u32(N))?;
    // SAFETY: fully written by the foreign copy below before any read.
    let dst: DeviceBuffer<u32> = unsafe { b.alloc(N) }?;
    sleep_on(&a, 250)?;
    a.memcpy_htod(&host, &mut src)?;
    // "Foreign" work: a raw copy enqueued on b, declared through the access API.
    let (dptr, sptr) = (dst.device_ptr(), src.device_ptr());
    let acc = [Access::read(&src), Access::write(&dst)];
    b.begin_access(&acc)?;
    // SAFETY: both buffers hold N u32; the access API ordered b after a's write.
    let r = unsafe { sys::cuMemcpyDtoDAsync_v2(dptr, sptr, N * 4, b.raw()) }?;
    assert!(r.is_success());
    b.end_access(&acc)?;
    assert_eq!(a.clone_dtoh(&dst)?, host);
    Ok(())
}

fn per_thread_streams_count() -> TestResult {
    let ctx = own_context()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(1 << 20);
    let buf = ctx.per_thread_stream().clone_htod(&host)?;
    assert!(!ctx.is_multi_stream());
    let buf = Arc::new(buf);
    let (c2, b2) = (ctx.clone(), buf.clone());
    let got = std::thread::spawn(move || -> Result<Vec<u32>, String> {
        c2.per_thread_stream()
            .clone_dtoh(&*b2)
            .map_err(|e| e.to_string())
    })
    .join()
    .map_err(|_| "thread panicked")??;
    assert!(
        ctx.is_multi_stream(),
        "another thread's per-thread stream is a second stream"
    );
    assert_eq!(got, host);
    Ok(())
}

fn many_threads_many_streams() -> TestResult {
    let ctx = own_context()?;
    let shared_host = Rng::fresh().vec_u32(1 << 20);
    let shared = Arc::new(ctx.default_stream().clone_htod(&shared_host)?);
    let handles: Vec<_> = (0..6u64)
        .map(|t| {
            let (ctx, shared, shared_host) = (ctx.clone(), shared.clone(), shared_host.clone());
            std::thread::spawn(move || -> Result<(), String> {
                let run = || -> cuprite_driver::Result<()> {
                    let s = ctx.new_stream()?;
                    let mut rng = Rng::seeded(t * 1000 + 1);
                    for i in 0..20 {
                        let host = rng.vec_u32(10_000 + i);
                        let mut d = s.clone_htod(&host)?;
                        let copy = s.clone_dtod(&*shared)?;
                        s.memset_d32(&mut d.slice_mut(0..10)?, t as u32)?;
                        let back = s.clone_dtoh(&d)?;
                        assert!(back[..10].iter().all(|&x| x == t as u32));
                        assert_eq!(&back[10..], &host[10..]);
                        assert_eq!(s.clone_dtoh(&copy)?, shared_host);
                    }
                    Ok(())
                };
                run().map_err(|e| e.to_string())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "thread panicked")??;
    }
    assert!(ctx.is_multi_stream());
    assert!(shared.tracker().pending_reader_streams() >= 1);
    Ok(())
}

/// A stream waits once for a given recording of a buffer's writer: a second read on the same
/// stream enqueues no wait, a new write makes the next read wait again, another stream waits
/// for itself; every read sees the write it was ordered after (each write held back on its
/// stream, so a read that did not wait would see the old values).
fn waits_once_per_recording() -> TestResult {
    let (_ctx, a, b, c) = multi()?;
    let mut rng = Rng::fresh();
    let host = rng.vec_u32(N);
    let mut buf = a.clone_htod(&host)?;
    let waits = || cuprite_driver::stats::thread_stats().stream_waits;
    let read_on = |s: &Arc<Stream>,
                   src: &DeviceBuffer<u32>|
     -> cuprite_driver::Result<(u64, DeviceBuffer<u32>)> {
        // SAFETY: fully written by the copy below before any read.
        let mut d = unsafe { s.alloc::<u32>(N) }?;
        let before = waits();
        s.memcpy_dtod(src, &mut d)?;
        Ok((waits() - before, d))
    };
    let v1 = rng.next_u64() as u32 | 1;
    sleep_on(&a, 300)?;
    a.memset_d32(&mut buf, v1)?;
    let (w1, d1) = read_on(&b, &buf)?;
    let (w2, d2) = read_on(&b, &buf)?;
    assert_eq!(
        (w1, w2),
        (1, 0),
        "waits of two reads on one stream of one write"
    );
    let v2 = v1.wrapping_add(2);
    sleep_on(&a, 300)?;
    a.memset_d32(&mut buf, v2)?;
    let (w3, d3) = read_on(&b, &buf)?;
    let (w4, d4) = read_on(&c, &buf)?;
    let (w5, d5) = read_on(&c, &buf)?;
    assert_eq!(
        (w3, w4, w5),
        (1, 1, 0),
        "waits after a new write, on two streams"
    );
    for (k, (s, d, v)) in [
        (&b, d1, v1),
        (&b, d2, v1),
        (&b, d3, v2),
        (&c, d4, v2),
        (&c, d5, v2),
    ]
    .into_iter()
    .enumerate()
    {
        let got = s.clone_dtoh(&d)?;
        assert!(
            got.iter().all(|&x| x == v),
            "read {k} did not see the write it waited for"
        );
    }
    Ok(())
}
