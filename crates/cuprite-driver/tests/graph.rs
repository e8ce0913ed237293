//! CUDA graphs: capture, replay, upload, update; stream-ordered allocation inside a capture;
//! tracked buffers read and written on two streams during one capture.
//!
//! Captures here are thread-local: the tests of this binary run in parallel threads on one
//! primary context, and a global-mode capture forbids unsafe calls in every thread (the `graph`
//! example covers global mode, alone in its process). Even so, each test here runs alone
//! (`Test::gpu_alone`): work of other threads can still invalidate a capture (implicit
//! synchronisation with a capturing stream, the calls compute-sanitizer adds), and then both
//! the capture and the other thread's call fail.

use cuprite_driver::{
    CaptureMode, CaptureStatus, Context, ContextFlags, ContextStack, DeviceBuffer, DeviceRead,
    DeviceViewMut, Error, LaunchConfig, Module, Tracker,
};
use cuprite_testkit::{Rng, Test, TestResult};
use std::sync::Arc;

pub fn tests() -> Vec<Test> {
    vec![
        Test::gpu_alone("graph::capture_replay_update", capture_replay_update),
        Test::gpu_alone("graph::alloc_inside_capture", alloc_inside_capture),
        Test::gpu_alone(
            "graph::allocation_escaping_capture_refused",
            allocation_escaping_capture_refused,
        ),
        Test::gpu_alone("graph::two_streams_tracked_in_capture", two_streams_tracked),
        Test::gpu_alone(
            "graph::pre_capture_dependency_waited",
            pre_capture_dependency,
        ),
        Test::gpu_alone(
            "graph::replay_keeps_dropped_buffers_alive",
            replay_keeps_dropped_buffers_alive,
        ),
        Test::gpu_alone(
            "graph::replay_is_tracked_across_streams",
            replay_is_tracked_across_streams,
        ),
        Test::gpu_alone(
            "graph::replay_of_gone_borrowed_memory_is_err",
            replay_of_gone_borrowed_memory_is_err,
        ),
        Test::gpu_alone(
            "graph::context_sync_elsewhere_leaves_capture_intact",
            context_sync_elsewhere_leaves_capture_intact,
        ),
        Test::gpu_alone(
            "graph::pinned_drop_elsewhere_leaves_capture_intact",
            pinned_drop_elsewhere_leaves_capture_intact,
        ),
        Test::gpu_alone(
            "graph::fft_plan_drop_elsewhere_leaves_capture_intact",
            fft_plan_drop_elsewhere_leaves_capture_intact,
        ),
        Test::gpu_alone(
            "graph::spsv_plan_drop_elsewhere_leaves_capture_intact",
            spsv_plan_drop_elsewhere_leaves_capture_intact,
        ),
        Test::gpu_alone(
            "graph::dnn_drop_elsewhere_leaves_capture_intact",
            dnn_drop_elsewhere_leaves_capture_intact,
        ),
        Test::gpu_alone(
            "graph::host_functions_refused_in_capture",
            host_functions_refused_in_capture,
        ),
        Test::gpu_alone(
            "graph::other_thread_never_joins_capture",
            other_thread_never_joins_capture,
        ),
        Test::gpu_alone(
            "graph::explicitly_joined_streams_keep_buffers_alive",
            explicitly_joined_streams_keep_buffers_alive,
        ),
        Test::gpu_alone(
            "graph::dropped_streams_leave_captures",
            dropped_streams_leave_captures,
        ),
        Test::gpu_alone(
            "graph::library_handles_refused_in_capture",
            library_handles_refused_in_capture,
        ),
        Test::gpu_alone(
            "graph::captured_library_calls_keep_handles_alive",
            captured_library_calls_keep_handles_alive,
        ),
        Test::gpu_alone(
            "graph::replays_into_host_memory_wait",
            replays_into_host_memory_wait,
        ),
        Test::gpu_alone("graph::captures_on_many_threads", captures_on_many_threads),
        Test::gpu_alone(
            "graph::one_graph_shared_by_threads",
            one_graph_shared_by_threads,
        ),
        Test::gpu_alone(
            "graph::batch_copies_wait_across_streams",
            batch_copies_wait_across_streams,
        ),
        Test::gpu_alone("graph::write_u64_and_buffer_use", write_u64_and_buffer_use),
        Test::gpu_alone(
            "graph::launch_with_copies_and_word",
            launch_with_copies_and_word,
        ),
        Test::gpu_alone("graph::retarget_copy", retarget_copy),
        Test::gpu_alone(
            "graph::steady_launches_tracked_across_streams",
            steady_launches_tracked_across_streams,
        ),
        Test::gpu_alone(
            "graph::chained_graphs_on_two_streams",
            chained_graphs_on_two_streams,
        ),
        Test::gpu_alone(
            "graph::owed_cell_paid_before_capture",
            owed_cell_paid_before_capture,
        ),
        Test::gpu_alone(
            "graph::owed_cell_paid_when_stream_drops",
            owed_cell_paid_when_stream_drops,
        ),
    ]
}

const SRC: &str = r#"
extern "C" __global__ void axpb(float *y, const float *x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
extern "C" __global__ void add_into(float *acc, const float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += y[i];
}
extern "C" __global__ void slow_fill(float *y, float v, int n, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = v;
}
"#;

fn setup() -> Result<(Arc<Context>, Arc<Module>), cuprite_driver::Error> {
    let ctx = Context::new(0)?;
    let m = ctx.load_module(cuprite_driver::nvrtc::compile_ptx(SRC)?)?;
    Ok((ctx, m))
}

/// Small integers as floats: every sum below is exact.
fn ints(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| (rng.next_u64() % 64) as f32).collect()
}

fn capture_replay_update() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let add = m.load_function("add_into")?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 10_000 + (rng.next_u64() % 1000) as usize;
    let x_host = ints(&mut rng, n);
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let mut acc = stream.alloc_zeros::<f32>(n)?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let capture =
        |a: f32, b: f32, y: &mut DeviceBuffer<f32>, acc: &mut DeviceBuffer<f32>, extra: bool| {
            stream.begin_capture(CaptureMode::ThreadLocal)?;
            assert_eq!(stream.capture_status()?, CaptureStatus::Active);
            // SAFETY: both kernels get n-element buffers and n.
            unsafe {
                stream
                    .launch_builder(&axpb)
                    .arg(&mut *y)
                    .arg(&x)
                    .arg(&a)
                    .arg(&b)
                    .arg(&ni)
                    .launch(cfg)?;
                stream
                    .launch_builder(&add)
                    .arg(&mut *acc)
                    .arg(&*y)
                    .arg(&ni)
                    .launch(cfg)?;
                if extra {
                    stream
                        .launch_builder(&add)
                        .arg(&mut *acc)
                        .arg(&*y)
                        .arg(&ni)
                        .launch(cfg)?;
                }
            }
            stream.end_capture()
        };
    let (a1, b1) = (
        (rng.next_u64() % 5) as f32 + 1.0,
        (rng.next_u64() % 7) as f32,
    );
    let g = capture(a1, b1, &mut y, &mut acc, false)?;
    assert_eq!(stream.capture_status()?, CaptureStatus::None);
    assert_eq!(g.num_nodes()?, 2);
    // Nothing ran during capture.
    assert!(stream.clone_dtoh(&y)?.iter().all(|v| v.is_nan()));
    let mut exec = g.instantiate()?;
    exec.upload(&stream)?;
    let reps = 2 + (rng.next_u64() % 3) as usize;
    for _ in 0..reps {
        exec.launch(&stream)?;
    }
    let got = stream.clone_dtoh(&acc)?;
    for i in 0..n {
        assert_eq!(got[i], reps as f32 * (a1 * x_host[i] + b1), "{i}");
    }
    // Update with a re-capture of other scalars.
    let (a2, b2) = (a1 + 2.0, b1 + 3.0);
    let g2 = capture(a2, b2, &mut y, &mut acc, false)?;
    exec.update(&g2)?;
    exec.launch(&stream)?;
    let got = stream.clone_dtoh(&acc)?;
    for i in 0..n {
        let want = reps as f32 * (a1 * x_host[i] + b1) + (a2 * x_host[i] + b2);
        assert_eq!(got[i], want, "{i}");
    }
    // A different topology is refused, and the executable graph still works.
    let g3 = capture(a1, b1, &mut y, &mut acc, true)?;
    assert_eq!(g3.num_nodes()?, 3);
    let e = exec.update(&g3).unwrap_err();
    assert!(e.to_string().contains("topology"), "{e}");
    stream.memset_zeros(&mut acc)?;
    exec.launch(&stream)?;
    let got = stream.clone_dtoh(&acc)?;
    for i in 0..n {
        assert_eq!(got[i], a2 * x_host[i] + b2, "{i}");
    }
    Ok(())
}

fn alloc_inside_capture() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 4096;
    let mut x = stream.clone_htod(&ints(&mut rng, n))?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    {
        // A temporary allocated and freed inside the capture: allocation and free nodes.
        let mut tmp = stream.alloc_zeros::<f32>(n)?;
        // SAFETY: axpb with n-element buffers.
        unsafe {
            stream
                .launch_builder(&axpb)
                .arg(&mut tmp)
                .arg(&x)
                .arg(&2.0f32)
                .arg(&0.0f32)
                .arg(&ni)
                .launch(cfg)?;
            stream
                .launch_builder(&axpb)
                .arg(&mut y)
                .arg(&tmp)
                .arg(&1.0f32)
                .arg(&1.0f32)
                .arg(&ni)
                .launch(cfg)?;
        }
    }
    let g = stream.end_capture()?;
    assert!(
        g.num_nodes()? >= 4,
        "alloc, memset, 2 kernels, free: {}",
        g.num_nodes()?
    );
    let exec = g.instantiate()?;
    for round in 0..3 {
        let xh = ints(&mut rng, n);
        stream.memcpy_htod(&xh, &mut x)?;
        exec.launch(&stream)?;
        let got = stream.clone_dtoh(&y)?;
        for i in 0..n {
            assert_eq!(got[i], 2.0 * xh[i] + 1.0, "round {round}, {i}");
        }
    }
    Ok(())
}

/// A buffer allocated inside a capture and still held when it ends is the graph's memory:
/// every use outside that capture, before and after the graph's launches, is an `Err` naming
/// the capture; dropping it frees nothing under the graph; the context stays usable and the
/// graph's own result is right on every launch.
fn allocation_escaping_capture_refused() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let other = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 2048;
    let xh = ints(&mut rng, n);
    let x = stream.clone_htod(&xh)?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let mut escaped = stream.alloc_zeros::<f32>(n)?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut escaped)
            .arg(&x)
            .arg(&3.0f32)
            .arg(&0.0f32)
            .arg(&ni)
            .launch(cfg)?;
        stream
            .launch_builder(&axpb)
            .arg(&mut y)
            .arg(&escaped)
            .arg(&1.0f32)
            .arg(&-1.0f32)
            .arg(&ni)
            .launch(cfg)?;
    }
    let exec = stream.end_capture()?.instantiate_auto_free()?;
    let refused = |what: &str, r: Result<Vec<f32>, Error>| {
        let e = r.expect_err(what).to_string();
        assert!(e.contains("allocated inside stream capture"), "{what}: {e}");
    };
    refused("read before any launch", stream.clone_dtoh(&escaped));
    for round in 0..3 {
        exec.launch(&stream)?;
        refused("read after a launch", stream.clone_dtoh(&escaped));
        refused("read on another stream", other.clone_dtoh(&escaped));
        let mut into = other.alloc_zeros::<f32>(n)?;
        let e = other
            .memcpy_dtod(&escaped, &mut into)
            .expect_err("a copy from it");
        assert!(e.to_string().contains("outside any capture"), "{e}");
        let got = stream.clone_dtoh(&y)?;
        for i in 0..n {
            assert_eq!(got[i], 3.0 * xh[i] - 1.0, "round {round}, {i}");
        }
    }
    drop(escaped);
    exec.launch(&stream)?;
    stream.synchronize()?;
    let got = stream.clone_dtoh(&y)?;
    assert_eq!(got[n - 1], 3.0 * xh[n - 1] - 1.0);
    // The context is usable: ordinary work after it.
    let z = other.clone_htod(&xh)?;
    assert_eq!(other.clone_dtoh(&z)?, xh);
    Ok(())
}

fn two_streams_tracked() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let add = m.load_function("add_into")?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 1 << 16;
    let xh = ints(&mut rng, n);
    let x = s1.clone_htod(&xh)?;
    let mut b = s1.clone_htod(&vec![f32::NAN; n])?;
    let mut c = s1.clone_htod(&vec![f32::NAN; n])?;
    let mut acc = s1.alloc_zeros::<f32>(n)?;
    // The second stream has touched a buffer before the capture: tracking is on.
    let _ = s2.clone_dtoh(&x)?;
    assert!(ctx.is_multi_stream());
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: every kernel gets n-element buffers and n.
    unsafe {
        // s1 writes b; s2 reads b (joins the capture) and writes c; s1 reads c into acc.
        s1.launch_builder(&axpb)
            .arg(&mut b)
            .arg(&x)
            .arg(&3.0f32)
            .arg(&1.0f32)
            .arg(&ni)
            .launch(cfg)?;
        s2.launch_builder(&axpb)
            .arg(&mut c)
            .arg(&b)
            .arg(&2.0f32)
            .arg(&0.0f32)
            .arg(&ni)
            .launch(cfg)?;
        assert_eq!(
            s2.capture_status()?,
            CaptureStatus::Active,
            "s2 joined the capture"
        );
        s1.launch_builder(&add)
            .arg(&mut acc)
            .arg(&c)
            .arg(&ni)
            .launch(cfg)?;
        // s2 writes b again after reading it: ordered after s1's write of b in the capture.
        s2.launch_builder(&add)
            .arg(&mut b)
            .arg(&x)
            .arg(&ni)
            .launch(cfg)?;
    }
    let g = s1.end_capture()?;
    assert_eq!(
        s2.capture_status()?,
        CaptureStatus::None,
        "s2 was joined back"
    );
    assert!(g.num_nodes()? >= 4);
    let exec = g.instantiate()?;
    for round in 1..=3 {
        exec.launch(&s1)?;
        let got = s1.clone_dtoh(&acc)?;
        for i in 0..n {
            assert_eq!(
                got[i],
                round as f32 * 2.0 * (3.0 * xh[i] + 1.0),
                "round {round}, {i}"
            );
        }
    }
    // Tracking keeps working after the capture, across both streams.
    let mut d = s2.clone_htod(&vec![f32::NAN; n])?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        s2.launch_builder(&axpb)
            .arg(&mut d)
            .arg(&x)
            .arg(&1.0f32)
            .arg(&5.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let got = s1.clone_dtoh(&d)?;
    for i in 0..n {
        assert_eq!(got[i], xh[i] + 5.0, "{i}");
    }
    Ok(())
}

fn pre_capture_dependency() -> TestResult {
    // A slow write on s2 before the capture; the captured work on s1 reads it. The first
    // launch of the graph must wait for that write.
    let (ctx, m) = setup()?;
    let slow = m.load_function("slow_fill")?;
    let axpb = m.load_function("axpb")?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let n = 1 << 14;
    let mut x = s2.clone_htod(&vec![f32::NAN; n])?;
    let mut y = s1.clone_htod(&vec![f32::NAN; n])?;
    let v = Rng::fresh().f32_in(1.0, 50.0).round();
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    // SAFETY: slow_fill with an n-element buffer (about 5 ms).
    unsafe {
        s2.launch_builder(&slow)
            .arg(&mut x)
            .arg(&v)
            .arg(&ni)
            .arg(&10_000_000i64)
            .launch(cfg)?
    };
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        s1.launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&1.0f32)
            .arg(&1.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let g = s1.end_capture()?;
    let exec = g.instantiate()?;
    exec.launch(&s1)?;
    let got = s1.clone_dtoh(&y)?;
    assert!(
        got.iter().all(|&g| g == v + 1.0),
        "the graph ran before the pre-capture write"
    );
    Ok(())
}

/// A graph keeps the buffers its work reads and writes: dropped after the capture, they stay
/// allocated (so memory allocated afterwards is never the graph's), and are freed with the last
/// executable graph. Measured on an owned context, whose memory pool only this test uses.
fn replay_keeps_dropped_buffers_alive() -> TestResult {
    let ctx = Context::create_and_push(ContextFlags::SCHED_AUTO, cuprite_driver::Device::get(0)?)?;
    ContextStack::pop()?;
    let m = ctx.load_module(cuprite_driver::nvrtc::compile_ptx(SRC)?)?;
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 1 << 16;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let x = stream.clone_htod(&ints(&mut rng, n))?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    stream.synchronize()?;
    let two = ctx.pool_stats()?.used;
    assert!(two > 0, "two buffers of {n} floats use the pool");
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&3.0f32)
            .arg(&1.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let g = stream.end_capture()?;
    let exec = g.instantiate()?;
    assert_eq!(exec.num_buffers_used(), 2);
    // The graph and its executable form each hold both buffers.
    assert_eq!(y.tracker().graph_holds(), 2);
    assert_eq!(x.tracker().graph_holds(), 2);
    drop(g);
    assert_eq!(y.tracker().graph_holds(), 1);
    let old = (x.device_ptr(), y.device_ptr());
    drop(x);
    drop(y);
    stream.synchronize()?;
    assert_eq!(
        ctx.pool_stats()?.used,
        two,
        "the graph keeps both buffers allocated"
    );
    // New allocations get other memory: replays cannot write into them.
    let sentinel = rng.f32_in(10.0, 20.0).round();
    let fresh: Vec<DeviceBuffer<f32>> = (0..2)
        .map(|_| stream.clone_htod(&vec![sentinel; n]))
        .collect::<Result<_, _>>()?;
    for f in &fresh {
        assert!(
            f.device_ptr() != old.0 && f.device_ptr() != old.1,
            "a new buffer got the memory of a buffer the graph still uses"
        );
    }
    for _ in 0..3 {
        exec.launch(&stream)?;
    }
    for f in &fresh {
        assert!(stream.clone_dtoh(f)?.iter().all(|&v| v == sentinel));
    }
    drop(exec);
    drop(fresh);
    stream.synchronize()?;
    assert_eq!(
        ctx.pool_stats()?.used,
        0,
        "everything is freed once the graph is gone"
    );
    Ok(())
}

/// A replay on another stream than the capture's is ordered like a launch: a later read on
/// the first stream waits for it, with no explicit join.
fn replay_is_tracked_across_streams() -> TestResult {
    let (ctx, m) = setup()?;
    let slow = m.load_function("slow_fill")?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let n = 1 << 14;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let mut y = s1.clone_htod(&vec![f32::NAN; n])?;
    let v = Rng::fresh().f32_in(1.0, 50.0).round();
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: slow_fill with an n-element buffer (tens of milliseconds).
    unsafe {
        s1.launch_builder(&slow)
            .arg(&mut y)
            .arg(&v)
            .arg(&ni)
            .arg(&50_000_000i64)
            .launch(cfg)?
    };
    let exec = s1.end_capture()?.instantiate()?;
    s1.synchronize()?;
    exec.launch(&s2)?;
    let got = s1.clone_dtoh(&y)?;
    assert!(
        got.iter().all(|&g| g == v),
        "the read on s1 did not wait for the replay on s2"
    );
    Ok(())
}

/// Memory cuprite does not own (a view over a foreign tracker) whose owner is gone: the replay
/// is refused with an `Err`, and the stream works on.
fn replay_of_gone_borrowed_memory_is_err() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let n = 4096;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let x = stream.clone_htod(&vec![1.0f32; n])?;
    let backing = stream.clone_htod(&vec![0.0f32; n])?;
    let foreign = Tracker::new(ctx.clone());
    // SAFETY: `backing` holds n floats and outlives the view; only the view writes it.
    let mut view: DeviceViewMut<f32> =
        unsafe { DeviceViewMut::from_raw_parts(backing.device_ptr(), n, &foreign) };
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut view)
            .arg(&x)
            .arg(&2.0f32)
            .arg(&0.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let exec = stream.end_capture()?.instantiate()?;
    exec.launch(&stream)?;
    assert!(stream.clone_dtoh(&backing)?.iter().all(|&v| v == 2.0));
    let _ = view;
    drop(foreign);
    let e = exec.launch(&stream).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    assert!(e.to_string().contains("borrowed or leaked"), "{e}");
    assert!(e.to_string().contains("of the 2 this graph uses"), "{e}");
    assert_eq!(stream.clone_dtoh(&x)?, vec![1.0f32; n]);
    Ok(())
}

/// Other threads synchronising the whole context while a capture is in progress (legal for
/// them, but the driver would invalidate the capture), through the context or as their
/// current context, wait until the capture ended, and the capture goes on to a correct graph;
/// the capturing thread's own context-wide synchronisation is an `Err` naming the capture. On
/// the primary context and on an owned one.
fn context_sync_elsewhere_leaves_capture_intact() -> TestResult {
    let (ctx, m) = setup()?;
    sync_elsewhere_beside_capture(&ctx, &m)?;
    let owned = Context::create_and_push(
        cuprite_driver::ContextFlags::SCHED_AUTO,
        cuprite_driver::Device::get(0)?,
    )?;
    let m = owned.load_module(cuprite_driver::nvrtc::compile_ptx(SRC)?)?;
    sync_elsewhere_beside_capture(&owned, &m)
}

fn sync_elsewhere_beside_capture(ctx: &Arc<Context>, m: &Arc<Module>) -> TestResult {
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 2048;
    let xh = ints(&mut rng, n);
    let x = stream.clone_htod(&xh)?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // One thread through the context, one through the thread's current context.
    let others: Vec<_> = [false, true]
        .into_iter()
        .map(|via_current| {
            let (ctx, done) = (ctx.clone(), done.clone());
            std::thread::spawn(move || {
                let r = if via_current {
                    cuprite_driver::CurrentContext::set_current(&ctx)
                        .and_then(|()| cuprite_driver::CurrentContext::synchronize())
                } else {
                    ctx.synchronize()
                };
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                r.map_err(|e| e.to_string())
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let waited = done.load(std::sync::atomic::Ordering::SeqCst) == 0;
    let own = ctx.synchronize().map_err(|e| e.to_string());
    // SAFETY: axpb with n-element buffers.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&2.0f32)
            .arg(&3.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let exec = stream.end_capture()?.instantiate()?;
    assert!(
        waited,
        "another thread's synchronisation returned during the capture"
    );
    for other in others {
        let other = other.join().map_err(|_| "thread panicked")?;
        other.map_err(|e| format!("another thread's synchronisation after the capture: {e}"))?;
    }
    let e = own.expect_err("the capturing thread synchronised its context");
    assert!(
        e.contains("Context::synchronize") && e.contains("capture"),
        "{e}"
    );
    exec.launch(&stream)?;
    let got = stream.clone_dtoh(&y)?;
    for i in 0..n {
        assert_eq!(got[i], 2.0 * xh[i] + 3.0, "{i}");
    }
    ctx.synchronize()?;
    Ok(())
}

/// A pinned buffer dropped on another thread during a capture, with a copy into it pending:
/// its free needs a context-wide synchronisation first, which the driver forbids during a
/// capture (it would invalidate it). The free waits for the next synchronisation, the capture
/// goes on to a correct graph, and no error is deferred.
fn pinned_drop_elsewhere_leaves_capture_intact() -> TestResult {
    let (ctx, m) = setup()?;
    let n = 4096;
    let xh = ints(&mut Rng::fresh(), n);
    let stream = ctx.new_stream()?;
    let other = {
        let ctx = ctx.clone();
        move || -> Result<(), cuprite_driver::Error> {
            let s = ctx.new_stream()?;
            let d = s.clone_htod(&xh)?;
            let mut p = cuprite_driver::PinnedHostBuffer::<f32>::new(
                &ctx,
                n,
                cuprite_driver::HostAllocFlags::NONE,
            )?;
            s.memcpy_dtoh(&d, &mut p)?;
            // Dropped with the copy unwaited for.
            drop(p);
            Ok(())
        }
    };
    capture_beside(&ctx, &m, &stream, other)
}

/// Captures one kernel on `stream` while another thread runs `other`, then checks that the
/// capture gave a correct graph, that no error was deferred, and that none is after the next
/// context-wide synchronisation (which runs what `other` put off).
fn capture_beside(
    ctx: &Arc<Context>,
    m: &Arc<Module>,
    stream: &Arc<cuprite_driver::Stream>,
    other: impl FnOnce() -> Result<(), cuprite_driver::Error> + Send + 'static,
) -> TestResult {
    let axpb = m.load_function("axpb")?;
    let n = 4096;
    let xh = ints(&mut Rng::fresh(), n);
    let x = stream.clone_htod(&xh)?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let other = std::thread::spawn(other)
        .join()
        .map_err(|_| "thread panicked")?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&-1.0f32)
            .arg(&5.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let exec = stream.end_capture()?.instantiate()?;
    other?;
    exec.launch(stream)?;
    let got = stream.clone_dtoh(&y)?;
    for i in 0..n {
        assert_eq!(got[i], 5.0 - xh[i], "{i}");
    }
    ctx.check_deferred()?;
    // What the other thread put off runs here.
    ctx.synchronize()?;
    ctx.check_deferred()?;
    Ok(())
}

/// FFT plans dropped on another thread during a capture: one used on the capturing stream
/// alone (its drop waits for its stream, which the capture forbids), one used on two streams
/// (its drop needs a context-wide synchronisation, which the capture forbids as well). Neither
/// waits during the capture, which goes on to a correct graph; both are destroyed after the
/// next synchronisation, and no error is deferred. The transforms' results are checked: the
/// forward transform of 64 ones is 64 at frequency 0 and 0 elsewhere.
fn fft_plan_drop_elsewhere_leaves_capture_intact() -> TestResult {
    use cuprite_driver::fft::{Plan, PlanDesc, Precision};
    use num_complex::Complex;
    if !cuprite_driver::fft::is_available() {
        return Ok(());
    }
    let (ctx, m) = setup()?;
    let stream = ctx.new_stream()?;
    let (side, third) = (ctx.new_stream()?, ctx.new_stream()?);
    let points = 64;
    let desc = PlanDesc::c2c(Precision::F32, &[points]);
    let ones = vec![Complex::new(1.0f32, 0.0); points];
    let input = stream.clone_htod(&ones)?;
    let mut got = Vec::new();
    let mut alone = Plan::new(&stream, &desc)?;
    let mut out_alone = stream.clone_htod(&vec![Complex::new(f32::NAN, 0.0); points])?;
    alone.exec_forward(&input, &mut out_alone)?;
    let mut moved = Plan::new(&side, &desc)?;
    let mut out_moved = stream.clone_htod(&vec![Complex::new(f32::NAN, 0.0); points])?;
    moved.exec_forward(&input, &mut out_moved)?;
    moved.set_stream(&third)?;
    moved.exec_forward(&input, &mut out_moved)?;
    got.push(third.clone_dtoh(&out_moved)?);
    got.push(stream.clone_dtoh(&out_alone)?);
    for g in &got {
        for (i, v) in g.iter().enumerate() {
            let want = if i == 0 { points as f32 } else { 0.0 };
            assert!(
                (v.re - want).abs() < 1e-4 && v.im.abs() < 1e-4,
                "bin {i}: {v}, want {want}"
            );
        }
    }
    capture_beside(&ctx, &m, &stream, move || {
        drop(alone);
        drop(moved);
        Ok(())
    })
}

/// A sparse triangular-solve plan used on the capturing stream and dropped on another thread
/// during the capture: its drop waits for its stream, which the capture forbids. It does not
/// wait (its descriptors are leaked instead), the capture goes on to a correct graph, and no
/// error is deferred. The solve before the capture is checked against forward substitution
/// on the host: `L` lower bidiagonal with 2 on the diagonal and -1 below it, `x` all ones.
fn spsv_plan_drop_elsewhere_leaves_capture_intact() -> TestResult {
    use cuprite_driver::blas::Transpose;
    use cuprite_driver::sparse::{Format, SpMat, Sparse, Triangle};
    if cuprite_driver::sparse::version().is_err() {
        return Ok(());
    }
    let (ctx, m) = setup()?;
    let stream = ctx.new_stream()?;
    let n = 8;
    let (mut off, mut idx, mut val) = (vec![0i32], Vec::new(), Vec::new());
    for i in 0..n {
        if i > 0 {
            idx.push(i as i32 - 1);
            val.push(-1.0f64);
        }
        idx.push(i as i32);
        val.push(2.0);
        off.push(idx.len() as i32);
    }
    let (doff, didx, dval) = (
        stream.clone_htod(&off)?,
        stream.clone_htod(&idx)?,
        stream.clone_htod(&val)?,
    );
    let sp = Sparse::new(&stream)?;
    // SAFETY: valid sorted CSR arrays of an n × n matrix.
    let a = unsafe { SpMat::new(Format::Csr, n, n, &doff, &didx, &dval) }?;
    let lower = Triangle {
        lower: true,
        unit_diagonal: false,
    };
    // SAFETY: `a`'s buffers are neither changed nor freed before the plan is dropped (on the
    // other thread, before this function returns).
    let plan = unsafe { sp.spsv_plan(Transpose::None, &a, lower) }?;
    let x = stream.clone_htod(&vec![1.0f64; n])?;
    let mut y = stream.clone_htod(&vec![f64::NAN; n])?;
    plan.solve(&sp, &a, &x, &mut y)?;
    let got = stream.clone_dtoh(&y)?;
    let mut want = vec![0.0f64; n];
    for i in 0..n {
        let before = if i > 0 { want[i - 1] } else { 0.0 };
        want[i] = (1.0 + before) / 2.0;
    }
    for i in 0..n {
        assert!(
            (got[i] - want[i]).abs() <= 1e-14,
            "y[{i}] = {}, want {}",
            got[i],
            want[i]
        );
    }
    capture_beside(&ctx, &m, &stream, move || {
        drop(plan);
        Ok(())
    })
}

/// A host function is refused on a capturing stream (its closure runs once; a captured host
/// node would call it at every launch) and nothing is enqueued: the capture stays active and
/// its graph replays twice with the kernel's values, and the closure never runs. A copy that
/// keeps its host source alive with a host function (`htod_copy`) is refused inside a
/// capture before anything is captured, and the capture stays usable.
fn host_functions_refused_in_capture() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 1024;
    let xh = ints(&mut rng, n);
    let x = stream.clone_htod(&xh)?;
    let mut y = stream.clone_htod(&vec![f32::NAN; n])?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let r = ran.clone();
    let e = stream
        .launch_host_fn(move || {
            r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
        .expect_err("a host function inside a capture");
    assert!(e.to_string().contains("capturing"), "{e}");
    assert_eq!(stream.capture_status()?, CaptureStatus::Active);
    // SAFETY: axpb with n-element buffers.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&3.0f32)
            .arg(&-2.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let exec = stream.end_capture()?.instantiate()?;
    exec.launch(&stream)?;
    exec.launch(&stream)?;
    let got = stream.clone_dtoh(&y)?;
    for i in 0..n {
        assert_eq!(got[i], 3.0 * xh[i] - 2.0, "{i}");
    }
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 0);
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let copied = stream.htod_copy(xh.clone());
    assert_eq!(stream.capture_status()?, CaptureStatus::Active);
    let ended = stream.end_capture()?;
    let e = copied.expect_err("htod_copy inside a capture returned a buffer");
    assert!(e.to_string().contains("capturing"), "{e}");
    assert_eq!(ended.num_nodes()?, 0, "the refused copy captured nothing");
    assert_eq!(stream.capture_status()?, CaptureStatus::None);
    // The stream works after both.
    let again = stream.clone_dtoh(&x)?;
    assert_eq!(again, xh);
    Ok(())
}

/// A stream of another thread that reads a buffer written inside a capture in progress does
/// not join the capture: its work runs at once and sees the value from before the capture,
/// and the capture ends with only its own thread's work; a read after a replay sees the
/// replay's value.
fn other_thread_never_joins_capture() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let s1 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut rng = Rng::fresh();
    let n = 4096;
    let xh = ints(&mut rng, n);
    let before = rng.f32_in(1.0, 50.0).round();
    let x = s1.clone_htod(&xh)?;
    let mut y = s1.clone_htod(&vec![before; n])?;
    s1.synchronize()?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        s1.launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&2.0f32)
            .arg(&1.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let seen = std::thread::scope(|sc| {
        sc.spawn(|| -> Result<(Vec<f32>, CaptureStatus), Error> {
            let s2 = ctx.new_stream()?;
            let v = s2.clone_dtoh(&y)?;
            Ok((v, s2.capture_status()?))
        })
        .join()
    })
    .map_err(|_| "reader thread panicked")??;
    let exec = s1.end_capture()?.instantiate()?;
    assert_eq!(
        seen.1,
        CaptureStatus::None,
        "the other thread's stream joined"
    );
    assert!(
        seen.0.iter().all(|&v| v == before),
        "the other thread read {:?}, want the pre-capture {before}",
        &seen.0[..4]
    );
    exec.launch(&s1)?;
    let after = std::thread::scope(|sc| {
        sc.spawn(|| -> Result<Vec<f32>, Error> { ctx.new_stream()?.clone_dtoh(&y) })
            .join()
    })
    .map_err(|_| "reader thread panicked")??;
    for i in 0..n {
        assert_eq!(after[i], 2.0 * xh[i] + 1.0, "{i}");
    }
    Ok(())
}

/// A stream that joined a capture and is dropped leaves it (ending the capture is then an
/// `Err`, not a use of the destroyed stream); a stream dropped while capturing ends its
/// capture. Afterwards the context synchronises and a new capture works.
fn dropped_streams_leave_captures() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    ctx.enable_multi_stream_tracking()?;
    let n = 1024;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let s1 = ctx.new_stream()?;
    let x = s1.clone_htod(&vec![1.0f32; n])?;
    let mut y = s1.alloc_zeros::<f32>(n)?;
    let mut z = s1.alloc_zeros::<f32>(n)?;
    s1.synchronize()?;
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    {
        let s2 = ctx.new_stream()?;
        // SAFETY: axpb with n-element buffers.
        unsafe {
            s1.launch_builder(&axpb)
                .arg(&mut y)
                .arg(&x)
                .arg(&2.0f32)
                .arg(&0.0f32)
                .arg(&ni)
                .launch(cfg)?;
            // Reads y, written in the capture: s2 joins it.
            s2.launch_builder(&axpb)
                .arg(&mut z)
                .arg(&y)
                .arg(&1.0f32)
                .arg(&0.0f32)
                .arg(&ni)
                .launch(cfg)?;
        }
        assert_eq!(s2.capture_status()?, CaptureStatus::Active);
    }
    // The joined stream is gone: the capture cannot end with its work unjoined.
    assert!(
        s1.end_capture().is_err(),
        "a capture with a dropped member ended"
    );
    {
        let s3 = ctx.new_stream()?;
        s3.begin_capture(CaptureMode::ThreadLocal)?;
    }
    // The driver's refusals (destroying a capturing member) may come back once, deferred.
    let _ = ctx.synchronize();
    ctx.synchronize()?;
    assert_eq!(s1.capture_status()?, CaptureStatus::None);
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: axpb with n-element buffers.
    unsafe {
        s1.launch_builder(&axpb)
            .arg(&mut z)
            .arg(&x)
            .arg(&3.0f32)
            .arg(&1.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    s1.end_capture()?.instantiate()?.launch(&s1)?;
    assert!(s1.clone_dtoh(&z)?.iter().all(|&v| v == 4.0));
    Ok(())
}

/// A cuBLAS, cuBLASLt, cuSOLVER or cuSPARSE handle or a cuFFT plan made on a capturing stream
/// would own a graph allocation (its workspace): refused with an `Err`, the capture stays
/// usable, and after it a handle is made. A cuSOLVER workspace too small for a routine is not
/// grown inside a capture (an `Err`, the capture usable); grown by a run before, the routine
/// is captured, and the graph replays after the handle is dropped.
fn library_handles_refused_in_capture() -> TestResult {
    let (ctx, _) = setup()?;
    let stream = ctx.new_stream()?;
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let blas = cuprite_driver::blas::Blas::new(&stream).map(|_| ());
    let lt = cuprite_driver::blaslt::BlasLt::new(&stream).map(|_| ());
    let solver = cuprite_driver::solver::Solver::new(&stream).map(|_| ());
    let sparse = cuprite_driver::sparse::Sparse::new(&stream).map(|_| ());
    let desc = cuprite_driver::fft::PlanDesc::c2c(cuprite_driver::fft::Precision::F32, &[64]);
    let plan = cuprite_driver::fft::Plan::new(&stream, &desc).map(|_| ());
    assert_eq!(stream.capture_status()?, CaptureStatus::Active);
    let g = stream.end_capture()?;
    assert_eq!(g.num_nodes()?, 0, "nothing was captured");
    for (what, r) in [
        ("cuBLAS", blas),
        ("cuBLASLt", lt),
        ("cuSOLVER", solver),
        ("cuSPARSE", sparse),
        ("cuFFT", plan),
    ] {
        match r {
            Err(Error::InvalidArgument(m)) if m.contains("while its stream is capturing") => {}
            other => return Err(format!("{what} handle in a capture: {other:?}").into()),
        }
    }
    cuprite_driver::blas::Blas::new(&stream)?;
    cuprite_driver::blaslt::BlasLt::new(&stream)?;
    // A cuSOLVER workspace does not grow inside a capture; sized by a run before, it is used.
    let solver = cuprite_driver::solver::Solver::new(&stream)?;
    let n = 32;
    let mut a = stream.clone_htod(&(0..n * n).map(|i| (i % 7) as f64 + 1.0).collect::<Vec<_>>())?;
    let mut tau = stream.alloc_zeros::<f64>(n)?;
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    let e = solver
        .geqrf(n, n, &mut a, n, &mut tau)
        .expect_err("a workspace grown inside a capture");
    assert!(
        e.to_string()
            .contains("cannot grow while its stream is capturing"),
        "{e}"
    );
    assert_eq!(stream.capture_status()?, CaptureStatus::Active);
    drop(stream.end_capture()?);
    solver.geqrf(n, n, &mut a, n, &mut tau)?;
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    solver.geqrf(n, n, &mut a, n, &mut tau)?;
    let exec = stream.end_capture()?.instantiate()?;
    drop(solver);
    exec.launch(&stream)?;
    stream.synchronize()?;
    cuprite_driver::solver::Solver::new(&stream)?;
    cuprite_driver::sparse::Sparse::new(&stream)?;
    cuprite_driver::fft::Plan::new(&stream, &desc)?;
    Ok(())
}

/// One graph and one executable graph shared by several threads: each thread instantiates
/// the graph, counts its nodes, writes it as DOT, and uploads and launches the shared
/// executable graph on a stream of its own, at once with the others (the driver does not
/// synchronise calls on one graph object; the handles serialise them). Every call succeeds,
/// and every launch writes the captured values.
fn one_graph_shared_by_threads() -> TestResult {
    let (ctx, m) = setup()?;
    let axpb = m.load_function("axpb")?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let n = 1 << 12;
    let xh = ints(&mut rng, n);
    let x = stream.clone_htod(&xh)?;
    let mut y = stream.alloc_zeros::<f32>(n)?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: axpb with n-element buffers and n.
    unsafe {
        stream
            .launch_builder(&axpb)
            .arg(&mut y)
            .arg(&x)
            .arg(&2.0f32)
            .arg(&1.0f32)
            .arg(&ni)
            .launch(cfg)?
    };
    let graph = stream.end_capture()?;
    let exec = graph.instantiate()?;
    let dir = std::env::temp_dir();
    let results: Vec<std::result::Result<(), String>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let (ctx, graph, exec, dir) = (ctx.clone(), &graph, &exec, &dir);
                sc.spawn(move || -> std::result::Result<(), String> {
                    let run = || -> std::result::Result<(), Box<dyn std::error::Error>> {
                        let s = ctx.new_stream()?;
                        for r in 0..20 {
                            let own = graph.instantiate()?;
                            if graph.num_nodes()? != 1 {
                                return Err(format!("thread {t}: not one node").into());
                            }
                            let path = dir.join(format!(
                                "cuprite-shared-graph-{}-{t}.dot",
                                std::process::id()
                            ));
                            if r == 0 {
                                graph.write_dot(&path, false)?;
                                let _ = std::fs::remove_file(&path);
                            }
                            exec.upload(&s)?;
                            exec.launch(&s)?;
                            own.launch(&s)?;
                        }
                        s.synchronize()?;
                        Ok(())
                    };
                    run().map_err(|e| e.to_string())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    for r in results {
        r?;
    }
    let got = stream.clone_dtoh(&y)?;
    for i in 0..n {
        assert_eq!(got[i], 2.0 * xh[i] + 1.0, "{i}");
    }
    Ok(())
}

/// A stream that joins a capture by an explicit wait (`Stream::join`, `Stream::fork`, or
/// `Stream::wait` on an event recorded in the capture) is a member of it: the copy captured
/// on it keeps its buffers alive in the graph. With both buffers dropped and a new buffer
/// allocated on the side stream, each replay still writes the graph's own destination, never
/// the new buffer; a stream already in another capture is refused.
fn explicitly_joined_streams_keep_buffers_alive() -> TestResult {
    let ctx = Context::new(0)?;
    let n = 1 << 20;
    for how in ["join", "fork", "event"] {
        let s = ctx.new_stream()?;
        let mut side = ctx.new_stream()?;
        let src = s.clone_htod(&vec![7u32; n])?;
        let mut dst = s.alloc_zeros::<u32>(n)?;
        s.synchronize()?;
        s.begin_capture(CaptureMode::ThreadLocal)?;
        match how {
            "join" => side.join(&s)?,
            "fork" => side = s.fork()?,
            _ => {
                let ev = s.record_event(cuprite_driver::EventFlags::DISABLE_TIMING)?;
                side.wait(&ev)?;
            }
        }
        side.memcpy_dtod(&src, &mut dst)?;
        s.join(&side)?;
        let exec = s.end_capture()?.instantiate()?;
        assert_eq!(
            exec.num_buffers_used(),
            2,
            "{how}: the graph keeps src and dst"
        );
        assert_eq!(exec.buffer_use(&dst), Some(true), "{how}");
        drop((src, dst));
        let victim = side.alloc_zeros::<u32>(n)?;
        exec.launch(&side)?;
        exec.launch(&side)?;
        assert!(
            side.clone_dtoh(&victim)?.iter().all(|&v| v == 0),
            "{how}: a replay wrote a buffer allocated after the capture"
        );
    }
    // Two captures on one thread: a stream in one cannot wait for the other's work.
    let (a, b) = (ctx.new_stream()?, ctx.new_stream()?);
    a.begin_capture(CaptureMode::ThreadLocal)?;
    b.begin_capture(CaptureMode::ThreadLocal)?;
    let e = b.join(&a).expect_err("a wait across two captures");
    assert!(e.to_string().contains("two captures"), "{e}");
    let ev = a.record_event(cuprite_driver::EventFlags::DISABLE_TIMING)?;
    let e = b.wait(&ev).expect_err("a wait across two captures");
    assert!(e.to_string().contains("two captures"), "{e}");
    assert_eq!(b.capture_status()?, CaptureStatus::Active);
    assert_eq!(a.capture_status()?, CaptureStatus::Active);
    // Either may end in an empty graph or none; both end.
    let _ = b.end_capture();
    let _ = a.end_capture();
    assert_eq!(a.capture_status()?, CaptureStatus::None);
    Ok(())
}

/// Library calls captured into a graph keep their handle and its workspace alive: with the
/// cuBLAS handle (and its workspace), the cuFFT plan and the cuSPARSE handle dropped after the
/// capture and a large
/// buffer allocated in their place, each replay still computes the captured product and
/// transform, and never writes the new buffer. The graph declares the workspace as one of the
/// allocations it uses.
fn captured_library_calls_keep_handles_alive() -> TestResult {
    use cuprite_driver::blas::{Blas, Gemm};
    use cuprite_driver::fft::{Plan, PlanDesc, Precision};
    use num_complex::Complex;
    let ctx = Context::new(0)?;
    let s = ctx.new_stream()?;
    let n = 64;
    let mut rng = Rng::fresh();
    let (ah, bh) = (ints(&mut rng, n * n), ints(&mut rng, n * n));
    let (a, b) = (s.clone_htod(&ah)?, s.clone_htod(&bh)?);
    let mut c = s.alloc_zeros::<f32>(n * n)?;
    let xh: Vec<Complex<f32>> = (0..n).map(|i| Complex::new(i as f32, 0.0)).collect();
    let x = s.clone_htod(&xh)?;
    let mut y = s.alloc_zeros::<Complex<f32>>(n)?;
    let blas = Blas::new(&s)?;
    let mut plan = Plan::new(&s, &PlanDesc::c2c(Precision::F32, &[n]))?;
    let sp = cuprite_driver::sparse::Sparse::new(&s)?;
    // [[1, 0], [2, 3]] in CSR, times [1, 1].
    let offsets = s.clone_htod(&[0i32, 1, 3])?;
    let indices = s.clone_htod(&[0i32, 0, 1])?;
    let values = s.clone_htod(&[1.0f64, 2.0, 3.0])?;
    let ones = s.clone_htod(&[1.0f64, 1.0])?;
    let mut sy = s.alloc_zeros::<f64>(2)?;
    // SAFETY: the offsets rise from 0 to 3 and every column index is below 2.
    let mat = unsafe {
        cuprite_driver::sparse::SpMat::new(
            cuprite_driver::sparse::Format::Csr,
            2,
            2,
            &offsets,
            &indices,
            &values,
        )
    }?;
    s.synchronize()?;
    s.begin_capture(CaptureMode::ThreadLocal)?;
    blas.gemm(&Gemm::new(n, n, n), &a, &b, &mut c)?;
    plan.exec_forward(&x, &mut y)?;
    sp.spmv(
        cuprite_driver::blas::Transpose::None,
        1.0,
        &mat,
        &ones,
        0.0,
        &mut sy,
    )?;
    let exec = s.end_capture()?.instantiate()?;
    drop(sp);
    assert!(
        exec.num_buffers_used() >= 6,
        "a, b, c, x, y and the workspace: {} buffers",
        exec.num_buffers_used()
    );
    drop(blas);
    drop(plan);
    let victim = s.alloc_zeros::<u8>(64 << 20)?;
    for round in 0..2 {
        s.memset_zeros(&mut c)?;
        s.memset_zeros(&mut y)?;
        s.memset_zeros(&mut sy)?;
        exec.launch(&s)?;
        let got = s.clone_dtoh(&c)?;
        // Column-major: c[i + j n] = sum_k a[i + k n] b[k + j n] (exact: small integers).
        for j in 0..n {
            for i in 0..n {
                let want: f32 = (0..n).map(|k| ah[i + k * n] * bh[k + j * n]).sum();
                assert_eq!(got[i + j * n], want, "round {round}: c[{i}, {j}]");
            }
        }
        assert_eq!(s.clone_dtoh(&sy)?, [1.0, 5.0], "round {round}: spmv");
        let spectrum = s.clone_dtoh(&y)?;
        let sum: f32 = (0..n).map(|i| i as f32).sum();
        assert!(
            (spectrum[0].re - sum).abs() < 1e-2,
            "round {round}: {:?}",
            spectrum[0]
        );
        assert!(
            s.clone_dtoh(&victim)?.iter().all(|&v| v == 0),
            "round {round}: a replay wrote memory allocated after the handles were dropped"
        );
    }
    Ok(())
}

/// A replay that writes pinned or managed memory makes the next host access of it wait,
/// as a direct copy does: after the host read that follows the capture (which waits and
/// clears the buffer's flag), each launch is followed by one more host synchronisation at the
/// next host access, which sees the values the replay copied.
fn replays_into_host_memory_wait() -> TestResult {
    use cuprite_driver::{HostAllocFlags, ManagedBuffer, PinnedHostBuffer, thread_stats};
    let ctx = Context::new(0)?;
    let s = ctx.new_stream()?;
    let n = 1 << 20;
    let mut d = s.clone_htod(&vec![1u32; n])?;
    let mut pinned = PinnedHostBuffer::<u32>::new(&ctx, n, HostAllocFlags::NONE)?;
    let mut managed = ManagedBuffer::<u32>::new(&ctx, n)?;
    s.synchronize()?;
    s.begin_capture(CaptureMode::ThreadLocal)?;
    s.memcpy_dtoh(&d, &mut pinned)?;
    s.memcpy_dtod(&d, &mut managed)?;
    let exec = s.end_capture()?.instantiate()?;
    assert!(
        pinned.as_slice()?.iter().all(|&v| v == 0),
        "nothing ran yet"
    );
    assert!(
        managed.as_slice()?.iter().all(|&v| v == 0),
        "nothing ran yet"
    );
    for round in 2..4u32 {
        s.memset_d32(&mut d, round)?;
        let before = thread_stats();
        exec.launch(&s)?;
        let got = pinned.as_mut_slice()?;
        assert!(got.iter().all(|&v| v == round), "round {round}: pinned");
        got[0] = 0;
        let waited = thread_stats().since(&before).host_syncs;
        assert!(waited >= 1, "round {round}: the pinned access did not wait");
        assert!(
            managed.as_mut_slice()?.iter().all(|&v| v == round),
            "round {round}: managed"
        );
    }
    Ok(())
}

/// Threads capturing at once, each on its own two tracked streams, while others end,
/// instantiate, launch and drop their graphs: every replay gives its own values. (The events
/// recorded in captures are never handed to another thread's capture.)
fn captures_on_many_threads() -> TestResult {
    let (ctx, m) = setup()?;
    let threads = 8;
    let rounds = 40;
    let n = 1 << 12;
    let results: Vec<std::result::Result<(), String>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (ctx, m) = (ctx.clone(), m.clone());
                sc.spawn(move || -> std::result::Result<(), String> {
                    let run = || -> std::result::Result<(), Box<dyn std::error::Error>> {
                        let axpb = m.load_function("axpb")?;
                        let s1 = ctx.new_stream()?;
                        let s2 = ctx.new_stream()?;
                        let x = s1.clone_htod(&vec![t as f32; n])?;
                        let mut b = s1.alloc_zeros::<f32>(n)?;
                        let mut c = s1.alloc_zeros::<f32>(n)?;
                        let _ = s2.clone_dtoh(&x)?;
                        let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
                        for r in 0..rounds {
                            s1.begin_capture(CaptureMode::ThreadLocal)?;
                            // SAFETY: axpb with n-element buffers and n.
                            unsafe {
                                s1.launch_builder(&axpb)
                                    .arg(&mut b)
                                    .arg(&x)
                                    .arg(&2.0f32)
                                    .arg(&(r as f32))
                                    .arg(&ni)
                                    .launch(cfg)?;
                                s2.launch_builder(&axpb)
                                    .arg(&mut c)
                                    .arg(&b)
                                    .arg(&1.0f32)
                                    .arg(&1.0f32)
                                    .arg(&ni)
                                    .launch(cfg)?;
                            }
                            let exec = s1.end_capture()?.instantiate()?;
                            exec.launch(&s1)?;
                            let got = s1.clone_dtoh(&c)?;
                            let want = 2.0 * t as f32 + r as f32 + 1.0;
                            if let Some(i) = got.iter().position(|&v| v != want) {
                                return Err(format!(
                                    "thread {t} round {r}: c[{i}] = {}, want {want}",
                                    got[i]
                                )
                                .into());
                            }
                        }
                        Ok(())
                    };
                    run().map_err(|e| e.to_string())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    for r in results {
        r?;
    }
    Ok(())
}

/// `memcpy_dtod_batch` on a second stream waits for the slow writers of its sources on the
/// first, copies every pair, and a pair of unequal lengths is an `Err` naming it, with nothing
/// enqueued.
fn batch_copies_wait_across_streams() -> TestResult {
    let (ctx, m) = setup()?;
    let slow = m.load_function("slow_fill")?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut rng = Rng::fresh();
    let (n, k) = (1 << 14, 3 + (rng.next_u64() % 100) as usize);
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    let mut y = s1.clone_htod(&vec![f32::NAN; n])?;
    let z_host = ints(&mut rng, k);
    let z = s1.clone_htod(&z_host)?;
    let v = rng.f32_in(1.0, 50.0).round();
    // SAFETY: slow_fill with an n-element buffer (tens of milliseconds).
    unsafe {
        s1.launch_builder(&slow)
            .arg(&mut y)
            .arg(&v)
            .arg(&ni)
            .arg(&50_000_000i64)
            .launch(cfg)?
    };
    let mut a = s2.alloc_zeros::<f32>(n)?;
    let mut b = s2.alloc_zeros::<f32>(k)?;
    s2.memcpy_dtod_batch(&mut [(&y, &mut a), (&z, &mut b)])?;
    let got_a = s2.clone_dtoh(&a)?;
    assert!(
        got_a.iter().all(|&g| g == v),
        "the batch on s2 did not wait for the writer on s1"
    );
    assert_eq!(s2.clone_dtoh(&b)?, z_host);
    let mut short = s2.alloc_zeros::<f32>(k - 1)?;
    match s2.memcpy_dtod_batch(&mut [(&y, &mut a), (&z, &mut short)]) {
        Err(Error::InvalidArgument(msg))
            if msg.contains("copy 1") && msg.contains(&format!("{k}")) => {}
        other => return Err(format!("unequal lengths: {other:?}").into()),
    }
    // An empty batch is nothing to do.
    s2.memcpy_dtod_batch::<f32, DeviceBuffer<f32>, DeviceBuffer<f32>>(&mut [])?;
    Ok(())
}

/// `write_u64` stores both halves of the word (the low one first); a destination of another
/// size is an `Err`. `buffer_use` tells what a captured graph reads and writes.
fn write_u64_and_buffer_use() -> TestResult {
    let (ctx, _m) = setup()?;
    let stream = ctx.new_stream()?;
    let mut rng = Rng::fresh();
    let value = rng.next_u64() | (1 << 63) | 1;
    let mut word = stream.alloc_zeros::<u64>(1)?;
    stream.write_u64(&mut word, value)?;
    assert_eq!(stream.clone_dtoh(&word)?, [value]);
    let mut halves = stream.alloc_zeros::<u32>(2)?;
    stream.write_u64(&mut halves, value)?;
    assert_eq!(
        stream.clone_dtoh(&halves)?,
        [value as u32, (value >> 32) as u32],
        "the low half first (little-endian)"
    );
    let mut small = stream.alloc_zeros::<u32>(1)?;
    match stream.write_u64(&mut small, value) {
        Err(Error::InvalidArgument(msg)) if msg.contains("4 bytes") => {}
        other => return Err(format!("a 4-byte destination: {other:?}").into()),
    }
    let src = stream.clone_htod(&ints(&mut rng, 64))?;
    let other = stream.clone_htod(&[1.0f32])?;
    let mut dst = stream.alloc_zeros::<f32>(64)?;
    stream.begin_capture(CaptureMode::ThreadLocal)?;
    stream.memcpy_dtod(&src, &mut dst)?;
    let exec = stream.end_capture()?.instantiate()?;
    assert_eq!(exec.buffer_use(&src), Some(false));
    assert_eq!(exec.buffer_use(&dst), Some(true));
    assert_eq!(exec.buffer_use(&other), None);
    Ok(())
}

/// `launch_with`: the copies in wait for their source's writer on another stream (held back
/// there), the word and the copies out land, a reader on another stream waits for the copies
/// out; unequal lengths and a word of another size are an `Err` before anything is enqueued.
fn launch_with_copies_and_word() -> TestResult {
    let (ctx, _m) = setup()?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut rng = Rng::fresh();
    let n = 4096 + (rng.next_u64() % 4096) as usize;
    let mut input = s1.alloc_zeros::<u8>(n)?;
    let mut output = s1.alloc_zeros::<u8>(n)?;
    let mut word = s1.alloc_zeros::<u64>(1)?;
    let mut word_out = s1.alloc_zeros::<u64>(1)?;
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    s1.memcpy_dtod(&input, &mut output)?;
    s1.memcpy_dtod(&word, &mut word_out)?;
    let exec = s1.end_capture()?.instantiate()?;
    type B<T> = DeviceBuffer<T>;
    let no_word = || None::<(&mut B<u64>, u64)>;
    for round in 0..3 {
        let mut src = s2.alloc_zeros::<u8>(n)?;
        let v = (rng.next_u64() % 250) as u8 + 1;
        s2.launch_host_fn(move || std::thread::sleep(std::time::Duration::from_millis(200)))?;
        s2.memset_d8(&mut src, v)?; // runs 200 ms from now
        let key = rng.next_u64();
        let mut result = s2.alloc_zeros::<u8>(n)?;
        exec.launch_with(
            &s1,
            &mut [(&src, &mut input)],
            Some((&mut word, key)),
            &mut [(&output, &mut result)],
        )?;
        let got = s2.clone_dtoh(&result)?;
        assert!(
            got.iter().all(|&g| g == v),
            "round {round}: the copy in did not wait for its source's writer, or the copy out \
             was not waited for"
        );
        assert_eq!(s1.clone_dtoh(&word_out)?, [key], "round {round}: the word");
    }
    let src = s1.alloc_zeros::<u8>(n)?;
    let mut short = s1.alloc_zeros::<u8>(n - 1)?;
    let no_out: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    match exec.launch_with(&s1, &mut [(&src, &mut short)], no_word(), no_out) {
        Err(Error::InvalidArgument(msg)) if msg.contains("copy in 0") => {}
        other => return Err(format!("unequal lengths: {other:?}").into()),
    }
    let mut two = s1.alloc_zeros::<u64>(2)?;
    let no_in: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let no_out: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    match exec.launch_with(&s1, no_in, Some((&mut two, 1)), no_out) {
        Err(Error::InvalidArgument(msg)) if msg.contains("16 bytes") => {}
        other => return Err(format!("a word of two u64: {other:?}").into()),
    }
    Ok(())
}

/// A captured copy found by its destination and moved to other buffers: each launch writes
/// where the copy points now (the old destination keeps its bytes), waits for its source's
/// writer on another stream, and is waited for by a reader of the new destination there;
/// a destination of another length is refused and the copy left as it was; copies are found
/// only in a graph kept by `into_exec`, and only for a buffer a copy writes whole.
fn retarget_copy() -> TestResult {
    let ctx = Context::new(0)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut rng = Rng::fresh();
    let n = 1024 + (rng.next_u64() % 4096) as usize;
    let mut src = s1.alloc_zeros::<u8>(n)?;
    let mut dst = s1.alloc_zeros::<u8>(n)?;
    let unrelated = s1.alloc_zeros::<u8>(n)?;
    s1.begin_capture(CaptureMode::ThreadLocal)?;
    s1.memcpy_dtod(&src, &mut dst)?;
    let graph = s1.end_capture()?;
    let mut plain = graph.instantiate()?;
    if plain.copy_node_into(&dst)?.is_some() {
        return Err("a copy node found in a graph not kept by into_exec".into());
    }
    drop(plain);
    let mut exec = graph.into_exec()?;
    if exec.copy_node_into(&unrelated)?.is_some() {
        return Err("a copy node found for a buffer no copy writes".into());
    }
    let node = exec
        .copy_node_into(&dst)?
        .ok_or("no copy node found for the copy's destination")?;
    if exec.copy_node_into(&dst)? != Some(node) {
        return Err("the same copy found twice under two names".into());
    }
    let mut targets = [s1.alloc_zeros::<u8>(n)?, s1.alloc_zeros::<u8>(n)?];
    for round in 0..4 {
        let t = round % 2;
        exec.retarget_copy(node, &mut targets[t])?;
        let v = (rng.next_u64() % 250) as u8 + 1;
        // Written on the other stream, 100 ms from now: the launch must wait for it.
        s2.launch_host_fn(move || std::thread::sleep(std::time::Duration::from_millis(100)))?;
        s2.memset_d8(&mut src, v)?;
        exec.launch(&s1)?;
        // Read on the other stream: ordered after the launch through the moved destination.
        let got = s2.clone_dtoh(&targets[t])?;
        if let Some(i) = got.iter().position(|&g| g != v) {
            return Err(format!(
                "round {round}: byte {i} of the new destination is {}, want {v}",
                got[i]
            )
            .into());
        }
        if s1.clone_dtoh(&dst)?.iter().any(|&g| g != 0) {
            return Err(format!("round {round}: the copy's first destination was written").into());
        }
    }
    let mut short = s1.alloc_zeros::<u8>(n - 1)?;
    match exec.retarget_copy(node, &mut short) {
        Err(Error::InvalidArgument(msg)) if msg.contains(&format!("{}", n - 1)) => {}
        other => return Err(format!("a destination one byte short: {other:?}").into()),
    }
    // Still the last good destination, then back to the first one.
    let v = 77u8;
    s1.memset_d8(&mut src, v)?;
    exec.launch(&s1)?;
    if s1.clone_dtoh(&targets[1])?.iter().any(|&g| g != v) {
        return Err("a refused retarget moved the copy".into());
    }
    exec.retarget_copy(node, &mut dst)?;
    exec.launch(&s1)?;
    if s1.clone_dtoh(&dst)?.iter().any(|&g| g != v) {
        return Err("the copy moved back did not write its first destination".into());
    }
    Ok(())
}

/// A graph of a slow kernel and a copy of its word into `out`, and the scratch buffer the
/// kernel fills: each launch's `out` holds the word written before it, some milliseconds after
/// the launch is enqueued.
fn slow_word_graph(
    s: &Arc<cuprite_driver::Stream>,
    m: &Arc<Module>,
    word: &DeviceBuffer<u64>,
    out: &mut DeviceBuffer<u64>,
) -> Result<(cuprite_driver::GraphExec, DeviceBuffer<f32>), cuprite_driver::Error> {
    let slow = m.load_function("slow_fill")?;
    let n = 256;
    let mut scratch = s.alloc_zeros::<f32>(n)?;
    let (ni, cfg) = (n as i32, LaunchConfig::for_num_elems(n as u32));
    s.begin_capture(CaptureMode::ThreadLocal)?;
    // SAFETY: slow_fill with an n-element buffer (a few milliseconds).
    unsafe {
        s.launch_builder(&slow)
            .arg(&mut scratch)
            .arg(&1.0f32)
            .arg(&ni)
            .arg(&5_000_000i64)
            .launch(cfg)?
    };
    s.memcpy_dtod(word, out)?;
    let exec = s.end_capture()?.instantiate()?;
    Ok((exec, scratch))
}

/// Launches of one graph on one stream that touch the same buffers, nothing else touching them
/// in between (so each records its stream's cell again instead of writing every mark), are
/// each waited for by a reader on another stream: the reader sees the last launch's word, never
/// an earlier one's.
fn steady_launches_tracked_across_streams() -> TestResult {
    let (ctx, m) = setup()?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut word = s1.alloc_zeros::<u64>(1)?;
    let mut out = s1.alloc_zeros::<u64>(1)?;
    let (exec, _scratch) = slow_word_graph(&s1, &m, &word, &mut out)?;
    type B<T> = DeviceBuffer<T>;
    let no_in: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let no_out: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let mut rng = Rng::fresh();
    // Steady launches leave their cell's recording owed (paid by the reader), then record it
    // at each launch.
    let switch = DeferredCells::set(true);
    for round in 0..8 {
        switch.to(round < 4);
        let mut last = 0;
        for _ in 0..3 + round % 4 {
            last = rng.next_u64() | 1;
            exec.launch_with(&s1, no_in, Some((&mut word, last)), no_out)?;
        }
        let got = s2.clone_dtoh(&out)?;
        if got != [last] {
            return Err(format!(
                "round {round}: the reader on the other stream saw {:#x}, want the last \
                 launch's word {last:#x}",
                got[0]
            )
            .into());
        }
    }
    Ok(())
}

/// Sets `cuprite_driver::graph::set_deferred_cells` for a test and puts the process's setting
/// back when dropped, whatever happens.
struct DeferredCells(bool);

impl DeferredCells {
    fn set(on: bool) -> Self {
        let was = cuprite_driver::graph::deferred_cells();
        cuprite_driver::graph::set_deferred_cells(on);
        DeferredCells(was)
    }

    fn to(&self, on: bool) {
        cuprite_driver::graph::set_deferred_cells(on);
    }
}

impl Drop for DeferredCells {
    fn drop(&mut self) {
        cuprite_driver::graph::set_deferred_cells(self.0);
    }
}

/// Steady launches on a stream that then begins a capture: the recording their cell owes is
/// made before the capture begins (never captured), so a reader on another stream during the
/// capture waits for the last launch without joining the capture, and the capture ends whole.
fn owed_cell_paid_before_capture() -> TestResult {
    let _deferred = DeferredCells::set(true);
    let (ctx, m) = setup()?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut word = s1.alloc_zeros::<u64>(1)?;
    let mut out = s1.alloc_zeros::<u64>(1)?;
    let mut copy = s1.alloc_zeros::<u64>(1)?;
    let (exec, _scratch) = slow_word_graph(&s1, &m, &word, &mut out)?;
    type B<T> = DeviceBuffer<T>;
    let no_in: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let no_out: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let mut rng = Rng::fresh();
    let mut last = 0;
    for _ in 0..4 {
        last = rng.next_u64() | 1;
        exec.launch_with(&s1, no_in, Some((&mut word, last)), no_out)?;
    }
    s1.begin_capture(CaptureMode::Relaxed)?;
    let read = s2.clone_dtoh(&out);
    let captured = s1.memcpy_dtod(&out, &mut copy);
    let graph = s1.end_capture();
    let got = read?;
    captured?;
    if got != [last] {
        return Err(format!(
            "the reader during the capture saw {:#x}, want the last launch's word {last:#x}",
            got[0]
        )
        .into());
    }
    if s2.capture_status()? != CaptureStatus::None {
        return Err("the reader's stream joined the capture".into());
    }
    graph?.instantiate()?.launch(&s1)?;
    if s1.clone_dtoh(&copy)? != [last] {
        return Err("the captured copy did not copy the last launch's word".into());
    }
    Ok(())
}

/// Steady launches on a stream that is then dropped (the graph and the buffers live on): the
/// recording their cell owes is made before the stream goes, so a later reader on another
/// stream waits for the last launch.
fn owed_cell_paid_when_stream_drops() -> TestResult {
    let _deferred = DeferredCells::set(true);
    let (ctx, m) = setup()?;
    let s0 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    // Allocated on s0 (which the buffers keep), captured on s0, launched on s1 alone.
    let mut word = s0.alloc_zeros::<u64>(1)?;
    let mut out = s0.alloc_zeros::<u64>(1)?;
    let (exec, _scratch) = slow_word_graph(&s0, &m, &word, &mut out)?;
    s0.synchronize()?;
    type B<T> = DeviceBuffer<T>;
    let no_in: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let no_out: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let mut rng = Rng::fresh();
    for round in 0..3 {
        let s1 = ctx.new_stream()?;
        let mut last = 0;
        for _ in 0..3 + round {
            last = rng.next_u64() | 1;
            exec.launch_with(&s1, no_in, Some((&mut word, last)), no_out)?;
        }
        drop(s1);
        let got = s2.clone_dtoh(&out)?;
        if got != [last] {
            return Err(format!(
                "round {round}: after the launching stream was dropped the reader saw {:#x}, \
                 want the last launch's word {last:#x}",
                got[0]
            )
            .into());
        }
    }
    Ok(())
}

/// Two graphs chained through a buffer, each launched on a stream of its own again and again:
/// the first writes the buffer (slowly), the second copies it out. Every launch of the second
/// waits for the first's latest launch, whether or not the first's launches skipped the
/// trackers of buffers nothing else touched.
fn chained_graphs_on_two_streams() -> TestResult {
    let (ctx, m) = setup()?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    ctx.enable_multi_stream_tracking()?;
    let mut word = s1.alloc_zeros::<u64>(1)?;
    let mut x = s1.alloc_zeros::<u64>(1)?;
    let mut y = s1.alloc_zeros::<u64>(1)?;
    let (first, _scratch) = slow_word_graph(&s1, &m, &word, &mut x)?;
    s2.begin_capture(CaptureMode::ThreadLocal)?;
    s2.memcpy_dtod(&x, &mut y)?;
    let second = s2.end_capture()?.instantiate()?;
    s1.synchronize()?;
    s2.synchronize()?;
    type B<T> = DeviceBuffer<T>;
    let no_in: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let no_out: &mut [(&B<u8>, &mut B<u8>)] = &mut [];
    let mut rng = Rng::fresh();
    // First launches between second ones: 1, 2, 3, 1, 2, 3...
    for round in 0..9 {
        let mut last = 0;
        for _ in 0..1 + round % 3 {
            last = rng.next_u64() | 1;
            first.launch_with(&s1, no_in, Some((&mut word, last)), no_out)?;
        }
        second.launch(&s2)?;
        let got = s2.clone_dtoh(&y)?;
        if got != [last] {
            return Err(format!(
                "round {round}: the second graph copied {:#x}, want the first's last word \
                 {last:#x}",
                got[0]
            )
            .into());
        }
    }
    Ok(())
}

/// A cuDNN handle holding graph-API execution plans, dropped on another thread during a capture
/// on its stream: its drop waits for the stream before the plans go, which the capture forbids.
/// It does not wait; the capture goes on to a correct graph, the plans and the handle go after
/// the next synchronisation, and no error is deferred. The convolution's result is checked: a
/// 3×3 filter of ones over a 4×4 image of ones, padded by 1, sums 4 at the corners, 6 on the
/// edges and 9 inside.
fn dnn_drop_elsewhere_leaves_capture_intact() -> TestResult {
    use cuprite_driver::dnn::{ConvShape, Dnn};
    use half::bf16;
    let (ctx, m) = setup()?;
    let stream = ctx.new_stream()?;
    let dnn = match Dnn::new(&stream) {
        Ok(d) => d,
        Err(cuprite_driver::Error::LibraryNotFound { .. }) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    dnn.set_graph_api(Some(true));
    dnn.set_algo_search(Some(false));
    let mut shape = ConvShape::new(1, 1, [4, 4], 1, [3, 3]);
    shape.pad = [1, 1];
    let x = stream.clone_htod(&vec![bf16::ONE; 16])?;
    let w = stream.clone_htod(&vec![bf16::ONE; 9])?;
    let mut y = stream.clone_htod(&vec![bf16::NAN; 16])?;
    dnn.conv_forward(&shape, &x, &w, &mut y)?;
    let got = stream.clone_dtoh(&y)?;
    for i in 0..4 {
        for j in 0..4 {
            let rows = 3 - usize::from(i == 0 || i == 3);
            let cols = 3 - usize::from(j == 0 || j == 3);
            let want = (rows * cols) as f32;
            assert_eq!(got[i * 4 + j].to_f32(), want, "y[{i}][{j}]");
        }
    }
    assert!(
        dnn.graph_plans()? > 0,
        "the handle holds a plan (its drop must wait for its stream)"
    );
    capture_beside(&ctx, &m, &stream, move || {
        drop(dnn);
        Ok(())
    })
}
