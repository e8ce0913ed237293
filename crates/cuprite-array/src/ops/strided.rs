//! Strided views and memory layout: NumPy's `lib.stride_tricks` (`sliding_window_view`, a
//! checked `as_strided`), the memory queries `shares_memory`, `may_share_memory`,
//! `byte_bounds`, and the order helpers `isfortran`, `asfortranarray`, `require`, plus the
//! `flat` element iterator.
//!
//! Views here never copy: each output element maps to one element of the source through new
//! strides, and every such map is checked to stay inside the source before it is built.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::graph::ViewFn;
use crate::ops::movement::view;
use crate::shape::{Layout, axis, checked_numel, numel};
use crate::storage::Storage;
use std::sync::Arc;

/// A linear view: output axis `i` steps by `Σ_j coeff[i][j] * stride[j]` of the source, and the
/// origin moves by `Σ_j start[j] * stride[j]`. Callers guarantee that every output index maps
/// to a valid source index (so offsets stay non-negative and in bounds).
struct Linear {
    coeff: Vec<Vec<isize>>,
    start: Vec<isize>,
}

impl ViewFn for Linear {
    fn layout(&self, l: &Layout) -> Option<Layout> {
        let dot = |c: &[isize]| -> Option<isize> {
            c.iter()
                .zip(&l.strides)
                .try_fold(0isize, |a, (x, s)| a.checked_add(x.checked_mul(*s)?))
        };
        let off = (l.offset as isize).checked_add(dot(&self.start)?)?;
        Some(Layout {
            offset: usize::try_from(off).ok()?,
            strides: self
                .coeff
                .iter()
                .map(|c| dot(c))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .collect(),
        })
    }
}

/// The requirements of [`Array::require`] (NumPy's `requirements=` letters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// `'C'`: row-major contiguous.
    C,
    /// `'F'`: column-major contiguous.
    F,
    /// `'A'`: aligned (always true here: buffers are aligned to their element).
    Aligned,
    /// `'W'`: writeable (always true: writes are copy-on-write).
    Writeable,
    /// `'O'`: owns its data (a view is copied).
    OwnData,
    /// `'E'`: an array, not a subclass (always true).
    EnsureArray,
}

fn base_address(s: &Storage) -> usize {
    match s {
        Storage::Host(h) => h.bytes().as_ptr() as usize,
        Storage::Cuda(d) => d.ptr() as usize,
    }
}

/// Every element offset a layout touches, in row-major order of `shape`.
fn offsets(l: &Layout, shape: &[usize]) -> Vec<isize> {
    let mut out = Vec::with_capacity(numel(shape));
    for idx in crate::ops::tricks::ndindex(shape) {
        let o = idx
            .iter()
            .zip(&l.strides)
            .fold(l.offset as isize, |a, (&i, &s)| a + i as isize * s);
        out.push(o);
    }
    out
}

impl<T: Element> Array<T> {
    /// NumPy's `lib.stride_tricks.sliding_window_view(x, window_shape, axis)`: every window
    /// of `window[k]` elements along axis `axes[k]` (all axes in order when `axes` is `None`,
    /// then `window` has one extent per axis), as a view: the windowed axes shrink to
    /// `n - w + 1` and the window extents follow as new trailing axes. A window longer than
    /// its axis, or of extent 0, is an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::from_slice(&[0, 1, 2, 3, 4], &[5])?;
    /// let v = x.sliding_window_view(&[3], None)?;
    /// assert_eq!(v.shape(), &[3, 3]);
    /// assert_eq!(v.to_vec()?, [0, 1, 2, 1, 2, 3, 2, 3, 4]);
    /// let m = Array::from_slice(&[0, 1, 2, 3, 4, 5], &[2, 3])?;
    /// assert_eq!(m.sliding_window_view(&[2], Some(&[1]))?.shape(), &[2, 2, 2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn sliding_window_view(&self, window: &[usize], axes: Option<&[isize]>) -> Result<Self> {
        let nd = self.ndim();
        let axes: Vec<usize> = match axes {
            Some(a) => a.iter().map(|&x| axis(x, nd)).collect::<Result<_>>()?,
            None => (0..nd).collect(),
        };
        if axes.len() != window.len() {
            return Err(Error::Shape(format!(
                "sliding_window_view: {} window extents for axes {axes:?}",
                window.len()
            )));
        }
        let mut shape = self.shape().to_vec();
        for (&ax, &w) in axes.iter().zip(window) {
            if w == 0 || w > shape[ax] {
                return Err(Error::Shape(format!(
                    "sliding_window_view: window {w} on axis {ax} of extent {} (shape {:?}); \
                     it must be in 1..={}",
                    shape[ax],
                    self.shape(),
                    shape[ax]
                )));
            }
            shape[ax] -= w - 1;
        }
        shape.extend_from_slice(window);
        checked_numel(&shape)?;
        let unit = |j: usize| (0..nd).map(|i| isize::from(i == j)).collect::<Vec<_>>();
        let mut coeff: Vec<Vec<isize>> = (0..nd).map(unit).collect();
        coeff.extend(axes.iter().map(|&a| unit(a)));
        let f = Linear {
            coeff,
            start: vec![0; nd],
        };
        if numel(&shape) == 0 {
            return Ok(crate::device::with_device(self.device(), || {
                Array::zeros(&shape)
            }));
        }
        Ok(Array::from_node(view(&self.node, &shape, &f)?))
    }

    /// A safe form of NumPy's `lib.stride_tricks.as_strided`: a view of the row-major elements
    /// of `self` where element `idx` is `self.flat[offset + Σ idx[i] * strides[i]]` (strides
    /// count elements, not bytes, and may be negative or zero). Every element must stay inside
    /// the array: otherwise, or when the arithmetic overflows, an `Err` naming the shape,
    /// strides and offset. Overlapping elements are fine: the view is read-only, as writes
    /// to arrays are copy-on-write.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::from_slice(&[1, 2, 3, 4, 5, 6], &[6])?;
    /// // Overlapping rows of 3, stepping by 1 (the sliding window):
    /// let w = x.as_strided(&[4, 3], &[1, 1], 0)?;
    /// assert_eq!(w.to_vec()?, [1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 6]);
    /// assert_eq!(x.as_strided(&[3], &[-2], 5)?.to_vec()?, [6, 4, 2]);
    /// assert!(x.as_strided(&[4, 3], &[2, 1], 0).is_err()); // would read x.flat[8]
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn as_strided(&self, shape: &[usize], strides: &[isize], offset: usize) -> Result<Self> {
        if shape.len() != strides.len() {
            return Err(Error::Shape(format!(
                "as_strided: shape {shape:?} and strides {strides:?} differ in length"
            )));
        }
        checked_numel(shape)?;
        if numel(shape) == 0 {
            return Ok(crate::device::with_device(self.device(), || {
                Array::zeros(shape)
            }));
        }
        let bad = || {
            Error::Index(format!(
                "as_strided: shape {shape:?} with strides {strides:?} from offset {offset} \
                 reaches outside the {} elements of the array",
                self.len()
            ))
        };
        let (mut lo, mut hi) = (offset as i128, offset as i128);
        for (&d, &s) in shape.iter().zip(strides) {
            let span = (d as i128 - 1) * s as i128;
            if span < 0 { lo += span } else { hi += span }
        }
        if lo < 0 || hi >= self.len() as i128 {
            return Err(bad());
        }
        let flat = self.flatten()?;
        let f = Linear {
            coeff: strides.iter().map(|&s| vec![s]).collect(),
            start: vec![isize::try_from(offset).map_err(|_| bad())?],
        };
        Ok(Array::from_node(view(&flat.node, shape, &f)?))
    }

    /// The element and byte layout behind a realised array: (storage, layout); `None` while
    /// the array is a pending expression (it owns no memory yet).
    fn memory(&self) -> Option<(Arc<Storage>, Layout)> {
        self.node.leaf()
    }

    /// NumPy's `byte_bounds(a)`: the address of the first byte the array's elements touch and
    /// one past the last, or `None` while the array is lazy (it has no memory yet; call
    /// [`eval`](Self::eval) first). Addresses are host pointers on the CPU backend and device
    /// pointers on CUDA.
    ///
    /// ```
    /// use cuprite_array::{Array, s};
    /// let a = Array::from_slice(&[0u32; 10], &[10])?;
    /// let (lo, hi) = a.byte_bounds().unwrap();
    /// assert_eq!(hi - lo, 40);
    /// let (l2, h2) = a.slice(&s![2..;3])?.byte_bounds().unwrap();
    /// assert_eq!((l2 - lo, h2 - lo), (8, 36)); // elements 2, 5, 8
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn byte_bounds(&self) -> Option<(usize, usize)> {
        let (s, l) = self.memory()?;
        let base = base_address(&s);
        let size = T::DTYPE.size();
        if self.is_empty() {
            let p = base + l.offset * size;
            return Some((p, p));
        }
        let (lo, hi) = l.extent(self.shape());
        Some((base + lo as usize * size, base + (hi as usize + 1) * size))
    }

    /// NumPy's `may_share_memory(a, b)`: whether the two arrays' memory bounds overlap (a
    /// quick test; [`shares_memory`](Self::shares_memory) is the exact one). Lazy arrays own
    /// no memory and share none.
    ///
    /// ```
    /// use cuprite_array::{Array, s};
    /// let a = Array::from_slice(&[0i32; 8], &[8])?;
    /// let (even, odd) = (a.slice(&s![..;2])?, a.slice(&s![1..;2])?);
    /// assert!(even.may_share_memory(&odd));
    /// assert!(!even.shares_memory(&odd, None)?);
    /// assert!(!a.may_share_memory(&Array::from_slice(&[0i32; 8], &[8])?));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn may_share_memory<U: Element>(&self, other: &Array<U>) -> bool {
        match (self.byte_bounds(), other.byte_bounds()) {
            (Some((a0, a1)), Some((b0, b1))) => a0 < b1 && b0 < a1 && a0 < a1 && b0 < b1,
            _ => false,
        }
    }

    /// NumPy's `shares_memory(a, b, max_work)`: whether some byte is used by both arrays,
    /// decided exactly by listing the element offsets. When the arrays' bounds overlap and
    /// the two element counts sum past `max_work`, an `Err` (NumPy's `TooHardError`); `None`
    /// means no limit.
    ///
    /// ```
    /// use cuprite_array::{Array, s};
    /// let a = Array::from_slice(&[0u8; 12], &[3, 4])?;
    /// let (col0, col1) = (a.slice(&s![.., 0])?, a.slice(&s![.., 1])?);
    /// assert!(col0.may_share_memory(&col1) && !col0.shares_memory(&col1, None)?);
    /// assert!(a.shares_memory(&col1, None)?);
    /// assert!(a.shares_memory(&col1, Some(5)).is_err()); // 12 + 3 element visits
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn shares_memory<U: Element>(
        &self,
        other: &Array<U>,
        max_work: Option<usize>,
    ) -> Result<bool> {
        if !self.may_share_memory(other) {
            return Ok(false);
        }
        let work = self.len().saturating_add(other.len());
        if let Some(m) = max_work.filter(|&m| work > m) {
            return Err(Error::InvalidArgument(format!(
                "shares_memory: deciding needs {work} element visits, more than max_work {m}"
            )));
        }
        let (Some((sa, la)), Some((sb, lb))) = (self.memory(), other.memory()) else {
            return Ok(false);
        };
        let (za, zb) = (T::DTYPE.size() as isize, U::DTYPE.size() as isize);
        let (ba, bb) = (base_address(&sa) as isize, base_address(&sb) as isize);
        // Byte intervals [start, start + size) of each element; overlap of any two.
        let mut a: Vec<isize> = offsets(&la, self.shape())
            .iter()
            .map(|o| ba + o * za)
            .collect();
        let mut b: Vec<isize> = offsets(&lb, other.shape())
            .iter()
            .map(|o| bb + o * zb)
            .collect();
        a.sort_unstable();
        b.sort_unstable();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] < b[j] + zb && b[j] < a[i] + za {
                return Ok(true);
            }
            if a[i] + za <= b[j] { i += 1 } else { j += 1 }
        }
        Ok(false)
    }

    /// NumPy's `isfortran(a)`: whether the realised array is column-major contiguous and not
    /// also row-major contiguous (so 1-D arrays are never "Fortran"). Lazy arrays are
    /// realised row-major: `false`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert!(!a.isfortran());
    /// assert!(a.t().isfortran());
    /// assert!(a.asfortranarray()?.isfortran());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn isfortran(&self) -> bool {
        let Some((_, l)) = self.memory() else {
            return false;
        };
        let s = self.shape();
        let mut acc = 1isize;
        for i in 0..s.len() {
            if s[i] != 1 && l.strides[i] != acc {
                return false;
            }
            acc = acc.saturating_mul(s[i] as isize);
        }
        !l.is_contiguous(s)
    }

    /// NumPy's `asfortranarray(a)`: the same values in column-major memory (for 2 or more axes
    /// with extents above 1; otherwise row- and column-major coincide and this is
    /// [`contiguous`](Self::contiguous)).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let f = a.asfortranarray()?;
    /// assert_eq!(f.to_vec()?, a.to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn asfortranarray(&self) -> Result<Self> {
        if self.ndim() < 2 {
            return self.contiguous();
        }
        Ok(self.t().contiguous()?.t())
    }

    /// NumPy's `require(a, requirements=...)`: the array, copied only when a requirement does
    /// not hold ([`Requirement::C`] and [`Requirement::F`] together are an `Err`).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::Requirement};
    /// let a = Array::from_slice(&[1, 2, 3, 4], &[2, 2])?;
    /// assert!(a.require(&[Requirement::F, Requirement::Aligned])?.isfortran());
    /// assert!(a.require(&[Requirement::C, Requirement::F]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn require(&self, requirements: &[Requirement]) -> Result<Self> {
        let (c, f) = (
            requirements.contains(&Requirement::C),
            requirements.contains(&Requirement::F),
        );
        if c && f {
            return Err(Error::InvalidArgument(
                "require: C and F contiguity cannot both be required".into(),
            ));
        }
        if f {
            return if self.isfortran() {
                Ok(self.clone())
            } else {
                self.asfortranarray()
            };
        }
        if c || requirements.contains(&Requirement::OwnData) {
            return self.contiguous();
        }
        Ok(self.clone())
    }

    /// NumPy's `a.flat` for reading (`flatiter`): the elements in row-major order, copied to
    /// the host once.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::from_slice(&[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.t().flat()?.collect::<Vec<_>>(), [1, 3, 2, 4]);
    /// assert_eq!(a.flat()?.nth(2), Some(3));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn flat(&self) -> Result<std::vec::IntoIter<T>> {
        Ok(self.to_vec()?.into_iter())
    }
}
