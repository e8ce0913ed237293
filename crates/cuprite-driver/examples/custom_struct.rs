//! Passes a `#[derive(DeviceRepr)]` struct to a kernel by value, and checks on the host what
//! the kernel read.

use cuprite_driver::nvrtc::compile_ptx;
use cuprite_driver::{Context, DeviceRepr, LaunchConfig};

#[derive(Debug, Clone, Copy, DeviceRepr)]
#[repr(C)]
struct MyCoolRustStruct {
    a: f32,
    b: f64,
    c: u32,
    d: usize,
}

const PTX_SRC: &str = "
// the .cu file's definition must match the Rust #[repr(C)] struct
struct MyCoolStruct {
    float alpha;
    double beta;
    unsigned int gamma;
    size_t delta;
};

extern \"C\" __global__ void my_custom_kernel(MyCoolStruct thing, double *out) {
    assert(thing.alpha == 1.0);
    assert(thing.beta == 2.34);
    assert(thing.gamma == 57);
    assert(thing.delta == 420);
    out[0] = thing.alpha;
    out[1] = thing.beta;
    out[2] = thing.gamma;
    out[3] = thing.delta;
    out[4] = sizeof(MyCoolStruct);
}
";

fn main() -> cuprite_driver::Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.default_stream();

    let ptx = compile_ptx(PTX_SRC)?;
    let module = ctx.load_module(ptx)?;
    let f = module.load_function("my_custom_kernel")?;

    // try changing some of these values to see a device assert
    let thing = MyCoolRustStruct {
        a: 1.0,
        b: 2.34,
        c: 57,
        d: 420,
    };
    let mut out = stream.clone_htod(&[f64::NAN; 5])?;

    let mut builder = stream.launch_builder(&f);
    // since MyCoolRustStruct implements DeviceRepr, we can pass it to launch.
    builder.arg(&thing);
    builder.arg(&mut out);
    // SAFETY: the kernel takes the struct (same layout, checked through its size below) and a
    // 5-element double buffer.
    unsafe { builder.launch(LaunchConfig::for_num_elems(1)) }?;

    let got = stream.clone_dtoh(&out)?;
    println!("kernel read {got:?} from {thing:?}");
    assert_eq!(
        got,
        [
            1.0,
            2.34,
            57.0,
            420.0,
            std::mem::size_of::<MyCoolRustStruct>() as f64
        ]
    );
    println!("custom_struct: OK");
    Ok(())
}
