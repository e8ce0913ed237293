//! Typed parameter lists of hand-written library kernels.
//!
//! One Rust description per kernel, declared with [`kernel_params!`], yields both the
//! kernel's C parameter list ([`KernelParams::signature`]) and, from a value of it, the
//! launch's argument words with the buffer accesses the stream tracker is told of
//! ([`KernelParams::args`]). Both walk the fields in declaration order, so the two cannot
//! drift apart, and no launch names a parameter by its position in a word list.
//!
//! A buffer parameter is a [`ReadBuf`] or a [`WriteBuf`] (or an optional [`MaybeWrite`]): its type
//! decides how the launch declares it, as the driver's launch builder does for `&` and
//! `&mut`. A view is made from a realised buffer and an element range, checked against the
//! allocation, so that a part of a scratch buffer is named by its elements, never by a byte
//! offset added to a pointer. Scalars are `i64`, `u64` or `f64`: every parameter is one
//! 8-byte word, as `Stream::launch_packed` requires.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::DevBuf;
use cuprite_driver::{Access, DeviceBuffer};

/// A range of a realised device buffer: its allocation and the address of its first element.
#[derive(Clone, Copy)]
struct View<'a> {
    buf: &'a DeviceBuffer<u8>,
    ptr: u64,
}

impl<'a> View<'a> {
    /// Elements `[start, start + len)` of `d`, read as `dtype`; an `Err` naming the range when
    /// it does not lie inside the allocation, or when the buffer was handed back.
    fn of(d: &'a DevBuf, dtype: DType, start: usize, len: usize) -> Result<View<'a>> {
        let buf = d.buffer()?;
        let size = dtype.size();
        let have = d.len() * d.dtype().size();
        let end = start
            .checked_add(len)
            .and_then(|e| e.checked_mul(size))
            .filter(|&e| e <= have);
        if end.is_none() {
            return Err(Error::InvalidArgument(format!(
                "a kernel view of {dtype} elements {start}..{start}+{len} lies outside a buffer of \
                 {have} bytes"
            )));
        }
        Ok(View {
            buf,
            ptr: d.ptr() + (start * size) as u64,
        })
    }
}

/// A device buffer (or an element range of one) that a kernel only reads.
#[derive(Clone, Copy)]
pub(crate) struct ReadBuf<'a>(View<'a>);

/// A device buffer (or an element range of one) that a kernel writes (and may read).
#[derive(Clone, Copy)]
pub(crate) struct WriteBuf<'a>(View<'a>);

/// An output a kernel writes when it is given one, and skips when it is null.
pub(crate) type MaybeWrite<'a> = Option<WriteBuf<'a>>;

/// An input a kernel reads when it is given one, and does without when it is null.
pub(crate) type MaybeRead<'a> = Option<ReadBuf<'a>>;

/// A buffer the blocks of one launch write and read each other's words of (a look-back
/// status): declared without `__restrict__`, so that the compiler keeps every access.
#[derive(Clone, Copy)]
pub(crate) struct SharedBuf<'a>(View<'a>);

impl<'a> SharedBuf<'a> {
    /// All of `d`, in its own dtype.
    pub(crate) fn all(d: &'a DevBuf) -> Result<SharedBuf<'a>> {
        View::of(d, d.dtype(), 0, d.len()).map(SharedBuf)
    }

    /// Elements `[start, start + len)` of `d`, as `dtype` (checked inside the buffer).
    pub(crate) fn part(
        d: &'a DevBuf,
        dtype: DType,
        start: usize,
        len: usize,
    ) -> Result<SharedBuf<'a>> {
        View::of(d, dtype, start, len).map(SharedBuf)
    }
}

impl<'a> ReadBuf<'a> {
    /// All of `d`, in its own dtype.
    pub(crate) fn all(d: &'a DevBuf) -> Result<ReadBuf<'a>> {
        View::of(d, d.dtype(), 0, d.len()).map(ReadBuf)
    }

    /// Elements `[start, start + len)` of `d`, read as `dtype` (checked inside the buffer).
    pub(crate) fn part(
        d: &'a DevBuf,
        dtype: DType,
        start: usize,
        len: usize,
    ) -> Result<ReadBuf<'a>> {
        View::of(d, dtype, start, len).map(ReadBuf)
    }
}

impl<'a> WriteBuf<'a> {
    /// All of `d`, in its own dtype.
    pub(crate) fn all(d: &'a DevBuf) -> Result<WriteBuf<'a>> {
        View::of(d, d.dtype(), 0, d.len()).map(WriteBuf)
    }

    /// Elements `[start, start + len)` of `d`, written as `dtype` (checked inside the buffer).
    pub(crate) fn part(
        d: &'a DevBuf,
        dtype: DType,
        start: usize,
        len: usize,
    ) -> Result<WriteBuf<'a>> {
        View::of(d, dtype, start, len).map(WriteBuf)
    }

    /// The same range, declared as read (for a later pass that only reads what this wrote).
    pub(crate) fn read(self) -> ReadBuf<'a> {
        ReadBuf(self.0)
    }
}

/// The argument words of one launch and the buffers it touches.
#[derive(Default)]
pub(crate) struct LaunchArgs<'a> {
    /// One 8-byte word per parameter, in the kernel's parameter order.
    pub words: Vec<u64>,
    /// Every buffer the launch touches, once each, and whether any parameter writes it.
    bufs: Vec<(&'a DeviceBuffer<u8>, bool)>,
}

impl<'a> LaunchArgs<'a> {
    /// Notes a use of `buf` (a buffer given as several parts is declared once, as a write
    /// when any part is written).
    fn touch(&mut self, buf: &'a DeviceBuffer<u8>, write: bool) {
        match self.bufs.iter_mut().find(|(b, _)| std::ptr::eq(*b, buf)) {
            Some((_, w)) => *w |= write,
            None => self.bufs.push((buf, write)),
        }
    }

    /// The accesses to declare to the stream tracker: each buffer read or written as its
    /// parameters' types say.
    pub(crate) fn accesses(&self) -> Vec<Access<'a>> {
        self.bufs
            .iter()
            .map(|&(b, w)| if w { Access::write(b) } else { Access::read(b) })
            .collect()
    }
}

/// One parameter kind of a [`kernel_params!`] description.
pub(crate) trait Param<'a> {
    /// The C declaration of a parameter `name` of this kind; `elem` is the C type of a
    /// buffer's elements (ignored by scalars).
    fn decl(name: &str, elem: &str) -> String;
    /// The C names this parameter passes on to the kernel's body (its own name, or the names
    /// of the several words a compound parameter declares).
    fn names(name: &str) -> String {
        name.to_string()
    }
    /// Appends this value's word, and its access for a buffer.
    fn push(&self, args: &mut LaunchArgs<'a>);
}

impl<'a> Param<'a> for ReadBuf<'a> {
    fn decl(name: &str, elem: &str) -> String {
        format!("const {elem} *__restrict__ {name}")
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        args.words.push(self.0.ptr);
        args.touch(self.0.buf, false);
    }
}

impl<'a> Param<'a> for WriteBuf<'a> {
    fn decl(name: &str, elem: &str) -> String {
        format!("{elem} *__restrict__ {name}")
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        args.words.push(self.0.ptr);
        args.touch(self.0.buf, true);
    }
}

impl<'a> Param<'a> for SharedBuf<'a> {
    fn decl(name: &str, elem: &str) -> String {
        format!("{elem} *{name}")
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        args.words.push(self.0.ptr);
        args.touch(self.0.buf, true);
    }
}

impl<'a, P: Param<'a>> Param<'a> for Option<P> {
    fn decl(name: &str, elem: &str) -> String {
        P::decl(name, elem)
    }
    fn push(&self, args: &mut LaunchArgs<'a>) {
        match self {
            Some(w) => w.push(args),
            None => args.words.push(0),
        }
    }
}

macro_rules! scalar_param {
    ($($t:ty => $c:literal, $w:expr;)*) => {$(
        impl<'a> Param<'a> for $t {
            fn decl(name: &str, _elem: &str) -> String {
                format!("{} {name}", $c)
            }
            fn push(&self, args: &mut LaunchArgs<'a>) {
                let f: fn($t) -> u64 = $w;
                args.words.push(f(*self));
            }
        }
    )*};
}

scalar_param! {
    i64 => "i64t", |v| v as u64;
    u64 => "u64t", |v| v;
    f64 => "double", f64::to_bits;
}

/// A kernel's typed parameter list (made by [`kernel_params!`]).
pub(crate) trait KernelParams<'a> {
    /// The C parameter list, comma-separated, in declaration order.
    fn signature() -> String;
    /// The parameters' C names, comma-separated, in declaration order (the body's arguments).
    fn names() -> String;
    /// The argument words and accesses of this value, in the same order.
    fn args(&self) -> LaunchArgs<'a>;
}

/// Declares a kernel's parameters as a struct whose fields are [`Param`]s; a buffer field
/// names the C type of its elements after `as` (a type name the kernel's source defines, or a
/// C type), a scalar field is `i64`, `u64` or `f64`. The field names are the C names.
///
/// ```ignore
/// kernel_params! {
///     /// The copy of `n` elements.
///     pub(super) struct CopyArgs<'a> { src: ReadBuf<'a> as "W", dst: WriteBuf<'a> as "W", n: i64 }
/// }
/// ```
macro_rules! kernel_params {
    // The three methods of `KernelParams` over a field list (shared by the two forms below).
    (@methods $lt:lifetime; $($field:ident : $ty:ty $(as $elem:literal)?),*) => {
        fn signature() -> String {
            let decls: &[String] = &[$(
                <$ty as $crate::codegen::Param<$lt>>::decl(
                    stringify!($field),
                    concat!("" $(, $elem)?),
                ),
            )*];
            decls.join(", ")
        }
        fn names() -> String {
            let names: &[String] = &[$(
                <$ty as $crate::codegen::Param<$lt>>::names(stringify!($field)),
            )*];
            names.join(", ")
        }
        fn args(&self) -> $crate::codegen::LaunchArgs<$lt> {
            let mut a = $crate::codegen::LaunchArgs::default();
            $($crate::codegen::Param::push(&self.$field, &mut a);)*
            a
        }
    };
    // One type parameter `P` beside the lifetime: a parameter family whose fields of type `P`
    // take whichever `Param` form the caller picks (one field list, several launch forms).
    ($(#[$m:meta])* $vis:vis struct $name:ident<$lt:lifetime, $tp:ident> {
        $($(#[$fm:meta])* $field:ident : $ty:ty $(as $elem:literal)?),* $(,)?
    }) => {
        $(#[$m])*
        $vis struct $name<$lt, $tp> {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl<$lt, $tp: $crate::codegen::Param<$lt>> $crate::codegen::KernelParams<$lt>
            for $name<$lt, $tp>
        {
            $crate::codegen::kernel_params!(@methods $lt; $($field : $ty $(as $elem)?),*);
        }
    };
    ($(#[$m:meta])* $vis:vis struct $name:ident<$lt:lifetime> {
        $($(#[$fm:meta])* $field:ident : $ty:ty $(as $elem:literal)?),* $(,)?
    }) => {
        $(#[$m])*
        $vis struct $name<$lt> {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl<$lt> $crate::codegen::KernelParams<$lt> for $name<$lt> {
            $crate::codegen::kernel_params!(@methods $lt; $($field : $ty $(as $elem)?),*);
        }
    };
}
pub(crate) use kernel_params;

/// The head of a kernel entry point `name` taking `P`'s parameters (its body follows in the
/// family's text); `bounds` is its `__launch_bounds__` list, none when empty.
pub(crate) fn head<'a, P: KernelParams<'a>>(name: &str, bounds: &str) -> String {
    let bounds = if bounds.is_empty() {
        String::new()
    } else {
        format!("__launch_bounds__({bounds}) ")
    };
    format!(
        "extern \"C\" __global__ void {bounds}{name}({})",
        P::signature()
    )
}

/// The definition of a kernel entry point `name` taking `P`'s parameters, whose body is the
/// call `body(params...)` of a device function taking them in the same order (the body lives
/// in the family's `.cu` text). `bounds` is its `__launch_bounds__` list.
pub(crate) fn entry<'a, P: KernelParams<'a>>(name: &str, bounds: &str, body: &str) -> String {
    format!(
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {name}({}) {{ {body}({}); }}\n",
        P::signature(),
        P::names()
    )
}

/// [`entry`] whose body begins with [`super::GRID_WAIT`] before the call: a kernel that may be
/// launched as a programmatic dependent (its source is then stated
/// [`waiting`](super::KernelSource::waiting)).
pub(crate) fn entry_waiting<'a, P: KernelParams<'a>>(
    name: &str,
    bounds: &str,
    body: &str,
) -> String {
    format!(
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {name}({}) {{\n{}  {body}({});\n}}\n",
        P::signature(),
        super::GRID_WAIT,
        P::names()
    )
}
