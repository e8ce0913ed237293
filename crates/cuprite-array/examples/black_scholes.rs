//! Black-Scholes prices of European call and put options, as a whole program: random option
//! books, the closed-form prices as array expressions (each price one fused kernel on CUDA), and
//! a check of every price.
//!
//! ```text
//! cargo run --release -p cuprite-array --example black_scholes            # 2^16 options
//! cargo run --release -p cuprite-array --example black_scholes -- --full  # 2^24 options
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example black_scholes
//! ```
//!
//! The check is independent of the array code: the textbook example of Hull (S = 42, K = 40,
//! r = 10%, sigma = 20%, T = 0.5: call 4.76, put 0.81), put-call parity for every option
//! (C - P = S - K e^(-rT), which holds whatever the normal distribution function computes), and
//! every price against the same formula in f64 on the host. It exits with an error on any
//! mismatch.

use cuprite_array::{Array, special};

/// The risk-free rate and the volatility of the generated books (yearly).
const RATE: f32 = 0.02;
const VOLATILITY: f32 = 0.30;

/// Call and put prices of options with spot `s`, strike `k` and years to expiry `t`.
fn prices(
    s: &Array<f32>,
    k: &Array<f32>,
    t: &Array<f32>,
    rate: f32,
    vol: f32,
) -> (Array<f32>, Array<f32>) {
    let vol_sqrt_t = t.sqrt() * vol;
    let d1 = ((s / k).log() + t * (rate + 0.5 * vol * vol)) / &vol_sqrt_t;
    let d2 = &d1 - &vol_sqrt_t;
    // The standard normal distribution function: N(x) = erfc(-x / sqrt(2)) / 2.
    let cdf = |x: &Array<f32>| (x * -std::f32::consts::FRAC_1_SQRT_2).erfc() * 0.5;
    let discounted_k = k * (t * -rate).exp();
    let call = s * cdf(&d1) - &discounted_k * cdf(&d2);
    let put = &discounted_k * cdf(&-&d2) - s * cdf(&-&d1);
    (call, put)
}

/// The same formula in f64 on the host: (call, put).
fn reference(s: f64, k: f64, t: f64, rate: f64, vol: f64) -> (f64, f64) {
    let cdf = |x: f64| 0.5 * special::erfc(-x / std::f64::consts::SQRT_2);
    let d1 = ((s / k).ln() + (rate + 0.5 * vol * vol) * t) / (vol * t.sqrt());
    let d2 = d1 - vol * t.sqrt();
    let dk = k * (-rate * t).exp();
    (s * cdf(d1) - dk * cdf(d2), dk * cdf(-d2) - s * cdf(-d1))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());

    // Hull, Options, Futures and Other Derivatives, the worked Black-Scholes example.
    let one = |x: f32| Array::from_slice(&[x], &[1]);
    let (c, p) = prices(&one(42.0)?, &one(40.0)?, &one(0.5)?, 0.10, 0.20);
    let (c, p) = (c.item()?, p.item()?);
    if (c - 4.76).abs() > 0.005 || (p - 0.81).abs() > 0.005 {
        return Err(
            format!("Hull's example: call {c}, put {p}; the book has 4.76 and 0.81").into(),
        );
    }

    let full = std::env::args().any(|a| a == "--full");
    let n = if full { 1 << 24 } else { 1 << 16 };
    // The ranges of the usual benchmark: spot 5-30, strike 1-100, expiry 0.25-10 years.
    let s = Array::<f32>::rand_uniform(&[n], 1)? * 25.0 + 5.0;
    let k = Array::<f32>::rand_uniform(&[n], 2)? * 99.0 + 1.0;
    let t = Array::<f32>::rand_uniform(&[n], 3)? * 9.75 + 0.25;
    for a in [&s, &k, &t] {
        a.eval()?;
    }

    let start = std::time::Instant::now();
    let (call, put) = prices(&s, &k, &t, RATE, VOLATILITY);
    cuprite_array::eval_many(&[&call, &put])?;
    cuprite_array::sync(cuprite_array::current_device())?;
    let elapsed = start.elapsed();

    let (s, k, t) = (s.to_vec()?, k.to_vec()?, t.to_vec()?);
    let (call, put) = (call.to_vec()?, put.to_vec()?);
    let mut worst = 0.0f64;
    for (i, &si) in s.iter().enumerate() {
        let (si, ki, ti) = (f64::from(si), f64::from(k[i]), f64::from(t[i]));
        let (rc, rp) = reference(si, ki, ti, f64::from(RATE), f64::from(VOLATILITY));
        let (gc, gp) = (f64::from(call[i]), f64::from(put[i]));
        // f32 arithmetic on prices of at most S or K: errors scale with S + K.
        let tol = 2e-6 * (si + ki) * 8.0;
        let parity = si - ki * (-f64::from(RATE) * ti).exp();
        let err = (gc - rc).abs().max((gp - rp).abs());
        worst = worst.max(err / (si + ki));
        let negative_or_nan = |x: f64| !x.is_finite() || x < -tol;
        if err > tol
            || ((gc - gp) - parity).abs() > tol
            || negative_or_nan(gc)
            || negative_or_nan(gp)
        {
            return Err(format!(
                "option {i} (S {si}, K {ki}, T {ti}): call {gc}, put {gp}; \
                 f64 reference {rc}, {rp}; parity wants call - put = {parity}"
            )
            .into());
        }
    }
    println!(
        "{n} options priced in {:.3} ms (on CUDA the first use includes compiling the kernel); \
         every price within {worst:.2e} (S + K) of the f64 reference, parity holds",
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}
