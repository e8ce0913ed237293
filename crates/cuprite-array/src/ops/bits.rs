//! Bit packing (`packbits`, `unpackbits`: fused compositions, each one kernel) and NumPy's
//! host formatting of integers (`binary_repr`, `base_repr`).

use crate::array::Array;
use crate::dtype::{Bits, Element};
use crate::error::{Error, Result};
use crate::shape::SliceArg;

/// The order of bits within a byte for [`Array::packbits`] and [`Array::unpackbits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BitOrder {
    /// The first element is the most significant bit (NumPy's default `'big'`).
    #[default]
    Big,
    /// The first element is the least significant bit (`'little'`).
    Little,
}

/// The bit weights of one byte, in element order, on `like`'s device.
fn weights<T: Element>(like: &Array<T>, order: BitOrder) -> Result<Array<u8>> {
    let w: Vec<u8> = match order {
        BitOrder::Big => (0..8).map(|i| 7 - i).collect(),
        BitOrder::Little => (0..8).collect(),
    };
    crate::device::with_device(like.device(), || Array::from_slice(&w, &[8]))
}

/// The array flattened (`axis` `None`) or the normalised axis.
fn along<T: Element>(a: &Array<T>, axis: Option<isize>) -> Result<(Array<T>, usize)> {
    match axis {
        None => Ok((a.flatten()?, 0)),
        Some(ax) => Ok((a.clone(), crate::shape::axis(ax, a.ndim())?)),
    }
}

impl<T: Bits> Array<T> {
    /// Packs the elements' truth values into `u8`, eight per byte along `axis` (the array
    /// flattened when `None`), zero bits padding the last byte (NumPy's `packbits`; one fused
    /// kernel).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::BitOrder};
    /// let a = Array::from_slice(&[1u8, 0, 1, 0, 0, 0, 1, 1, 1, 1], &[10])?;
    /// assert_eq!(a.packbits(None, BitOrder::Big)?.to_vec()?, [0b1010_0011, 0b1100_0000]);
    /// assert_eq!(a.packbits(Some(0), BitOrder::Little)?.to_vec()?, [0b1100_0101, 0b0000_0011]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn packbits(&self, axis: Option<isize>, order: BitOrder) -> Result<Array<u8>> {
        let (a, ax) = along(self, axis)?;
        let s = a.shape().to_vec();
        let n = s[ax];
        let bytes = n.div_ceil(8);
        let mut widths = vec![(0usize, 0usize); s.len()];
        widths[ax] = (0, bytes * 8 - n);
        let bits = a.not_equal(T::default()).cast::<u8>().pad(&widths, 0)?;
        let mut split = s[..ax].to_vec();
        split.extend([bytes, 8]);
        split.extend_from_slice(&s[ax + 1..]);
        let bits = bits.reshape(&split)?;
        let mut ws = vec![8usize];
        ws.extend(std::iter::repeat_n(1, s.len() - ax - 1));
        let w = weights(self, order)?.reshape(&ws)?;
        let one = Array::<u8>::full_like(&w, 1);
        let shifted = one.try_shl(&w)?;
        let v = bits.try_mul(&shifted)?;
        Ok(v.sum_axes(&[ax as isize + 1])?.cast::<u8>())
    }
}

impl Array<u8> {
    /// Unpacks each byte into eight `u8` bits (0 or 1) along `axis` (flattened when `None`),
    /// keeping the first `count` bits when given (a negative count drops bits from the end; a
    /// count beyond the bits pads zeros) (NumPy's `unpackbits`; one fused kernel).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::BitOrder};
    /// let a = Array::from_slice(&[2u8, 7, 23], &[3, 1])?;
    /// let b = a.unpackbits(Some(1), None, BitOrder::Big)?;
    /// assert_eq!(b.shape(), [3, 8]);
    /// assert_eq!(b.to_vec()?[16..], [0, 0, 0, 1, 0, 1, 1, 1]);
    /// let c = a.unpackbits(None, Some(-20), BitOrder::Little)?;
    /// assert_eq!(c.to_vec()?, [0, 1, 0, 0]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn unpackbits(
        &self,
        axis: Option<isize>,
        count: Option<isize>,
        order: BitOrder,
    ) -> Result<Array<u8>> {
        let (a, ax) = along(self, axis)?;
        let s = a.shape().to_vec();
        let n = s[ax];
        let mut split = s[..ax].to_vec();
        split.extend([n, 1]);
        split.extend_from_slice(&s[ax + 1..]);
        let mut ws = vec![8usize];
        ws.extend(std::iter::repeat_n(1, s.len() - ax - 1));
        let w = weights(self, order)?.reshape(&ws)?;
        let bits = a.reshape(&split)?.try_shr(&w)?.try_bitand(1u8)?;
        let total = n.checked_mul(8).ok_or_else(|| {
            Error::Shape(format!("unpackbits: {n} bytes along axis {ax} overflow"))
        })?;
        let mut merged = s.clone();
        merged[ax] = total;
        let bits = bits.reshape(&merged)?;
        let keep = match count {
            None => return Ok(bits),
            Some(c) if c >= 0 => c as usize,
            Some(c) => total.saturating_sub(c.unsigned_abs()),
        };
        if keep <= total {
            let mut args: Vec<SliceArg> = (0..s.len())
                .map(|_| SliceArg::Range {
                    start: None,
                    end: None,
                    step: 1,
                })
                .collect();
            args[ax] = SliceArg::Range {
                start: Some(0),
                end: Some(keep as isize),
                step: 1,
            };
            bits.slice(&args)
        } else {
            let mut widths = vec![(0usize, 0usize); s.len()];
            widths[ax] = (0, keep - total);
            bits.pad(&widths, 0)
        }
    }
}

/// The two's-complement binary digits of `num` in `width` digits, or its magnitude's digits
/// with a minus sign when `width` is `None` (NumPy's `binary_repr`; an `Err` naming both when
/// `width` is too small).
///
/// ```
/// use cuprite_array::ops::binary_repr;
/// assert_eq!(binary_repr(3, None)?, "11");
/// assert_eq!(binary_repr(-3, None)?, "-11");
/// assert_eq!(binary_repr(3, Some(4))?, "0011");
/// assert_eq!(binary_repr(-3, Some(5))?, "11101");
/// assert!(binary_repr(-3, Some(1)).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn binary_repr(num: i64, width: Option<usize>) -> Result<String> {
    let too_small = |bin: usize| match width {
        Some(w) if w < bin => Err(Error::InvalidArgument(format!(
            "binary_repr: insufficient bit width {w} for {num}, which needs {bin}"
        ))),
        _ => Ok(()),
    };
    if num == 0 {
        return Ok("0".repeat(width.unwrap_or(1).max(1)));
    }
    if num > 0 {
        let b = format!("{num:b}");
        too_small(b.len())?;
        return Ok(format!("{b:0>w$}", w = width.unwrap_or(0)));
    }
    let mag = (num as i128).unsigned_abs();
    let Some(width) = width else {
        return Ok(format!("-{mag:b}"));
    };
    // The shortest two's complement: one bit more than the magnitude, less one at powers of two.
    let mut pos = format!("{mag:b}").len() as u32;
    if mag.is_power_of_two() {
        pos -= 1;
    }
    let twocomp = (1i128 << (pos + 1)) + num as i128;
    let b = format!("{twocomp:b}");
    too_small(b.len())?;
    Ok(format!("{}{b}", "1".repeat(width.saturating_sub(b.len()))))
}

/// The digits of `number` in `base` (2 to 36, letters for digits above 9) after `padding`
/// zeros, with a minus sign for negative numbers (NumPy's `base_repr`).
///
/// ```
/// use cuprite_array::ops::base_repr;
/// assert_eq!(base_repr(5, 2, 0)?, "101");
/// assert_eq!(base_repr(7, 5, 3)?, "00012");
/// assert_eq!(base_repr(-10, 16, 0)?, "-A");
/// assert!(base_repr(1, 37, 0).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn base_repr(number: i64, base: u32, padding: usize) -> Result<String> {
    if !(2..=36).contains(&base) {
        return Err(Error::InvalidArgument(format!(
            "base_repr handles bases 2 to 36, not {base}"
        )));
    }
    let mut num = (number as i128).unsigned_abs();
    let mut digits = Vec::new();
    while num > 0 {
        let d = (num % base as u128) as u32;
        digits.push(
            char::from_digit(d, base)
                .unwrap_or('?')
                .to_ascii_uppercase(),
        );
        num /= base as u128;
    }
    if digits.is_empty() && padding == 0 {
        digits.push('0');
    }
    let body: String = digits.iter().rev().collect();
    let sign = if number < 0 { "-" } else { "" };
    Ok(format!("{sign}{}{body}", "0".repeat(padding)))
}
