//! `cuprite demo`: the stack at work on the best backend present, in a few timed steps.
//!
//! Arrays made on the device (counter-based random numbers), a fused element-wise expression
//! (one generated kernel, compiled by NVRTC on first use and then cached), a custom NVRTC kernel
//! launched on the array stream over the array's memory with its output taken back as an array
//! (no copy, no host synchronisation, counted), and a fused reduction. The result is checked
//! against a float64 computation on the host. Without a GPU the array steps run on the CPU
//! backend, the custom-kernel step is replaced by the same array expression and marked as
//! needing a GPU, and the demo still exits successfully with real, checked results.

use cuprite_array::{Array, Backend, Device, current_device};
use cuprite_driver::LaunchConfig;
use std::time::Instant;

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Step {
    /// What was done.
    pub what: String,
    /// Where it ran (`cuda:0 ...`, `cpu`), or why it did not.
    pub on: String,
    /// Wall time of the step including completion of its device work, in milliseconds.
    pub ms: f64,
    /// Its result or a remark.
    pub result: String,
}

/// What the demo did.
#[derive(Clone, Debug)]
pub struct Report {
    /// The backend line ([`cuprite_array::info`]).
    pub backend: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The final value, `sum((2 z - 1)^2)`.
    pub value: f64,
    /// The same value computed in float64 on the host.
    pub reference: f64,
    /// Parts that needed a GPU and did not run, with the reason.
    pub needed_gpu: Vec<String>,
    /// Host synchronisations and cross-stream waits during the custom-kernel hand-off.
    pub handoff_stats: Option<cuprite_driver::Stats>,
}

const KERNEL: &str = r#"
extern "C" __global__ void affine(const float* z, float* w, float a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] = a * z[i] + b;
}
"#;

type DemoError = Box<dyn std::error::Error + Send + Sync>;

fn timed<R>(
    device: Device,
    f: impl FnOnce() -> Result<R, DemoError>,
) -> Result<(R, f64), DemoError> {
    let t = Instant::now();
    let r = f()?;
    cuprite_array::sync(device)?;
    Ok((r, t.elapsed().as_secs_f64() * 1e3))
}

/// Runs the demo over `n` elements (`None`: 2^24 on a GPU, 2^22 on the CPU).
pub fn run(n: Option<usize>) -> Result<Report, DemoError> {
    let device = current_device();
    let gpu = device.backend == Backend::Cuda;
    let n = n.unwrap_or(if gpu { 1 << 24 } else { 1 << 22 });
    let on = match device.backend {
        Backend::Cuda => format!("cuda:{}", device.ordinal),
        Backend::Cpu => format!("cpu ({} threads)", rayon_threads()),
    };
    let mut steps = Vec::new();
    let mut needed_gpu = Vec::new();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1);

    let ((x, y), ms) = timed(device, || {
        let x = Array::<f32>::rand_uniform(&[n], seed)?;
        let y = Array::<f32>::rand_normal(&[n], seed ^ 0x9e37_79b9)?;
        Ok((x, y))
    })?;
    steps.push(Step {
        what: format!("make x ~ U[0,1), y ~ N(0,1): 2 x {n} f32 (Philox)"),
        on: on.clone(),
        ms,
        result: size_text(2 * n * 4),
    });

    let expr = |x: &Array<f32>, y: &Array<f32>| (x * y + 1.0).sin() * (x * 0.5).exp();
    let (z, ms) = timed(device, || {
        let z = expr(&x, &y);
        z.eval()?;
        Ok(z)
    })?;
    steps.push(Step {
        what: "fused z = sin(x*y + 1) * exp(x/2), first use".into(),
        on: on.clone(),
        ms,
        result: if gpu {
            "one kernel (NVRTC or disk cache)".into()
        } else {
            "one fused pass".into()
        },
    });
    let (z2, ms) = timed(device, || {
        let z = expr(&x, &y);
        z.eval()?;
        Ok(z)
    })?;
    steps.push(Step {
        what: if gpu {
            "the same expression again (kernel from the in-memory cache)".into()
        } else {
            "the same expression again".into()
        },
        on: on.clone(),
        ms,
        // x and y read, z written: 3 arrays of n f32 moved in that time.
        result: format!(
            "{:.1} GB/s moved (x, y read + z written)",
            (3 * n * 4) as f64 / (ms * 1e-3) / 1e9
        ),
    });
    drop(z2);

    let (a, b) = (2.0f32, -1.0f32);
    let mut handoff_stats = None;
    let w = if gpu {
        let stream = cuprite_array::get_stream(device.ordinal)?;
        let (f, ms) = timed(device, || {
            let m = stream
                .context()
                .load_module(cuprite_driver::nvrtc::compile_ptx(KERNEL)?)?;
            Ok(m.load_function("affine")?)
        })?;
        steps.push(Step {
            what: "compile a custom kernel with NVRTC".into(),
            on: on.clone(),
            ms,
            result: "w = 2 z - 1".into(),
        });
        let (w, ms) = timed(device, || {
            let before = cuprite_driver::thread_stats();
            // SAFETY: fully written by the kernel before any read.
            let mut out = unsafe { stream.alloc::<f32>(n) }?;
            {
                let view = z.device_view()?;
                let nn = n as u32;
                let mut l = stream.launch_builder(&f);
                l.arg(&view).arg(&mut out).arg(&a).arg(&b).arg(&nn);
                // SAFETY: affine reads n floats of z and writes n floats of w.
                unsafe { l.launch(LaunchConfig::for_num_elems(nn)) }?;
            }
            let w = Array::from_buffer(out, &[n])?;
            handoff_stats = Some(cuprite_driver::thread_stats().since(&before));
            Ok(w)
        })?;
        let d = handoff_stats.unwrap_or_default();
        steps.push(Step {
            what: "custom kernel on the array stream over z, output as an array".into(),
            on: on.clone(),
            ms,
            result: format!(
                "no copy; {} host syncs, {} stream waits",
                d.host_syncs, d.stream_waits
            ),
        });
        w
    } else {
        let why = match cuprite_driver::Device::count() {
            Ok(0) => "no CUDA device".to_string(),
            Ok(_) => "the CPU backend was chosen (CUPRITE_BACKEND)".to_string(),
            Err(e) => format!(
                "no CUDA driver ({})",
                e.to_string()
                    .lines()
                    .next()
                    .unwrap_or("")
                    .split("; tried")
                    .next()
                    .unwrap_or("")
            ),
        };
        needed_gpu.push(format!(
            "the custom NVRTC kernel on the array stream needs a CUDA GPU: {why}"
        ));
        let (w, ms) = timed(device, || {
            let w = &z * a + b;
            w.eval()?;
            Ok(w)
        })?;
        steps.push(Step {
            what: "w = 2 z - 1 as array work (custom kernel needs a GPU)".into(),
            on: on.clone(),
            ms,
            result: "in place of the custom kernel".into(),
        });
        w
    };

    let (value, ms) = timed(device, || Ok((&w * &w).sum()?.item()? as f64))?;
    steps.push(Step {
        what: "fused reduction sum(w * w), first use".into(),
        on: on.clone(),
        ms,
        result: format!("{value:.6e}"),
    });

    let t = Instant::now();
    let (hx, hy) = (x.to_vec()?, y.to_vec()?);
    let reference: f64 = hx
        .iter()
        .zip(&hy)
        .map(|(&x, &y)| {
            let (x, y) = (x as f64, y as f64);
            let z = (x * y + 1.0).sin() * (x * 0.5).exp();
            let w = 2.0 * z - 1.0;
            w * w
        })
        .sum();
    let rel = (value - reference).abs() / reference.abs().max(1e-30);
    steps.push(Step {
        what: "check against float64 on the host".into(),
        on: "host".into(),
        ms: t.elapsed().as_secs_f64() * 1e3,
        result: format!("relative difference {rel:.1e}"),
    });
    if rel > 1e-3 {
        return Err(
            format!("the result {value} differs from the float64 reference {reference}").into(),
        );
    }
    Ok(Report {
        backend: cuprite_array::info(),
        steps,
        value,
        reference,
        needed_gpu,
        handoff_stats,
    })
}

/// `800.0 KiB`, `128.0 MiB`: a byte count for the table.
fn size_text(bytes: usize) -> String {
    let b = bytes as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", b / 1024.0)
    }
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

impl Report {
    /// The report as text: the backend, a table of the steps, and what needed a GPU.
    pub fn to_text(&self) -> String {
        let mut s = format!("cuprite demo: {}\n\n", self.backend);
        let w0 = self
            .steps
            .iter()
            .map(|x| x.what.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        let w1 = self
            .steps
            .iter()
            .map(|x| x.on.chars().count())
            .max()
            .unwrap_or(5)
            .max(5);
        s += &format!(
            "{:<w0$}  {:<w1$}  {:>10}  result\n",
            "step", "where", "time"
        );
        s += &format!(
            "{}  {}  {}  {}\n",
            "-".repeat(w0),
            "-".repeat(w1),
            "-".repeat(10),
            "-".repeat(6)
        );
        for st in &self.steps {
            s += &format!(
                "{:<w0$}  {:<w1$}  {:>7.3} ms  {}\n",
                st.what, st.on, st.ms, st.result
            );
        }
        s += &format!(
            "\nsum((2 z - 1)^2) = {:.9e} (float64 host reference {:.9e})\n",
            self.value, self.reference
        );
        for g in &self.needed_gpu {
            s += &format!("needs a GPU (not run): {g}\n");
        }
        s
    }
}
