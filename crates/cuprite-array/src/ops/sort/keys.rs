//! The order of the sort family as unsigned keys: every orderable dtype maps to an unsigned
//! integer of its width (the *key*) whose unsigned order is the documented order, on both
//! backends (CPU: this module's Rust functions; CUDA: the C helpers [`c_helpers`] emits).
//!
//! - Unsigned integers and `bool`: the bits themselves.
//! - Signed integers: the bits with the sign bit flipped.
//! - Floats: non-negative values get the sign bit set, negative values have all bits flipped
//!   (so `-0.0 < +0.0`); every NaN maps to the all-ones key (after `+inf`), so NaNs sort last
//!   in ascending order and keep their input order among themselves.
//! - Descending order is the complement of the ascending key: the exact reverse, with NaN first
//!   (NaN counts as the largest value, as `topk` does).
//!
//! A value comes back from its key by the inverse map; NaNs come back as the canonical quiet
//! NaN of the dtype (`0x7fc00000` for `f32`), on both backends alike.

use crate::dtype::DType;
use crate::error::{Error, Result};

/// How a dtype's bits map to keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    Unsigned,
    Signed,
    Float,
}

/// The key layout of one dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct KeySpec {
    pub dtype: DType,
    /// Key (and element) width in bits: 8, 16, 32 or 64.
    pub bits: u32,
    pub class: Class,
}

impl KeySpec {
    /// The spec of `dtype`, or an `Err` naming `call` for complex dtypes.
    pub fn of(dtype: DType, call: &str) -> Result<KeySpec> {
        if dtype.is_complex() {
            return Err(Error::InvalidArgument(format!(
                "{call} of {dtype}: complex numbers have no order"
            )));
        }
        let class = if dtype.is_float() {
            Class::Float
        } else if dtype.is_signed_int() {
            Class::Signed
        } else {
            Class::Unsigned
        };
        Ok(KeySpec {
            dtype,
            bits: dtype.size() as u32 * 8,
            class,
        })
    }

    /// All ones in the key width.
    pub fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    fn sign(self) -> u64 {
        1u64 << (self.bits - 1)
    }

    /// The bits of `+inf` (floats).
    fn inf(self) -> u64 {
        match self.bits {
            16 if self.dtype == DType::BF16 => 0x7f80,
            16 => 0x7c00,
            32 => 0x7f80_0000,
            _ => 0x7ff0_0000_0000_0000,
        }
    }

    /// The canonical quiet NaN of a float dtype.
    pub fn nan(self) -> u64 {
        match self.bits {
            16 if self.dtype == DType::BF16 => 0x7fc0,
            16 => 0x7e00,
            32 => 0x7fc0_0000,
            _ => 0x7ff8_0000_0000_0000,
        }
    }

    /// The key of element bits `b` (ascending, or descending when `desc`).
    #[inline]
    pub fn key(self, b: u64, desc: bool) -> u64 {
        let m = self.mask();
        let k = match self.class {
            Class::Unsigned => b,
            Class::Signed => b ^ self.sign(),
            Class::Float => {
                let s = self.sign();
                if b & !s & m > self.inf() {
                    m
                } else if b & s != 0 {
                    !b & m
                } else {
                    b | s
                }
            }
        };
        if desc { !k & m } else { k }
    }

    /// The element bits of key `k` (the inverse of [`key`](Self::key); NaN canonical).
    #[inline]
    pub fn value(self, k: u64, desc: bool) -> u64 {
        let m = self.mask();
        let k = if desc { !k & m } else { k };
        match self.class {
            Class::Unsigned => k,
            Class::Signed => k ^ self.sign(),
            Class::Float => {
                let s = self.sign();
                if k == m {
                    self.nan()
                } else if k & s != 0 {
                    k ^ s
                } else {
                    !k & m
                }
            }
        }
    }

    /// The key that decides equality for `unique` and `mode`: the ascending key, except that
    /// `-0.0` counts as `+0.0` (NaNs are all one key already).
    #[inline]
    pub fn eq_key(self, b: u64) -> u64 {
        if self.class == Class::Float && b == self.sign() {
            self.key(0, false)
        } else {
            self.key(b, false)
        }
    }

    /// Whether element bits `b` are a NaN.
    #[inline]
    pub fn is_nan(self, b: u64) -> bool {
        self.class == Class::Float && b & !self.sign() & self.mask() > self.inf()
    }

    /// The element bits of element `i` of `bytes`.
    #[inline]
    pub fn load(self, bytes: &[u8], i: usize) -> u64 {
        let w = self.bits as usize / 8;
        let mut a = [0u8; 8];
        a[..w].copy_from_slice(&bytes[i * w..i * w + w]);
        u64::from_le_bytes(a)
    }

    /// Writes element bits `b` as element `i` of `bytes`.
    #[inline]
    pub fn store(self, bytes: &mut [u8], i: usize, b: u64) {
        let w = self.bits as usize / 8;
        bytes[i * w..i * w + w].copy_from_slice(&b.to_le_bytes()[..w]);
    }

    /// The element converted to `f64` (exact for every orderable dtype but 64-bit integers
    /// beyond 2^53, which round to nearest).
    pub fn to_f64(self, b: u64) -> f64 {
        match self.dtype {
            DType::F64 => f64::from_bits(b),
            DType::F32 => f32::from_bits(b as u32) as f64,
            DType::F16 => half::f16::from_bits(b as u16).to_f64(),
            DType::BF16 => half::bf16::from_bits(b as u16).to_f64(),
            _ => match self.class {
                Class::Signed => {
                    let sh = 64 - self.bits;
                    (((b << sh) as i64) >> sh) as f64
                }
                _ => b as f64,
            },
        }
    }

    /// The C type of the key on the GPU.
    pub fn c_key(self) -> &'static str {
        if self.bits == 64 {
            "unsigned long long"
        } else {
            "unsigned"
        }
    }

    /// The C type holding the raw element bits.
    pub fn c_bits(self) -> &'static str {
        match self.bits {
            8 => "unsigned char",
            16 => "unsigned short",
            32 => "unsigned",
            _ => "unsigned long long",
        }
    }
}

/// `tkey(b, desc)`, `tval(k, desc)`, `eqkey(b)`, `isnanb(b)` and `tof64(b)` for `spec`, in C
/// (the same maps as the Rust methods of [`KeySpec`]), with `K` the key type.
pub(crate) fn c_helpers(spec: KeySpec) -> String {
    let k = spec.c_key();
    let suf = if spec.bits == 64 { "ull" } else { "u" };
    let m = format!("0x{:x}{suf}", spec.mask());
    let s = format!("0x{:x}{suf}", spec.sign());
    let (key, val, isnan) = match spec.class {
        Class::Unsigned => ("k = b;".to_string(), "return k;".to_string(), "false"),
        Class::Signed => (format!("k = b ^ {s};"), format!("return k ^ {s};"), "false"),
        Class::Float => {
            let inf = format!("0x{:x}{suf}", spec.inf());
            let nan = format!("0x{:x}{suf}", spec.nan());
            (
                format!(
                    "if ((b & ~{s} & {m}) > {inf}) k = {m}; else if (b & {s}) k = ~b & {m}; else k = b | {s};"
                ),
                format!("if (k == {m}) return {nan}; return (k & {s}) ? (k ^ {s}) : (~k & {m});"),
                "((b & ~SGN & MSK) > INF)",
            )
        }
    };
    let isnan = isnan
        .replace("SGN", &s)
        .replace("MSK", &m)
        .replace("INF", &format!("0x{:x}{suf}", spec.inf()));
    let tof64 = match spec.dtype {
        DType::F64 => "return __longlong_as_double((long long)b);".to_string(),
        DType::F32 => "return (double)__uint_as_float((unsigned)b);".to_string(),
        DType::F16 => {
            "float f; unsigned short h = (unsigned short)b; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return (double)f;".to_string()
        }
        DType::BF16 => "return (double)__uint_as_float(((unsigned)b) << 16);".to_string(),
        _ => match spec.class {
            Class::Signed => {
                let sh = 64 - spec.bits;
                format!("return (double)(((long long)((unsigned long long)b << {sh})) >> {sh});")
            }
            _ => "return (double)b;".to_string(),
        },
    };
    let eqkey = if spec.class == Class::Float {
        format!("return b == {s} ? tkey(0, false) : tkey(b, false);")
    } else {
        "return tkey(b, false);".to_string()
    };
    format!(
        r#"typedef {k} K;
typedef {bits_ty} Bits;
#define KMASK (({k}){m})
#define KBITS {bits}
__device__ __forceinline__ K tkey(K b, bool desc) {{ K k; {key} return desc ? (K)(~k & {m}) : k; }}
__device__ __forceinline__ K tval(K k, bool desc) {{ if (desc) k = ~k & {m}; {val} }}
__device__ __forceinline__ K eqkey(K b) {{ {eqkey} }}
__device__ __forceinline__ bool isnanb(K b) {{ return {isnan}; }}
__device__ __forceinline__ double tof64(K b) {{ {tof64} }}
"#,
        bits = spec.bits,
        bits_ty = spec.c_bits(),
    )
}
