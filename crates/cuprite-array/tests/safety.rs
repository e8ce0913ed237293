//! Soundness and wrong-result regressions: byte counts that overflow, memory whose owner the
//! driver reports as a pool, and results checked against independent references.

use cuprite_array::{Array, Device, with_device};
use cuprite_driver::pointer::{Owner, pointer_info};
use cuprite_driver::{Context, ContextFlags, ContextStack, DeviceBuffer};
use cuprite_testkit::{Rng, Test, TestResult, ignore};

type Body = fn(Device) -> TestResult;

/// Bodies run on the CPU backend and on CUDA device 0.
const BODIES: &[(&str, Body)] = &[("raw_pointer_shape_overflow", raw_pointer_shape_overflow)];

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, body) in BODIES {
        v.push(Test::cpu(format!("safety::cpu::{name}"), move || {
            body(Device::CPU)
        }));
        v.push(Test::gpu(format!("safety::cuda::{name}"), move || {
            body(Device::cuda(0))
        }));
    }
    v.push(Test::gpu(
        "safety::cuda::raw_pointer_pool_memory",
        raw_pointer_pool_memory,
    ));
    v
}

/// A shape whose byte count overflows is refused by name before the pointer is looked at (a
/// wrapped count of 0 bytes would pass the allocation-size check).
fn raw_pointer_shape_overflow(d: Device) -> TestResult {
    with_device(d, || -> TestResult {
        for shape in [
            vec![1usize << 62],
            vec![1 << 32, 1 << 32],
            vec![3, 1 << 61, 2],
        ] {
            // SAFETY: the shape is refused before the (made-up, aligned) pointer is used.
            let r = unsafe { Array::<f32>::new_from_device_ptr(0x1000 as *mut f32, &shape) };
            match r {
                Err(cuprite_array::Error::Shape(m)) if m.contains(&format!("{shape:?}")) => {}
                other => {
                    return Err(
                        format!("shape {shape:?}: expected a Shape error, {other:?}").into(),
                    );
                }
            }
        }
        Ok(())
    })
}

/// Memory of a stream-ordered pool reports no context: it is adopted when its pool lets the
/// device read and write, and the array holds its values; memory of another context's
/// synchronous allocation is refused.
fn raw_pointer_pool_memory() -> TestResult {
    with_device(Device::cuda(0), || -> TestResult {
        let owned =
            Context::create_and_push(ContextFlags::SCHED_AUTO, cuprite_driver::Device::get(0)?)?;
        ContextStack::pop()?;
        if !owned.uses_memory_pool() {
            return ignore("the device has no stream-ordered memory pools");
        }
        let s = owned.new_stream()?;
        let mut rng = Rng::fresh();
        let n = 1000 + (rng.next_u64() % 100) as usize;
        let h = rng.vec_f32(n, -1.0, 1.0);
        let buf = s.clone_htod(&h)?;
        s.synchronize()?;
        let ptr = buf.leak();
        let info = pointer_info(ptr)?;
        assert_eq!(info.owner(), Owner::Pool, "{info:?}");
        assert!(info.pool_grants_read_write(0)?);
        // SAFETY: the start of a live pool allocation of n f32 on device 0, given up above,
        // with no pending work.
        let a = unsafe { Array::<f32>::new_from_device_ptr(ptr as *mut f32, &[n]) }?;
        let want: f64 = h.iter().map(|&x| x as f64).sum();
        let got = a.sum()?.item()? as f64;
        assert!((got - want).abs() < 1e-4 * n as f64, "{got} vs {want}");
        drop(a);
        owned.set_memory_pool_enabled(false)?;
        let sync_buf = s.clone_htod(&h)?;
        let sync_ptr = sync_buf.leak();
        assert_eq!(pointer_info(sync_ptr)?.owner(), Owner::Context);
        // SAFETY: refused (memory of another context), so nothing is taken over.
        let e = unsafe { Array::<f32>::new_from_device_ptr(sync_ptr as *mut f32, &[n]) }
            .expect_err("memory of an owned context");
        assert!(e.to_string().contains("another context"), "{e}");
        // SAFETY: the allocation made above, owned by nobody else; freed the way it was made.
        drop(unsafe { DeviceBuffer::<f32>::from_raw_parts(sync_ptr, n, &s) });
        Ok(())
    })
}
