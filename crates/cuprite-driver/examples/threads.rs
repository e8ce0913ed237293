//! Two ways of using a device from several threads: sharing one context and module,
//! or calling `Context::new` in each thread (which returns the same primary context).

use cuprite_driver::nvrtc::compile_ptx;
use cuprite_driver::{Context, LaunchConfig};
use std::thread;

const KERNEL_SRC: &str = "
extern \"C\" __global__ void hello_world(int i, int *out) {
    printf(\"Hello from the cuda kernel in thread %i\\n\", i);
    out[0] = i * i + 1;
}
";

fn check(i: i32, got: Vec<i32>) -> cuprite_driver::Result<()> {
    if got != [i * i + 1] {
        return Err(cuprite_driver::Error::InvalidArgument(format!(
            "thread {i}: kernel wrote {got:?}"
        )));
    }
    Ok(())
}

fn main() -> cuprite_driver::Result<()> {
    {
        // Option 1: sharing ctx & module between threads
        thread::scope(|s| -> cuprite_driver::Result<()> {
            let ptx = compile_ptx(KERNEL_SRC)?;
            let ctx = Context::new(0)?;
            let module = ctx.load_module(ptx)?;
            let mut handles = Vec::new();
            for i in 0..10i32 {
                let thread_ctx = ctx.clone();
                let thread_module = module.clone();
                handles.push(s.spawn(move || -> cuprite_driver::Result<()> {
                    let stream = thread_ctx.default_stream();
                    let f = thread_module.load_function("hello_world")?;
                    let mut out = stream.clone_htod(&[-1i32])?;
                    // SAFETY: hello_world(int, int*) with a 1-element buffer.
                    unsafe {
                        stream
                            .launch_builder(&f)
                            .arg(&i)
                            .arg(&mut out)
                            .launch(LaunchConfig::for_num_elems(1))
                    }?;
                    check(i, stream.clone_dtoh(&out)?)
                }));
            }
            for h in handles {
                h.join().expect("thread panicked")?;
            }
            Ok(())
        })?;
        println!("option 1 (shared context and module): 10 threads OK");
    }

    {
        // Option 2: initializing different context in each
        // Note that this will still schedule to the same stream since we are using the
        // default stream here on the same device.
        thread::scope(move |s| -> cuprite_driver::Result<()> {
            let mut handles = Vec::new();
            for i in 0..10i32 {
                handles.push(s.spawn(move || -> cuprite_driver::Result<()> {
                    let ptx = compile_ptx(KERNEL_SRC)?;
                    let ctx = Context::new(0)?;
                    let module = ctx.load_module(ptx)?;
                    let stream = ctx.default_stream();
                    let f = module.load_function("hello_world")?;
                    let mut out = stream.clone_htod(&[-1i32])?;
                    // SAFETY: as above.
                    unsafe {
                        stream
                            .launch_builder(&f)
                            .arg(&i)
                            .arg(&mut out)
                            .launch(LaunchConfig::for_num_elems(1))
                    }?;
                    check(i, stream.clone_dtoh(&out)?)
                }));
            }
            for h in handles {
                h.join().expect("thread panicked")?;
            }
            Ok(())
        })?;
        println!("option 2 (context per thread): 10 threads OK");
    }
    println!("threads: OK");
    Ok(())
}
