//! [`Generator`]: NumPy's `Generator` over a [`BitGenerator`], the legacy [`RandomState`] and
//! the process-wide state of [`seed`], [`get_random_state`] and [`set_random_state`].
//!
//! A draw's numbers depend only on the generator's state before it; each draw advances the
//! state (Philox: the draw offset, giving the next draw a new key; XORWOW and MRG32k3a: the
//! sequence), so two draws differ and the same seed repeats the same draws.

use super::bitgen::{BitGenerator, Seq};
use super::call::sampler_node;
use super::dists::{self, Kind, Words};
use super::philox4x32_10;
use crate::array::Array;
use crate::device::{Device, current_device, with_device};
use crate::dtype::{DType, Element, Float, Integer};
use crate::error::{Error, Result};
use crate::ops::ChoiceOpts;
use crate::util::host_vec;
use std::sync::Mutex;

/// NumPy's `Generator`: a [`BitGenerator`] and the device its arrays are made on, with a
/// method per distribution. Parameters are scalars; every method checks them and returns an
/// `Err` naming a bad one. Floating-point draws are computed in `f64` and cast to `T`, except
/// [`random`](Self::random) and [`standard_normal`](Self::standard_normal), made in `T`.
///
/// ```
/// use cuprite_array::random::default_rng;
/// let mut rng = default_rng(42);
/// let a = rng.random::<f32>(&[4])?.to_vec()?;
/// let b = rng.random::<f32>(&[4])?.to_vec()?;
/// assert_ne!(a, b);
/// assert_eq!(a, default_rng(42).random::<f32>(&[4])?.to_vec()?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Generator {
    bits: BitGenerator,
    device: Device,
}

/// A [`Generator`] over Philox 4x32-10 with `seed` on the current device (NumPy's
/// `default_rng`). Its first draw gives the numbers of the seeded constructors
/// ([`Array::rand_uniform`] and the like) for the same seed.
///
/// ```
/// use cuprite_array::{Array, random::default_rng};
/// let u = default_rng(9).random::<f64>(&[8])?.to_vec()?;
/// assert_eq!(u, Array::<f64>::rand_uniform(&[8], 9)?.to_vec()?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn default_rng(seed: u64) -> Generator {
    Generator::new(BitGenerator::philox(seed))
}

/// `Err(InvalidArgument)` for `call` unless `ok`, naming `what` and its value.
pub(crate) fn need(ok: bool, call: &str, what: &str, rule: &str, v: f64) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "{call}: {what} must be {rule}, not {v}"
        )))
    }
}

/// `v` finite and `> 0`.
pub(crate) fn positive(call: &str, what: &str, v: f64) -> Result<()> {
    need(
        v.is_finite() && v > 0.0,
        call,
        what,
        "finite and positive",
        v,
    )
}

/// `v` finite and `>= 0`.
pub(crate) fn non_negative(call: &str, what: &str, v: f64) -> Result<()> {
    need(
        v.is_finite() && v >= 0.0,
        call,
        what,
        "finite and not negative",
        v,
    )
}

/// `v` finite.
pub(crate) fn finite(call: &str, what: &str, v: f64) -> Result<()> {
    need(v.is_finite(), call, what, "finite", v)
}

/// The largest value of integer dtype `d` as `f64` (rounded down to a representable value).
pub(crate) fn int_max(d: DType) -> f64 {
    let max = crate::range::bounds(d).map_or(i64::MAX as i128, |b| b.1);
    (max.min(1 << 62)) as f64
}

impl Generator {
    /// A generator over `bits`, making its arrays on the current device.
    ///
    /// ```
    /// use cuprite_array::random::{BitGenerator, Generator};
    /// let g = Generator::new(BitGenerator::mrg32k3a(1));
    /// assert_eq!(g.bit_generator().name(), "MRG32k3a");
    /// ```
    pub fn new(bits: BitGenerator) -> Generator {
        Generator {
            bits,
            device: current_device(),
        }
    }

    /// This generator making its arrays on `device`.
    ///
    /// ```
    /// use cuprite_array::{Device, random::default_rng};
    /// let g = default_rng(1).on(Device::CPU);
    /// assert_eq!(g.device(), Device::CPU);
    /// ```
    #[must_use]
    pub fn on(mut self, device: Device) -> Generator {
        self.device = device;
        self
    }

    /// The device its arrays are made on.
    ///
    /// ```
    /// use cuprite_array::{Device, random::default_rng};
    /// assert_eq!(default_rng(1).on(Device::CPU).device(), Device::CPU);
    /// ```
    pub fn device(&self) -> Device {
        self.device
    }

    /// Its bit generator (algorithm, seed, offset).
    ///
    /// ```
    /// use cuprite_array::random::default_rng;
    /// let mut g = default_rng(5);
    /// g.random::<f64>(&[3])?;
    /// assert_eq!((g.bit_generator().seed(), g.bit_generator().offset()), (5, 1));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn bit_generator(&self) -> &BitGenerator {
        &self.bits
    }

    /// The seed it was made with.
    ///
    /// ```
    /// assert_eq!(cuprite_array::random::default_rng(8).seed(), 8);
    /// ```
    pub fn seed(&self) -> u64 {
        self.bits.seed()
    }

    /// How far it has advanced (see [`BitGenerator::offset`]).
    ///
    /// ```
    /// let mut g = cuprite_array::random::default_rng(8);
    /// g.bytes(4)?;
    /// assert_eq!(g.offset(), 1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn offset(&self) -> u64 {
        self.bits.offset()
    }

    /// The Philox key of the next draw, or `None` for a sequential bit generator.
    fn key(&mut self) -> Option<u64> {
        match &mut self.bits {
            BitGenerator::Philox4x3210(p) => Some(p.next_key()),
            _ => None,
        }
    }

    /// `n` values made on the host from the sequential bit generator, uploaded as `shape`.
    fn host_draws(
        &mut self,
        shape: &[usize],
        what: &str,
        mut f: impl FnMut(usize, &mut Seq<'_>) -> f64,
    ) -> Result<Array<f64>> {
        let n = crate::shape::checked_numel(shape)?;
        let mut v = host_vec(n, what)?;
        let mut w = Seq(&mut self.bits);
        v.extend((0..n).map(|i| f(i, &mut w)));
        Array::from_slice_on(self.device, &v, shape)
    }

    /// Uniforms in `[0, 1)` as `f64`.
    pub(crate) fn u01(&mut self, shape: &[usize]) -> Result<Array<f64>> {
        match self.key() {
            Some(k) => with_device(self.device, || Array::<f64>::rand_uniform(shape, k)),
            None => self.host_draws(shape, "random", |_, w| w.u01()),
        }
    }

    /// Standard normals as `f64`.
    pub(crate) fn normals(&mut self, shape: &[usize]) -> Result<Array<f64>> {
        match self.key() {
            Some(k) => with_device(self.device, || Array::<f64>::rand_normal(shape, k)),
            None => self.host_draws(shape, "standard_normal", |_, w| dists::normal(w)),
        }
    }

    /// Standard gamma draws of shape `alpha > 0`.
    pub(crate) fn gammas(&mut self, shape: &[usize], alpha: f64) -> Result<Array<f64>> {
        match self.key() {
            Some(k) => with_device(self.device, || {
                crate::ops::sampling::standard_gamma(shape, alpha, k, false)
            }),
            None => self.host_draws(shape, "gamma", |_, w| dists::gamma(alpha, w, false)),
        }
    }

    /// Draws of a looping sampler, the per-element parameter `x` or `xs` (of `shape`).
    pub(crate) fn sampled(
        &mut self,
        kind: Kind,
        shape: &[usize],
        x: f64,
        xs: Option<&Array<f64>>,
    ) -> Result<Array<f64>> {
        match self.key() {
            Some(k) => with_device(self.device, || sampler_node(kind, shape, k, x, xs)),
            None => {
                let host = xs.map(|a| a.to_vec()).transpose()?;
                if let Some(h) = &host
                    && h.len() != crate::shape::checked_numel(shape)?
                {
                    return Err(Error::Shape(format!(
                        "sampler: {} parameters for draws of shape {shape:?}",
                        h.len()
                    )));
                }
                self.host_draws(shape, "sampler", |i, w| {
                    let xi = host.as_ref().map_or(x, |h| h[i]);
                    dists::sample(kind, xi, w)
                })
            }
        }
    }

    /// Uniform floats in `[0, 1)` (NumPy's `random`; `f32` from 24 bits, `f64` from 53).
    ///
    /// ```
    /// let u = cuprite_array::random::default_rng(1).random::<f32>(&[100])?.to_vec()?;
    /// assert!(u.iter().all(|v| (0.0..1.0).contains(v)));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn random<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        match self.key() {
            Some(k) => with_device(self.device, || Array::<T>::rand_uniform(shape, k)),
            None if T::DTYPE == DType::F64 => Ok(self.u01(shape)?.cast::<T>()),
            None => Ok(self
                .host_draws(shape, "random", |_, w| {
                    (w.0.next_u32() >> 8) as f64 * (1.0 / 16_777_216.0)
                })?
                .cast::<T>()),
        }
    }

    /// Uniform floats in `[low, high)`: `low + (high - low) · u`. Bounds must be finite with
    /// `low <= high`.
    ///
    /// ```
    /// let u = cuprite_array::random::default_rng(1).uniform::<f64>(-2.0, 3.0, &[100])?.to_vec()?;
    /// assert!(u.iter().all(|v| (-2.0..3.0).contains(v)));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn uniform<T: Float>(&mut self, low: f64, high: f64, shape: &[usize]) -> Result<Array<T>> {
        finite("uniform", "low", low)?;
        finite("uniform", "high", high)?;
        need(
            high >= low,
            "uniform",
            "high",
            &format!("at least low = {low}"),
            high,
        )?;
        Ok((self.u01(shape)? * (high - low) + low).cast::<T>())
    }

    /// Standard normal floats.
    ///
    /// ```
    /// let z = cuprite_array::random::default_rng(2).standard_normal::<f64>(&[20000])?;
    /// assert!(z.mean()?.item()?.abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn standard_normal<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        match self.key() {
            Some(k) => with_device(self.device, || Array::<T>::rand_normal(shape, k)),
            None => Ok(self.normals(shape)?.cast::<T>()),
        }
    }

    /// Normal floats with mean `loc` and standard deviation `scale >= 0`.
    ///
    /// ```
    /// let z = cuprite_array::random::default_rng(2).normal::<f64>(10.0, 2.0, &[20000])?;
    /// assert!((z.mean()?.item()? - 10.0).abs() < 0.1);
    /// assert!(cuprite_array::random::default_rng(2).normal::<f64>(0.0, -1.0, &[1]).is_err());
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn normal<T: Float>(&mut self, loc: f64, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        finite("normal", "loc", loc)?;
        non_negative("normal", "scale", scale)?;
        Ok((self.normals(shape)? * scale + loc).cast::<T>())
    }

    /// Integers uniform in `[low, high)` (NumPy's `integers` with `endpoint=False`): the rule
    /// of [`Array::randint`] (at most `2^53` values, bounds within `I`).
    ///
    /// ```
    /// let k = cuprite_array::random::default_rng(3).integers::<i32>(-2, 5, &[100])?.to_vec()?;
    /// assert!(k.iter().all(|v| (-2..5).contains(v)));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn integers<I: Integer>(
        &mut self,
        low: i64,
        high: i64,
        shape: &[usize],
    ) -> Result<Array<I>> {
        // The checks of `randint`, before any state moves.
        with_device(self.device, || Array::<I>::randint(low, high, &[0], 0))?;
        match self.key() {
            Some(k) => with_device(self.device, || Array::<I>::randint(low, high, shape, k)),
            None => {
                let span = (high as i128 - low as i128) as f64;
                let u = self.u01(shape)?;
                let k = (u * span).floor().clamp(0.0, span - 1.0);
                Ok((k.cast::<i64>() + low).cast::<I>())
            }
        }
    }

    /// Exponential floats with mean 1.
    ///
    /// ```
    /// let e = cuprite_array::random::default_rng(4).standard_exponential::<f64>(&[20000])?;
    /// assert!((e.mean()?.item()? - 1.0).abs() < 0.05);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn standard_exponential<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        self.exponential(1.0, shape)
    }

    /// Exponential floats with mean `scale > 0`: `-scale · ln(1 - u)`.
    ///
    /// ```
    /// let e = cuprite_array::random::default_rng(4).exponential::<f64>(3.0, &[20000])?;
    /// assert!((e.mean()?.item()? - 3.0).abs() < 0.15);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn exponential<T: Float>(&mut self, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("exponential", "scale", scale)?;
        Ok(((-self.u01(shape)?).log1p() * -scale).cast::<T>())
    }

    /// Standard gamma floats with shape `k > 0` (see [`Array::gamma`]).
    ///
    /// ```
    /// let g = cuprite_array::random::default_rng(5).standard_gamma::<f64>(2.5, &[20000])?;
    /// assert!((g.mean()?.item()? - 2.5).abs() < 0.1);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn standard_gamma<T: Float>(&mut self, k: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("standard_gamma", "shape", k)?;
        Ok(self.gammas(shape, k)?.cast::<T>())
    }

    /// Gamma floats with shape `k > 0` and `scale > 0`.
    ///
    /// ```
    /// let g = cuprite_array::random::default_rng(5).gamma::<f64>(2.0, 3.0, &[20000])?;
    /// assert!((g.mean()?.item()? - 6.0).abs() < 0.2);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn gamma<T: Float>(&mut self, k: f64, scale: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("gamma", "shape", k)?;
        positive("gamma", "scale", scale)?;
        Ok((self.gammas(shape, k)? * scale).cast::<T>())
    }

    /// Beta floats with shapes `a > 0` and `b > 0`: `X / (X + Y)` of two gamma draws.
    ///
    /// ```
    /// let x = cuprite_array::random::default_rng(6).beta::<f64>(2.0, 2.0, &[20000])?;
    /// assert!((x.mean()?.item()? - 0.5).abs() < 0.02);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn beta<T: Float>(&mut self, a: f64, b: f64, shape: &[usize]) -> Result<Array<T>> {
        positive("beta", "a", a)?;
        positive("beta", "b", b)?;
        let x = self.gammas(shape, a)?;
        let y = self.gammas(shape, b)?;
        Ok(x.try_div(&(&x + &y))?.cast::<T>())
    }

    /// A random permutation of `0..n` (see [`Array::permutation`]; made on the host).
    ///
    /// ```
    /// let mut p = cuprite_array::random::default_rng(7).permutation(5)?.to_vec()?;
    /// p.sort();
    /// assert_eq!(p, [0, 1, 2, 3, 4]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn permutation(&mut self, n: usize) -> Result<Array<i64>> {
        let key = self.host_key();
        with_device(self.device, || Array::permutation(n, key))
    }

    /// `k` indices drawn uniformly from `0..n`, with replacement (see [`Array::choice`]).
    ///
    /// ```
    /// let c = cuprite_array::random::default_rng(7).choice(10, 30)?.to_vec()?;
    /// assert!(c.iter().all(|&i| (0..10).contains(&i)));
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn choice(&mut self, n: usize, k: usize) -> Result<Array<i64>> {
        self.choice_with(n, k, ChoiceOpts::new())
    }

    /// [`choice`](Self::choice) with NumPy's `replace` and `p` ([`ChoiceOpts`]; see
    /// [`Array::choice_with`]).
    ///
    /// ```
    /// use cuprite_array::ops::ChoiceOpts;
    /// let mut g = cuprite_array::random::default_rng(7);
    /// let c = g.choice_with(10, 3, ChoiceOpts::new().replace(false))?.to_vec()?;
    /// assert!(c[0] != c[1] && c[1] != c[2] && c[0] != c[2]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn choice_with(&mut self, n: usize, k: usize, opts: ChoiceOpts<'_>) -> Result<Array<i64>> {
        let key = self.host_key();
        with_device(self.device, || Array::choice_with(n, k, key, opts))
    }

    /// `a` with its slices along `axis` permuted (see [`Array::shuffle`]).
    ///
    /// ```
    /// use cuprite_array::Array;
    /// let a = Array::<i32>::from_slice(&[1, 2, 3], &[3])?;
    /// let mut s = cuprite_array::random::default_rng(7).shuffle(&a, 0)?.to_vec()?;
    /// s.sort();
    /// assert_eq!(s, [1, 2, 3]);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn shuffle<T: Element>(&mut self, a: &Array<T>, axis: isize) -> Result<Array<T>> {
        let key = self.host_key();
        a.shuffle(axis, key)
    }

    /// A 64-bit key for the host-built draws (Philox: the draw's key; otherwise two outputs).
    fn host_key(&mut self) -> u64 {
        match self.key() {
            Some(k) => k,
            None => Seq(&mut self.bits).next_u64(),
        }
    }

    /// `n` random bytes (NumPy's `bytes`), on the host.
    ///
    /// ```
    /// let mut g = cuprite_array::random::default_rng(1);
    /// let b = g.bytes(10)?;
    /// assert_eq!(b.len(), 10);
    /// assert_ne!(b, g.bytes(10)?);
    /// # Ok::<(), cuprite_array::Error>(())
    /// ```
    pub fn bytes(&mut self, n: usize) -> Result<Vec<u8>> {
        let mut out = host_vec(n, "bytes")?;
        match self.key() {
            Some(k) => {
                for c in 0..n.div_ceil(16) as u64 {
                    for w in philox4x32_10(k, c) {
                        out.extend(w.to_le_bytes());
                    }
                }
            }
            None => {
                for _ in 0..n.div_ceil(4) {
                    out.extend(self.bits.next_u32().to_le_bytes());
                }
            }
        }
        out.truncate(n);
        Ok(out)
    }
}

/// NumPy's legacy `RandomState`: a [`Generator`] (every distribution through `Deref`) with
/// the legacy names `rand`, `randn` and a reseeding `seed`. Its numbers are cuprite's, not
/// NumPy's Mersenne Twister's.
///
/// ```
/// use cuprite_array::random::RandomState;
/// let mut rs = RandomState::new(3);
/// let a = rs.rand::<f64>(&[5])?.to_vec()?;
/// rs.seed(3);
/// assert_eq!(a, rs.rand::<f64>(&[5])?.to_vec()?);
/// let p = rs.poisson::<i64>(2.0, &[5])?;
/// assert_eq!(p.shape(), [5]);
/// assert!(rs.randint::<i32>(0, 3, &[5])?.to_vec()?.iter().all(|v| (0..3).contains(v)));
/// assert_eq!(rs.random_sample::<f32>(&[2])?.shape(), [2]);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RandomState(Generator);

impl RandomState {
    /// The state for `seed` (Philox 4x32-10, on the current device).
    pub fn new(seed: u64) -> RandomState {
        RandomState(default_rng(seed))
    }
    /// Restarts from `seed`, keeping the device.
    pub fn seed(&mut self, seed: u64) {
        self.0 = default_rng(seed).on(self.0.device);
    }
    /// Uniform floats in `[0, 1)` (legacy `rand`).
    pub fn rand<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        self.0.random(shape)
    }
    /// Standard normal floats (legacy `randn`).
    pub fn randn<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        self.0.standard_normal(shape)
    }
    /// Uniform floats in `[0, 1)` (legacy `random_sample`).
    pub fn random_sample<T: Float>(&mut self, shape: &[usize]) -> Result<Array<T>> {
        self.0.random(shape)
    }
    /// Integers uniform in `[low, high)` (legacy `randint`; see [`Generator::integers`]).
    pub fn randint<I: Integer>(
        &mut self,
        low: i64,
        high: i64,
        shape: &[usize],
    ) -> Result<Array<I>> {
        self.0.integers(low, high, shape)
    }
}

impl std::ops::Deref for RandomState {
    type Target = Generator;
    fn deref(&self) -> &Generator {
        &self.0
    }
}

impl std::ops::DerefMut for RandomState {
    fn deref_mut(&mut self) -> &mut Generator {
        &mut self.0
    }
}

/// The process-wide legacy state; `None` until first used or seeded.
static GLOBAL: Mutex<Option<RandomState>> = Mutex::new(None);

/// Runs `f` on the process-wide [`RandomState`] (seeded from the operating system's entropy on
/// first use unless [`seed`] or [`set_random_state`] came first), holding its lock: draws from
/// several threads each see a state no other thread has used. `f` must not call the
/// process-wide functions itself (they would wait for the lock it holds).
///
/// ```
/// use cuprite_array::random;
/// random::seed(11);
/// let a = random::with_random_state(|rs| rs.rand::<f64>(&[3]))?.to_vec()?;
/// random::seed(11);
/// let b = random::with_random_state(|rs| rs.rand::<f64>(&[3]))?.to_vec()?;
/// assert_eq!(a, b);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn with_random_state<R>(f: impl FnOnce(&mut RandomState) -> R) -> R {
    let mut g = GLOBAL.lock().unwrap_or_else(|e| e.into_inner());
    let rs = g.get_or_insert_with(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x5eed);
        RandomState::new(h.finish())
    });
    f(rs)
}

/// Reseeds the process-wide [`RandomState`] (NumPy's `random.seed`).
///
/// ```
/// cuprite_array::random::seed(4);
/// assert_eq!(cuprite_array::random::get_random_state().bit_generator().seed(), 4);
/// ```
pub fn seed(seed: u64) {
    set_random_state(RandomState::new(seed));
}

/// A copy of the process-wide [`RandomState`] (draws from the copy do not advance it).
///
/// ```
/// use cuprite_array::random;
/// random::seed(5);
/// let mut copy = random::get_random_state();
/// let a = copy.rand::<f64>(&[2])?.to_vec()?;
/// assert_eq!(a, random::with_random_state(|rs| rs.rand::<f64>(&[2]))?.to_vec()?);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn get_random_state() -> RandomState {
    with_random_state(|rs| rs.clone())
}

/// Replaces the process-wide [`RandomState`].
///
/// ```
/// use cuprite_array::random::{self, RandomState};
/// random::set_random_state(RandomState::new(9));
/// assert_eq!(random::get_random_state().bit_generator().seed(), 9);
/// ```
pub fn set_random_state(state: RandomState) {
    *GLOBAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(state);
}

/// `n` random bytes from the process-wide [`RandomState`] (NumPy's `random.bytes`).
///
/// ```
/// assert_eq!(cuprite_array::random::bytes(7)?.len(), 7);
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn bytes(n: usize) -> Result<Vec<u8>> {
    with_random_state(|rs| rs.bytes(n))
}
