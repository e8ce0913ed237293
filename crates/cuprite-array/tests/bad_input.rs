//! The array-level bad-input suite: each case is a call a user can make with a wrong argument
//! (designed from the public API: creation, views, broadcasting, reductions, indexing, padding,
//! joining, scans, products and decompositions, FFTs, row operations, interop, devices). Each
//! asserts the error's kind (the `Error` variant) and that its message names what was wrong,
//! that no panic escaped, and that the process and device still work afterwards (a small good
//! operation with its value checked). Every case runs on the CPU backend and on CUDA.

use cuprite_array::interop::{DLDataType, DLDevice, DLManagedTensor, DLPackTensor, DLTensor};
use cuprite_array::ops::fft::FftOpts;
use cuprite_array::ops::{ChoiceOpts, HistogramOpts, NormOpts};
use cuprite_array::shape::SliceArg;
use cuprite_array::{Array, Device, Error, c64, linalg, with_device};
use cuprite_testkit::{Test, TestResult};

type Case = fn(Device) -> Result<(), String>;

/// The variant name of an error (`Shape`, `Axis`, ...).
fn kind(e: &Error) -> String {
    let d = format!("{e:?}");
    d.split(['(', ':', ' ']).next().unwrap_or("").to_string()
}

/// `r` is an `Err` of exactly the variant `kinds[0]` whose message contains every needle (at
/// least one, naming the offending value). One kind only: a case that accepted several would
/// pass on a failure of another cause.
fn bad<T: std::fmt::Debug>(
    r: cuprite_array::Result<T>,
    kinds: &[&str],
    needles: &[&str],
) -> Result<(), String> {
    if kinds.len() != 1 || needles.is_empty() {
        return Err(format!(
            "a case names one kind and at least one needle, not {kinds:?} and {needles:?}"
        ));
    }
    match r {
        Ok(v) => Err(format!(
            "expected an Err ({kinds:?}) mentioning {needles:?}, got Ok({v:?})"
        )),
        Err(e) => {
            let (k, m) = (kind(&e), e.to_string());
            if k != kinds[0] {
                return Err(format!("expected an Err of kind {kinds:?}, got {k}: {m}"));
            }
            for n in needles {
                if !m.contains(n) {
                    return Err(format!("the Err {m:?} does not mention {n:?}"));
                }
            }
            Ok(())
        }
    }
}

fn f32s(d: Device, v: &[f32], shape: &[usize]) -> Result<Array<f32>, String> {
    Array::from_slice_on(d, v, shape).map_err(|e| e.to_string())
}

fn iota(d: Device, shape: &[usize]) -> Result<Array<f32>, String> {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n).map(|i| i as f32).collect();
    f32s(d, &v, shape)
}

fn e<T>(r: cuprite_array::Result<T>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

// ---- creation ----

fn from_slice_wrong_count(d: Device) -> Result<(), String> {
    bad(
        Array::from_slice_on(d, &[1.0f32, 2.0, 3.0], &[2, 2]),
        &["Shape"],
        &["3", "[2, 2]"],
    )
}

fn from_vec_overflowing_shape(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::<u8>::from_vec(vec![], &[usize::MAX, 2]),
            &["Shape"],
            &["18446744073709551615"],
        )
    })
}

fn zeros_overflowing_shape_eval(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::<f64>::zeros(&[1 << 40, 1 << 40]).eval(),
            &["Shape"],
            &["1099511627776"],
        )
    })
}

fn arange_zero_step(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::<i32>::arange(0, 10, 0),
            &["InvalidArgument"],
            &["step"],
        )
    })
}

fn arange_nan_bound(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::<f32>::arange(0.0, f32::NAN, 1.0),
            &["InvalidArgument"],
            &["NaN"],
        )
    })
}

fn eye_too_large(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(Array::<f32>::eye(1 << 40), &["Shape"], &["1099511627776"])
    })
}

fn diag_of_3d(d: Device) -> Result<(), String> {
    bad(iota(d, &[2, 2, 2])?.diag(), &["Shape"], &["3-D"])
}

fn rand_overflowing_shape(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::<f32>::rand_uniform(&[usize::MAX, 3], 1),
            &["Shape"],
            &["18446744073709551615"],
        )
    })
}

fn item_of_many(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2])?.item(),
        &["Shape"],
        &["the array has shape [2]"],
    )
}

// ---- reshape and views ----

fn reshape_wrong_count(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.reshape(&[4, 2]),
        &["Shape"],
        &["[2, 3]", "[4, 2]"],
    )
}

fn reshape_overflowing(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[4])?.reshape(&[(1usize << 62) + 1, 4]),
        &["Shape"],
        &["4611686018427387905"],
    )
}

fn permute_wrong_length(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.permute(&[0]),
        &["Axis"],
        &["[0] is not a permutation"],
    )
}

fn permute_repeated_axis(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.permute(&[1, 1]),
        &["Axis"],
        &["[1, 1] is not a permutation"],
    )
}

fn expand_dims_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.expand_dims(5),
        &["Axis"],
        &["axis 5 is out of range"],
    )
}

fn slice_zero_step(d: Device) -> Result<(), String> {
    let arg = SliceArg::Range {
        start: None,
        end: None,
        step: 0,
    };
    bad(
        iota(d, &[4])?.slice(&[arg]),
        &["Index"],
        &["slice step 0 on axis 0"],
    )
}

fn slice_too_many_axes(d: Device) -> Result<(), String> {
    let arg = SliceArg::Index(0);
    bad(
        iota(d, &[4])?.slice(&[arg, arg]),
        &["Index"],
        &["2 slice arguments for an array of 1 axes"],
    )
}

fn slice_index_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[4])?.slice(&[SliceArg::Index(-5)]),
        &["Index"],
        &["-5", "4"],
    )
}

fn flip_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[4])?.flip(&[1]),
        &["Axis"],
        &["axis 1 is out of range"],
    )
}

fn broadcast_incompatible(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[3])?.broadcast_to(&[2, 4]),
        &["Shape"],
        &["[3]", "[2, 4]"],
    )
}

fn broadcast_to_fewer_axes(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.broadcast_to(&[3]),
        &["Shape"],
        &["[2, 3]", "[3]"],
    )
}

fn tile_overflowing(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 2])?.tile(&[usize::MAX, 2]),
        &["Shape"],
        &["18446744073709551615"],
    )
}

fn roll_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(iota(d, &[2, 2])?.roll(1, -3), &["Axis"], &["axis -3"])
}

// ---- broadcasting in element-wise operations ----

fn add_incompatible(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.try_add(&iota(d, &[4])?),
        &["Shape"],
        &["[2, 3]", "[4]"],
    )
}

fn select_incompatible(d: Device) -> Result<(), String> {
    let c = Array::from_slice_on(d, &[true, false], &[2]).map_err(|e| e.to_string())?;
    bad(
        Array::select(&c, &iota(d, &[3])?, &iota(d, &[3])?),
        &["Shape"],
        &["[2]", "[3]"],
    )
}

// ---- reductions ----

fn sum_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.sum_axes(&[2]),
        &["Axis"],
        &["axis 2 is out of range"],
    )
}

fn sum_repeated_axis(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.sum_axes(&[1, -1]),
        &["Axis"],
        &["twice", "[1, -1]"],
    )
}

fn max_of_empty(d: Device) -> Result<(), String> {
    bad(iota(d, &[0, 3])?.max(), &["InvalidArgument"], &["empty"])
}

fn argmin_along_empty_axis(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[3, 0])?.argmin_axis(1),
        &["InvalidArgument"],
        &["empty"],
    )
}

fn var_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[3])?.var_axes(&[-2]),
        &["Axis"],
        &["axis -2 is out of range"],
    )
}

// ---- gather, pad, concat, cumsum ----

fn gather_2d_index(d: Device) -> Result<(), String> {
    let i = e(Array::from_slice_on(d, &[0i64, 1, 0, 1], &[2, 2]))?;
    bad(iota(d, &[3, 2])?.gather(0, &i), &["Shape"], &["[2, 2]"])
}

fn gather_axis_out_of_range(d: Device) -> Result<(), String> {
    let i = e(Array::from_slice_on(d, &[0i32], &[1]))?;
    bad(iota(d, &[3, 2])?.gather(2, &i), &["Axis"], &["axis 2"])
}

fn gather_from_empty_axis(d: Device) -> Result<(), String> {
    let i = e(Array::from_slice_on(d, &[0u8, 0], &[2]))?;
    bad(iota(d, &[3, 0])?.gather(1, &i), &["Index"], &["extent 0"])
}

fn pad_wrong_rank(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 2])?.pad(&[(1, 1)], 0.0),
        &["Shape"],
        &["1 for shape [2, 2]"],
    )
}

fn pad_overflowing_width(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2])?.pad(&[(usize::MAX, 1)], 0.0),
        &["Shape"],
        &["by [(18446744073709551615, 1)]"],
    )
}

fn concat_nothing(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::<f32>::concat(&[], 0),
            &["InvalidArgument"],
            &["concat of no arrays"],
        )
    })
}

fn concat_mismatched_extents(d: Device) -> Result<(), String> {
    let (a, b) = (iota(d, &[2, 3])?, iota(d, &[2, 4])?);
    bad(
        Array::concat(&[&a, &b], 0),
        &["Shape"],
        &["[2, 3]", "[2, 4]"],
    )
}

fn concat_axis_out_of_range(d: Device) -> Result<(), String> {
    let (a, b) = (iota(d, &[2, 3])?, iota(d, &[2, 3])?);
    bad(
        Array::concat(&[&a, &b], 2),
        &["Axis"],
        &["axis 2 is out of range"],
    )
}

fn cumsum_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(iota(d, &[2, 3])?.cumsum(-3), &["Axis"], &["axis -3"])
}

fn cumsum_of_complex(d: Device) -> Result<(), String> {
    let z = e(Array::from_slice_on(d, &[c64::new(1.0, 2.0)], &[1]))?;
    bad(z.cumsum(0), &["InvalidArgument"], &["cumsum", "c64"])
}

// ---- products and linear algebra ----

fn matmul_inner_mismatch(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 3])?.matmul(&iota(d, &[2, 3])?),
        &["Shape"],
        &["[2, 3]"],
    )
}

fn matmul_of_integers(d: Device) -> Result<(), String> {
    // Integer products are supported; contracted axes that differ are still an Err.
    let a = e(Array::from_slice_on(d, &[1i32, 2, 3, 4, 5, 6], &[2, 3]))?;
    bad(a.matmul(&a), &["Shape"], &["[2, 3]"])
}

fn matmul_of_scalars(d: Device) -> Result<(), String> {
    let a = e(Array::from_slice_on(d, &[2.0f32], &[]))?;
    bad(a.matmul(&a), &["Shape"], &["shapes [] and []"])
}

fn tensordot_axes_mismatch(d: Device) -> Result<(), String> {
    bad(
        linalg::tensordot(&iota(d, &[2, 3])?, &iota(d, &[3, 2])?, &[1], &[0, 1]),
        &["Axis"],
        &["[1]", "[0, 1]"],
    )
}

fn einsum_bad_spec(d: Device) -> Result<(), String> {
    bad(
        linalg::einsum("ij,jk->iq", &[&iota(d, &[2, 2])?, &iota(d, &[2, 2])?]),
        &["InvalidArgument"],
        &["output label 'q'"],
    )
}

fn solve_non_square(d: Device) -> Result<(), String> {
    bad(
        linalg::solve(&iota(d, &[2, 3])?, &iota(d, &[2])?),
        &["Shape"],
        &["[2, 3]"],
    )
}

fn inv_of_singular(d: Device) -> Result<(), String> {
    let a = f32s(d, &[1.0, 2.0, 2.0, 4.0], &[2, 2])?;
    bad(linalg::inv(&a), &["Singular"], &["singular"])
}

fn cholesky_not_positive_definite(d: Device) -> Result<(), String> {
    let a = f32s(d, &[1.0, 2.0, 2.0, 1.0], &[2, 2])?;
    bad(
        linalg::cholesky(&a),
        &["NotPositiveDefinite"],
        &["positive"],
    )
}

// ---- FFT ----

fn fft_length_zero(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[4])?.fft_with(FftOpts::new().n(0).axis(0)),
        &["InvalidArgument"],
        &["n = 0 points"],
    )
}

fn fft_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[4])?.rfft_with(FftOpts::new().axis(1)),
        &["Axis"],
        &["axis 1"],
    )
}

// ---- row operations ----

fn softmax_of_integers(d: Device) -> Result<(), String> {
    let a = e(Array::from_slice_on(d, &[1i64, 2], &[2]))?;
    bad(a.softmax(0), &["InvalidArgument"], &["not i64"])
}

fn softmax_axis_out_of_range(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2, 2])?.softmax(2),
        &["Axis"],
        &["axis 2 is out of range"],
    )
}

fn layer_norm_weight_shape(d: Device) -> Result<(), String> {
    let w = iota(d, &[3])?;
    bad(
        iota(d, &[2, 4])?.layer_norm_with(-1, NormOpts::new().weight(&w)),
        &["Shape"],
        &["[3]"],
    )
}

fn cross_entropy_targets_shape(d: Device) -> Result<(), String> {
    let t = e(Array::from_slice_on(d, &[0i64, 1, 1], &[3]))?;
    bad(iota(d, &[2, 4])?.cross_entropy(&t), &["Shape"], &["[3]"])
}

fn one_hot_of_negative_class(d: Device) -> Result<(), String> {
    let t = e(Array::from_slice_on(d, &[0i64, 1], &[2]))?;
    bad(
        t.one_hot::<f32>(0),
        &["InvalidArgument"],
        &["number of classes must be in 1..=i64::MAX, not 0"],
    )
}

// ---- interop ----

/// A host DLPack tensor of `ndim` axes with the given shape pointer, strides and dtype; the
/// arrays it points to live in the returned box with it. No deleter: nothing to free.
struct HostTensor {
    shape: Vec<i64>,
    strides: Vec<i64>,
    data: Vec<f32>,
    managed: DLManagedTensor,
}

fn host_tensor(
    ndim: i32,
    shape: Option<Vec<i64>>,
    strides: Option<Vec<i64>>,
    dtype: DLDataType,
    device_type: i32,
) -> Box<HostTensor> {
    let mut t = Box::new(HostTensor {
        shape: shape.clone().unwrap_or_default(),
        strides: strides.clone().unwrap_or_default(),
        data: vec![1.0; 16],
        managed: DLManagedTensor {
            dl_tensor: DLTensor {
                data: std::ptr::null_mut(),
                device: DLDevice {
                    device_type,
                    device_id: 0,
                },
                ndim,
                dtype,
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
            manager_ctx: std::ptr::null_mut(),
            deleter: None,
        },
    });
    t.managed.dl_tensor.data = t.data.as_mut_ptr().cast();
    if shape.is_some() {
        t.managed.dl_tensor.shape = t.shape.as_mut_ptr();
    }
    if strides.is_some() {
        t.managed.dl_tensor.strides = t.strides.as_mut_ptr();
    }
    t
}

const F32: DLDataType = DLDataType {
    code: 2,
    bits: 32,
    lanes: 1,
};

fn import(t: &mut HostTensor, d: Device) -> cuprite_array::Result<Array<f32>> {
    with_device(d, || {
        // SAFETY: `t` is a well-formed DLManagedTensor (its fields may describe a bad tensor,
        // which is what is tested) that outlives the call; no deleter runs.
        let p = unsafe { DLPackTensor::from_raw_legacy(&mut t.managed) }?;
        let a = Array::<f32>::from_dlpack(p)?;
        // Copied (host tensors are copied): nothing refers to `t` afterwards.
        a.eval()?;
        Ok(a)
    })
}

fn dlpack_null_shape(d: Device) -> Result<(), String> {
    let mut t = host_tensor(2, None, None, F32, 1);
    bad(import(&mut t, d), &["InvalidArgument"], &["null shape"])
}

fn dlpack_negative_extent(d: Device) -> Result<(), String> {
    let mut t = host_tensor(1, Some(vec![-4]), None, F32, 1);
    bad(import(&mut t, d), &["Shape"], &["negative extents [-4]"])
}

fn dlpack_overflowing_strides(d: Device) -> Result<(), String> {
    let mut t = host_tensor(2, Some(vec![2, 2]), Some(vec![i64::MAX, 1]), F32, 1);
    bad(
        import(&mut t, d),
        &["InvalidArgument"],
        &["strides [9223372036854775807, 1]"],
    )
}

fn dlpack_vector_lanes(d: Device) -> Result<(), String> {
    let dt = DLDataType {
        code: 2,
        bits: 32,
        lanes: 4,
    };
    let mut t = host_tensor(1, Some(vec![4]), None, dt, 1);
    bad(import(&mut t, d), &["InvalidArgument"], &["4 lane"])
}

fn dlpack_wrong_element_type(d: Device) -> Result<(), String> {
    let dt = DLDataType {
        code: 0,
        bits: 32,
        lanes: 1,
    };
    let mut t = host_tensor(1, Some(vec![4]), None, dt, 1);
    bad(import(&mut t, d), &["InvalidArgument"], &["i32", "f32"])
}

fn dlpack_unknown_device(d: Device) -> Result<(), String> {
    let mut t = host_tensor(1, Some(vec![4]), None, F32, 7);
    bad(import(&mut t, d), &["InvalidArgument"], &["kDLVulkan (7)"])
}

fn raw_host_pointer_as_device_pointer(d: Device) -> Result<(), String> {
    let mut host = vec![1.0f32; 4];
    with_device(d, || {
        // SAFETY: the call must refuse the pointer (host memory, or no CUDA device); nothing is
        // adopted, so `host` stays ours.
        let r = unsafe { Array::<f32>::new_from_device_ptr(host.as_mut_ptr(), &[4]) };
        if d == Device::CPU {
            bad(r, &["DeviceMismatch"], &["needs a CUDA device", "cpu:0"])
        } else {
            // Host memory: CUDA does not know it, or not as device memory.
            bad(
                r,
                &["InvalidArgument"],
                &[&format!("{:#x}", host.as_ptr() as u64)],
            )
        }
    })?;
    assert_eq!(host, [1.0; 4]);
    Ok(())
}

fn raw_null_pointer(d: Device) -> Result<(), String> {
    with_device(d, || {
        // SAFETY: a null pointer must be refused before anything reads it.
        let r = unsafe { Array::<f32>::new_from_device_ptr(std::ptr::null_mut(), &[4]) };
        if d == Device::CPU {
            bad(r, &["DeviceMismatch"], &["needs a CUDA device", "cpu:0"])
        } else {
            bad(r, &["InvalidArgument"], &["a null device pointer"])
        }
    })
}

/// A CPU array has no device memory; on CUDA, the view of a CPU array made while the CUDA
/// device is current is refused the same way (the array stays where it was made).
fn device_view_of_cpu_array(d: Device) -> Result<(), String> {
    with_device(d, || {
        let a = iota(Device::CPU, &[4])?;
        bad(
            a.device_view().map(|_| ()),
            &["DeviceMismatch"],
            &["the array lives on the CPU backend (cpu:0)"],
        )
    })
}

// ---- devices ----

/// Device 4093 of `d`'s backend does not exist: making it current is refused; on CUDA, so is
/// making an array there.
fn nonexistent_device(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            cuprite_array::set_device(4093),
            &["InvalidArgument"],
            &["device 4093 does not exist"],
        )
    })?;
    if d == Device::CPU {
        return Ok(());
    }
    with_device(Device::cuda(4093), || {
        bad(
            Array::from_slice(&[1.0f32], &[1]),
            &["InvalidArgument"],
            &["CUDA device 4093 does not exist"],
        )
    })
}

fn to_nonexistent_device(d: Device) -> Result<(), String> {
    bad(
        iota(d, &[2])?.to_device(Device::cuda(4093)),
        &["InvalidArgument"],
        &["CUDA device 4093 does not exist"],
    )
}

/// Mixing arrays of two devices: with a GPU, CPU and CUDA arrays; without one, the case
/// reduces to the other-device creation error.
fn mixed_devices(d: Device) -> Result<(), String> {
    if d == Device::CPU {
        return nonexistent_device(d);
    }
    let (a, b) = (iota(Device::CPU, &[2])?, iota(d, &[2])?);
    let (cpu, cuda) = (Device::CPU.to_string(), d.to_string());
    bad(a.try_add(&b), &["DeviceMismatch"], &[&cpu, &cuda])?;
    bad(
        Array::concat(&[&a, &b], 0),
        &["DeviceMismatch"],
        &[&cpu, &cuda],
    )?;
    bad(a.matmul(&b), &["DeviceMismatch"], &[&cpu, &cuda])
}

// ---- the suite ----

/// A small good operation with its value checked: the process and device still work.
fn still_usable(d: Device) -> Result<(), String> {
    let a = f32s(d, &[1.0, 2.0, 3.0, 4.0], &[2, 2])?;
    let s = e((&a * 2.0).sum_axes(&[0]))?;
    let v = e(s.to_vec())?;
    if v != [8.0, 12.0] {
        return Err(format!("after the bad call, a good one gave {v:?}"));
    }
    Ok(())
}

// ---- statistics and random indices ----

fn histogram_too_many_bins(d: Device) -> Result<(), String> {
    let a = iota(d, &[4])?;
    bad(
        a.histogram_with(1 << 40, HistogramOpts::new().range(0.0, 1.0)),
        &["InvalidArgument"],
        &["1099511627776", "bins"],
    )?;
    bad(
        a.histogram_with(usize::MAX, HistogramOpts::new().range(0.0, 1.0)),
        &["InvalidArgument"],
        &["18446744073709551615", "bins"],
    )
}

fn permutation_too_large(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::permutation(1 << 61, 1),
            &["InvalidArgument"],
            &["permutation", "2305843009213693952"],
        )
    })
}

fn choice_beyond_i64(d: Device) -> Result<(), String> {
    with_device(d, || {
        bad(
            Array::choice_with(usize::MAX, 3, 1, ChoiceOpts::new().replace(false)),
            &["InvalidArgument"],
            &["18446744073709551615", "i64"],
        )?;
        bad(
            Array::choice_with(3, usize::MAX, 1, ChoiceOpts::new().p(&[0.5, 0.25, 0.25])),
            &["InvalidArgument"],
            &["18446744073709551615 values"],
        )
    })
}

fn fftfreq_too_long(d: Device) -> Result<(), String> {
    bad(
        Array::<f64>::fftfreq_on(d, usize::MAX, 1.0),
        &["InvalidArgument"],
        &["fftfreq", "18446744073709551615"],
    )?;
    bad(
        Array::<f32>::rfftfreq_on(d, usize::MAX, 1.0),
        &["InvalidArgument"],
        &["rfftfreq", "9223372036854775808"],
    )
}

fn cpu_mesh_too_large(_: Device) -> Result<(), String> {
    bad(
        cuprite_array::mesh::Mesh::cpu(usize::MAX).map(|m| m.len()),
        &["InvalidArgument"],
        &["Mesh::cpu", "18446744073709551615"],
    )
}

const CASES: &[(&str, Case)] = &[
    ("from_slice_wrong_count", from_slice_wrong_count),
    ("from_vec_overflowing_shape", from_vec_overflowing_shape),
    ("zeros_overflowing_shape_eval", zeros_overflowing_shape_eval),
    ("arange_zero_step", arange_zero_step),
    ("arange_nan_bound", arange_nan_bound),
    ("eye_too_large", eye_too_large),
    ("diag_of_3d", diag_of_3d),
    ("rand_overflowing_shape", rand_overflowing_shape),
    ("item_of_many", item_of_many),
    ("reshape_wrong_count", reshape_wrong_count),
    ("reshape_overflowing", reshape_overflowing),
    ("permute_wrong_length", permute_wrong_length),
    ("permute_repeated_axis", permute_repeated_axis),
    ("expand_dims_out_of_range", expand_dims_out_of_range),
    ("slice_zero_step", slice_zero_step),
    ("slice_too_many_axes", slice_too_many_axes),
    ("slice_index_out_of_range", slice_index_out_of_range),
    ("flip_axis_out_of_range", flip_axis_out_of_range),
    ("broadcast_incompatible", broadcast_incompatible),
    ("broadcast_to_fewer_axes", broadcast_to_fewer_axes),
    ("tile_overflowing", tile_overflowing),
    ("roll_axis_out_of_range", roll_axis_out_of_range),
    ("add_incompatible", add_incompatible),
    ("select_incompatible", select_incompatible),
    ("sum_axis_out_of_range", sum_axis_out_of_range),
    ("sum_repeated_axis", sum_repeated_axis),
    ("max_of_empty", max_of_empty),
    ("argmin_along_empty_axis", argmin_along_empty_axis),
    ("var_axis_out_of_range", var_axis_out_of_range),
    ("gather_2d_index", gather_2d_index),
    ("gather_axis_out_of_range", gather_axis_out_of_range),
    ("gather_from_empty_axis", gather_from_empty_axis),
    ("pad_wrong_rank", pad_wrong_rank),
    ("pad_overflowing_width", pad_overflowing_width),
    ("concat_nothing", concat_nothing),
    ("concat_mismatched_extents", concat_mismatched_extents),
    ("concat_axis_out_of_range", concat_axis_out_of_range),
    ("cumsum_axis_out_of_range", cumsum_axis_out_of_range),
    ("cumsum_of_complex", cumsum_of_complex),
    ("matmul_inner_mismatch", matmul_inner_mismatch),
    ("matmul_of_integers", matmul_of_integers),
    ("matmul_of_scalars", matmul_of_scalars),
    ("tensordot_axes_mismatch", tensordot_axes_mismatch),
    ("einsum_bad_spec", einsum_bad_spec),
    ("solve_non_square", solve_non_square),
    ("inv_of_singular", inv_of_singular),
    (
        "cholesky_not_positive_definite",
        cholesky_not_positive_definite,
    ),
    ("fft_length_zero", fft_length_zero),
    ("fft_axis_out_of_range", fft_axis_out_of_range),
    ("softmax_of_integers", softmax_of_integers),
    ("softmax_axis_out_of_range", softmax_axis_out_of_range),
    ("layer_norm_weight_shape", layer_norm_weight_shape),
    ("cross_entropy_targets_shape", cross_entropy_targets_shape),
    ("one_hot_of_negative_class", one_hot_of_negative_class),
    ("dlpack_null_shape", dlpack_null_shape),
    ("dlpack_negative_extent", dlpack_negative_extent),
    ("dlpack_overflowing_strides", dlpack_overflowing_strides),
    ("dlpack_vector_lanes", dlpack_vector_lanes),
    ("dlpack_wrong_element_type", dlpack_wrong_element_type),
    ("dlpack_unknown_device", dlpack_unknown_device),
    (
        "raw_host_pointer_as_device_pointer",
        raw_host_pointer_as_device_pointer,
    ),
    ("raw_null_pointer", raw_null_pointer),
    ("device_view_of_cpu_array", device_view_of_cpu_array),
    ("nonexistent_device", nonexistent_device),
    ("to_nonexistent_device", to_nonexistent_device),
    ("mixed_devices", mixed_devices),
    ("histogram_too_many_bins", histogram_too_many_bins),
    ("permutation_too_large", permutation_too_large),
    ("choice_beyond_i64", choice_beyond_i64),
    ("fftfreq_too_long", fftfreq_too_long),
    ("cpu_mesh_too_large", cpu_mesh_too_large),
];

/// Cases whose call involves no device (host-side size checks before anything is made).
const DEVICE_FREE: &[&str] = &["cpu_mesh_too_large"];

fn run_case(name: &str, case: Case, d: Device) -> TestResult {
    let r = std::panic::catch_unwind(|| case(d));
    match r {
        Ok(Ok(())) => {}
        Ok(Err(m)) => return Err(format!("{name} on {d}: {m}").into()),
        Err(_) => return Err(format!("{name} on {d}: panicked instead of returning Err").into()),
    }
    still_usable(d).map_err(|m| format!("{name} on {d}: {m}").into())
}

pub fn tests() -> Vec<Test> {
    let mut v = Vec::new();
    for &(name, case) in CASES {
        v.push(Test::cpu(format!("cpu::bad_input::{name}"), move || {
            run_case(name, case, Device::CPU)
        }));
        // A case that never touches a device would only repeat its CPU run.
        if DEVICE_FREE.contains(&name) {
            continue;
        }
        v.push(Test::gpu(format!("cuda::bad_input::{name}"), move || {
            run_case(name, case, Device::cuda(0))
        }));
    }
    v
}
