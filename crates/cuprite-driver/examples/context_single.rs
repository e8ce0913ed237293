//! Contexts as RustaCUDA manages them, first example: one device, one OS thread, one owned
//! context.
//!
//! Creates a context with `MAP_HOST | SCHED_AUTO`, pushes it, copies fresh data to the device
//! and back through it, checks the values, and drops the context.

use cuprite_driver::{Context, ContextFlags, CurrentContext, Device};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    cuprite_driver::init()?;
    let device = Device::get(0)?;
    let context =
        Context::create_and_push(ContextFlags::MAP_HOST | ContextFlags::SCHED_AUTO, device)?;
    assert_eq!(
        CurrentContext::get_current()?.map(|c| c.raw()),
        Some(context.raw()),
        "create_and_push makes the new context current"
    );

    // Call cuprite functions which use the context.
    let stream = context.default_stream();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_nanos() as u64;
    let host: Vec<u64> = (0..1_000_000u64)
        .map(|i| (i ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let dev = stream.clone_htod(&host)?;
    let mut back = vec![0u64; host.len()];
    stream.memcpy_dtoh(&dev, &mut back)?;
    assert_eq!(back, host);
    println!(
        "context_single: copied {} MB to {} and back, values match",
        host.len() * 8 / 1_000_000,
        device.name()?
    );

    // The context is destroyed when dropped (after the buffer, which belongs to it).
    drop(dev);
    drop(stream);
    drop(context);
    Ok(())
}
