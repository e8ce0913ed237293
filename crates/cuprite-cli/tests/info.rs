//! `cuprite info`, as a user runs it.

use crate::cuprite_bin;
use cuprite_driver::Device;
use cuprite_testkit::temp_dir as empty_dir;
use cuprite_testkit::{CHILD_LIMIT, OutputWithin, Test, TestResult};
use std::process::Command;

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("info::no_driver_line_and_exit_0", no_driver_line),
        Test::cpu("info::json_without_driver_parses", json_without_driver),
        Test::cpu("info::json_here_parses_and_is_consistent", json_here),
        Test::gpu("info::lists_the_device", lists_the_device),
    ]
}

fn no_driver_line() -> TestResult {
    let dir = empty_dir("info");
    let out = Command::new(cuprite_bin()?)
        .arg("info")
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8(out.stdout)?;
    assert!(out.status.success(), "exit {:?}: {text}", out.status);
    let line = text
        .lines()
        .find(|l| l.starts_with("No CUDA driver found"))
        .ok_or_else(|| format!("no no-driver line in:\n{text}"))?;
    // The first line says that the CPU backend will be used, and stays short; each place
    // looked in follows on a line of its own.
    assert!(line.contains("The CPU backend will be used."), "{line}");
    assert!(line.chars().count() <= 100, "{line}");
    let places: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("No CUDA driver found"))
        .skip(2)
        .take_while(|l| l.starts_with("    "))
        .map(str::trim)
        .collect();
    assert_eq!(places.len(), 8, "{text}");
    assert_eq!(places[0], dir.join("libcuda.so.1").display().to_string());
    assert!(text.lines().all(|l| l.chars().count() <= 160), "{text}");
    assert!(text.contains("array backend: cpu"), "{text}");
    assert!(text.contains("libnvrtc"), "{text}");
    assert!(
        text.contains("libcublas") && text.contains("optional: cuBLAS"),
        "{text}"
    );
    assert!(!text.contains("not used yet"), "{text}");
    assert!(!text.contains("device 0:"), "{text}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn json_without_driver() -> TestResult {
    let dir = empty_dir("infojson");
    let out = Command::new(cuprite_bin()?)
        .args(["info", "--json"])
        .env("CUPRITE_CUDA_PATH", &dir)
        .output_within(CHILD_LIMIT)?;
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["driver"]["found"], false);
    let tried = v["driver"]["tried"].as_array().ok_or("no tried list")?;
    assert_eq!(tried.len(), 8, "{tried:?}");
    let first = dir.join("libcuda.so.1").display().to_string();
    assert!(
        tried[0].as_str().is_some_and(|t| t.starts_with(&first)),
        "{tried:?}"
    );
    assert!(
        v["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("No CUDA driver found"))
    );
    assert_eq!(v["devices"].as_array().map(Vec::len), Some(0));
    let libs = v["libraries"].as_array().ok_or("no libraries")?;
    let names: Vec<&str> = libs.iter().filter_map(|l| l["name"].as_str()).collect();
    for n in [
        "libcuda",
        "libnvrtc",
        "libcublas",
        "libcurand",
        "libcufft",
        "libcudnn",
        "libnccl",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// On this machine as it is: valid JSON whose backend matches the devices found, and whose
/// NVRTC entry agrees with the library this process loads.
fn json_here() -> TestResult {
    let out = Command::new(cuprite_bin()?)
        .args(["info", "--json"])
        .env_remove("CUPRITE_BACKEND")
        .output_within(CHILD_LIMIT)?;
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let n = v["devices"].as_array().ok_or("no devices array")?.len();
    assert_eq!(v["backend"], if n > 0 { "cuda" } else { "cpu" });
    assert_eq!(n > 0, cuprite_testkit::has_gpu());
    let nvrtc = v["libraries"]
        .as_array()
        .and_then(|l| l.iter().find(|x| x["name"] == "libnvrtc"))
        .ok_or("no libnvrtc entry")?;
    assert_eq!(nvrtc["found"], cuprite_testkit::has_nvrtc());
    if let Ok(path) = cuprite_sys::nvrtc::LIBRARY.path() {
        assert_eq!(nvrtc["path"], path);
    }
    Ok(())
}

fn lists_the_device() -> TestResult {
    let d = Device::get(0)?;
    let name = d.name()?;
    let sms = d.multiprocessor_count()?;
    let (major, minor) = d.compute_capability()?;
    let out = Command::new(cuprite_bin()?)
        .arg("info")
        .output_within(CHILD_LIMIT)?;
    let text = String::from_utf8(out.stdout)?;
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "device 0: {name} (compute capability {major}.{minor}"
        )),
        "{text}"
    );
    assert!(text.contains(&format!("SMs: {sms}\n")), "{text}");
    assert!(text.contains(&format!("uuid: {}", d.uuid()?)), "{text}");
    assert!(
        text.contains(&format!("PCI bus id: {}", d.pci_bus_id()?)),
        "{text}"
    );
    assert!(text.contains("array backend: cuda"), "{text}");
    assert!(text.contains("driver: CUDA "), "{text}");
    // Every H100 variant (SXM, PCIe, NVL, MIG slices) is compute capability 9.0; SMs and
    // memory differ, and are checked against the driver's attributes above and below.
    if name.contains("H100") || name.contains("H200") {
        assert_eq!((major, minor), (9, 0), "{name}");
        assert!(text.contains("compute capability 9.0"), "{text}");
    }
    let out = Command::new(cuprite_bin()?)
        .args(["info", "--json"])
        .output_within(CHILD_LIMIT)?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let dev = &v["devices"][0];
    assert_eq!(dev["multiprocessors"], sms);
    assert_eq!(dev["compute_capability"], format!("{major}.{minor}"));
    assert_eq!(dev["total_memory_bytes"], d.total_memory()?);
    assert_eq!(dev["warp_size"], 32);
    assert!(
        dev["l2_cache_bytes"].as_i64().is_some_and(|x| x > 1 << 20),
        "{dev}"
    );
    assert!(
        dev["memory_bus_width_bits"]
            .as_i64()
            .is_some_and(|x| x >= 64),
        "{dev}"
    );
    assert!(
        dev["shared_memory_per_multiprocessor_bytes"]
            .as_i64()
            .is_some_and(|x| x >= 48 << 10),
        "{dev}"
    );
    // Every attribute, on request, agrees with the library's answers.
    let out = Command::new(cuprite_bin()?)
        .args(["info", "--json", "--all-attributes"])
        .output_within(CHILD_LIMIT)?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let all = v["devices"][0]["attributes"]
        .as_object()
        .ok_or("no attributes object")?;
    assert_eq!(all.len(), d.attributes().len());
    assert_eq!(all["multiprocessor_count"], sms);
    assert_eq!(all["compute_capability_major"], major);
    assert_eq!(all["warp_size"], 32);
    // The backend line is the array library's own choice, so its override shows.
    let out = Command::new(cuprite_bin()?)
        .args(["info", "--json"])
        .env("CUPRITE_BACKEND", "cpu")
        .output_within(CHILD_LIMIT)?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(v["backend"], "cpu");
    assert_eq!(
        v["devices"].as_array().map(Vec::len),
        Some(Device::count()?)
    );
    println!("{text}");
    Ok(())
}
