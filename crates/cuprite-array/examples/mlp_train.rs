//! Training a two-layer perceptron as a whole program: the forward pass, the backward pass
//! written by hand with array operations (matrix products, GELU and its derivative, the bias
//! gradients as column sums) and a plain SGD update, in bf16 as a GPU would train it. The
//! element-wise work rides on the products: the forward product keeps GELU's input beside its
//! output (`linalg::matmul_gelu_with_input`), the backward one multiplies by GELU's derivative
//! and sums the bias gradient (`linalg::matmul_gelu_grad`), biases, `− y` and scales are
//! epilogues of the others (on CUDA, cuBLASLt's).
//!
//! ```text
//! cargo run --release -p cuprite-array --example mlp_train            # CUDA: batch 4096, 1024-4096-1024
//! cargo run --release -p cuprite-array --example mlp_train -- --small # batch 512, 256-1024-256
//! CUPRITE_BACKEND=cpu cargo run --release -p cuprite-array --example mlp_train  # small on the CPU
//! ```
//!
//! The model is `out = gelu(x·W1 + b1)·W2 + b2` with GELU in its tanh form, and the loss is
//! `½·Σ(out − y)² / batch`. The check is independent of the array code: on a reduced model the
//! gradients are compared with a float64 backward pass on the host, and that host backward pass
//! is itself checked against central finite differences of the float64 loss along random
//! directions. Then, at the run's size, the loss must fall at every one of a few SGD steps. It
//! exits with an error on any mismatch.

use cuprite_array::{Array, Device, bf16, linalg};

/// SGD steps of the loss check.
const STEPS: usize = 5;

/// Sizes of one run: batch, inputs, hidden units, outputs.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    batch: usize,
    input: usize,
    hidden: usize,
    output: usize,
}

/// The weights and biases (or their gradients, of the same shapes).
struct Params {
    w1: Array<bf16>, // [input, hidden]
    b1: Array<bf16>, // [hidden]
    w2: Array<bf16>, // [hidden, output]
    b2: Array<bf16>, // [output]
}

impl Params {
    /// Random weights scaled by `1/√fan_in`, small random biases (seeds from `seed`).
    fn init(s: Sizes, seed: u64) -> cuprite_array::Result<Params> {
        let normal = |shape: &[usize], k: u64, scale: f32| -> cuprite_array::Result<Array<bf16>> {
            Ok((Array::<f32>::rand_normal(shape, seed + k)? * scale).cast::<bf16>())
        };
        let p = Params {
            w1: normal(&[s.input, s.hidden], 1, 1.0 / (s.input as f32).sqrt())?,
            b1: normal(&[s.hidden], 2, 0.1)?,
            w2: normal(&[s.hidden, s.output], 3, 1.0 / (s.hidden as f32).sqrt())?,
            b2: normal(&[s.output], 4, 0.1)?,
        };
        p.eval()?;
        Ok(p)
    }

    fn all(&self) -> [&Array<bf16>; 4] {
        [&self.w1, &self.b1, &self.w2, &self.b2]
    }

    fn eval(&self) -> cuprite_array::Result<()> {
        for a in self.all() {
            a.eval()?;
        }
        Ok(())
    }
}

/// One training step: the loss at `p` (f32), the gradients, and the parameters after an SGD
/// step of rate `lr`. Every result is evaluated.
fn train_step(
    p: &Params,
    x: &Array<bf16>,
    y: &Array<bf16>,
    lr: f32,
) -> cuprite_array::Result<(Array<f32>, Params, Params)> {
    let batch = x.shape()[0];
    // Forward. One product gives GELU's output h and keeps its input z1 (bias included) for
    // the backward pass, as autograd keeps it; the second takes b2 and − y as its epilogue.
    let (h, z1) = linalg::matmul_gelu_with_input(x, &p.w1, Some(&p.b1))?;
    let diff = h.matmul(&p.w2)? + &p.b2 - y;
    diff.eval()?;
    let loss = (diff.cast::<f32>() * diff.cast::<f32>()).sum()? * (0.5 / batch as f32);

    // Backward: d(loss)/d(out) = (out − y) / batch, the scale of the products below. The
    // product back through W2 multiplies by gelu'(z1) and sums the bias gradient of layer 1.
    let inv_batch = 1.0 / batch as f64;
    let (dz1, db1) = linalg::matmul_gelu_grad(&diff, &p.w2.t(), &z1, inv_batch)?;
    let per_sample = bf16::from_f64(inv_batch);
    let grads = Params {
        w1: x.t().matmul(&dz1)?,
        b1: db1,
        w2: h.t().matmul(&diff)? * per_sample,
        b2: diff.sum_axes(&[0])? * per_sample,
    };
    // The gradients are kept (the check reads them), so they are evaluated before the update.
    loss.eval()?;
    grads.eval()?;
    let rate = bf16::from_f32(lr);
    let next = Params {
        w1: &p.w1 - &grads.w1 * rate,
        b1: &p.b1 - &grads.b1 * rate,
        w2: &p.w2 - &grads.w2 * rate,
        b2: &p.b2 - &grads.b2 * rate,
    };
    next.eval()?;
    Ok((loss, grads, next))
}

/// A row-major matrix of f64 on the host.
struct Host {
    rows: usize,
    cols: usize,
    v: Vec<f64>,
}

impl Host {
    fn of(a: &Array<bf16>) -> cuprite_array::Result<Host> {
        let shape = a.shape().to_vec();
        let (rows, cols) = match shape[..] {
            [n] => (1, n),
            [r, c] => (r, c),
            _ => (1, a.len()),
        };
        let v = a.to_vec()?.into_iter().map(bf16::to_f64).collect();
        Ok(Host { rows, cols, v })
    }
}

/// `a·b` (`ta`: `aᵀ·b`) for row-major f64 matrices.
fn host_matmul(a: &Host, b: &Host, ta: bool, tb: bool) -> Host {
    let (m, k) = if ta {
        (a.cols, a.rows)
    } else {
        (a.rows, a.cols)
    };
    let n = if tb { b.rows } else { b.cols };
    let at = |i: usize, l: usize| {
        if ta {
            a.v[l * a.cols + i]
        } else {
            a.v[i * a.cols + l]
        }
    };
    let bt = |l: usize, j: usize| {
        if tb {
            b.v[j * b.cols + l]
        } else {
            b.v[l * b.cols + j]
        }
    };
    let mut v = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            let ail = at(i, l);
            for j in 0..n {
                v[i * n + j] += ail * bt(l, j);
            }
        }
    }
    Host {
        rows: m,
        cols: n,
        v,
    }
}

fn host_gelu(z: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * z * (1.0 + (c * (z + 0.044715 * z * z * z)).tanh())
}

fn host_gelu_grad(z: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    let t = (c * (z + 0.044715 * z * z * z)).tanh();
    0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * c * (1.0 + 3.0 * 0.044715 * z * z)
}

/// Host parameters in the order w1, b1, w2, b2.
type HostParams = [Host; 4];

/// The f64 forward pass: (z1, h, out − y, loss).
fn host_forward(p: &HostParams, x: &Host, y: &Host) -> (Host, Host, Host, f64) {
    let add_bias = |mut m: Host, b: &Host| {
        for row in m.v.chunks_exact_mut(m.cols) {
            row.iter_mut().zip(&b.v).for_each(|(r, b)| *r += b);
        }
        m
    };
    let z1 = add_bias(host_matmul(x, &p[0], false, false), &p[1]);
    let h = Host {
        rows: z1.rows,
        cols: z1.cols,
        v: z1.v.iter().map(|&z| host_gelu(z)).collect(),
    };
    let mut diff = add_bias(host_matmul(&h, &p[2], false, false), &p[3]);
    diff.v.iter_mut().zip(&y.v).for_each(|(d, y)| *d -= y);
    let loss = 0.5 * diff.v.iter().map(|d| d * d).sum::<f64>() / x.rows as f64;
    (z1, h, diff, loss)
}

/// The f64 gradients of the loss, in the order of [`HostParams`].
fn host_backward(p: &HostParams, x: &Host, y: &Host) -> HostParams {
    let (z1, h, diff, _) = host_forward(p, x, y);
    let batch = x.rows as f64;
    let dout = Host {
        rows: diff.rows,
        cols: diff.cols,
        v: diff.v.iter().map(|d| d / batch).collect(),
    };
    let col_sums = |m: &Host| {
        let mut v = vec![0.0; m.cols];
        for row in m.v.chunks_exact(m.cols) {
            v.iter_mut().zip(row).for_each(|(s, r)| *s += r);
        }
        Host {
            rows: 1,
            cols: m.cols,
            v,
        }
    };
    let mut dz1 = host_matmul(&dout, &p[2], false, true);
    dz1.v
        .iter_mut()
        .zip(&z1.v)
        .for_each(|(d, &z)| *d *= host_gelu_grad(z));
    [
        host_matmul(x, &dz1, true, false),
        col_sums(&dz1),
        host_matmul(&h, &dout, true, false),
        col_sums(&dout),
    ]
}

/// Checks the host backward pass against central differences of the host loss along `dirs`
/// (one random direction per parameter set): `(L(p + εd) − L(p − εd)) / 2ε = Σ g·d`.
fn check_host_gradients(p: &HostParams, g: &HostParams, x: &Host, y: &Host) -> Result<(), String> {
    let eps = 1e-5;
    for trial in 0..3u64 {
        // A deterministic direction from a small LCG: no array code involved.
        let mut state = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(trial + 1);
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        let dirs: Vec<Vec<f64>> = p
            .iter()
            .map(|m| m.v.iter().map(|_| next()).collect())
            .collect();
        let moved = |sign: f64| -> HostParams {
            std::array::from_fn(|i| Host {
                rows: p[i].rows,
                cols: p[i].cols,
                v: p[i]
                    .v
                    .iter()
                    .zip(&dirs[i])
                    .map(|(a, d)| a + sign * eps * d)
                    .collect(),
            })
        };
        let numeric =
            (host_forward(&moved(1.0), x, y).3 - host_forward(&moved(-1.0), x, y).3) / (2.0 * eps);
        let analytic: f64 = g
            .iter()
            .zip(&dirs)
            .map(|(g, d)| g.v.iter().zip(d).map(|(a, b)| a * b).sum::<f64>())
            .sum();
        if (numeric - analytic).abs() > 1e-6 * analytic.abs().max(1e-3) {
            return Err(format!(
                "host backward pass: directional derivative {analytic}, finite differences \
                 {numeric}"
            ));
        }
    }
    Ok(())
}

/// The gradient check on a reduced model: cuprite's bf16 gradients against the f64 host
/// backward pass at the same (bf16) parameters and data.
fn check_gradients() -> Result<(), Box<dyn std::error::Error>> {
    let s = Sizes {
        batch: 64,
        input: 32,
        hidden: 128,
        output: 16,
    };
    let p = Params::init(s, 100)?;
    let x = Array::<f32>::rand_normal(&[s.batch, s.input], 110)?.cast::<bf16>();
    let y = Array::<f32>::rand_normal(&[s.batch, s.output], 111)?.cast::<bf16>();
    let (loss, grads, _) = train_step(&p, &x, &y, 0.0)?;
    let hp: HostParams = [
        Host::of(&p.w1)?,
        Host::of(&p.b1)?,
        Host::of(&p.w2)?,
        Host::of(&p.b2)?,
    ];
    let (hx, hy) = (Host::of(&x)?, Host::of(&y)?);
    let want = host_backward(&hp, &hx, &hy);
    check_host_gradients(&hp, &want, &hx, &hy)?;
    let want_loss = host_forward(&hp, &hx, &hy).3;
    let got_loss = f64::from(loss.item()?);
    if (got_loss - want_loss).abs() > 1e-2 * want_loss {
        return Err(format!("loss {got_loss}, the f64 host loss is {want_loss}").into());
    }
    let names = ["dW1", "db1", "dW2", "db2"];
    for ((name, got), want) in names.iter().zip(grads.all()).zip(&want) {
        let got = Host::of(got)?;
        let norm = want.v.iter().map(|w| w * w).sum::<f64>().sqrt();
        let err = got
            .v
            .iter()
            .zip(&want.v)
            .map(|(g, w)| (g - w) * (g - w))
            .sum::<f64>();
        let largest = want.v.iter().fold(0.0f64, |m, w| m.max(w.abs()));
        // bf16 keeps 8 significant bits: z1, h, out − y and the gradients are each rounded
        // (about 0.4% in all); a derivative off by 10% in one of its terms is 2% off.
        if err.is_nan() || err.sqrt() > 1.5e-2 * norm {
            return Err(format!(
                "{name}: relative error {:.3e} against the f64 host gradient (norm {norm:.3e})",
                err.sqrt() / norm
            )
            .into());
        }
        if let Some((i, (g, w))) = got
            .v
            .iter()
            .zip(&want.v)
            .enumerate()
            .find(|(_, (g, w))| (*g - *w).is_nan() || (*g - *w).abs() > 3e-2 * largest)
        {
            return Err(format!("{name}[{i}]: {g}, the f64 host gradient is {w}").into());
        }
    }
    println!(
        "gradients of a {}-{}-{} model (batch {}) within bf16 rounding of the f64 host backward \
         pass, which matches finite differences",
        s.input, s.hidden, s.output, s.batch
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("{}", cuprite_array::info());
    check_gradients()?;

    let args: Vec<String> = std::env::args().collect();
    let on_cpu = cuprite_array::current_device() == Device::CPU;
    let full =
        args.iter().any(|a| a == "--full") || (!on_cpu && !args.iter().any(|a| a == "--small"));
    let s = if full {
        Sizes {
            batch: 4096,
            input: 1024,
            hidden: 4096,
            output: 1024,
        }
    } else {
        Sizes {
            batch: 512,
            input: 256,
            hidden: 1024,
            output: 256,
        }
    };
    // A target the model can learn: a fixed random linear map of the inputs.
    let x = Array::<f32>::rand_normal(&[s.batch, s.input], 10)?;
    let teacher =
        Array::<f32>::rand_normal(&[s.input, s.output], 11)? * (1.0 / (s.input as f32).sqrt());
    let y = x.matmul(&teacher)?.cast::<bf16>();
    let x = x.cast::<bf16>();
    cuprite_array::eval_many(&[&x, &y])?;
    let mut p = Params::init(s, 1)?;
    // Below 2 / (the largest curvature): the hidden units' common mean alone gives the output
    // layer a curvature of about hidden · mean(h)².
    let lr = 1.0 / s.hidden as f32;

    let mut losses = Vec::with_capacity(STEPS);
    let start = std::time::Instant::now();
    for _ in 0..STEPS {
        let (loss, _, next) = train_step(&p, &x, &y, lr)?;
        losses.push(loss.item()?);
        p = next;
    }
    cuprite_array::sync(cuprite_array::current_device())?;
    let elapsed = start.elapsed();
    if let Some(w) = losses.windows(2).find(|w| w[1].is_nan() || w[1] >= w[0]) {
        return Err(format!("the loss did not fall: {} then {} ({losses:?})", w[0], w[1]).into());
    }
    println!(
        "{STEPS} SGD steps of a {}-{}-{} bf16 model, batch {}, in {:.3} ms (on CUDA the first \
         step includes compiling the kernels); the loss fell at every step: {losses:?}",
        s.input,
        s.hidden,
        s.output,
        s.batch,
        elapsed.as_secs_f64() * 1e3
    );
    Ok(())
}
