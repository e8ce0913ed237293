//! Futures of array results (`to_vec_async`, `item_async`, `sync_async`) and of streams
//! (`Stream::synchronize_async`), driven by a minimal executor written here: one thread, woken
//! by the futures' wakers (a host function on the stream), never polling in a loop.

use cuprite_array::{Array, Device, with_device};
use cuprite_testkit::{Rng, Test, TestResult};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};

/// Wakes the executor's thread and counts wake-ups.
struct ThreadWaker {
    thread: std::thread::Thread,
    wakes: AtomicUsize,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wakes.fetch_add(1, Ordering::Relaxed);
        self.thread.unpark();
    }
}

/// Runs every future to completion on this thread; between rounds the thread parks until a
/// waker unparks it (with a timeout as a safety net, so a lost wake-up fails slowly instead of
/// hanging). Returns the outputs in order and how many rounds ran.
fn join_all<T>(futures: Vec<Pin<Box<dyn Future<Output = T>>>>) -> (Vec<T>, usize) {
    let waker_state = Arc::new(ThreadWaker {
        thread: std::thread::current(),
        wakes: AtomicUsize::new(0),
    });
    let waker = Waker::from(waker_state.clone());
    let mut cx = Context::from_waker(&waker);
    let mut slots: Vec<Option<Pin<Box<dyn Future<Output = T>>>>> =
        futures.into_iter().map(Some).collect();
    let mut out: Vec<Option<T>> = slots.iter().map(|_| None).collect();
    let mut left = slots.len();
    let mut rounds = 0;
    while left > 0 {
        rounds += 1;
        for (i, slot) in slots.iter_mut().enumerate() {
            if let Some(f) = slot {
                if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                    out[i] = Some(v);
                    *slot = None;
                    left -= 1;
                }
            }
        }
        if left > 0 {
            std::thread::park_timeout(std::time::Duration::from_secs(5));
        }
    }
    (out.into_iter().map(|v| v.expect("ready")).collect(), rounds)
}

fn block_on<T>(f: impl Future<Output = T> + 'static) -> T {
    join_all(vec![Box::pin(f)]).0.remove(0)
}

/// 1,000 reads awaited at once from one thread, each checked against its host formula.
fn thousand_reads() -> TestResult {
    let dev = Device::cuda(0);
    let mut rng = Rng::fresh();
    let data: Vec<Vec<f32>> = (0..1000).map(|_| rng.vec_f32(33, -4.0, 4.0)).collect();
    let arrays: Vec<Array<f32>> = data
        .iter()
        .map(|v| Ok::<_, cuprite_array::Error>(Array::from_slice_on(dev, v, &[33])? * 2.0 + 1.0))
        .collect::<Result<_, _>>()?;
    let futs: Vec<Pin<Box<dyn Future<Output = cuprite_array::Result<Vec<f32>>>>>> = arrays
        .iter()
        .map(|a| Box::pin(a.to_vec_async()) as _)
        .collect();
    drop(arrays);
    let (got, _) = join_all(futs);
    for (k, (g, v)) in got.into_iter().zip(&data).enumerate() {
        let g = g?;
        for (i, (&x, &y)) in v.iter().zip(&g).enumerate() {
            let want = x * 2.0 + 1.0;
            if y != want {
                return Err(format!("read {k} element {i}: {y}, want {want}").into());
            }
        }
    }
    Ok(())
}

/// 1,000 stream futures and 1,000 sums awaited at once; `sync_async` after a long chain.
fn thousand_syncs() -> TestResult {
    let dev = Device::cuda(0);
    let stream = cuprite_array::get_stream(0)?;
    let a = with_device(dev, || Array::<f32>::ones(&[1 << 20]) * 3.0);
    let done = a.sync_async();
    let mut futs: Vec<Pin<Box<dyn Future<Output = cuprite_array::Result<f32>>>>> = Vec::new();
    for i in 0..1000 {
        let s = stream.synchronize_async()?;
        futs.push(Box::pin(async move {
            s.await?;
            Ok(i as f32)
        }));
    }
    for i in 0..1000 {
        let s = with_device(dev, || Array::<f32>::full(&[64], i as f32)).sum()?;
        futs.push(Box::pin(s.item_async()));
    }
    let (got, _) = join_all(futs);
    for (k, g) in got.into_iter().enumerate() {
        let want = if k < 1000 {
            k as f32
        } else {
            64.0 * (k - 1000) as f32
        };
        let g = g?;
        if g != want {
            return Err(format!("future {k}: {g}, want {want}").into());
        }
    }
    block_on(done)?;
    let v = block_on(a.sum()?.item_async())?;
    if v != 3.0 * (1 << 20) as f32 {
        return Err(format!("sum after sync_async: {v}").into());
    }
    Ok(())
}

/// Futures dropped before their copies land: later reads are right, and the host memory of
/// the dropped ones is freed once their copies are done (by later reads' sweeps).
fn dropped_early() -> TestResult {
    let dev = Device::cuda(0);
    for round in 0..20 {
        let a = with_device(dev, || Array::<f32>::full(&[1 << 16], round as f32)) + 1.0;
        let futs: Vec<_> = (0..10).map(|_| a.to_vec_async()).collect();
        drop(futs);
        let v = block_on(a.to_vec_async())?;
        if v.iter().any(|&x| x != round as f32 + 1.0) {
            return Err(format!("round {round}: a read after dropped reads is wrong").into());
        }
    }
    Ok(())
}

/// On the CPU the futures are ready at once, with `to_vec`'s values; `item_async` of several
/// elements is an `Err` naming the shape.
fn cpu_futures() -> TestResult {
    let mut rng = Rng::fresh();
    let v = rng.vec_f32(100, -1.0, 1.0);
    let a = Array::from_slice_on(Device::CPU, &v, &[100])?;
    let b = &a * 2.0;
    let got = block_on(b.to_vec_async())?;
    let want: Vec<f32> = v.iter().map(|x| x * 2.0).collect();
    if got != want {
        return Err("to_vec_async on the CPU differs from x * 2".into());
    }
    match block_on(a.item_async()) {
        Err(e) if e.to_string().contains("[100]") => {}
        other => return Err(format!("item_async of 100 elements: {other:?}").into()),
    }
    block_on(b.sync_async())?;
    Ok(())
}

/// Arrays of `n` elements on `dev` and the values `x * 2 + 1` of each, from random data.
fn doubled(
    dev: Device,
    count: usize,
    n: usize,
) -> cuprite_array::Result<(Vec<Array<f32>>, Vec<Vec<f32>>)> {
    let mut rng = Rng::fresh();
    let data: Vec<Vec<f32>> = (0..count).map(|_| rng.vec_f32(n, -4.0, 4.0)).collect();
    let arrays = data
        .iter()
        .map(|v| Ok(Array::from_slice_on(dev, v, &[n])? * 2.0 + 1.0))
        .collect::<cuprite_array::Result<Vec<_>>>()?;
    let want = data
        .iter()
        .map(|v| v.iter().map(|x| x * 2.0 + 1.0).collect())
        .collect();
    Ok((arrays, want))
}

/// 1,000 reads awaited concurrently by 1,000 tasks of tokio's single-thread runtime (one
/// thread), with a sum per task through `item_async`; every value checked.
fn tokio_thousand_tasks(dev: Device) -> TestResult {
    let (arrays, want) = doubled(dev, 1000, 17)?;
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let local = tokio::task::LocalSet::new();
    let got = local.block_on(&rt, async move {
        let tasks: Vec<_> = arrays
            .into_iter()
            .map(|a| {
                tokio::task::spawn_local(async move {
                    let v = a.to_vec_async().await?;
                    let s = a.sum()?.item_async().await?;
                    Ok::<_, cuprite_array::Error>((v, s))
                })
            })
            .collect();
        let mut out = Vec::with_capacity(tasks.len());
        for t in tasks {
            out.push(t.await);
        }
        out
    });
    for (k, (r, w)) in got.into_iter().zip(&want).enumerate() {
        let (v, s) = r.map_err(|e| format!("task {k}: {e}"))??;
        if v != *w {
            return Err(format!("task {k}: {v:?}, want {w:?}").into());
        }
        let ws: f64 = w.iter().map(|&x| x as f64).sum();
        if (s as f64 - ws).abs() > 1e-4 * w.len() as f64 {
            return Err(format!("task {k}: sum {s}, want {ws}").into());
        }
    }
    Ok(())
}

/// 1,000 reads joined by `futures::future::join_all` under `futures::executor::block_on`.
fn futures_block_on_thousand(dev: Device) -> TestResult {
    let (arrays, want) = doubled(dev, 1000, 9)?;
    let got = futures::executor::block_on(futures::future::join_all(
        arrays.iter().map(|a| a.to_vec_async()),
    ));
    for (k, (g, w)) in got.into_iter().zip(&want).enumerate() {
        if g? != *w {
            return Err(format!("read {k} differs from x * 2 + 1").into());
        }
    }
    futures::executor::block_on(cuprite_array::get_stream(0)?.synchronize_async()?)?;
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::gpu("async_await::tokio_thousand_tasks", || {
            tokio_thousand_tasks(Device::cuda(0))
        }),
        Test::cpu("async_await::tokio_cpu", || {
            tokio_thousand_tasks(Device::CPU)
        }),
        Test::gpu("async_await::futures_block_on_thousand", || {
            futures_block_on_thousand(Device::cuda(0))
        }),
        Test::gpu("async_await::thousand_reads", thousand_reads),
        Test::gpu("async_await::thousand_syncs", thousand_syncs),
        Test::gpu("async_await::dropped_early", dropped_early),
        Test::cpu("async_await::cpu_futures", cpu_futures),
    ]
}
