//! `setxor1d` (sorted distinct values and a fused neighbour test, then one compaction) and
//! `sort_complex` (a lexicographic sort by real, then imaginary part).

use crate::array::Array;
use crate::dtype::{Element, bf16, c32, c64, f16};
use crate::error::Result;
use crate::ops::TakeOpts;
use crate::shape::SliceArg;

fn range(start: Option<isize>, end: Option<isize>) -> SliceArg {
    SliceArg::Range {
        start,
        end,
        step: 1,
    }
}

/// The sorted values found in exactly one of `a` and `b` (both flattened; NumPy's `setxor1d`).
/// NaN, unequal to itself, counts once per input, as NumPy's does.
///
/// ```
/// use cuprite_array::{Array, ops::setxor1d};
/// let a = Array::from_slice(&[1i32, 2, 3, 2, 4], &[5])?;
/// let b = Array::from_slice(&[2i32, 3, 5, 7, 5], &[5])?;
/// assert_eq!(setxor1d(&a, &b)?.to_vec()?, [1, 4, 5, 7]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn setxor1d<T: Element>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    crate::array::check_devices(&[&a.node, &b.node])?;
    let aux = Array::concat(&[&a.unique_values()?, &b.unique_values()?], 0)?;
    let aux = aux.sort(0)?;
    let n = aux.len();
    if n <= 1 {
        return Ok(aux);
    }
    // differs[i]: aux[i + 1] != aux[i]; an element is kept when it differs from both
    // neighbours (the ends count as differing).
    let differs = aux
        .slice(&[range(Some(1), None)])?
        .not_equal(&aux.slice(&[range(None, Some(-1))])?);
    let t = Array::<bool>::full_like(&aux.slice(&[range(Some(0), Some(1))])?, true);
    let flag = Array::concat(&[&t, &differs, &t], 0)?;
    let keep = flag
        .slice(&[range(Some(1), None)])?
        .and(&flag.slice(&[range(None, Some(-1))])?);
    aux.masked_select(&keep)
}

/// Sorts complex values along the last axis, by real part, then imaginary part (NaNs last).
fn sort_lex<C: Element>(z: &Array<C>, re: Array<f64>, im: Array<f64>) -> Result<Array<C>> {
    if z.ndim() == 0 || z.is_empty() {
        return Ok(z.clone());
    }
    let shape = z.shape().to_vec();
    let last = *shape.last().unwrap_or(&1);
    let flat = z.flatten()?;
    // The row of each element: the most significant key, so that rows stay apart.
    let rows =
        crate::device::with_device(z.device(), || Array::<i64>::arange(0, flat.len() as i64, 1))?;
    let rows = (&rows / last as i64).cast::<f64>();
    let order = crate::ops::lexsort(&[&im.flatten()?, &re.flatten()?, &rows])?;
    flat.take_with(&order, TakeOpts::new().axis(0))?
        .reshape(&shape)
}

macro_rules! sort_complex_of {
    ($($T:ty => $C:ty),*) => {$(
        impl Array<$T> {
            /// The values as complex numbers, sorted along the last axis by real part, then
            /// imaginary part, NaNs last (NumPy's `sort_complex`, whose result type this is).
            ///
            /// ```
            /// use cuprite_array::{Array, c32, c64};
            /// let a = Array::from_slice(&[5i32, 3, 6, 2, 1], &[5])?;
            /// let want: Vec<c64> = [1.0, 2.0, 3.0, 5.0, 6.0].iter().map(|&x| c64::new(x, 0.0)).collect();
            /// assert_eq!(a.sort_complex()?.to_vec()?, want);
            /// let z = Array::from_slice(&[c32::new(1.0, 2.0), c32::new(2.0, -1.0), c32::new(1.0, -1.0)], &[3])?;
            /// let s = z.sort_complex()?.to_vec()?;
            /// assert_eq!(s, [c32::new(1.0, -1.0), c32::new(1.0, 2.0), c32::new(2.0, -1.0)]);
            /// # Ok::<(), cuprite_array::Error>(())
            /// ```
            pub fn sort_complex(&self) -> Result<Array<$C>> {
                let z: Array<$C> = self.cast();
                let re = z.real().cast::<f64>();
                let im = z.imag().cast::<f64>();
                sort_lex(&z, re, im)
            }
        }
    )*};
}
sort_complex_of!(bool => c64, u8 => c64, u16 => c64, u32 => c64, u64 => c64, i8 => c64,
    i16 => c64, i32 => c64, i64 => c64, f16 => c32, bf16 => c32, f32 => c32, f64 => c64,
    c32 => c32, c64 => c64);
