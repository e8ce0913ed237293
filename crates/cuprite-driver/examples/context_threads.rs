//! Contexts as RustaCUDA manages them, second example: one context shared by four OS threads.
//!
//! Each thread makes the context current from an `UnownedContext` (RustaCUDA's model), then
//! allocates, copies fresh data through the device and checks it. The owner joins every thread
//! before dropping the context.

use cuprite_driver::{Context, ContextFlags, CurrentContext, Device};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    cuprite_driver::init()?;
    let device = Device::get(0)?;
    let context =
        Context::create_and_push(ContextFlags::MAP_HOST | ContextFlags::SCHED_AUTO, device)?;
    let mut join_handles = vec![];

    for t in 0..4u32 {
        let unowned = context.get_unowned();
        let ctx = context.clone();
        let join_handle = std::thread::spawn(move || -> Result<u64, String> {
            CurrentContext::set_current(&unowned).map_err(|e| e.to_string())?;
            assert_eq!(
                CurrentContext::get_current().map_err(|e| e.to_string())?,
                Some(unowned)
            );
            // Each thread works on its own stream of the shared context.
            let stream = ctx.new_stream().map_err(|e| e.to_string())?;
            let host: Vec<u32> = (0..250_000u32)
                .map(|i| i.wrapping_mul(2_654_435_761) ^ t)
                .collect();
            let dev = stream.clone_htod(&host).map_err(|e| e.to_string())?;
            let copy = stream.clone_dtod(&dev).map_err(|e| e.to_string())?;
            let back = stream.clone_dtoh(&copy).map_err(|e| e.to_string())?;
            assert_eq!(back, host, "thread {t}: values differ");
            Ok(back.iter().map(|&x| x as u64).sum())
        });
        join_handles.push(join_handle);
    }
    // We must ensure that the other threads are not using the context when it's destroyed.
    let mut sums = vec![];
    for handle in join_handles {
        sums.push(handle.join().map_err(|_| "a thread panicked")??);
    }
    println!("context_threads: 4 threads copied through one context, checksums {sums:?}");
    // Now it's safe to drop the context.
    drop(context);
    Ok(())
}
