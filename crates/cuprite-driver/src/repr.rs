//! Which Rust values may be passed to a CUDA kernel by value: the [`DeviceRepr`] trait.
//!
//! Owns the trait, its implementations for primitives, `half`'s `f16`/`bf16`, fixed arrays and
//! raw device pointers ([`DevicePtr`]), and the re-export of `#[derive(DeviceRepr)]`. It must not
//! know about launches or buffers: `launch.rs` decides how arguments are passed.

use cuprite_sys::driver::CUdeviceptr;
use std::marker::PhantomData;

/// A type whose bytes can be copied, as they are, into a CUDA kernel's parameter buffer and read
/// there as the matching C type.
///
/// # Safety
///
/// Implement it only for types whose layout is exactly that of a C type the kernel declares:
/// primitives, `#[repr(C)]` structs of such types, fixed arrays of them. No references, no
/// host pointers that the kernel would dereference, no Rust-layout structs. Prefer
/// `#[derive(DeviceRepr)]`, which checks `#[repr(C)]` and every field:
///
/// ```
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(Clone, Copy, DeviceRepr)]
/// #[repr(C)]
/// struct Params {
///     scale: f32,
///     offset: [f32; 3],
///     n: u32,
/// }
/// fn takes<T: DeviceRepr>(_: &T) {}
/// takes(&Params { scale: 2.0, offset: [0.0; 3], n: 7 });
/// ```
///
/// A struct without `#[repr(C)]` is refused:
///
/// ```compile_fail
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(Clone, Copy, DeviceRepr)]
/// struct NoLayout {
///     a: f32,
///     b: u8,
/// }
/// ```
///
/// So is a field that is not `DeviceRepr` (a `Vec` has no meaning on the device):
///
/// ```compile_fail
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(DeviceRepr)]
/// #[repr(C)]
/// struct HasVec {
///     a: f32,
///     v: Vec<f32>,
/// }
/// ```
///
/// A reference field is refused too:
///
/// ```compile_fail
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(DeviceRepr)]
/// #[repr(C)]
/// struct HasRef<'a> {
///     a: &'a f32,
/// }
/// ```
///
/// And enums:
///
/// ```compile_fail
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(Clone, Copy, DeviceRepr)]
/// #[repr(C)]
/// enum Mode { A, B }
/// ```
///
/// An unknown `#[cuprite(..)]` option is refused (the one option is `crate = "path"`, for a
/// renamed dependency):
///
/// ```compile_fail
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(Clone, Copy, DeviceRepr)]
/// #[cuprite(krate = "cuprite_driver")]
/// #[repr(C)]
/// struct Typo { a: f32 }
/// ```
///
/// A generic struct is `DeviceRepr` when its parameters are:
///
/// ```
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(Clone, Copy, DeviceRepr)]
/// #[repr(C)]
/// struct Pair<T> { a: T, b: T }
/// fn takes<T: DeviceRepr>(_: &T) {}
/// takes(&Pair { a: 1u16, b: 2u16 });
/// ```
///
/// ```compile_fail
/// use cuprite_driver::DeviceRepr;
///
/// #[derive(Clone, Copy, DeviceRepr)]
/// #[repr(C)]
/// struct Pair<T> { a: T, b: T }
/// fn takes<T: DeviceRepr>(_: &T) {}
/// takes(&Pair { a: String::new(), b: String::new() });
/// ```
pub unsafe trait DeviceRepr {}

macro_rules! impl_device_repr {
    ($($t:ty),* $(,)?) => {$(
        // SAFETY: a primitive with the same size, alignment and bit meaning as its C twin.
        unsafe impl DeviceRepr for $t {}
    )*};
}

impl_device_repr!(
    bool,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    half::f16,
    half::bf16,
);

// SAFETY: a C array of `N` elements has exactly the layout of `[T; N]` when `T` is DeviceRepr.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}

// SAFETY: zero-sized; passing it passes no bytes (useful as a placeholder in derived structs).
unsafe impl<T> DeviceRepr for PhantomData<T> {}

/// A raw device address of `T` elements, passed to a kernel as a `T*`.
///
/// Use it to pass a pointer that cuprite does not own (from another library, or an offset
/// computed by hand) or to put a pointer inside a `#[repr(C)]` argument struct. Unlike a buffer
/// argument it is **not tracked**: the caller orders the work that touches it.
///
/// ```
/// use cuprite_driver::DevicePtr;
///
/// let p: DevicePtr<f32> = DevicePtr::new(0x7f00_0000_0000);
/// assert_eq!(p.offset(4).map(DevicePtr::addr), Some(0x7f00_0000_0010));
/// assert!(DevicePtr::<u8>::null().is_null());
/// ```
#[repr(transparent)]
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct DevicePtr<T> {
    addr: CUdeviceptr,
    _elem: PhantomData<*mut T>,
}

impl<T> Clone for DevicePtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DevicePtr<T> {}

// SAFETY: a device address is plain data; the host never dereferences it.
unsafe impl<T> Send for DevicePtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for DevicePtr<T> {}

// SAFETY: a 64-bit device address, the layout of any `T*` in device code.
unsafe impl<T> DeviceRepr for DevicePtr<T> {}

impl<T> DevicePtr<T> {
    /// The pointer with address `addr`.
    pub const fn new(addr: CUdeviceptr) -> Self {
        DevicePtr {
            addr,
            _elem: PhantomData,
        }
    }

    /// The null pointer.
    pub const fn null() -> Self {
        Self::new(0)
    }

    /// The address.
    pub const fn addr(self) -> CUdeviceptr {
        self.addr
    }

    /// Whether this is the null pointer.
    pub const fn is_null(self) -> bool {
        self.addr == 0
    }

    /// The pointer `count` elements further on, or `None` when `count` elements of `T` or the
    /// address past them do not fit in 64 bits (never a wrapped address).
    ///
    /// ```
    /// use cuprite_driver::DevicePtr;
    /// let p = DevicePtr::<f32>::new(0x1000);
    /// assert_eq!(p.offset(4).map(|q| q.addr()), Some(0x1010));
    /// assert!(p.offset(usize::MAX / 2).is_none());
    /// ```
    pub const fn offset(self, count: usize) -> Option<Self> {
        let Some(bytes) = (count as u64).checked_mul(std::mem::size_of::<T>() as u64) else {
            return None;
        };
        match self.addr.checked_add(bytes) {
            Some(addr) => Some(Self::new(addr)),
            None => None,
        }
    }

    /// The same address, as a pointer to `U`.
    pub const fn cast<U>(self) -> DevicePtr<U> {
        DevicePtr::new(self.addr)
    }
}
