//! Arrays over several devices (`cuprite_array::mesh`): the same checks on a CPU mesh of 1 to 4
//! logical devices (CI), on a mesh of one GPU, and on a mesh of every GPU (two or more).
//! Sharded programs are compared with the same program on one device: element-wise work,
//! operators, round trips (shard, replicate, gather) with sizes that do not divide evenly and
//! empty shards, reductions along the split axis, other axes and all axes, in several dtypes.
//! The GPU-only checks: copies between GPUs go GPU to GPU (counted by path), kernels are built
//! once per architecture, and sharded work with its all-reduce never blocks the host.

use crate::common::close;
use cuprite_array::mesh::{Mesh, Sharded, Split, split_sizes};
use cuprite_array::ops::ReduceOpts;
use cuprite_array::{Array, Device, Element, c64, f16};
use cuprite_testkit::{Rng, Test, TestResult};

pub fn tests() -> Vec<Test> {
    let mut v = vec![Test::cpu(
        "mesh::split_sizes_balanced",
        split_sizes_balanced,
    )];
    for n in [1usize, 2, 3, 4] {
        v.push(Test::cpu(format!("mesh::cpu{n}::programs"), move || {
            suite(&Mesh::cpu(n)?)
        }));
    }
    v.push(Test::cpu("mesh::cpu::errors", errors));
    v.push(Test::gpu("mesh::cuda1::programs", || {
        suite(&Mesh::new(&[Device::cuda(0)])?)
    }));
    v.push(Test::gpus(2, "mesh::cuda_all::programs", || {
        suite(&Mesh::cuda_all()?)
    }));
    v.push(Test::gpus(2, "mesh::cuda::to_device_peer", to_device_peer));
    v.push(Test::gpus(
        2,
        "mesh::cuda::compiles_once_per_arch",
        compiles_once,
    ));
    v.push(Test::gpus(2, "mesh::cuda::no_host_sync", no_host_sync));
    v
}

fn split_sizes_balanced() -> TestResult {
    assert_eq!(split_sizes(7, 2), [4, 3]);
    assert_eq!(split_sizes(12, 4), [3, 3, 3, 3]);
    assert_eq!(split_sizes(1, 3), [1, 0, 0]);
    assert_eq!(split_sizes(0, 2), [0, 0]);
    for n in 0..40 {
        for p in 1..6 {
            let s = split_sizes(n, p);
            assert_eq!(s.iter().sum::<usize>(), n, "{n} over {p}");
            assert!(s.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
        }
    }
    Ok(())
}

fn f64s<T: Element>(a: &Array<T>) -> Result<Vec<f64>, Box<dyn std::error::Error + Send + Sync>>
where
{
    Ok(a.cast::<f64>().to_vec()?)
}

/// Every replica of `r` holds `want` (compared as f64).
fn replicas_close<T: Element>(
    r: &Sharded<T>,
    want: &Array<T>,
    rtol: f64,
    what: &str,
) -> TestResult {
    if r.split() != Split::Replicated {
        return Err(format!("{what}: expected a replicated result, got {:?}", r.split()).into());
    }
    let w = f64s(want)?;
    for (i, s) in r.shards().iter().enumerate() {
        if s.shape() != want.shape() {
            return Err(format!(
                "{what}: replica {i} of shape {:?}, want {:?}",
                s.shape(),
                want.shape()
            )
            .into());
        }
        if s.device() != r.mesh().devices()[i] {
            return Err(format!("{what}: replica {i} on {}", s.device()).into());
        }
        close(&f64s(s)?, &w, rtol, rtol, &format!("{what} (replica {i})"))?;
    }
    Ok(())
}

/// The gathered `s` equals `want` (as f64), with the split `split`.
fn gathered_close<T: Element>(
    s: &Sharded<T>,
    want: &Array<T>,
    split: Split,
    rtol: f64,
    what: &str,
) -> TestResult {
    if s.split() != split {
        return Err(format!("{what}: split {:?}, expected {split:?}", s.split()).into());
    }
    let g = s.gather(want.device())?;
    if g.shape() != want.shape() {
        return Err(format!("{what}: shape {:?}, want {:?}", g.shape(), want.shape()).into());
    }
    close(&f64s(&g)?, &f64s(want)?, rtol, rtol, what)
}

/// The checks of one mesh; references run on the mesh's first device.
pub fn suite(mesh: &Mesh) -> TestResult {
    let dev = mesh.devices()[0];
    let mut rng = Rng::fresh();
    let ranks = mesh.len();
    // Odd sizes: 7 rows never divide evenly over 2..4 ranks; 1 row leaves ranks empty.
    for shape in [
        vec![7usize, 5, 3],
        vec![1, 4],
        vec![ranks * 3 + 1],
        vec![5, 1, 2],
    ] {
        let n: usize = shape.iter().product();
        let x = Array::from_slice_on(dev, &rng.vec_f32(n, -2.0, 2.0), &shape)?;
        let y = Array::from_slice_on(dev, &rng.vec_f32(n, 0.5, 3.0), &shape)?;
        for ax in 0..shape.len() {
            let what = format!("{ranks} ranks, shape {shape:?}, axis {ax}");
            let xs = x.shard(mesh, ax as isize)?;
            let ys = y.shard(mesh, ax as isize)?;
            // Balanced blocks, each on its device.
            let ext: Vec<usize> = xs.shards().iter().map(|a| a.shape()[ax]).collect();
            assert_eq!(ext, split_sizes(shape[ax], ranks), "{what}");
            assert_eq!(xs.shape(), shape);
            // Round trip, exact.
            assert_eq!(xs.gather(dev)?.to_vec()?, x.to_vec()?, "{what}: round trip");
            // An element-wise program, by map, zip and the operators.
            let prog = |a: &Array<f32>, b: &Array<f32>| ((a * 2.0).exp() - b.sqrt()) / b + a.sin();
            let want = prog(&x, &y);
            let got = xs.zip(&ys, prog)?;
            gathered_close(&got, &want, Split::Axis(ax), 1e-5, &format!("{what}: zip"))?;
            let ops = &(&(&xs * 3.0) + &ys) - &(-&xs / &ys);
            let want_ops = (&x * 3.0 + &y) - (-&x / &y);
            gathered_close(
                &ops,
                &want_ops,
                Split::Axis(ax),
                1e-6,
                &format!("{what}: ops"),
            )?;
            let m = xs.map(|a| (a * 0.5).tanh())?;
            gathered_close(
                &m,
                &(&x * 0.5).tanh(),
                Split::Axis(ax),
                1e-6,
                &format!("{what}: map"),
            )?;
            // With a replicated operand (broadcast along the last axis, when it is not split).
            let last = shape[shape.len() - 1];
            let w = Array::from_slice_on(dev, &rng.vec_f32(last, -1.0, 1.0), &[last])?;
            let wr = w.replicate(mesh)?;
            if ax + 1 < shape.len() || ranks == 1 {
                let xw = xs.zip(&wr, |a, w| a * w)?;
                gathered_close(
                    &xw,
                    &(&x * &w),
                    Split::Axis(ax),
                    1e-6,
                    &format!("{what}: x*w"),
                )?;
            }
            // Reductions: along the split axis (one all-reduce), along the others (local), all.
            let ia = ax as isize;
            replicas_close(
                &got.sum_axes(&[ia])?,
                &want.sum_axes(&[ia])?,
                1e-4,
                &format!("{what}: sum"),
            )?;
            replicas_close(
                &got.mean_axes_with(&[ia], ReduceOpts::new().keepdims(true))?,
                &want.mean_axes_with(&[ia], ReduceOpts::new().keepdims(true))?,
                1e-4,
                &format!("{what}: mean keepdims"),
            )?;
            replicas_close(
                &xs.max_axes(&[ia])?,
                &x.max_axes(&[ia])?,
                0.0,
                &format!("{what}: max"),
            )?;
            replicas_close(
                &xs.min_axes(&[ia])?,
                &x.min_axes(&[ia])?,
                0.0,
                &format!("{what}: min"),
            )?;
            replicas_close(&got.sum()?, &want.sum()?, 1e-4, &format!("{what}: sum all"))?;
            replicas_close(&xs.mean()?, &x.mean()?, 1e-4, &format!("{what}: mean all"))?;
            replicas_close(&xs.max()?, &x.max()?, 0.0, &format!("{what}: max all"))?;
            for other in (0..shape.len()).filter(|&o| o != ax) {
                let io = other as isize;
                let new_ax = if other < ax { ax - 1 } else { ax };
                gathered_close(
                    &got.sum_axes(&[io])?,
                    &want.sum_axes(&[io])?,
                    Split::Axis(new_ax),
                    1e-5,
                    &format!("{what}: sum along {other}"),
                )?;
                gathered_close(
                    &xs.max_axes_with(&[io], ReduceOpts::new().keepdims(true))?,
                    &x.max_axes_with(&[io], ReduceOpts::new().keepdims(true))?,
                    Split::Axis(ax),
                    0.0,
                    &format!("{what}: max along {other}, keepdims"),
                )?;
                gathered_close(
                    &xs.mean_axes(&[io])?,
                    &x.mean_axes(&[io])?,
                    Split::Axis(new_ax),
                    1e-5,
                    &format!("{what}: mean along {other}"),
                )?;
                // Both axes: an all-reduce.
                replicas_close(
                    &xs.sum_axes(&[io, ia])?,
                    &x.sum_axes(&[io, ia])?,
                    1e-4,
                    &format!("{what}: sum along {other} and {ax}"),
                )?;
            }
            // A replicated array reduces locally, to a replicated result.
            replicas_close(
                &wr.sum()?,
                &w.sum()?,
                1e-5,
                &format!("{what}: replicated sum"),
            )?;
            gathered_close(
                &wr.map(|a| a * 2.0)?,
                &(&w * 2.0),
                Split::Replicated,
                0.0,
                &format!("{what}: replicated map"),
            )?;
        }
    }
    dtypes(mesh, &mut rng)?;
    from_parts(mesh)?;
    matmuls(mesh, &mut rng)?;
    Ok(())
}

/// `Sharded::matmul` in each layout it takes, against `Array::matmul` on one device; odd
/// extents leave some ranks with empty blocks on 3 and 4 ranks.
fn matmuls(mesh: &Mesh, rng: &mut Rng) -> TestResult {
    let dev = mesh.devices()[0];
    let ranks = mesh.len();
    let mk = |rng: &mut Rng, shape: &[usize]| {
        let n = shape.iter().product();
        let v: Vec<f64> = rng
            .vec_f32(n, -1.0, 1.0)
            .iter()
            .map(|&x| x as f64)
            .collect();
        Array::from_slice_on(dev, &v, shape)
    };
    for (m, k, n) in [(7usize, 5usize, 3usize), (2, 9, 4), (ranks * 2 + 1, 3, 1)] {
        let what = format!("{ranks} ranks, ({m}×{k})·({k}×{n})");
        let a = mk(rng, &[m, k])?;
        let b = mk(rng, &[k, n])?;
        let want = a.matmul(&b)?;
        let rows = a.shard(mesh, 0)?.matmul(&b.replicate(mesh)?)?;
        gathered_close(
            &rows,
            &want,
            Split::Axis(0),
            1e-12,
            &format!("{what}: rows"),
        )?;
        let cols = a.replicate(mesh)?.matmul(&b.shard(mesh, 1)?)?;
        gathered_close(
            &cols,
            &want,
            Split::Axis(1),
            1e-12,
            &format!("{what}: cols"),
        )?;
        let kk = a.shard(mesh, 1)?.matmul(&b.shard(mesh, 0)?)?;
        replicas_close(&kk, &want, 1e-12, &format!("{what}: contracted"))?;
        let both = a.replicate(mesh)?.matmul(&b.replicate(mesh)?)?;
        replicas_close(&both, &want, 1e-12, &format!("{what}: replicas"))?;
        if ranks > 1 {
            // Rows of one side against columns of the other need blocks moved: refused.
            let e = a.shard(mesh, 0)?.matmul(&b.shard(mesh, 1)?);
            match e {
                Err(cuprite_array::Error::Shape(msg)) => {
                    assert!(msg.contains("Axis(0)") && msg.contains("Axis(1)"), "{msg}")
                }
                other => return Err(format!("{what}: rows × cols gave {other:?}").into()),
            }
        }
    }
    // A stack of matrices split along its batch axis, times one replicated matrix.
    let a = mk(rng, &[5, 3, 4])?;
    let b = mk(rng, &[4, 2])?;
    let got = a.shard(mesh, 0)?.matmul(&b.replicate(mesh)?)?;
    gathered_close(&got, &a.matmul(&b)?, Split::Axis(0), 1e-12, "batched rows")?;
    Ok(())
}

/// Reductions along the split axis in other element types (NCCL's own, widened and paired).
fn dtypes(mesh: &Mesh, rng: &mut Rng) -> TestResult {
    let dev = mesh.devices()[0];
    let n = 2 * mesh.len() + 3;
    let ints: Vec<i32> = rng
        .vec_u32(n * 3)
        .iter()
        .map(|&v| (v % 2001) as i32 - 1000)
        .collect();
    let a = Array::from_slice_on(dev, &ints, &[n, 3])?;
    let s = a.shard(mesh, 0)?;
    replicas_close(&s.sum_axes(&[0])?, &a.sum_axes(&[0])?, 0.0, "i32 sum")?;
    replicas_close(&s.max()?, &a.max()?, 0.0, "i32 max")?;
    let i16s: Vec<i16> = ints.iter().map(|&v| v as i16).collect();
    let a16 = Array::from_slice_on(dev, &i16s, &[n, 3])?;
    let s16 = a16.shard(mesh, 0)?;
    replicas_close(&s16.min_axes(&[0])?, &a16.min_axes(&[0])?, 0.0, "i16 min")?;
    replicas_close(&s16.max()?, &a16.max()?, 0.0, "i16 max")?;
    replicas_close(&s16.sum()?, &a16.sum()?, 0.0, "i16 sum (in i64)")?;
    let u8s: Vec<u8> = ints.iter().map(|&v| v as u8).collect();
    let au = Array::from_slice_on(dev, &u8s, &[n, 3])?;
    let su = au.shard(mesh, 0)?;
    replicas_close(&su.max_axes(&[0])?, &au.max_axes(&[0])?, 0.0, "u8 max")?;
    replicas_close(&su.sum()?, &au.sum()?, 0.0, "u8 sum (in u64)")?;
    replicas_close(&su.mean()?, &au.mean()?, 1e-12, "u8 mean (in f64)")?;
    let bools: Vec<bool> = ints.iter().map(|&v| v > 700).collect();
    let ab = Array::from_slice_on(dev, &bools, &[n, 3])?;
    let sb = ab.shard(mesh, 0)?;
    replicas_close(&sb.max_axes(&[0])?, &ab.max_axes(&[0])?, 0.0, "bool max")?;
    replicas_close(&sb.min_axes(&[0])?, &ab.min_axes(&[0])?, 0.0, "bool min")?;
    let f64s_: Vec<f64> = rng
        .vec_f32(n * 3, -1.0, 1.0)
        .iter()
        .map(|&v| v as f64 / 3.0)
        .collect();
    let ad = Array::from_slice_on(dev, &f64s_, &[n, 3])?;
    let sd = ad.shard(mesh, 0)?;
    replicas_close(&sd.sum()?, &ad.sum()?, 1e-12, "f64 sum")?;
    replicas_close(
        &sd.mean_axes(&[0])?,
        &ad.mean_axes(&[0])?,
        1e-12,
        "f64 mean",
    )?;
    let halves: Vec<f16> = f64s_.iter().map(|&v| f16::from_f64(v)).collect();
    let ah = Array::from_slice_on(dev, &halves, &[n, 3])?;
    let sh = ah.shard(mesh, 0)?;
    replicas_close(&sh.max()?, &ah.max()?, 0.0, "f16 max")?;
    replicas_close(&sh.sum_axes(&[0])?, &ah.sum_axes(&[0])?, 1e-2, "f16 sum")?;
    // Complex sums travel as pairs of reals.
    let cs: Vec<c64> = f64s_.iter().map(|&v| c64::new(v, 1.0 - v)).collect();
    let ac = Array::from_slice_on(dev, &cs, &[n, 3])?;
    let sc = ac.shard(mesh, 0)?;
    let (got, want) = (sc.sum_axes(&[0])?, ac.sum_axes(&[0])?);
    let w = want.to_vec()?;
    for r in got.shards() {
        let g = r.to_vec()?;
        for (x, y) in g.iter().zip(&w) {
            assert!((x - y).norm() <= 1e-12, "c64 sum: {x} vs {y}");
        }
    }
    Ok(())
}

/// Sharded arrays made of per-device arrays, with uneven and empty shards.
fn from_parts(mesh: &Mesh) -> TestResult {
    let parts: Vec<Array<i64>> = mesh
        .devices()
        .iter()
        .enumerate()
        .map(|(r, &d)| {
            let rows = if r == 1 { 0 } else { r + 1 };
            let v: Vec<i64> = (0..rows * 2).map(|i| (r * 100 + i) as i64).collect();
            Array::from_slice_on(d, &v, &[rows, 2])
        })
        .collect::<Result<_, _>>()?;
    let mut all = Vec::new();
    for p in &parts {
        all.extend(p.to_vec()?);
    }
    let rows = all.len() / 2;
    let s = Sharded::from_shards(mesh, parts, 0)?;
    assert_eq!(s.shape(), [rows, 2]);
    let whole = Array::from_slice_on(mesh.devices()[0], &all, &[rows, 2])?;
    assert_eq!(s.gather(mesh.devices()[0])?.to_vec()?, all);
    replicas_close(
        &s.sum_axes(&[0])?,
        &whole.sum_axes(&[0])?,
        0.0,
        "from_shards sum",
    )?;
    replicas_close(
        &s.min()?,
        &whole.min()?,
        0.0,
        "from_shards min (an empty shard)",
    )?;
    let reps: Vec<Array<i64>> = mesh
        .devices()
        .iter()
        .map(|&d| whole.to_device(d))
        .collect::<Result<_, _>>()?;
    let r = Sharded::from_replicas(mesh, reps)?;
    assert_eq!(r.gather(Device::CPU)?.to_vec()?, all);
    // Replicate / gather round trip to the CPU and back.
    let back = whole.replicate(mesh)?.gather(Device::CPU)?;
    assert_eq!(back.to_vec()?, all);
    Ok(())
}

/// Refused inputs, each an `Err` naming the problem.
fn errors() -> TestResult {
    let m2 = Mesh::cpu(2)?;
    let m3 = Mesh::cpu(3)?;
    crate::common::assert_err(Mesh::new(&[]), "InvalidArgument", "at least one device");
    crate::common::assert_err(Mesh::cpu(0), "InvalidArgument", "at least one device");
    // With a GPU the repeat is refused; without one, the device that does not exist.
    let twice = if cuprite_testkit::has_gpu() {
        "cuda:0 is given twice"
    } else {
        "CUDA device 0 does not exist"
    };
    crate::common::assert_err(
        Mesh::new(&[Device::cuda(0), Device::cuda(0)]),
        "InvalidArgument",
        twice,
    );
    crate::common::assert_err(
        Mesh::new(&[Device::CPU, Device::cuda(0)]),
        "DeviceMismatch",
        "device 0 is cpu:0, device 1 is cuda:0",
    );
    let a = Array::from_slice_on(Device::CPU, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
    crate::common::assert_err(a.shard(&m2, 2), "Axis", "axis 2 is out of range");
    crate::common::assert_err(
        Array::scalar(1.0f32).to_device(Device::CPU)?.shard(&m2, 0),
        "Axis",
        "axis 0 is out of range for an array of 0 dimension(s)",
    );
    let s0 = a.shard(&m2, 0)?;
    let s1 = a.shard(&m2, 1)?;
    let e = s0.try_add(&s1).unwrap_err().to_string();
    assert!(e.contains("axis 0") && e.contains("axis 1"), "{e}");
    crate::common::assert_err(
        s0.try_add(&a.shard(&m3, 0)?),
        "DeviceMismatch",
        "sharded arrays on different meshes",
    );
    let t = a.t().contiguous()?;
    let e = Sharded::from_shards(&m2, vec![a.clone(), t], 0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("[3, 2]") && e.contains("[2, 3]"), "{e}");
    crate::common::assert_err(
        Sharded::from_shards(&m2, vec![a.clone()], 0),
        "InvalidArgument",
        "1 shard(s) for a mesh of 2 device(s)",
    );
    crate::common::assert_err(
        Sharded::from_replicas(&m2, vec![a.clone(), a.slice(&cuprite_array::s![..2])?]),
        "Shape",
        "shard 1 has shape [2, 2], shard 0 [3, 2]",
    );
    // A closure that changes the layout.
    crate::common::assert_err(
        s1.try_map(|x| x.sum_axes(&[1])),
        "Shape",
        "but the split axis 1",
    );
    // Max of nothing.
    let empty = Array::<f32>::zeros(&[0, 2])
        .to_device(Device::CPU)?
        .shard(&m2, 0)?;
    crate::common::assert_err(
        empty.max(),
        "InvalidArgument",
        "Max of an empty sharded array (shape [0, 2]",
    );
    assert_eq!(empty.sum()?.shards()[1].item()?, 0.0);
    Ok(())
}

/// `to_device` between GPUs: a peer copy (GPU to GPU where the pair can reach each other),
/// counted by its path; values exact.
fn to_device_peer() -> TestResult {
    let mut rng = Rng::fresh();
    let v = rng.vec_f32(1 << 20, -1.0, 1.0);
    let a = Array::from_slice_on(Device::cuda(0), &v, &[1 << 20])?;
    let b = &a * 2.0;
    b.eval()?;
    let before = cuprite_driver::peer::stats();
    let c = b.to_device(Device::cuda(1))?;
    let d = cuprite_driver::peer::stats().since(&before);
    assert_eq!(c.device(), Device::cuda(1));
    let path = cuprite_driver::peer::path(
        &*cuprite_driver::Context::new(0)?,
        &*cuprite_driver::Context::new(1)?,
    )?;
    match path {
        // The counters are the process's: other tests running at the same time add to them,
        // so this copy shows as at least one copy of at least its size on its path.
        cuprite_driver::peer::PeerPath::Direct => {
            assert!(d.direct_copies >= 1 && d.staged_copies == 0, "{d:?}");
            assert!(d.direct_bytes >= 4 << 20, "{d:?}");
        }
        cuprite_driver::peer::PeerPath::Staged => assert!(d.staged_copies >= 1, "{d:?}"),
        cuprite_driver::peer::PeerPath::SameDevice => {
            return Err("devices 0 and 1 are one GPU".into());
        }
    }
    eprintln!("to_device cuda:0 -> cuda:1 went {path:?}: {d:?}");
    let want: Vec<f32> = v.iter().map(|x| x * 2.0).collect();
    assert_eq!(c.to_vec()?, want);
    // And back, from a strided view.
    let back = c.reshape(&[1024, 1024])?.t().to_device(Device::cuda(0))?;
    let host = back.to_vec()?;
    assert_eq!(host[1], want[1024]);
    assert_eq!(host[1024], want[1]);
    Ok(())
}

/// A kernel built for one GPU is loaded on another of the same architecture without a second
/// build.
fn compiles_once() -> TestResult {
    let cc = |i| cuprite_driver::Device::get(i).and_then(|d| d.compute_capability());
    if cc(0)? != cc(1)? {
        return cuprite_testkit::ignore("GPUs 0 and 1 differ in architecture");
    }
    let mesh = Mesh::new(&[Device::cuda(0), Device::cuda(1)])?;
    let x = Array::from_slice_on(Device::cuda(0), &[0.25f64; 1000], &[1000])?.shard(&mesh, 0)?;
    // An expression no other test builds.
    let y = x.map(|a| ((a * 7.5).cosh() - a.atan()).abs().cbrt() * 3.25)?;
    // Without the interpreter tier, a first use builds its kernel on the calling thread,
    // where `thread_builds` counts it (other tests' builds do not move it).
    let (b0, b1, b2) = cuprite_array::tuning::without_interpreter(
        || -> cuprite_array::Result<(u64, u64, u64)> {
            let b0 = cuprite_array::stats::thread_builds();
            y.shards()[0].eval()?;
            let b1 = cuprite_array::stats::thread_builds();
            y.shards()[1].eval()?;
            Ok((b0, b1, cuprite_array::stats::thread_builds()))
        },
    )?;
    assert!(b1 - b0 >= 1, "the first device built nothing");
    assert_eq!(
        b2 - b1,
        0,
        "the second device of the same architecture built its own kernel"
    );
    let (r0, r1) = (y.shards()[0].to_vec()?, y.shards()[1].to_vec()?);
    assert_eq!(r0[0], r1[0]);
    Ok(())
}

/// Warm sharded work (element-wise, a reduction along the split axis with its all-reduce, and
/// a local one) never blocks the host.
fn no_host_sync() -> TestResult {
    let mesh = Mesh::cuda_all()?;
    let x = Array::<f32>::rand_uniform(&[4099, 33], 5)?.shard(&mesh, 0)?;
    let step = |x: &Sharded<f32>| -> cuprite_array::Result<(Sharded<f32>, Sharded<f32>)> {
        let y = x.map(|a| (a * 1.5).sin() + 0.25)?;
        Ok((y.sum_axes(&[0])?, y.max_axes(&[1])?))
    };
    let (s, m) = step(&x)?; // warm: kernels, communicators, tracking
    s.eval()?;
    m.eval()?;
    let _ = s.shards()[0].to_vec()?;
    let before = cuprite_driver::thread_stats();
    let (s, m) = step(&x)?;
    s.eval()?;
    m.eval()?;
    let d = cuprite_driver::thread_stats().since(&before);
    assert_eq!(d.host_syncs, 0, "{d:?}");
    let y0 = x.gather(Device::cuda(0))?;
    let want = ((&y0 * 1.5).sin() + 0.25).sum_axes(&[0])?.to_vec()?;
    for r in s.shards() {
        close(
            &r.to_vec()?.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            &want.iter().map(|&v| v as f64).collect::<Vec<_>>(),
            1e-4,
            1e-4,
            "sum after the sync-free step",
        )?;
    }
    assert_eq!(m.shape(), [4099]);
    Ok(())
}
