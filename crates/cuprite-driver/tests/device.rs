use cuprite_driver::{Device, DeviceAttribute, Error};
use cuprite_testkit::{Test, TestResult};

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("device::uuid_format", uuid_format),
        Test::gpu("device::enumeration_matches_card", enumeration_matches_card),
        Test::gpu("device::ordinal_out_of_range", ordinal_out_of_range),
        Test::gpu("device::all_attributes_answer", all_attributes_answer),
    ]
}

fn uuid_format() -> TestResult {
    let b: [u8; 16] = core::array::from_fn(|i| (i * 17) as u8);
    assert_eq!(
        cuprite_driver::device::format_uuid(&b),
        "GPU-00112233-4455-6677-8899-aabbccddeeff"
    );
    Ok(())
}

fn enumeration_matches_card() -> TestResult {
    let n = Device::count()?;
    assert!(n >= 1);
    let d = Device::get(0)?;
    let name = d.name()?;
    assert!(!name.is_empty());
    let (major, minor) = d.compute_capability()?;
    assert!(major >= 5, "compute capability {major}.{minor}");
    let sms = d.multiprocessor_count()?;
    assert!(sms >= 1);
    let mem = d.total_memory()?;
    assert!(mem > 1 << 30, "total memory {mem}");
    // Each convenience getter agrees with the driver's own attribute, on any card.
    assert_eq!(
        (major as i32, minor as i32),
        (
            d.attribute(DeviceAttribute::ComputeCapabilityMajor)?,
            d.attribute(DeviceAttribute::ComputeCapabilityMinor)?
        )
    );
    assert_eq!(
        sms as i32,
        d.attribute(DeviceAttribute::MultiprocessorCount)?
    );
    assert_eq!(d.attribute(DeviceAttribute::WarpSize)?, 32);
    let ctx = cuprite_driver::Context::new(0)?;
    let (free, total) = ctx.mem_info()?;
    assert!(
        total <= mem && total >= mem - mem / 16,
        "cuMemGetInfo's total {total} against cuDeviceTotalMem's {mem}"
    );
    assert!(free <= total, "{free} free of {total}");
    // Every H100 (SXM, PCIe, NVL, a MIG slice) is compute capability 9.0; SM count and memory
    // size differ between them, so they are checked against the driver above, not here.
    if name.contains("H100") || name.contains("H200") {
        assert_eq!((major, minor), (9, 0), "{name}");
    }
    let uuid = d.uuid()?;
    assert_eq!(uuid.len(), 40, "{uuid}");
    assert!(uuid.starts_with("GPU-"));
    assert_ne!(d.uuid_bytes()?, [0u8; 16]);
    let bus = d.pci_bus_id()?;
    let parts: Vec<&str> = bus.split([':', '.']).collect();
    assert_eq!(parts.len(), 4, "{bus}");
    assert!(
        parts.iter().all(|p| u32::from_str_radix(p, 16).is_ok()),
        "{bus}"
    );
    let (v_major, _) = cuprite_driver::driver_version()?;
    assert!(v_major >= 11);
    Ok(())
}

fn ordinal_out_of_range() -> TestResult {
    let n = Device::count()?;
    match Device::get(n + 3) {
        Err(Error::InvalidArgument(msg)) => {
            assert!(msg.contains(&format!("{n} CUDA device")), "{msg}");
            Ok(())
        }
        other => Err(format!("expected InvalidArgument, got {other:?}").into()),
    }
}

fn all_attributes_answer() -> TestResult {
    let d = Device::get(0)?;
    let attrs = d.attributes();
    assert!(
        attrs.len() > 100,
        "only {} attributes answered",
        attrs.len()
    );
    let warp = d.attribute(DeviceAttribute::WarpSize)?;
    assert_eq!(warp, 32);
    let tpb = d.attribute(DeviceAttribute::MaxThreadsPerBlock)?;
    assert_eq!(tpb, 1024);
    Ok(())
}
