//! Random sampling on the Philox generator of [`crate::random`], the same numbers on every
//! backend for the same seed:
//!
//! - `randint`, `bernoulli`, `exponential` are element-wise on the `f64` uniforms of
//!   `rand_uniform` (integer results are bit-identical across backends; `exponential` differs
//!   only where the backends' `log` does, in the last bits).
//! - `gamma` (and `beta`, from two gammas) is a library call: Marsaglia and Tsang's rejection
//!   loop, one thread per element, on counters `(element, attempt)` (see
//!   [`crate::random::gamma_f64`]).
//! - `permutation`, `shuffle` and `choice` are built on the host from the Philox stream (a
//!   Fisher–Yates shuffle, an inverse-CDF search, exponential-key sampling without
//!   replacement) and uploaded: the same indices on every backend by construction.

use crate::array::Array;
use crate::codegen::{GammaKeyedParams, GammaParams, KernelParams, ReadBuf, WriteBuf};
use crate::device::current_device;
use crate::dtype::{DType, Element, Float, Integer};
use crate::error::{Error, Result};
use crate::exec::CudaLane;
use crate::graph::{CallInput, LibraryCall, Node, Op};
use crate::ops::ChoiceOpts;
use crate::random::{gamma_f64, philox4x32_10, sample_f64};
use crate::storage::{DevBuf, HostBuf};
use crate::util::{KeyHasher, host_vec};
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The inclusive range of an integer dtype.
fn int_range(d: DType) -> (i128, i128) {
    crate::range::bounds(d).unwrap_or((i64::MIN as i128, i64::MAX as i128))
}

/// A second key from `seed` (beta's second gamma), SplitMix64's finaliser.
fn derive_key(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<I: Integer> Array<I> {
    /// Uniform random integers in `[lo, hi)` with `seed`: `lo + floor(u * (hi - lo))` on the
    /// `f64` uniforms `u` of [`Array::rand_uniform`] (unbiased to within `2^-53` per value;
    /// `hi - lo` at most `2^53`). `lo >= hi`, a span above `2^53`, or bounds outside the dtype
    /// are an `Err`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<i32>::randint(-3, 4, &[1000], 7)?.to_vec()?;
    /// assert!(a.iter().all(|&v| (-3..4).contains(&v)));
    /// assert_eq!(a, Array::<i32>::randint(-3, 4, &[1000], 7)?.to_vec()?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn randint(lo: i64, hi: i64, shape: &[usize], seed: u64) -> Result<Array<I>> {
        let (min, max) = int_range(I::DTYPE);
        let span = hi as i128 - lo as i128;
        if span <= 0 || span > 1 << 53 || (lo as i128) < min || (hi as i128 - 1) > max {
            return Err(Error::InvalidArgument(format!(
                "randint: [{lo}, {hi}) must be a non-empty range of at most 2^53 values within {}",
                I::DTYPE
            )));
        }
        let u = Array::<f64>::rand_uniform(shape, seed)?;
        // `clamp`, not only `minimum`: the uniforms are never negative, but saying so gives the
        // result a known range (indexing with it needs no check).
        let k = (u * span as f64).cast::<i64>().clamp(0i64, span as i64 - 1);
        Ok((k + lo).cast::<I>())
    }
}

impl Array<bool> {
    /// `true` with probability `p` (in `[0, 1]`), independently per element: `u < p` on the
    /// `f64` uniforms of [`Array::rand_uniform`].
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let b = Array::bernoulli(&[10000], 0.25, 3)?;
    /// let ones = b.count()?.item()?;
    /// assert!((2300..2700).contains(&ones));
    /// assert!(Array::bernoulli(&[1], 1.5, 3).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn bernoulli(shape: &[usize], p: f64, seed: u64) -> Result<Array<bool>> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::InvalidArgument(format!(
                "bernoulli: p must lie in [0, 1], not {p}"
            )));
        }
        Ok(Array::<f64>::rand_uniform(shape, seed)?.less(p))
    }
}

impl<T: Float> Array<T> {
    /// `true` where a uniform draw falls below the probability in `self` (per element, each in
    /// `[0, 1]`; not checked: a probability above 1 is always `true`, below 0 never).
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let p = Array::<f32>::from_slice_on(Device::CPU, &[0.0, 1.0], &[2])?;
    /// assert_eq!(p.bernoulli_each(5)?.to_vec()?, [false, true]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn bernoulli_each(&self, seed: u64) -> Result<Array<bool>> {
        let u = crate::with_device(self.device(), || {
            Array::<f64>::rand_uniform(self.shape(), seed)
        })?;
        Ok(u.less(self.cast::<f64>()))
    }

    /// Exponential random numbers with mean `scale` (> 0): `-scale * ln(1 - u)`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let e = Array::<f64>::exponential(&[20000], 2.0, 1)?;
    /// let m = e.mean()?.item()?;
    /// assert!((m - 2.0).abs() < 0.1, "{m}");
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn exponential(shape: &[usize], scale: f64, seed: u64) -> Result<Array<T>> {
        if !(scale.is_finite() && scale > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "exponential: scale must be finite and positive, not {scale}"
            )));
        }
        let u = Array::<f64>::rand_uniform(shape, seed)?;
        let one_minus = -(u - 1.0);
        Ok((one_minus.log() * -scale).cast::<T>())
    }

    /// Gamma random numbers with shape `alpha` and `scale` (both finite and > 0): mean
    /// `alpha * scale`, variance `alpha * scale^2`. Marsaglia and Tsang's method (with
    /// `u^(1/alpha)` boosting for `alpha < 1`), computed in `f64`.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let g = Array::<f64>::gamma(&[20000], 3.0, 2.0, 1)?;
    /// let m = g.mean()?.item()?;
    /// assert!((m - 6.0).abs() < 0.15, "{m}");
    /// assert!(Array::<f64>::gamma(&[1], 0.0, 1.0, 1).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gamma(shape: &[usize], alpha: f64, scale: f64, seed: u64) -> Result<Array<T>> {
        for (what, v) in [("alpha", alpha), ("scale", scale)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::InvalidArgument(format!(
                    "gamma: {what} must be finite and positive, not {v}"
                )));
            }
        }
        let g = standard_gamma(shape, alpha, seed, false)?;
        Ok((g * scale).cast::<T>())
    }

    /// Beta random numbers with shapes `a` and `b` (finite, > 0): `X / (X + Y)` for gamma
    /// draws `X ~ Γ(a)` (key `seed`) and `Y ~ Γ(b)` (a key derived from `seed`).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let x = Array::<f64>::beta(&[20000], 2.0, 6.0, 1)?;
    /// let m = x.mean()?.item()?;
    /// assert!((m - 0.25).abs() < 0.01, "{m}");
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn beta(shape: &[usize], a: f64, b: f64, seed: u64) -> Result<Array<T>> {
        for (what, v) in [("a", a), ("b", b)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::InvalidArgument(format!(
                    "beta: {what} must be finite and positive, not {v}"
                )));
            }
        }
        let x = standard_gamma(shape, a, seed, false)?;
        let y = standard_gamma(shape, b, seed, true)?;
        Ok(x.try_div(&(&x + &y))?.cast::<T>())
    }
}

/// Standard gamma draws (`f64`) as a library call on the current device with the Philox key
/// `k(seed)`, `k` the identity or, when `derived`, [`derive_key`] (beta's second gamma), the
/// seed keyed per call inside a compiled program ([`crate::random::keyed_seed`]).
pub(crate) fn standard_gamma(
    shape: &[usize],
    alpha: f64,
    seed: u64,
    derived: bool,
) -> Result<Array<f64>> {
    let n = crate::shape::checked_numel(shape)?;
    let dev = current_device();
    let (seed, word) = crate::random::keyed_seed(seed, dev);
    let call = Gamma {
        n,
        alpha,
        seed,
        derived,
        keyed: word.is_some(),
    };
    let inputs: Vec<_> = word.into_iter().collect();
    let node = Node::new(
        Op::Library(Arc::new(call), inputs),
        DType::F64,
        shape.to_vec(),
        dev,
    );
    Ok(Array::from_node(node))
}

/// The next value in `0..=bound` from a Philox word stream: the high half of a 64-bit draw
/// times `bound + 1` (bias below `2^-64 * bound`).
struct Draws {
    key: u64,
    ctr: u64,
}

impl Draws {
    fn below(&mut self, n: u64) -> u64 {
        let w = philox4x32_10(self.key, self.ctr);
        self.ctr += 1;
        let x = ((w[0] as u64) << 32) | w[1] as u64;
        ((x as u128 * n as u128) >> 64) as u64
    }
}

/// The first `k` values of a Fisher–Yates shuffle of `0..n` with `seed` (step `t` swaps
/// position `t` with one drawn uniformly from `t..n`, Philox counter `t`).
fn partial_shuffle(n: usize, k: usize, seed: u64, what: &str) -> Result<Vec<i64>> {
    let mut d = Draws { key: seed, ctr: 0 };
    let steps = k.min(n.saturating_sub(1));
    if k.saturating_mul(4) < n {
        // Few draws from many items: the same swaps on a map of the displaced positions, so
        // memory follows `k`, not `n` (`choice(2^60, 3, false, ..)` needs three slots).
        let mut moved = std::collections::HashMap::with_capacity(2 * k);
        let mut out = host_vec(k, what)?;
        for t in 0..steps {
            let j = t + d.below((n - t) as u64) as usize;
            let vt = moved.get(&t).copied().unwrap_or(t);
            out.push(moved.get(&j).copied().unwrap_or(j) as i64);
            moved.insert(j, vt);
        }
        return Ok(out);
    }
    let mut v = host_vec(n, what)?;
    v.extend(0..n as i64);
    for t in 0..steps {
        let j = t + d.below((n - t) as u64) as usize;
        v.swap(t, j);
    }
    v.truncate(k);
    Ok(v)
}

/// Checks probabilities: length `n`, finite, not negative, summing to 1 within `1e-8 * n`
/// (relative). Returns them normalised.
fn check_p(p: &[f64], n: usize) -> Result<Vec<f64>> {
    if p.len() != n {
        return Err(Error::Shape(format!(
            "choice: {} probabilities for {n} items",
            p.len()
        )));
    }
    if let Some((i, v)) = p
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v >= 0.0))
    {
        return Err(Error::InvalidArgument(format!(
            "choice: probability {i} is {v} (must be finite and not negative)"
        )));
    }
    let s: f64 = p.iter().sum();
    if (s - 1.0).abs() > 1e-8 * (n as f64).max(1.0) {
        return Err(Error::InvalidArgument(format!(
            "choice: the probabilities sum to {s}, not 1"
        )));
    }
    Ok(p.iter().map(|v| v / s).collect())
}

impl Array<i64> {
    /// A random permutation of `0..n` with `seed` (Fisher–Yates on the Philox stream, built
    /// on the host and uploaded to the current device).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let mut p = Array::permutation(10, 4)?.to_vec()?;
    /// p.sort();
    /// assert_eq!(p, (0..10).collect::<Vec<i64>>());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn permutation(n: usize, seed: u64) -> Result<Array<i64>> {
        Array::from_vec(partial_shuffle(n, n, seed, "permutation")?, &[n])
    }

    /// `k` indices drawn uniformly and independently from `0..n` with `seed` (NumPy's
    /// `choice(n, k)`, `replace=True`): [`randint`](Array::randint) over `[0, n)`. See
    /// [`choice_with`](Array::choice_with) for `replace` and `p`.
    ///
    /// # Errors
    /// `n` beyond `i64::MAX`, or `k > 0` draws from no items.
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let c = Array::choice(3, 100, 1)?.to_vec()?;
    /// assert!(c.iter().all(|&i| (0..3).contains(&i)));
    /// assert!(Array::choice(0, 1, 1).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn choice(n: usize, k: usize, seed: u64) -> Result<Array<i64>> {
        Array::choice_with(n, k, seed, ChoiceOpts::new())
    }

    /// [`choice`](Array::choice) with NumPy's `replace` and `p` ([`ChoiceOpts`]): `k`
    /// indices drawn from `0..n` with `seed`: with `replace`, independently (uniformly,
    /// or with probabilities `p` by inverse CDF on the `f64` uniforms of `rand_uniform`);
    /// without, distinct (a partial Fisher–Yates shuffle, or with `p` the `k` largest keys
    /// `ln(u) / p_i`: Efraimidis and Spirakis). `p` must have `n` finite non-negative entries
    /// summing to 1; without replacement `k` may not exceed `n` (nor the number of non-zero
    /// probabilities). Indices are made on the host and uploaded, except uniform draws with
    /// replacement ([`randint`](Array::randint)).
    ///
    /// ```
    /// use cuprite_array::{Array, ops::ChoiceOpts};
    /// let u = Array::choice(5, 8, 9)?.to_vec()?;
    /// assert!(u.iter().all(|&i| (0..5).contains(&i)));
    /// let c = Array::choice_with(5, 3, 9, ChoiceOpts::new().replace(false))?.to_vec()?;
    /// assert!(c.iter().all(|&i| (0..5).contains(&i)) && c[0] != c[1] && c[1] != c[2] && c[0] != c[2]);
    /// let d = Array::choice_with(3, 1000, 9, ChoiceOpts::new().p(&[0.0, 0.0, 1.0]))?.to_vec()?;
    /// assert!(d.iter().all(|&i| i == 2));
    /// assert!(Array::choice_with(3, 4, 9, ChoiceOpts::new().replace(false)).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn choice_with(n: usize, k: usize, seed: u64, opts: ChoiceOpts<'_>) -> Result<Array<i64>> {
        let ChoiceOpts { replace, p } = opts;
        if i64::try_from(n).is_err() {
            return Err(Error::InvalidArgument(format!(
                "choice: {n} items do not fit the i64 indices it returns"
            )));
        }
        if n == 0 && k > 0 {
            return Err(Error::InvalidArgument(format!(
                "choice: {k} draws from 0 items"
            )));
        }
        if !replace && k > n {
            return Err(Error::InvalidArgument(format!(
                "choice: {k} draws without replacement from {n} items"
            )));
        }
        let p = p.map(|p| check_p(p, n)).transpose()?;
        let v = match (replace, p) {
            (true, None) => return Array::<i64>::randint(0, n as i64, &[k], seed),
            (true, Some(p)) => {
                let mut cdf: Vec<f64> = p
                    .iter()
                    .scan(0.0, |s, v| {
                        *s += v;
                        Some(*s)
                    })
                    .collect();
                // The last non-zero item takes the rounding slack (u < 1 always falls in it).
                if let Some(last) = p.iter().rposition(|&v| v > 0.0) {
                    cdf[last..].iter_mut().for_each(|c| *c = f64::INFINITY);
                }
                let mut v = host_vec(k, "choice")?;
                v.par_extend((0..k as u64).into_par_iter().map(|i| {
                    let u = sample_f64(seed, i, crate::graph::Dist::Uniform);
                    cdf.partition_point(|&c| c <= u) as i64
                }));
                v
            }
            (false, None) => partial_shuffle(n, k, seed, "choice")?,
            (false, Some(p)) => {
                let nonzero = p.iter().filter(|&&v| v > 0.0).count();
                if k > nonzero {
                    return Err(Error::InvalidArgument(format!(
                        "choice: {k} draws without replacement but only {nonzero} non-zero probabilities"
                    )));
                }
                let mut keys: Vec<(f64, i64)> = p
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v > 0.0)
                    .map(|(i, v)| {
                        let u = 1.0 - sample_f64(seed, i as u64, crate::graph::Dist::Uniform);
                        (u.ln() / v, i as i64)
                    })
                    .collect();
                keys.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                keys.truncate(k);
                keys.into_iter().map(|(_, i)| i).collect()
            }
        };
        Array::from_vec(v, &[k])
    }
}

impl<T: Element> Array<T> {
    /// `self` with its slices along `axis` in the order of [`Array::permutation`] (`seed`):
    /// the same order on every backend.
    ///
    /// ```
    /// use cuprite_array::{Array, Device};
    /// let a = Array::<i32>::from_slice_on(Device::CPU, &[1, 2, 3, 4, 5, 6], &[3, 2])?;
    /// let s = a.shuffle(0, 8)?.to_vec()?;
    /// let mut rows: Vec<[i32; 2]> = s.chunks(2).map(|r| [r[0], r[1]]).collect();
    /// rows.sort();
    /// assert_eq!(rows, [[1, 2], [3, 4], [5, 6]]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn shuffle(&self, axis: isize, seed: u64) -> Result<Array<T>> {
        let ax = crate::shape::axis(axis, self.ndim())?;
        let n = self.shape()[ax];
        let perm = Array::from_slice_on(
            self.device(),
            &partial_shuffle(n, n, seed, "shuffle")?,
            &[n],
        )?;
        self.gather(ax as isize, &perm)
    }
}

/// `n` standard gamma draws (`f64`) with shape `alpha` and the Philox key `k(seed ^ w)`: `k`
/// the identity or, when `derived`, [`derive_key`]; `w` the `u64` of the call's one input (a
/// compiled program's key word) when `keyed`, else 0 and the call has no input.
#[derive(Debug)]
struct Gamma {
    n: usize,
    alpha: f64,
    seed: u64,
    derived: bool,
    keyed: bool,
}

impl Gamma {
    /// Whether `inputs` are what the call was made for: one `u64` word when keyed, else none.
    fn fits<B>(&self, inputs: &[CallInput<'_, B>]) -> bool {
        if self.keyed {
            inputs.len() == 1
                && inputs[0].dtype == DType::U64
                && crate::shape::numel(inputs[0].shape) == 1
        } else {
            inputs.is_empty()
        }
    }

    /// The Philox key of the draws with the key word `w`.
    fn key(&self, w: u64) -> u64 {
        let k = self.seed ^ w;
        if self.derived { derive_key(k) } else { k }
    }

    /// The kernel for a launch: the keyed forms read the word and derive the key themselves.
    fn kernel(&self) -> crate::codegen::KernelSource {
        match (self.keyed, self.derived) {
            (false, _) => crate::codegen::gamma_kernel(),
            (true, derived) => crate::codegen::gamma_keyed_kernel(derived),
        }
    }
}

impl LibraryCall for Gamma {
    fn name(&self) -> &str {
        "gamma"
    }

    fn run_cpu(&self, inputs: &[CallInput<'_, HostBuf>], out: &mut HostBuf) -> Result<()> {
        if !self.fits(inputs) || out.len() != self.n || out.dtype() != DType::F64 {
            return Err(Error::InvalidArgument(format!(
                "gamma made for {} values ({} key word) was given {} inputs and {} of {}",
                self.n,
                if self.keyed { "one" } else { "no" },
                inputs.len(),
                out.len(),
                out.dtype()
            )));
        }
        let key = match inputs.first() {
            Some(w) => self.key(crate::random::host_key_word(w, "gamma")?),
            None => self.key(0),
        };
        let os: &mut [f64] = bytemuck::cast_slice_mut(out.bytes_mut());
        os.par_iter_mut()
            .enumerate()
            .for_each(|(i, o)| *o = gamma_f64(key, i as u64, self.alpha));
        Ok(())
    }

    fn run_cuda(
        &self,
        lane: &CudaLane<'_>,
        inputs: &[CallInput<'_, DevBuf>],
        out: &mut DevBuf,
    ) -> Result<()> {
        let CudaLane { st, stream } = *lane;
        if !self.fits(inputs) {
            return Err(Error::InvalidArgument(format!(
                "gamma made for {} key word was given {} inputs",
                if self.keyed { "one" } else { "no" },
                inputs.len()
            )));
        }
        if self.n == 0 {
            return Ok(());
        }
        let mut h = KeyHasher(0x6a33_0000);
        "gamma".hash(&mut h);
        (self.keyed, self.keyed && self.derived).hash(&mut h);
        let k = crate::jit::library_kernel(st, h.finish(), || self.kernel())?;
        let out = WriteBuf::part(out, DType::F64, 0, self.n)?;
        let (n, alpha) = (self.n as i64, self.alpha);
        let args = match inputs.first() {
            Some(w) => GammaKeyedParams {
                out,
                word: ReadBuf::part(w.buf, DType::U64, w.layout.offset, 1)?,
                n,
                seed: self.seed,
                alpha,
            }
            .args(),
            None => GammaParams {
                out,
                n,
                key: self.key(0),
                alpha,
            }
            .args(),
        };
        let resident = (st.sms * k.blocks_per_sm).max(1) as usize;
        let grid = self
            .n
            .div_ceil(crate::codegen::BLOCK as usize)
            .clamp(1, resident * 4) as u32;
        // SAFETY: the output is a new buffer of `n` f64 values (the range checked inside it),
        // the only memory the kernel writes (indices below `n`), declared as written; the keyed
        // kernel reads one word of the key's checked one-element view, declared as read.
        unsafe {
            stream.launch_packed(
                &k.func,
                (grid, 1, 1),
                (crate::codegen::BLOCK, 1, 1),
                0,
                &args.words,
                &args.accesses(),
            )
        }?;
        Ok(())
    }

    fn cuda_sources(&self, _inputs: &[(DType, Vec<usize>)]) -> Vec<String> {
        vec![self.kernel().source]
    }
}
