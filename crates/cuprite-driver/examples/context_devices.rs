//! Contexts as RustaCUDA manages them, third example: one context per device.
//!
//! Creates and pops one owned context per device, then makes the first current; in each
//! context it allocates, copies fresh data through the device and checks it.

use cuprite_driver::{Context, ContextFlags, ContextStack, CurrentContext, Device};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    cuprite_driver::init()?;
    // Create and pop contexts for each device.
    let mut contexts = vec![];
    for device in Device::all()? {
        let ctx =
            Context::create_and_push(ContextFlags::MAP_HOST | ContextFlags::SCHED_AUTO, device)?;
        let popped = ContextStack::pop()?;
        assert_eq!(popped.raw(), ctx.raw());
        contexts.push(ctx);
    }
    CurrentContext::set_current(&*contexts[0])?;
    assert_eq!(CurrentContext::get_device()?, contexts[0].device());

    // Use every context: cuprite binds each one as needed.
    for (i, ctx) in contexts.iter().enumerate() {
        let stream = ctx.default_stream();
        let host: Vec<f32> = (0..300_000)
            .map(|k| ((k * 7 + i * 13) % 1009) as f32 * 0.5)
            .collect();
        let dev = stream.clone_htod(&host)?;
        let back = stream.clone_dtoh(&dev)?;
        assert_eq!(back, host, "device {i}: values differ");
        println!(
            "context_devices: device {i} ({}) copied and checked",
            ctx.device().name()?
        );
    }
    println!(
        "context_devices: {} context(s), one per device",
        contexts.len()
    );
    Ok(())
}
