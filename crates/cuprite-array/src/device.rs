//! Backends and devices: which one array work runs on, per thread.
//!
//! CUDA is chosen when a driver and a device exist, else the CPU; `CUPRITE_BACKEND=cpu|cuda`
//! overrides. Each thread has a current device ([`set_device`]/[`get_device`]); arrays remember
//! the device they were made on, and mixing devices in one operation is an `Err`.

use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::OnceLock;

/// Where array data lives and work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// All CPU cores, with rayon.
    Cpu,
    /// An NVIDIA GPU, through cuprite's driver layer.
    Cuda,
}

impl Backend {
    /// `"cpu"` or `"cuda"`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
}

/// One device of one backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    /// The backend.
    pub backend: Backend,
    /// The device's ordinal within its backend (always 0 for the CPU).
    pub ordinal: usize,
}

impl Device {
    /// The CPU.
    pub const CPU: Device = Device {
        backend: Backend::Cpu,
        ordinal: 0,
    };

    /// CUDA device `ordinal`.
    pub const fn cuda(ordinal: usize) -> Device {
        Device {
            backend: Backend::Cuda,
            ordinal,
        }
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.backend.name(), self.ordinal)
    }
}

/// CUDA devices present (0 without a driver), counted once.
pub(crate) fn cuda_device_count() -> usize {
    static N: OnceLock<usize> = OnceLock::new();
    *N.get_or_init(|| cuprite_driver::Device::count().unwrap_or(0))
}

/// The backend chosen for this process: `CUPRITE_BACKEND` if set (`cpu` or `cuda`), else CUDA
/// when a driver with a device is present, else the CPU.
pub fn default_backend() -> Backend {
    static B: OnceLock<Backend> = OnceLock::new();
    *B.get_or_init(|| {
        let auto = || {
            if cuda_device_count() > 0 {
                Backend::Cuda
            } else {
                Backend::Cpu
            }
        };
        match std::env::var("CUPRITE_BACKEND").as_deref() {
            Ok("cpu") => Backend::Cpu,
            Ok("cuda") => Backend::Cuda,
            Ok("") | Err(_) => auto(),
            Ok(other) => {
                let chosen = auto();
                eprintln!(
                    "cuprite-array: CUPRITE_BACKEND={other:?} is not a backend (use \"cpu\" or \
                     \"cuda\"); using the {} backend",
                    chosen.name()
                );
                chosen
            }
        }
    })
}

/// The name of [`default_backend`], for `cuprite info`.
///
/// ```
/// let b = cuprite_array::default_backend_name();
/// assert!(b == "cpu" || b == "cuda");
/// ```
pub fn default_backend_name() -> &'static str {
    default_backend().name()
}

thread_local! {
    static CURRENT: Cell<Option<Device>> = const { Cell::new(None) };
}

/// This thread's current device (initially device 0 of [`default_backend`]).
pub fn current_device() -> Device {
    CURRENT.with(|c| {
        c.get().unwrap_or(Device {
            backend: default_backend(),
            ordinal: 0,
        })
    })
}

/// Number of devices of the current backend (1 for the CPU).
///
/// ```
/// assert!(cuprite_array::device_count() >= 1 || cuprite_array::default_backend_name() == "cuda");
/// ```
pub fn device_count() -> usize {
    match current_device().backend {
        Backend::Cpu => 1,
        Backend::Cuda => cuda_device_count(),
    }
}

/// Makes device `ordinal` of the current backend this thread's current device.
pub fn set_device(ordinal: usize) -> Result<()> {
    let b = current_device().backend;
    let n = match b {
        Backend::Cpu => 1,
        Backend::Cuda => cuda_device_count(),
    };
    if ordinal >= n {
        return Err(Error::InvalidArgument(format!(
            "device {ordinal} does not exist: the {} backend has {n} device(s)",
            b.name()
        )));
    }
    CURRENT.with(|c| {
        c.set(Some(Device {
            backend: b,
            ordinal,
        }))
    });
    Ok(())
}

/// The ordinal of this thread's current device.
pub fn get_device() -> usize {
    current_device().ordinal
}

/// Switches this thread to `backend` (device 0). CUDA without a device is an `Err`.
///
/// ```
/// cuprite_array::set_backend(cuprite_array::Backend::Cpu).unwrap();
/// assert_eq!(cuprite_array::current_device(), cuprite_array::Device::CPU);
/// ```
pub fn set_backend(backend: Backend) -> Result<()> {
    if backend == Backend::Cuda && cuda_device_count() == 0 {
        return Err(Error::InvalidArgument(
            "the CUDA backend needs a driver and a device, and none was found".into(),
        ));
    }
    CURRENT.with(|c| {
        c.set(Some(Device {
            backend,
            ordinal: 0,
        }))
    });
    Ok(())
}

/// Runs `f` with this thread's current device set to `device`, restoring it after.
pub fn with_device<R>(device: Device, f: impl FnOnce() -> R) -> R {
    let prev = CURRENT.with(|c| c.replace(Some(device)));
    struct Restore(Option<Device>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _r = Restore(prev);
    f()
}

/// A description of the backend and current device.
///
/// ```
/// println!("{}", cuprite_array::info());
/// ```
pub fn info() -> String {
    let d = current_device();
    match d.backend {
        Backend::Cpu => {
            let n = rayon::current_num_threads();
            format!(
                "cuprite-array {} on the CPU backend: {n} rayon thread{}",
                env!("CARGO_PKG_VERSION"),
                if n == 1 { "" } else { "s" }
            )
        }
        Backend::Cuda if cuda_device_count() == 0 => format!(
            "cuprite-array {} on the CUDA backend, but no CUDA device was found: array work \
             will fail until one is (or set CUPRITE_BACKEND=cpu)",
            env!("CARGO_PKG_VERSION")
        ),
        Backend::Cuda => {
            let dev = cuprite_driver::Device::get(d.ordinal);
            let name = dev
                .as_ref()
                .ok()
                .and_then(|x| x.name().ok())
                .unwrap_or_else(|| "unknown".into());
            let cc = dev
                .as_ref()
                .ok()
                .and_then(|x| x.compute_capability().ok())
                .map(|(a, b)| format!("sm_{a}{b}"))
                .unwrap_or_default();
            let mem = dev
                .as_ref()
                .ok()
                .and_then(|x| x.total_memory().ok())
                .unwrap_or(0);
            format!(
                "cuprite-array {} on CUDA device {} of {}: {name} ({cc}, {} MiB)",
                env!("CARGO_PKG_VERSION"),
                d.ordinal,
                cuda_device_count(),
                mem >> 20
            )
        }
    }
}
