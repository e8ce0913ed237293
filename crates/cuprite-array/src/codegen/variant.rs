//! The leaf facts of kernel parameters that both the emitters (`codegen`) and the parameter
//! plan (`params`) need: the variant choices, and a constant's parameter words.

use crate::dtype::Scalar;

/// The choices that, with the program's structure, determine a kernel's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Variant {
    pub idx32: bool,
    pub vector: bool,
    /// The output is written through strides (assembly into a view).
    pub strided_out: bool,
}

/// The kernel parameter words of a constant (one or two, no allocation).
pub(crate) fn const_words(c: Scalar) -> impl Iterator<Item = u64> {
    let (w, n) = match c {
        Scalar::F32(x) => ([x.to_bits() as u64, 0], 1),
        Scalar::F64(x) => ([x.to_bits(), 0], 1),
        Scalar::I64(x) => ([x as u64, 0], 1),
        Scalar::U64(x) => ([x, 0], 1),
        Scalar::C32(z) => ([z.re.to_bits() as u64, z.im.to_bits() as u64], 2),
        Scalar::C64(z) => ([z.re.to_bits(), z.im.to_bits()], 2),
    };
    w.into_iter().take(n)
}
