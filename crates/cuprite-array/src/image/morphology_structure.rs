//! Structuring elements and footprints (SciPy's `structure`, `footprint` and `size`
//! arguments), and SciPy's `generate_binary_structure` and `iterate_structure`.

use crate::error::{Error, Result};

/// A boolean structuring element of rank 1 to 3, row-major (SciPy's `structure` of the binary
/// routines and `label`, `footprint` of the grey ones).
///
/// ```
/// use cuprite_array::image::Structure;
/// let s = Structure::new(&[1, 3], &[true, false, true])?;
/// assert_eq!((s.shape(), s.count()), (&[1, 3][..], 2));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Structure {
    shape: Vec<usize>,
    mask: Vec<bool>,
}

impl Structure {
    /// The element of `shape` (rank 1 to 3, no zero extent, at most 2^24 elements) whose set
    /// positions are `mask` (row-major); an `Err` naming the shape when it is not so or `mask`
    /// has another length.
    ///
    /// ```
    /// use cuprite_array::image::Structure;
    /// assert!(Structure::new(&[2, 2], &[true; 3]).is_err());
    /// ```
    pub fn new(shape: &[usize], mask: &[bool]) -> Result<Structure> {
        let n = checked_len(shape)?;
        if n != mask.len() {
            return Err(Error::InvalidArgument(format!(
                "structure of shape {shape:?} holds {n} values, given {}",
                mask.len()
            )));
        }
        Ok(Structure {
            shape: shape.to_vec(),
            mask: mask.to_vec(),
        })
    }

    /// The element of `shape` with every position set (SciPy's `size`); an `Err` naming the
    /// shape as [`Structure::new`]'s (more than 2^24 elements among them).
    ///
    /// ```
    /// use cuprite_array::image::Structure;
    /// assert_eq!(Structure::ones(&[3, 3])?.count(), 9);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn ones(shape: &[usize]) -> Result<Structure> {
        // Checked (at most 2^24 elements) before the mask is held.
        let n = checked_len(shape)?;
        Structure::new(shape, &vec![true; n])
    }

    /// Its extents.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Its rank.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Its values, row-major.
    #[must_use]
    pub fn mask(&self) -> &[bool] {
        &self.mask
    }

    /// How many positions are set.
    #[must_use]
    pub fn count(&self) -> usize {
        self.mask.iter().filter(|&&b| b).count()
    }

    /// The set positions (row-major order) as offsets from the centre `shape / 2`, three
    /// coordinates each (leading axes padded with 0).
    pub(crate) fn offsets(&self) -> Vec<[i64; 3]> {
        let r = self.rank();
        let mut sh = [1usize; 3];
        sh[3 - r..].copy_from_slice(&self.shape);
        let mut out = Vec::new();
        for (f, _) in self.mask.iter().enumerate().filter(|(_, b)| **b) {
            let c = [f / (sh[1] * sh[2]), (f / sh[2]) % sh[1], f % sh[2]];
            out.push([0, 1, 2].map(|a| c[a] as i64 - (sh[a] / 2) as i64));
        }
        out
    }
}

/// The product of `shape` (rank 1 to 3, every extent at least 1), or an `Err` naming it.
fn checked_len(shape: &[usize]) -> Result<usize> {
    let bad = shape.is_empty() || shape.len() > 3 || shape.contains(&0);
    let n = shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
    match n {
        Some(n) if !bad && n <= STRUCTURE_MAX => Ok(n),
        _ => Err(Error::InvalidArgument(format!(
            "a structure has rank 1 to 3, extents of at least 1 and at most 2^24 elements, \
             given shape {shape:?}"
        ))),
    }
}

/// The most elements of a [`Structure`] (as the order filters' box windows): every one is a
/// tap of the kernels that take it.
const STRUCTURE_MAX: usize = 1 << 24;

/// SciPy's `generate_binary_structure`: the `3^rank` element whose set positions are those
/// within `connectivity` unit steps of the centre (1: the cross, `rank`: the full cube).
/// `rank` is 1 to 3; a `connectivity` of 0 sets only the centre, one above `rank` is `rank`.
///
/// ```
/// use cuprite_array::image::generate_binary_structure;
/// let s = generate_binary_structure(2, 1)?;
/// assert_eq!(s.mask(), [false, true, false, true, true, true, false, true, false]);
/// assert_eq!(generate_binary_structure(3, 3)?.count(), 27);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn generate_binary_structure(rank: usize, connectivity: usize) -> Result<Structure> {
    if !(1..=3).contains(&rank) {
        return Err(Error::InvalidArgument(format!(
            "generate_binary_structure: rank {rank} is not 1, 2 or 3"
        )));
    }
    let shape = vec![3usize; rank];
    let n = 3usize.pow(rank as u32);
    let mask: Vec<bool> = (0..n)
        .map(|f| {
            let steps: usize = (0..rank)
                .map(|a| usize::from((f / 3usize.pow(a as u32)) % 3 != 1))
                .sum();
            steps <= connectivity
        })
        .collect();
    Structure::new(&shape, &mask)
}

/// SciPy's `iterate_structure`: `s` dilated by itself `iterations - 1` times, of extents
/// `m + (iterations - 1) (m - 1)` (`s` itself for `iterations` below 2, or where every extent
/// is 1).
///
/// # Errors
/// A result of more than 2^24 elements (or whose extents overflow), naming `iterations` and
/// the shape.
///
/// ```
/// use cuprite_array::image::{generate_binary_structure, iterate_structure};
/// let s = iterate_structure(&generate_binary_structure(2, 1)?, 2)?;
/// assert_eq!(s.shape(), [5, 5]);
/// assert_eq!(s.count(), 13); // a diamond of radius 2
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn iterate_structure(s: &Structure, iterations: usize) -> Result<Structure> {
    // A single position's sums stay at the origin (or, unset, stay empty): `s` itself.
    if iterations < 2 || s.shape.iter().all(|&m| m == 1) {
        return Ok(s.clone());
    }
    let too_big = || {
        Error::InvalidArgument(format!(
            "iterate_structure: {iterations} iterations of a structure of shape {:?} give more \
             than 2^24 elements",
            s.shape
        ))
    };
    let shape: Vec<usize> = s
        .shape
        .iter()
        .map(|&m| {
            (iterations - 1)
                .checked_mul(m - 1)
                .and_then(|v| v.checked_add(m))
        })
        .collect::<Option<_>>()
        .ok_or_else(too_big)?;
    // Bounds the result, and with it the rounds below (an extent above 1 grows each round).
    checked_len(&shape).map_err(|_| too_big())?;
    // The result's set positions are the sums of `iterations` positions of `s` (as SciPy
    // places `s` at `(iterations - 1) (m / 2)` and dilates it `iterations - 1` times).
    let r = shape.len();
    let mut sh = [1usize; 3];
    sh[3 - r..].copy_from_slice(&shape);
    let mut ms = [1usize; 3];
    ms[3 - r..].copy_from_slice(&s.shape);
    let pos: Vec<[usize; 3]> = (0..s.mask.len())
        .filter(|&f| s.mask[f])
        .map(|f| [f / (ms[1] * ms[2]), (f / ms[2]) % ms[1], f % ms[2]])
        .collect();
    let mut reach: std::collections::BTreeSet<[usize; 3]> = [[0usize; 3]].into_iter().collect();
    for _ in 0..iterations {
        reach = reach
            .iter()
            .flat_map(|p| {
                pos.iter()
                    .map(move |o| [p[0] + o[0], p[1] + o[1], p[2] + o[2]])
            })
            .collect();
    }
    let mut mask = vec![false; sh.iter().product()];
    for c in reach {
        mask[(c[0] * sh[1] + c[1]) * sh[2] + c[2]] = true;
    }
    Structure::new(&shape, &mask)
}
