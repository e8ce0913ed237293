//! Descriptor matching (ArrayFire's `hammingMatcher` and `nearestNeighbour`): the distance of
//! every query to every train descriptor as one fused broadcast expression reduced along the
//! descriptor, then the `n_dist` nearest by `topk` (ties: the lower train index first), all on
//! the arrays' device.

use crate::array::Array;
use crate::dtype::{DType, Element, Float, Integer};
use crate::error::{Error, Result};
use crate::ops::TopkOpts;

/// The `(n, len)` of a descriptor array, or an `Err` naming its shape.
fn rows(a: &[usize], what: &str, name: &str) -> Result<(usize, usize)> {
    if a.len() != 2 {
        return Err(Error::Shape(format!(
            "{what}: the {name} descriptors must be a 2-D array [count, length], got shape {a:?}"
        )));
    }
    Ok((a[0], a[1]))
}

/// Checks the shapes of a matcher's operands and `n_dist`; the `(nq, nt, len)`.
fn check(q: &[usize], t: &[usize], n_dist: usize, what: &str) -> Result<(usize, usize, usize)> {
    let (nq, lq) = rows(q, what, "query")?;
    let (nt, lt) = rows(t, what, "train")?;
    if lq != lt {
        return Err(Error::Shape(format!(
            "{what}: query descriptors of length {lq}, train descriptors of length {lt}"
        )));
    }
    if n_dist == 0 || n_dist > nt {
        return Err(Error::InvalidArgument(format!(
            "{what}: n_dist {n_dist} is outside 1..={nt} (the number of train descriptors)"
        )));
    }
    Ok((nq, nt, lq))
}

/// The `[nq, nt]` distance matrix reduced to the `n_dist` nearest of each query: their train
/// indices and distances, `[nq, n_dist]`, nearest first.
fn nearest<D: Element>(dist: &Array<D>, n_dist: usize) -> Result<(Array<u32>, Array<D>)> {
    let (d, i) = dist.topk_with(n_dist, 1, TopkOpts::new().largest(false))?;
    Ok((i.cast::<u32>(), d))
}

/// Options of [`hamming_matcher_with`] and (with a distance) [`nearest_neighbour_with`]: how
/// many nearest train descriptors each query gets (ArrayFire's `n_dist`, 1 by default).
///
/// ```
/// use cuprite_array::image::{MatcherOpts, NnDist};
/// let o = MatcherOpts::new().n_dist(2).dist_type(NnDist::Sad);
/// assert_eq!((o.n_dist, o.dist_type), (2, NnDist::Sad));
/// ```
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatcherOpts {
    /// Nearest matches kept a query (1).
    pub n_dist: usize,
    /// The distance of [`nearest_neighbour_with`] (SSD; the Hamming matcher ignores it).
    pub dist_type: NnDist,
}

impl Default for MatcherOpts {
    fn default() -> Self {
        MatcherOpts {
            n_dist: 1,
            dist_type: NnDist::Ssd,
        }
    }
}

impl MatcherOpts {
    /// One match a query, SSD.
    pub fn new() -> Self {
        Self::default()
    }
    /// Nearest matches kept a query.
    pub fn n_dist(mut self, n_dist: usize) -> Self {
        self.n_dist = n_dist;
        self
    }
    /// The distance of [`nearest_neighbour_with`].
    pub fn dist_type(mut self, dist_type: NnDist) -> Self {
        self.dist_type = dist_type;
        self
    }
}

/// The distances of [`nearest_neighbour_with`] (ArrayFire's `af_match_type` subset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NnDist {
    /// Sum of squared differences (the default).
    #[default]
    Ssd,
    /// Sum of absolute differences.
    Sad,
    /// The number of unequal elements.
    Shd,
}

/// The number of set bits of every element (a shift-and-mask count, fused).
fn popcount(x: &Array<u64>) -> Result<Array<u64>> {
    let m1 = 0x5555_5555_5555_5555u64;
    let m2 = 0x3333_3333_3333_3333u64;
    let m4 = 0x0f0f_0f0f_0f0f_0f0fu64;
    let x = x.try_sub(x.try_shr(1)?.try_bitand(m1)?)?;
    let x = x.try_bitand(m2)?.try_add(x.try_shr(2)?.try_bitand(m2)?)?;
    let x = x.try_add(x.try_shr(4)?)?.try_bitand(m4)?;
    let x = x.try_add(x.try_shr(8)?)?;
    let x = x.try_add(x.try_shr(16)?)?;
    let x = x.try_add(x.try_shr(32)?)?;
    x.try_bitand(0x7f)
}

/// The nearest train descriptor of each query by Hamming distance (ArrayFire's
/// `hammingMatcher`): `query` `[nq, len]` and `train` `[nt, len]` of unsigned words (`u8`,
/// `u16`, `u32`, `u64`; ORB's descriptors are 8 `u32`); returns the train index and the
/// distance (the number of differing bits), each `[nq, 1]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::hamming_matcher};
/// let train = Array::from_vec(vec![0b0000u8, 0b1111, 0b1010], &[3, 1])?;
/// let query = Array::from_vec(vec![0b1011u8, 0b0001], &[2, 1])?;
/// let (idx, dist) = hamming_matcher(&query, &train)?;
/// // 0b1011 is one bit from both 0b1111 and 0b1010: the lower index wins.
/// assert_eq!((idx.to_vec()?, dist.to_vec()?), (vec![1, 0], vec![1, 1]));
/// # Ok(()) }
/// ```
pub fn hamming_matcher<T: Integer>(
    query: &Array<T>,
    train: &Array<T>,
) -> Result<(Array<u32>, Array<u32>)> {
    hamming_matcher_with(query, train, MatcherOpts::new())
}

/// [`hamming_matcher`] keeping the `n_dist` nearest of each query, nearest first (ties: the
/// lower train index first): `[nq, n_dist]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{MatcherOpts, hamming_matcher_with}};
/// let train = Array::from_vec(vec![0u32, 7, 1], &[3, 1])?;
/// let query = Array::from_vec(vec![3u32], &[1, 1])?;
/// let (idx, dist) = hamming_matcher_with(&query, &train, MatcherOpts::new().n_dist(3))?;
/// assert_eq!((idx.to_vec()?, dist.to_vec()?), (vec![1, 2, 0], vec![1, 1, 2]));
/// # Ok(()) }
/// ```
pub fn hamming_matcher_with<T: Integer>(
    query: &Array<T>,
    train: &Array<T>,
    opts: MatcherOpts,
) -> Result<(Array<u32>, Array<u32>)> {
    if !matches!(T::DTYPE, DType::U8 | DType::U16 | DType::U32 | DType::U64) {
        return Err(Error::InvalidArgument(format!(
            "hamming_matcher takes unsigned words (u8, u16, u32, u64), got {}",
            T::DTYPE
        )));
    }
    let (nq, nt, len) = check(query.shape(), train.shape(), opts.n_dist, "hamming_matcher")?;
    let q = query.cast::<u64>().reshape(&[nq, 1, len])?;
    let t = train.cast::<u64>().reshape(&[1, nt, len])?;
    let dist = popcount(&q.try_bitxor(&t)?)?.sum_axes(&[2])?;
    let (i, d) = nearest(&dist, opts.n_dist)?;
    Ok((i, d.cast::<u32>()))
}

/// The nearest train descriptor of each query by the sum of squared differences (ArrayFire's
/// `nearestNeighbour` with `AF_SSD`): `query` `[nq, len]`, `train` `[nt, len]`; returns the
/// train index and the distance, each `[nq, 1]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::nearest_neighbour};
/// let train = Array::from_vec(vec![0.0f32, 0.0, 5.0, 5.0, 1.0, 2.0], &[3, 2])?;
/// let query = Array::from_vec(vec![4.0f32, 4.5], &[1, 2])?;
/// let (idx, dist) = nearest_neighbour(&query, &train)?;
/// assert_eq!((idx.to_vec()?, dist.to_vec()?), (vec![1], vec![1.25]));
/// # Ok(()) }
/// ```
pub fn nearest_neighbour<T: Float>(
    query: &Array<T>,
    train: &Array<T>,
) -> Result<(Array<u32>, Array<T>)> {
    nearest_neighbour_with(query, train, MatcherOpts::new())
}

/// [`nearest_neighbour`] with options: the distance ([`NnDist`]: SSD, SAD or the count of
/// unequal elements) and the `n_dist` nearest of each query, nearest first (ties: the lower
/// train index first): `[nq, n_dist]`.
///
/// ```
/// # fn main() -> cuprite_array::Result<()> {
/// use cuprite_array::{Array, image::{MatcherOpts, NnDist, nearest_neighbour_with}};
/// let train = Array::from_vec(vec![0.0f64, 3.0, -1.0], &[3, 1])?;
/// let query = Array::from_vec(vec![1.0f64], &[1, 1])?;
/// let o = MatcherOpts::new().n_dist(2).dist_type(NnDist::Sad);
/// let (idx, dist) = nearest_neighbour_with(&query, &train, o)?;
/// assert_eq!((idx.to_vec()?, dist.to_vec()?), (vec![0, 1], vec![1.0, 2.0]));
/// # Ok(()) }
/// ```
pub fn nearest_neighbour_with<T: Float>(
    query: &Array<T>,
    train: &Array<T>,
    opts: MatcherOpts,
) -> Result<(Array<u32>, Array<T>)> {
    let (nq, nt, len) = check(
        query.shape(),
        train.shape(),
        opts.n_dist,
        "nearest_neighbour",
    )?;
    let q = query.reshape(&[nq, 1, len])?;
    let t = train.reshape(&[1, nt, len])?;
    let per = match opts.dist_type {
        NnDist::Ssd => {
            let d = q.try_sub(&t)?;
            d.try_mul(&d)?
        }
        NnDist::Sad => q.try_sub(&t)?.abs(),
        NnDist::Shd => q.try_not_equal(&t)?.cast::<T>(),
    };
    let dist = per.sum_axes(&[2])?;
    let (i, d) = nearest(&dist, opts.n_dist)?;
    Ok((i, d.cast::<T>()))
}
