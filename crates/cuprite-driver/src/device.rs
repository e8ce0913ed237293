//! CUDA devices: enumeration and properties.
//!
//! A [`Device`] is an ordinal plus the driver's device handle. It owns no resources; contexts,
//! streams and memory live in their own modules.

use crate::error::{Error, Result};
use crate::{drv, init};
use cuprite_sys::driver as sys;
use std::ffi::{CStr, c_char};

include!("device_attribute.rs");

/// One CUDA device.
///
/// ```
/// if let Ok(n) = cuprite_driver::Device::count() {
///     for i in 0..n {
///         let d = cuprite_driver::Device::get(i).unwrap();
///         println!("{i}: {} (sm_{}{})", d.name().unwrap(), d.compute_capability().unwrap().0,
///                  d.compute_capability().unwrap().1);
///     }
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    ordinal: usize,
    raw: sys::CUdevice,
}

impl Device {
    /// How many CUDA devices the driver sees.
    pub fn count() -> Result<usize> {
        init()?;
        let mut n = 0;
        // SAFETY: `n` is a valid out-pointer.
        unsafe { drv!(cuDeviceGetCount(&mut n)) }?;
        Ok(n as usize)
    }

    /// The device with this ordinal; `Err` naming how many exist when out of range.
    pub fn get(ordinal: usize) -> Result<Device> {
        let count = Self::count()?;
        if ordinal >= count {
            return Err(Error::InvalidArgument(format!(
                "device ordinal {ordinal} is out of range: this machine has {count} CUDA device(s)"
            )));
        }
        let mut raw = 0;
        // SAFETY: `raw` is a valid out-pointer and the ordinal is below the device count.
        unsafe { drv!(cuDeviceGet(&mut raw, ordinal as i32)) }?;
        Ok(Device { ordinal, raw })
    }

    /// Every device, in ordinal order.
    pub fn all() -> Result<Vec<Device>> {
        (0..Self::count()?).map(Self::get).collect()
    }

    /// The ordinal this device was opened with.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The driver's handle.
    pub fn raw(&self) -> sys::CUdevice {
        self.raw
    }

    /// The marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub fn name(&self) -> Result<String> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer is 256 bytes long, as passed.
        unsafe {
            drv!(cuDeviceGetName(
                buf.as_mut_ptr(),
                buf.len() as i32,
                self.raw
            ))
        }?;
        Ok(c_buf_to_string(&buf))
    }

    /// The device's UUID bytes.
    pub fn uuid_bytes(&self) -> Result<[u8; 16]> {
        let mut u = sys::CUuuid::default();
        // SAFETY: `u` is a valid out-pointer to a 16-byte CUuuid.
        unsafe { drv!(cuDeviceGetUuid_v2(&mut u, self.raw)) }?;
        Ok(u.bytes.map(|b| b as u8))
    }

    /// The UUID as `nvidia-smi` prints it: `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    pub fn uuid(&self) -> Result<String> {
        Ok(format_uuid(&self.uuid_bytes()?))
    }

    /// The PCI bus id, `domain:bus:device.function`, e.g. `0000:18:00.0`.
    pub fn pci_bus_id(&self) -> Result<String> {
        let mut buf = [0 as c_char; 64];
        // SAFETY: the buffer is 64 bytes long, as passed.
        unsafe {
            drv!(cuDeviceGetPCIBusId(
                buf.as_mut_ptr(),
                buf.len() as i32,
                self.raw
            ))
        }?;
        Ok(c_buf_to_string(&buf))
    }

    /// `(major, minor)`, e.g. `(9, 0)` for Hopper.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        Ok((
            self.attribute(DeviceAttribute::ComputeCapabilityMajor)? as u32,
            self.attribute(DeviceAttribute::ComputeCapabilityMinor)? as u32,
        ))
    }

    /// Total device memory in bytes.
    pub fn total_memory(&self) -> Result<usize> {
        let mut bytes = 0;
        // SAFETY: `bytes` is a valid out-pointer.
        unsafe { drv!(cuDeviceTotalMem_v2(&mut bytes, self.raw)) }?;
        Ok(bytes)
    }

    /// Number of streaming multiprocessors.
    pub fn multiprocessor_count(&self) -> Result<u32> {
        Ok(self.attribute(DeviceAttribute::MultiprocessorCount)? as u32)
    }

    /// One device attribute.
    pub fn attribute(&self, attr: DeviceAttribute) -> Result<i32> {
        let mut v = 0;
        // SAFETY: `v` is a valid out-pointer; the attribute selector comes from the typed enum.
        unsafe { drv!(cuDeviceGetAttribute(&mut v, attr.raw(), self.raw)) }?;
        Ok(v)
    }

    /// Every attribute this driver answers, with its value. Attributes the driver does not know
    /// (newer than it) are left out.
    pub fn attributes(&self) -> Vec<(DeviceAttribute, i32)> {
        DeviceAttribute::ALL
            .iter()
            .filter_map(|&a| self.attribute(a).ok().map(|v| (a, v)))
            .collect()
    }

    /// Whether this device can address `peer`'s memory directly.
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        let mut v = 0;
        // SAFETY: `v` is a valid out-pointer; both handles came from cuDeviceGet.
        unsafe { drv!(cuDeviceCanAccessPeer(&mut v, self.raw, peer.raw)) }?;
        Ok(v != 0)
    }
}

fn c_buf_to_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf.iter().map(|&c| c as u8).collect();
    CStr::from_bytes_until_nul(&bytes)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| String::from_utf8_lossy(&bytes).into_owned())
}

/// Formats 16 UUID bytes the way `nvidia-smi -L` does.
pub fn format_uuid(b: &[u8; 16]) -> String {
    let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        hex[0..4].concat(),
        hex[4..6].concat(),
        hex[6..8].concat(),
        hex[8..10].concat(),
        hex[10..16].concat()
    )
}
