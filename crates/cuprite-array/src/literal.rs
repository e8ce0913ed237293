//! The [`array!`](crate::array) literal: nested data in, an [`Array`] out.
//!
//! Also the `TryFrom` conversions between `Vec`, slices, ndarray (feature `ndarray`) and
//! [`Array`]. Owns only the flattening of nested rows and the check that they are rectangular; the array
//! is made by `Array::from_slice` on the current device.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

/// Flattens rows of rows (`depth` levels below the outermost list, 0 to 2) into data and a
/// shape; ragged input is an `Err` naming the first row whose length differs.
#[doc(hidden)]
pub fn from_nested<T: Element>(rows: Nested<T>) -> Result<Array<T>> {
    let (data, shape) = match rows {
        Nested::D1(v) => {
            let n = v.len();
            (v, vec![n])
        }
        Nested::D2(rows) => {
            let cols = rows.first().map_or(0, Vec::len);
            check_rect(rows.iter().map(Vec::len), cols, "row")?;
            let n = rows.len();
            (rows.into_iter().flatten().collect(), vec![n, cols])
        }
        Nested::D3(blocks) => {
            let rows = blocks.first().map_or(0, Vec::len);
            check_rect(blocks.iter().map(Vec::len), rows, "block")?;
            let cols = blocks.first().and_then(|b| b.first()).map_or(0, Vec::len);
            check_rect(blocks.iter().flatten().map(Vec::len), cols, "row")?;
            let n = blocks.len();
            let data = blocks.into_iter().flatten().flatten().collect();
            (data, vec![n, rows, cols])
        }
    };
    Array::from_slice(&data, &shape)
}

fn check_rect(lens: impl Iterator<Item = usize>, want: usize, what: &str) -> Result<()> {
    for (i, n) in lens.enumerate() {
        if n != want {
            return Err(Error::Shape(format!(
                "array!: {what} {i} has {n} elements, the first has {want} (rows must be \
                 rectangular)"
            )));
        }
    }
    Ok(())
}

/// Nested literal data of one to three levels.
#[derive(Debug)]
#[doc(hidden)]
pub enum Nested<T> {
    D1(Vec<T>),
    D2(Vec<Vec<T>>),
    D3(Vec<Vec<Vec<T>>>),
}

/// An array from a nested literal, as ndarray's `array!` and NumPy's `np.array([...])`: one to
/// three levels of brackets give a 1-D to 3-D array on the current device. Returns a
/// `Result`: rows of different lengths are an `Err` naming the first one that differs.
///
/// ```
/// use cuprite_array::array;
/// let v = array![1.0f32, 2.0, 3.0]?;
/// assert_eq!(v.shape(), &[3]);
/// let m = array![[1i32, 2, 3], [4, 5, 6]]?;
/// assert_eq!((m.shape(), m.to_vec()?), (&[2, 3][..], vec![1, 2, 3, 4, 5, 6]));
/// let t = array![[[1u8, 2], [3, 4]], [[5, 6], [7, 8]]]?;
/// assert_eq!(t.shape(), &[2, 2, 2]);
/// assert!(array![[1i64, 2], [3]].is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[macro_export]
macro_rules! array {
    ($([$([$($x:expr),* $(,)?]),* $(,)?]),+ $(,)?) => {
        $crate::literal::from_nested($crate::literal::Nested::D3(vec![$(vec![$(vec![$($x),*]),*]),+]))
    };
    ($([$($x:expr),* $(,)?]),+ $(,)?) => {
        $crate::literal::from_nested($crate::literal::Nested::D2(vec![$(vec![$($x),*]),+]))
    };
    ($($x:expr),* $(,)?) => {
        $crate::literal::from_nested($crate::literal::Nested::D1(vec![$($x),*]))
    };
}

/// A 1-D array of the vector's elements on the current device (`Array::from_slice`).
///
/// ```
/// use cuprite_array::Array;
/// let a = Array::try_from(vec![1i32, 2, 3])?;
/// let b: Array<f32> = Array::try_from(&[0.5f32, 1.5][..])?;
/// let back: Vec<i32> = Vec::try_from(&a)?;
/// assert_eq!((back, b.shape()), (vec![1, 2, 3], &[2][..]));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
impl<T: Element> TryFrom<Vec<T>> for Array<T> {
    type Error = Error;
    fn try_from(v: Vec<T>) -> Result<Self> {
        Array::from_slice(&v, &[v.len()])
    }
}

/// A 1-D array of the slice's elements on the current device.
impl<T: Element> TryFrom<&[T]> for Array<T> {
    type Error = Error;
    fn try_from(v: &[T]) -> Result<Self> {
        Array::from_slice(v, &[v.len()])
    }
}

/// The elements in row-major order ([`Array::to_vec`]: evaluates, and copies from a device).
impl<T: Element> TryFrom<&Array<T>> for Vec<T> {
    type Error = Error;
    fn try_from(a: &Array<T>) -> Result<Self> {
        a.to_vec()
    }
}

/// An array of the ndarray's shape and elements (`Array::from_ndarray`).
#[cfg(feature = "ndarray")]
impl<T: Element, S, D> TryFrom<&ndarray::ArrayBase<S, D>> for Array<T>
where
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    type Error = Error;
    fn try_from(a: &ndarray::ArrayBase<S, D>) -> Result<Self> {
        Array::from_ndarray(a)
    }
}

/// An ndarray of the array's shape and elements (`Array::to_ndarray`).
#[cfg(feature = "ndarray")]
impl<T: Element> TryFrom<&Array<T>> for ndarray::ArrayD<T> {
    type Error = Error;
    fn try_from(a: &Array<T>) -> Result<Self> {
        a.to_ndarray()
    }
}
