//! `#[derive(DeviceRepr)]` under a renamed dependency: this crate sees the driver as `gpu`, so
//! the derive's default path `::cuprite_driver` does not resolve here and only the
//! `#[cuprite(crate = "gpu")]` option makes these structs compile.

use gpu::DeviceRepr;

#[derive(Clone, Copy, DeviceRepr)]
#[cuprite(crate = "gpu")]
#[repr(C)]
struct Params {
    scale: f32,
    offset: [f32; 3],
    n: u32,
}

#[derive(Clone, Copy, DeviceRepr)]
#[cuprite(crate = "::gpu")]
#[repr(C)]
struct Pair<T> {
    a: T,
    b: T,
}

fn size_if_device_repr<T: DeviceRepr>(_: &T) -> usize {
    std::mem::size_of::<T>()
}

#[test]
fn derive_names_the_renamed_crate() {
    let p = Params {
        scale: 2.0,
        offset: [1.0, 2.0, 3.0],
        n: 7,
    };
    assert_eq!(size_if_device_repr(&p), 4 + 12 + 4);
    assert_eq!(p.scale * p.offset[2] + p.n as f32, 13.0);
    let q = Pair { a: 1u16, b: 2u16 };
    assert_eq!(size_if_device_repr(&q), 4);
    assert_eq!(q.a + q.b, 3);
}
