//! Typed parameters of hand-written kernels. A kernel's parameters have one Rust description,
//! a [`KernelParams`] that walks them in order; the kernel's C signature ([`KernelParams::signature`])
//! and a launch's argument words and buffer accesses ([`KernelParams::launch_args`]) are both
//! read off that walk, so they cannot drift apart, and no launch names a parameter by its
//! position or a byte offset. A buffer's access follows from its kind, as the driver's launch
//! builder decides it for `&`/`&mut`: a [`Param::Read`] is `const` in C and declared read, a
//! [`Param::Write`] is writable and declared written. Every parameter is one 8-byte word.
//!
//! The same description serves both sides: built without buffers (the signature, where only
//! names and types count) and with them (a launch).

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::DevBuf;
use cuprite_driver::{Access, DeviceBuffer};
use std::fmt;

/// A parameter's C name: a fixed name, or a stem with one or two indices (`in0`, `st1_2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Name {
    /// The name as written.
    Fixed(&'static str),
    /// `{stem}{i}`.
    Nth(&'static str, usize),
    /// `{stem}{i}_{j}`.
    Nth2(&'static str, usize, usize),
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Name::Fixed(s) => f.write_str(s),
            Name::Nth(s, i) => write!(f, "{s}{i}"),
            Name::Nth2(s, i, j) => write!(f, "{s}{i}_{j}"),
        }
    }
}

/// Where a buffer parameter points at a launch: `elem` units of the parameter's [`CType`]
/// past the buffer's start. Absent (`None` in a [`Param`]) while the signature is written, and at a launch
/// for a buffer the kernel is documented not to touch in that configuration (passed as null).
#[derive(Clone, Copy)]
pub(crate) struct BufAt<'a> {
    pub buf: &'a DevBuf,
    /// Offset in units of the parameter's [`CType`], checked against the buffer's bytes.
    pub elem: usize,
}

impl<'a> BufAt<'a> {
    /// The start of `buf`.
    pub(crate) fn start(buf: &'a DevBuf) -> BufAt<'a> {
        BufAt { buf, elem: 0 }
    }
}

/// The element type of a buffer parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CType {
    /// Elements of a dtype (its storage type in C); offsets count its elements.
    Of(DType),
    /// A type the kernel's source defines itself (a status word, an accumulator struct),
    /// named as there; offsets count bytes.
    Named(&'static str),
}

impl CType {
    fn c(self) -> &'static str {
        match self {
            CType::Of(d) => d.c_storage(),
            CType::Named(n) => n,
        }
    }

    /// Bytes per unit of a [`BufAt`] offset.
    fn unit(self) -> usize {
        match self {
            CType::Of(d) => d.size(),
            CType::Named(_) => 1,
        }
    }
}

/// One kernel parameter.
pub(crate) enum Param<'a> {
    /// `const S *__restrict__ name`: read only.
    Read {
        name: Name,
        ty: CType,
        at: Option<BufAt<'a>>,
    },
    /// `S *__restrict__ name`: written (and possibly read).
    Write {
        name: Name,
        ty: CType,
        at: Option<BufAt<'a>>,
    },
    /// `long long name`.
    I64(Name, i64),
    /// `unsigned long long name`.
    U64(Name, u64),
    /// `double name`.
    F64(Name, f64),
}

/// The argument words and buffer accesses of one launch.
pub(crate) struct LaunchArgs<'a> {
    pub words: Vec<u64>,
    pub access: Vec<Access<'a>>,
}

/// One kernel's parameters, walked in order.
pub(crate) trait KernelParams<'a> {
    /// Calls `f` with each parameter, in the order of the kernel's signature.
    fn each_param(&self, f: &mut dyn FnMut(Param<'a>));

    /// The C parameter list (comma-separated declarations).
    fn signature(&self) -> String {
        let mut s: Vec<String> = Vec::new();
        self.each_param(&mut |p| {
            s.push(match p {
                Param::Read { name, ty, .. } => {
                    format!("const {} *__restrict__ {name}", ty.c())
                }
                // Not `__restrict__`: several status arrays may share one allocation.
                Param::Write { name, ty, .. } => format!("{} *{name}", ty.c()),
                Param::I64(name, _) => format!("i64t {name}"),
                Param::U64(name, _) => format!("u64t {name}"),
                Param::F64(name, _) => format!("double {name}"),
            })
        });
        s.join(", ")
    }

    /// The argument words and accesses of a launch: a buffer parameter's pointer (null when
    /// absent) with its access by kind. `Err` when a buffer was handed back or an offset lies
    /// past its buffer's end.
    fn launch_args(&self) -> Result<LaunchArgs<'a>> {
        let mut words = Vec::with_capacity(24);
        // Each allocation once, written when any parameter on it is.
        let mut used: Vec<(&'a DeviceBuffer<u8>, bool)> = Vec::with_capacity(8);
        let mut err: Option<Error> = None;
        self.each_param(&mut |p| {
            let word = match p {
                Param::Read { name, ty, at } | Param::Write { name, ty, at } => {
                    let write = matches!(p, Param::Write { .. });
                    match at.map(|a| buffer_word(name, ty, a)) {
                        None => 0,
                        Some(Ok((ptr, live))) => {
                            match used.iter_mut().find(|(b, _)| std::ptr::eq(*b, live)) {
                                Some((_, w)) => *w |= write,
                                None => used.push((live, write)),
                            }
                            ptr
                        }
                        Some(Err(e)) => {
                            err.get_or_insert(e);
                            0
                        }
                    }
                }
                Param::I64(_, v) => v as u64,
                Param::U64(_, v) => v,
                Param::F64(_, v) => v.to_bits(),
            };
            words.push(word);
        });
        if let Some(e) = err {
            return Err(e);
        }
        let access = used
            .into_iter()
            .map(|(b, w)| if w { Access::write(b) } else { Access::read(b) })
            .collect();
        Ok(LaunchArgs { words, access })
    }
}

/// The pointer of `at` for parameter `name` of type `ty`, and its live allocation.
fn buffer_word<'a>(name: Name, ty: CType, at: BufAt<'a>) -> Result<(u64, &'a DeviceBuffer<u8>)> {
    let Some(live) = at.buf.live() else {
        return Err(Error::InvalidArgument(format!(
            "kernel parameter `{name}` is a buffer that was handed back"
        )));
    };
    let bytes = at
        .elem
        .checked_mul(ty.unit())
        .filter(|&b| b <= at.buf.len().saturating_mul(at.buf.dtype().size()))
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "kernel parameter `{name}`: offset {} (units of {} bytes) lies past its buffer \
                 of {} {} elements",
                at.elem,
                ty.unit(),
                at.buf.len(),
                at.buf.dtype()
            ))
        })?;
    Ok((at.buf.ptr() + bytes as u64, live))
}
