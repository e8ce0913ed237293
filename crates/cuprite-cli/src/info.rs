//! `cuprite info`: what this machine offers cuprite.
//!
//! Owns gathering the facts (driver, devices and their main attributes, which CUDA libraries
//! were found and where, the array backend that would be used) and printing them as text or
//! JSON. It must never fail for want of a GPU: a machine without a driver is a normal answer.

use cuprite_driver::{Device, DeviceAttribute, Error};
use cuprite_sys::loader::{DynLibrary, LoadError, candidates};
use serde_json::{Value, json};

/// Everything `cuprite info` reports.
#[derive(Debug, Clone)]
pub struct Info {
    /// cuprite's version.
    pub version: &'static str,
    /// The driver: its file and CUDA version, or why it is unusable.
    pub driver: DriverInfo,
    /// Every device, in ordinal order.
    pub devices: Vec<DeviceInfo>,
    /// The CUDA libraries cuprite knows, found or not.
    pub libraries: Vec<LibraryInfo>,
    /// `"cuda"` when a device exists, else `"cpu"`.
    pub backend: &'static str,
}

/// The driver's state.
#[derive(Debug, Clone)]
pub enum DriverInfo {
    /// Loaded and initialised.
    Found {
        /// The file it was loaded from.
        path: String,
        /// The CUDA version it supports.
        cuda_version: (u32, u32),
    },
    /// No driver library could be opened.
    NotFound {
        /// Every place tried, with the loader's reason.
        tried: Vec<String>,
    },
    /// The library is there but cannot be used (cuInit failed, a symbol is missing...).
    Unusable {
        /// The file, if it was opened.
        path: Option<String>,
        /// Why.
        error: String,
    },
}

/// One device's main properties.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// Ordinal.
    pub ordinal: usize,
    /// Marketing name.
    pub name: String,
    /// `GPU-xxxxxxxx-...`.
    pub uuid: String,
    /// `0000:18:00.0`.
    pub pci_bus_id: String,
    /// `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Total memory, bytes.
    pub total_memory: usize,
    /// `(attribute label, JSON key, value, unit)` for the attributes shown.
    pub attributes: Vec<(&'static str, &'static str, i64, &'static str)>,
    /// An error met while reading attributes, if any.
    pub error: Option<String>,
    /// Every attribute the driver answers (`CU_DEVICE_ATTRIBUTE_*` name, value), when asked.
    pub all_attributes: Vec<(String, i32)>,
}

/// One library's state.
#[derive(Debug, Clone)]
pub struct LibraryInfo {
    /// Short name, e.g. `libnvrtc`.
    pub name: &'static str,
    /// The override variable.
    pub env_var: &'static str,
    /// The file it was loaded from, when found.
    pub path: Option<String>,
    /// The library's version when cuprite can ask it (NVRTC, driver).
    pub version: Option<String>,
    /// What cuprite does with it.
    pub role: &'static str,
    /// Places tried when not found.
    pub tried: Vec<String>,
}

/// The attributes `cuprite info` shows: label, JSON key, attribute, scale (divide by), unit.
const SHOWN: &[(&str, &str, DeviceAttribute, i64, &str)] = &[
    (
        "SMs",
        "multiprocessors",
        DeviceAttribute::MultiprocessorCount,
        1,
        "",
    ),
    (
        "SM clock",
        "clock_mhz",
        DeviceAttribute::ClockRate,
        1000,
        "MHz",
    ),
    (
        "memory clock",
        "memory_clock_mhz",
        DeviceAttribute::MemoryClockRate,
        1000,
        "MHz",
    ),
    (
        "memory bus width",
        "memory_bus_width_bits",
        DeviceAttribute::GlobalMemoryBusWidth,
        1,
        "bits",
    ),
    (
        "L2 cache",
        "l2_cache_bytes",
        DeviceAttribute::L2CacheSize,
        1,
        "bytes",
    ),
    (
        "max threads per block",
        "max_threads_per_block",
        DeviceAttribute::MaxThreadsPerBlock,
        1,
        "",
    ),
    (
        "max threads per SM",
        "max_threads_per_multiprocessor",
        DeviceAttribute::MaxThreadsPerMultiprocessor,
        1,
        "",
    ),
    ("warp size", "warp_size", DeviceAttribute::WarpSize, 1, ""),
    (
        "shared memory per block",
        "shared_memory_per_block_bytes",
        DeviceAttribute::MaxSharedMemoryPerBlock,
        1,
        "bytes",
    ),
    (
        "shared memory per block (opt-in)",
        "shared_memory_per_block_optin_bytes",
        DeviceAttribute::MaxSharedMemoryPerBlockOptin,
        1,
        "bytes",
    ),
    (
        "shared memory per SM",
        "shared_memory_per_multiprocessor_bytes",
        DeviceAttribute::MaxSharedMemoryPerMultiprocessor,
        1,
        "bytes",
    ),
    (
        "registers per block",
        "registers_per_block",
        DeviceAttribute::MaxRegistersPerBlock,
        1,
        "",
    ),
    ("ECC", "ecc_enabled", DeviceAttribute::EccEnabled, 1, "bool"),
    (
        "concurrent managed access",
        "concurrent_managed_access",
        DeviceAttribute::ConcurrentManagedAccess,
        1,
        "",
    ),
];

/// Gathers everything. Never fails: missing pieces are reported in the result.
pub fn gather() -> Info {
    gather_with(false)
}

/// Like [`gather`], also reading every device attribute when `all_attributes`.
pub fn gather_with(all_attributes: bool) -> Info {
    let driver = driver_info();
    let mut devices = Vec::new();
    if matches!(driver, DriverInfo::Found { .. })
        && let Ok(all) = Device::all()
    {
        devices = all.iter().map(|d| device_info(d, all_attributes)).collect();
    }
    let libraries = cuprite_sys::libraries::all()
        .into_iter()
        .map(library_info)
        .collect();
    Info {
        version: env!("CARGO_PKG_VERSION"),
        backend: cuprite_array::default_backend_name(),
        driver,
        devices,
        libraries,
    }
}

fn driver_info() -> DriverInfo {
    let lib = &cuprite_sys::driver::LIBRARY;
    let path = match lib.path() {
        Ok(p) => p.to_string(),
        Err(LoadError::LibraryNotFound { tried, .. }) => return DriverInfo::NotFound { tried },
        Err(e) => {
            return DriverInfo::Unusable {
                path: None,
                error: e.to_string(),
            };
        }
    };
    match cuprite_driver::driver_version() {
        Ok(v) => DriverInfo::Found {
            path,
            cuda_version: v,
        },
        Err(e) => DriverInfo::Unusable {
            path: Some(path),
            error: e.to_string(),
        },
    }
}

fn device_info(d: &Device, all_attributes: bool) -> DeviceInfo {
    let mut error = None;
    let mut note = |e: Error| {
        if error.is_none() {
            error = Some(e.to_string());
        }
    };
    let name = d.name().unwrap_or_else(|e| {
        note(e);
        String::new()
    });
    let uuid = d.uuid().unwrap_or_else(|e| {
        note(e);
        String::new()
    });
    let pci_bus_id = d.pci_bus_id().unwrap_or_else(|e| {
        note(e);
        String::new()
    });
    let compute_capability = d.compute_capability().unwrap_or_else(|e| {
        note(e);
        (0, 0)
    });
    let total_memory = d.total_memory().unwrap_or_else(|e| {
        note(e);
        0
    });
    let mut attributes = Vec::new();
    for &(label, key, attr, scale, unit) in SHOWN {
        match d.attribute(attr) {
            Ok(v) => attributes.push((label, key, i64::from(v) / scale, unit)),
            Err(e) => note(e),
        }
    }
    let all_attributes = if all_attributes {
        d.attributes()
            .into_iter()
            .map(|(a, v)| (attribute_name(a), v))
            .collect()
    } else {
        Vec::new()
    };
    DeviceInfo {
        all_attributes,
        ordinal: d.ordinal(),
        name,
        uuid,
        pci_bus_id,
        compute_capability,
        total_memory,
        attributes,
        error,
    }
}

/// `MaxThreadsPerBlock` → `max_threads_per_block`.
fn attribute_name(a: DeviceAttribute) -> String {
    let debug = format!("{a:?}");
    let mut out = String::with_capacity(debug.len() + 8);
    for (i, c) in debug.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn library_info(lib: &'static DynLibrary) -> LibraryInfo {
    let name = lib.name();
    let role = match name {
        "libcuda" => "driver API (every GPU call)",
        "libnvrtc" => "run-time compilation of kernels",
        "libcublas" | "libcublasLt" => "optional: cuBLAS, matrix products",
        "libcurand" => "optional: cuRAND, random numbers",
        "libcufft" => "optional: cuFFT, Fourier transforms",
        "libcusparse" => "optional: cuSPARSE, sparse matrix products",
        "libcudnn" => "optional: cuDNN 9, neural-network convolution and pooling",
        "libnccl" => "optional: NCCL, collectives across GPUs",
        _ => "optional",
    };
    let (path, tried) = match lib.path() {
        Ok(p) => (Some(p.to_string()), Vec::new()),
        Err(LoadError::LibraryNotFound { tried, .. }) => (None, tried),
        Err(e) => (None, vec![e.to_string()]),
    };
    let version = if path.is_none() {
        None
    } else {
        match name {
            "libnvrtc" => cuprite_driver::nvrtc::version()
                .ok()
                .map(|(a, b)| format!("{a}.{b}")),
            "libcuda" => cuprite_driver::driver_version()
                .ok()
                .map(|(a, b)| format!("CUDA {a}.{b}")),
            "libcudnn" => cuprite_driver::dnn::version()
                .ok()
                .map(|(a, b, c)| format!("{a}.{b}.{c}")),
            _ => None,
        }
    };
    LibraryInfo {
        name,
        env_var: lib.spec().env_var,
        path,
        version,
        role,
        tried,
    }
}

/// The places tried for the driver, short form for the message: the file names or paths only,
/// without the loader's reasons, one per line.
fn short_places(tried: &[String]) -> String {
    let places: Vec<&str> = tried
        .iter()
        .map(|t| t.split(": ").next().unwrap_or(t))
        .collect();
    if places.is_empty() {
        // Nothing was tried: say what would have been.
        return candidates(&cuprite_sys::driver::SPEC)
            .iter()
            .map(|c| format!("    {}", c.to_string_lossy()))
            .collect::<Vec<_>>()
            .join("\n");
    }
    places
        .iter()
        .map(|p| format!("    {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn fmt_bytes(b: i64) -> String {
    let b = b as f64;
    if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else if b >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    } else if b >= 1024.0 {
        format!("{:.0} KiB", b / 1024.0)
    } else {
        format!("{b} bytes")
    }
}

impl Info {
    /// Why no device can be used, when none can (else `None`): a first line that says so and
    /// that the CPU backend will be used, then indented details (for a missing driver, each
    /// place looked in on its own line).
    pub fn no_gpu_message(&self) -> Option<String> {
        match &self.driver {
            DriverInfo::NotFound { tried } => Some(format!(
                "No CUDA driver found (libcuda). The CPU backend will be used.\n  \
                 Looked in (set CUPRITE_CUDA_PATH to the library or its folder to choose):\n{}",
                short_places(tried)
            )),
            DriverInfo::Unusable { path, error } => Some(format!(
                "The CUDA driver{} cannot be used. The CPU backend will be used.\n  {}",
                path.as_ref()
                    .map(|p| format!(" at {p}"))
                    .unwrap_or_default(),
                error.replace('\n', "\n  ")
            )),
            DriverInfo::Found { cuda_version, .. } if self.devices.is_empty() => Some(format!(
                "The CUDA driver (CUDA {}.{}) reports no device. The CPU backend will be used.",
                cuda_version.0, cuda_version.1
            )),
            DriverInfo::Found { .. } => None,
        }
    }

    /// The report as text.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let mut line = |l: String| {
            s.push_str(&l);
            s.push('\n');
        };
        line(format!("cuprite {}", self.version));
        if let Some(l) = self.no_gpu_message() {
            line(l);
        }
        if let DriverInfo::Found { path, cuda_version } = &self.driver {
            line(format!(
                "driver: CUDA {}.{} ({path})",
                cuda_version.0, cuda_version.1
            ));
        }
        for d in &self.devices {
            line(format!(
                "device {}: {} (compute capability {}.{}, {})",
                d.ordinal,
                d.name,
                d.compute_capability.0,
                d.compute_capability.1,
                fmt_bytes(d.total_memory as i64)
            ));
            line(format!("  uuid: {}", d.uuid));
            line(format!("  PCI bus id: {}", d.pci_bus_id));
            for (label, _, v, unit) in &d.attributes {
                let value = match *unit {
                    "bytes" => fmt_bytes(*v),
                    "bool" => if *v != 0 { "yes" } else { "no" }.to_string(),
                    "" => v.to_string(),
                    u => format!("{v} {u}"),
                };
                line(format!("  {label}: {value}"));
            }
            if let Some(e) = &d.error {
                line(format!("  (some properties could not be read: {e})"));
            }
            if !d.all_attributes.is_empty() {
                line(format!("  all {} attributes:", d.all_attributes.len()));
                for (name, v) in &d.all_attributes {
                    line(format!("    {name}: {v}"));
                }
            }
        }
        line("libraries:".to_string());
        for l in &self.libraries {
            match &l.path {
                Some(p) => line(format!(
                    "  {:<12} found{}: {p} — {}",
                    l.name,
                    l.version
                        .as_ref()
                        .map(|v| format!(" ({v})"))
                        .unwrap_or_default(),
                    l.role
                )),
                None => line(format!(
                    "  {:<12} not found ({} places tried; set {} to a file or folder) — {}",
                    l.name,
                    l.tried.len(),
                    l.env_var,
                    l.role
                )),
            }
        }
        line(format!("array backend: {}", self.backend));
        s
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        let driver = match &self.driver {
            DriverInfo::Found { path, cuda_version } => json!({
                "found": true,
                "path": path,
                "cuda_version": format!("{}.{}", cuda_version.0, cuda_version.1),
            }),
            DriverInfo::NotFound { tried } => json!({
                "found": false,
                "tried": tried,
            }),
            DriverInfo::Unusable { path, error } => json!({
                "found": path.is_some(),
                "path": path,
                "error": error,
            }),
        };
        let devices: Vec<Value> = self
            .devices
            .iter()
            .map(|d| {
                let mut v = json!({
                    "ordinal": d.ordinal,
                    "name": d.name,
                    "uuid": d.uuid,
                    "pci_bus_id": d.pci_bus_id,
                    "compute_capability": format!("{}.{}", d.compute_capability.0, d.compute_capability.1),
                    "total_memory_bytes": d.total_memory,
                });
                for (_, key, value, _) in &d.attributes {
                    v[*key] = json!(value);
                }
                if let Some(e) = &d.error {
                    v["error"] = json!(e);
                }
                if !d.all_attributes.is_empty() {
                    let all: serde_json::Map<String, Value> = d
                        .all_attributes
                        .iter()
                        .map(|(k, x)| (k.clone(), json!(x)))
                        .collect();
                    v["attributes"] = Value::Object(all);
                }
                v
            })
            .collect();
        let libraries: Vec<Value> = self
            .libraries
            .iter()
            .map(|l| {
                json!({
                    "name": l.name,
                    "found": l.path.is_some(),
                    "path": l.path,
                    "version": l.version,
                    "role": l.role,
                    "env_var": l.env_var,
                    "tried": l.tried,
                })
            })
            .collect();
        json!({
            "cuprite": self.version,
            "driver": driver,
            "message": self.no_gpu_message(),
            "devices": devices,
            "libraries": libraries,
            "backend": self.backend,
        })
    }
}
