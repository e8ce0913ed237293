//! `cuprite demo`: real, checked results on the CPU backend (with the GPU part reported as
//! needing a GPU) and on the GPU (the custom kernel hand-off with no synchronisation).

use cuprite_array::{Device, with_device};
use cuprite_cli::demo;
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Test, TestResult};

fn demo_on_cpu() -> TestResult {
    let r = with_device(Device::CPU, || demo::run(Some(300_007)))?;
    assert!(r.steps.len() >= 6, "{r:?}");
    assert!(r.value > 0.0 && (r.value - r.reference).abs() <= 1e-3 * r.reference);
    assert_eq!(
        r.needed_gpu.len(),
        1,
        "the custom kernel step is named as needing a GPU"
    );
    assert!(r.handoff_stats.is_none());
    let text = r.to_text();
    assert!(
        text.contains("needs a GPU") && text.contains("fused reduction"),
        "{text}"
    );
    Ok(())
}

/// The binary itself on the CPU backend: exits 0, prints the checked table, names the GPU step.
fn demo_binary_on_cpu_backend() -> TestResult {
    let bin = crate::cuprite_bin()?;
    let out = std::process::Command::new(bin)
        .args(["demo", "--n", "100000"])
        .env("CUPRITE_BACKEND", "cpu")
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("float64 host reference"), "{text}");
    assert!(text.contains("needs a GPU (not run)"), "{text}");
    Ok(())
}

fn demo_on_gpu() -> TestResult {
    let r = with_device(Device::cuda(0), || demo::run(Some((1 << 22) + 5)))?;
    assert!(r.needed_gpu.is_empty(), "{:?}", r.needed_gpu);
    let d = r.handoff_stats.ok_or("no hand-off stats")?;
    assert_eq!((d.host_syncs, d.stream_waits), (0, 0), "{d:?}");
    assert!((r.value - r.reference).abs() <= 1e-3 * r.reference);
    println!("{}", r.to_text());
    Ok(())
}

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("demo::on_cpu", demo_on_cpu),
        Test::cpu("demo::binary_on_cpu_backend", demo_binary_on_cpu_backend),
        Test::gpu("demo::on_gpu", demo_on_gpu),
    ]
}
