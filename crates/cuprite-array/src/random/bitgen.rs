//! The bit generators behind [`Generator`](super::Generator): Philox 4x32-10 (counter-based:
//! every draw is computed where the array lives, fused into its kernels), XORWOW and
//! MRG32k3a (sequential: their draws are made on the host, in order, and uploaded, so every
//! backend sees the same numbers).

use super::dists::Words;
use super::philox4x32_10;

/// SplitMix64's finaliser: a bijective mix of 64 bits.
pub(crate) fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Philox 4x32-10 (Salmon et al., SC'11) as a bit generator: a seed and a draw offset. Draw
/// number `k` (the offset before it) uses Philox key `seed` for `k = 0` and
/// `seed ^ mix64(k ^ 0xA076_1D64_78BD_642F)` after, with element `i` at counter `i` (the
/// layout of [`Array::rand_uniform`](crate::Array::rand_uniform)): the first draw of
/// `default_rng(s)` equals the seeded constructors' numbers for seed `s`.
///
/// ```
/// use cuprite_array::random::Philox4x3210;
/// let mut p = Philox4x3210::new(7);
/// assert_eq!((p.seed(), p.offset()), (7, 0));
/// let k0 = p.next_key();
/// assert_eq!((k0, p.offset()), (7, 1));
/// assert_ne!(p.next_key(), k0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Philox4x3210 {
    seed: u64,
    offset: u64,
}

impl Philox4x3210 {
    /// The generator for `seed` at offset 0.
    pub fn new(seed: u64) -> Philox4x3210 {
        Philox4x3210 { seed, offset: 0 }
    }
    /// Its seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The number of draws made so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }
    /// The Philox key of the next draw; advances the offset by one.
    pub fn next_key(&mut self) -> u64 {
        let k = self.offset;
        self.offset += 1;
        if k == 0 {
            self.seed
        } else {
            self.seed ^ mix64(k ^ 0xA076_1D64_78BD_642F)
        }
    }
}

/// Marsaglia's XORWOW ("Xorshift RNGs", J. Stat. Soft. 8(14), 2003): a 160-bit xorshift plus
/// a Weyl sequence of step 362437, the generator cuRAND uses by default. Seeded with cuRAND's
/// scrambling of the seed's halves, so its outputs follow the state cuRAND's header defines for
/// `curand_init(seed, 0, 0)` (subsequence 0, offset 0); cuRAND's per-thread subsequences are
/// not reproduced: cuprite draws this one sequence, in order, on the host.
///
/// ```
/// use cuprite_array::random::Xorwow;
/// let mut a = Xorwow::new(5);
/// let mut b = Xorwow::new(5);
/// assert_eq!(a.next_u32(), b.next_u32());
/// assert_ne!(a.next_u32(), Xorwow::new(6).next_u32());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Xorwow {
    v: [u32; 5],
    d: u32,
    seed: u64,
    offset: u64,
}

impl Xorwow {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Xorwow {
        let s0 = (seed as u32) ^ 0xaad2_6b49;
        let s1 = ((seed >> 32) as u32) ^ 0xf7dc_efdd;
        let t0 = 1_099_087_573u32.wrapping_mul(s0);
        let t1 = 2_591_861_531u32.wrapping_mul(s1);
        Xorwow {
            v: [
                123_456_789u32.wrapping_add(t0),
                362_436_069 ^ t0,
                521_288_629u32.wrapping_add(t1),
                88_675_123 ^ t1,
                5_783_321u32.wrapping_add(t0),
            ],
            d: 6_615_241u32.wrapping_add(t1).wrapping_add(t0),
            seed,
            offset: 0,
        }
    }
    /// The next 32-bit output.
    pub fn next_u32(&mut self) -> u32 {
        let t = self.v[0] ^ (self.v[0] >> 2);
        self.v = [
            self.v[1],
            self.v[2],
            self.v[3],
            self.v[4],
            (self.v[4] ^ (self.v[4] << 4)) ^ (t ^ (t << 1)),
        ];
        self.d = self.d.wrapping_add(362_437);
        self.offset += 1;
        self.d.wrapping_add(self.v[4])
    }
}

/// L'Ecuyer's MRG32k3a ("Good parameters and implementations for combined multiple
/// recursive random number generators", Oper. Res. 47(1), 1999): two order-3 recurrences
/// modulo `m1 = 2³² − 209` and `m2 = 2³² − 22853`, combined. [`new`](Self::new) fills the
/// six state words from the seed with SplitMix64 (reduced modulo `m1` and `m2`);
/// [`from_state`](Self::from_state) takes them as given. One sequence, drawn in order on the
/// host.
///
/// ```
/// use cuprite_array::random::Mrg32k3a;
/// // Rosetta Code's published check: state (0, 0, 1234567) twice, outputs z + 1.
/// let mut g = Mrg32k3a::from_state([0, 0, 1_234_567, 0, 0, 1_234_567])?;
/// let z: Vec<u64> = (0..3).map(|_| g.next_raw() as u64 + 1).collect();
/// assert_eq!(z, [1_459_213_977, 2_827_710_106, 4_245_671_317]);
/// assert!(Mrg32k3a::from_state([0, 0, 0, 1, 1, 1]).is_err());
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mrg32k3a {
    s1: [u64; 3],
    s2: [u64; 3],
    seed: u64,
    offset: u64,
}

const M1: u64 = 4_294_967_087;
const M2: u64 = 4_294_944_443;

impl Mrg32k3a {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Mrg32k3a {
        let mut z = seed;
        let mut next = |m: u64| loop {
            z = mix64(z);
            // Rejecting the top of the range keeps the words uniform modulo `m`.
            let v = z >> 32;
            if v < m {
                return v;
            }
        };
        let mut s1 = [next(M1), next(M1), next(M1)];
        let mut s2 = [next(M2), next(M2), next(M2)];
        // An all-zero component never leaves zero: replace it (probability 2^-96).
        if s1 == [0; 3] {
            s1 = [12345; 3];
        }
        if s2 == [0; 3] {
            s2 = [12345; 3];
        }
        Mrg32k3a {
            s1,
            s2,
            seed,
            offset: 0,
        }
    }

    /// The generator with state `[s10, s11, s12, s20, s21, s22]`: the first three below `m1`
    /// and not all zero, the last three below `m2` and not all zero; otherwise an `Err`.
    pub fn from_state(s: [u32; 6]) -> crate::Result<Mrg32k3a> {
        let s = s.map(u64::from);
        let (a, b) = ([s[0], s[1], s[2]], [s[3], s[4], s[5]]);
        if a.iter().any(|&v| v >= M1) || a == [0; 3] || b.iter().any(|&v| v >= M2) || b == [0; 3] {
            return Err(crate::Error::InvalidArgument(format!(
                "MRG32k3a state {s:?}: the first three words must be below {M1} and not all \
                 zero, the last three below {M2} and not all zero"
            )));
        }
        Ok(Mrg32k3a {
            s1: a,
            s2: b,
            seed: 0,
            offset: 0,
        })
    }

    /// The next combined value `z` in `[0, m1)` (the recurrences' difference modulo `m1`).
    pub fn next_raw(&mut self) -> u32 {
        // In 128 bits: each product is below 2^64, their sum is not.
        let wide = |a: u64, x: u64, b: u64, y: u64, m: u64| {
            ((a as u128 * x as u128 + b as u128 * y as u128) % m as u128) as u64
        };
        let p1 = wide(1_403_580, self.s1[1], M1 - 810_728, self.s1[0], M1);
        self.s1 = [self.s1[1], self.s1[2], p1];
        let p2 = wide(527_612, self.s2[2], M2 - 1_370_589, self.s2[0], M2);
        self.s2 = [self.s2[1], self.s2[2], p2];
        self.offset += 1;
        ((p1 + M1 - p2) % M1) as u32
    }

    /// The next uniform in `(0, 1)`: L'Ecuyer's output, `z / (m1 + 1)` with `m1` for `z = 0`.
    pub fn next_f64(&mut self) -> f64 {
        let z = self.next_raw();
        let z = if z == 0 { M1 } else { z as u64 };
        z as f64 / (M1 + 1) as f64
    }
}

/// A bit generator of [`Generator`](super::Generator). cuprite's draws keep their layout for
/// every bit generator: `f64` uniforms use 53 bits of a 64-bit word (two 32-bit outputs, the
/// first high), `f32` uniforms the top 24 bits of one output; MRG32k3a's 32-bit outputs are
/// its combined values `z < m1` (the top 209 values of 2³² never occur).
///
/// ```
/// use cuprite_array::random::{BitGenerator, Generator};
/// let mut g = Generator::new(BitGenerator::xorwow(3));
/// let u = g.random::<f64>(&[1000])?.to_vec()?;
/// assert!(u.iter().all(|v| (0.0..1.0).contains(v)));
/// assert_eq!(g.bit_generator().name(), "XORWOW");
/// # Ok::<(), cuprite_array::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitGenerator {
    /// Counter-based: draws are made on the array's device.
    Philox4x3210(Philox4x3210),
    /// Sequential, on the host.
    Xorwow(Xorwow),
    /// Sequential, on the host.
    Mrg32k3a(Mrg32k3a),
}

impl BitGenerator {
    /// Philox 4x32-10 with `seed`.
    pub fn philox(seed: u64) -> BitGenerator {
        BitGenerator::Philox4x3210(Philox4x3210::new(seed))
    }
    /// XORWOW with `seed`.
    pub fn xorwow(seed: u64) -> BitGenerator {
        BitGenerator::Xorwow(Xorwow::new(seed))
    }
    /// MRG32k3a with `seed`.
    pub fn mrg32k3a(seed: u64) -> BitGenerator {
        BitGenerator::Mrg32k3a(Mrg32k3a::new(seed))
    }
    /// The algorithm's name.
    pub fn name(&self) -> &'static str {
        match self {
            BitGenerator::Philox4x3210(_) => "Philox4x32-10",
            BitGenerator::Xorwow(_) => "XORWOW",
            BitGenerator::Mrg32k3a(_) => "MRG32k3a",
        }
    }
    /// The seed it was made with (0 for an MRG32k3a made from a state).
    pub fn seed(&self) -> u64 {
        match self {
            BitGenerator::Philox4x3210(p) => p.seed,
            BitGenerator::Xorwow(x) => x.seed,
            BitGenerator::Mrg32k3a(m) => m.seed,
        }
    }
    /// How far it has advanced: draws for Philox, 32-bit outputs for the others.
    pub fn offset(&self) -> u64 {
        match self {
            BitGenerator::Philox4x3210(p) => p.offset,
            BitGenerator::Xorwow(x) => x.offset,
            BitGenerator::Mrg32k3a(m) => m.offset,
        }
    }
    /// The next 32-bit output (for Philox: the first word of a new draw's key stream).
    pub fn next_u32(&mut self) -> u32 {
        match self {
            BitGenerator::Philox4x3210(p) => philox4x32_10(p.next_key(), 0)[0],
            BitGenerator::Xorwow(x) => x.next_u32(),
            BitGenerator::Mrg32k3a(m) => m.next_raw(),
        }
    }
}

/// The sequential generators as word sources (two outputs per word, the first high).
pub(crate) struct Seq<'a>(pub &'a mut BitGenerator);

impl Words for Seq<'_> {
    fn next_u64(&mut self) -> u64 {
        let hi = self.0.next_u32() as u64;
        (hi << 32) | self.0.next_u32() as u64
    }
}
