//! NumPy's `broadcast` object: the common shape of several shapes, and an iterator over the
//! positions of that shape that says, for each input, which of its elements lands there.

use crate::error::Result;
use crate::shape::{broadcast_shapes, checked_numel, numel};

/// NumPy's `broadcast(*arrays)`, built from the inputs' shapes: [`shape`](Self::shape),
/// [`size`](Self::size), [`ndim`](Self::ndim), [`numiter`](Self::numiter),
/// [`index`](Self::index) and [`reset`](Self::reset) as NumPy's attributes. As an iterator it
/// yields, for each position of the broadcast shape in row-major order, the flat index of
/// the element of each input found there (NumPy's `iters` read through each input's `flat`).
///
/// ```
/// use cuprite_array::ops::Broadcast;
/// let mut b = Broadcast::new(&[&[3, 1], &[2]])?;
/// assert_eq!((b.shape(), b.size(), b.ndim(), b.numiter()), (&[3, 2][..], 6, 2, 2));
/// assert_eq!(b.next(), Some(vec![0, 0]));
/// assert_eq!(b.next(), Some(vec![0, 1]));
/// assert_eq!(b.index(), 2);
/// assert_eq!(b.next(), Some(vec![1, 0]));
/// b.reset();
/// assert_eq!(b.count(), 6);
/// assert!(Broadcast::new(&[&[3], &[4]]).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Broadcast {
    shape: Vec<usize>,
    /// Per input: its row-major strides in elements, aligned to `shape` (0 on broadcast axes).
    strides: Vec<Vec<usize>>,
    index: usize,
}

impl Broadcast {
    /// The broadcast of `shapes` (NumPy's rules), or an `Err` naming two that clash.
    pub fn new(shapes: &[&[usize]]) -> Result<Broadcast> {
        let mut shape: Vec<usize> = Vec::new();
        for s in shapes {
            shape = broadcast_shapes(&shape, s)?;
        }
        checked_numel(&shape)?;
        let nd = shape.len();
        let strides = shapes
            .iter()
            .map(|s| {
                let mut st = vec![0usize; nd];
                let mut acc = 1usize;
                for i in (0..s.len()).rev() {
                    let at = nd - s.len() + i;
                    st[at] = if s[i] == 1 { 0 } else { acc };
                    acc *= s[i];
                }
                st
            })
            .collect();
        Ok(Broadcast {
            shape,
            strides,
            index: 0,
        })
    }
    /// The broadcast shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Its element count.
    pub fn size(&self) -> usize {
        numel(&self.shape)
    }
    /// Its number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// The number of inputs.
    pub fn numiter(&self) -> usize {
        self.strides.len()
    }
    /// The position the iterator is at (how many positions it has yielded).
    pub fn index(&self) -> usize {
        self.index
    }
    /// Restarts the iteration.
    pub fn reset(&mut self) {
        self.index = 0;
    }
}

impl Iterator for Broadcast {
    type Item = Vec<usize>;
    fn next(&mut self) -> Option<Vec<usize>> {
        if self.index >= self.size() {
            return None;
        }
        let mut rem = self.index;
        let mut out = vec![0usize; self.strides.len()];
        for ax in (0..self.shape.len()).rev() {
            let i = rem % self.shape[ax];
            rem /= self.shape[ax];
            for (o, st) in out.iter_mut().zip(&self.strides) {
                *o += i * st[ax];
            }
        }
        self.index += 1;
        Some(out)
    }
}
