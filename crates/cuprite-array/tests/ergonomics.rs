//! Ergonomics and fallibility: `array!` literals, `*_like` constants, compound assignment
//! (copy-on-write), and the `try_*` forms of every operator that panics, with the panicking
//! form reporting the caller's line.

use cuprite_array::{Array, Device, array, with_device};
use cuprite_testkit::{Test, TestResult};

pub fn tests() -> Vec<Test> {
    vec![
        Test::cpu("ergonomics::cpu::literals_and_like", || {
            literals_and_like(Device::CPU)
        }),
        Test::gpu("ergonomics::cuda::literals_and_like", || {
            literals_and_like(Device::cuda(0))
        }),
        Test::cpu("ergonomics::cpu::compound_assignment", || {
            compound_assignment(Device::CPU)
        }),
        Test::gpu("ergonomics::cuda::compound_assignment", || {
            compound_assignment(Device::cuda(0))
        }),
        Test::cpu("ergonomics::try_forms_and_caller_line", try_forms),
    ]
}

fn literals_and_like(d: Device) -> TestResult {
    with_device(d, || {
        let m = array![[1.5f64, -2.0], [3.0, 4.25], [0.0, 7.0]]?;
        assert_eq!(m.shape(), &[3, 2]);
        assert_eq!(m.device(), d);
        assert_eq!(m.to_vec()?, vec![1.5, -2.0, 3.0, 4.25, 0.0, 7.0]);
        let t = array![[[1i16], [2]], [[3], [4]]]?;
        assert_eq!((t.shape(), t.to_vec()?), (&[2, 2, 1][..], vec![1, 2, 3, 4]));
        let e = array![[1u8, 2], [3, 4, 5]].unwrap_err().to_string();
        assert!(e.contains("row 1") && e.contains('3'), "{e}");
        let z: Array<i32> = Array::zeros_like(&m);
        assert_eq!((z.shape(), z.device()), (&[3, 2][..], d));
        assert_eq!(z.to_vec()?, vec![0; 6]);
        assert_eq!(Array::<f32>::ones_like(&t).to_vec()?, vec![1.0; 4]);
        assert_eq!(Array::full_like(&m, 2.5f64).to_vec()?, vec![2.5; 6]);
        Ok(())
    })
}

fn compound_assignment(d: Device) -> TestResult {
    with_device(d, || {
        let xs = [7i32, -7, 12, -12];
        let mut a = Array::from_slice(&xs, &[4])?;
        let before = a.clone();
        let view = a.slice(&cuprite_array::s![1..])?;
        a += 3;
        a *= &Array::from_slice(&[2, 2, -1, -1], &[4])?;
        a -= Array::from_slice(&[1, 1, 1, 1], &[4])?;
        a %= 5;
        let want: Vec<i32> = xs
            .iter()
            .zip([2, 2, -1, -1])
            .map(|(x, m)| ((x + 3) * m - 1).rem_euclid(5))
            .collect();
        assert_eq!(a.to_vec()?, want);
        assert_eq!(before.to_vec()?, xs.to_vec());
        assert_eq!(view.to_vec()?, xs[1..].to_vec());
        let mut b = Array::from_slice(&[0b1100u8, 0b1010], &[2])?;
        b &= 0b0110;
        b |= 0b0001;
        b ^= 0b1000;
        b <<= 1;
        b >>= 2;
        assert_eq!(
            b.to_vec()?,
            vec![
                (((0b1100 & 6) | 1) ^ 8) << 1 >> 2,
                (((0b1010 & 6) | 1) ^ 8) << 1 >> 2
            ]
        );
        let mut f = Array::from_slice(&[1.0f32, 4.0], &[2])?;
        f /= 2.0;
        assert_eq!(f.to_vec()?, vec![0.5, 2.0]);
        // Broadcasting the target itself is refused, as NumPy's in-place operators do.
        let mut row = Array::<f32>::zeros(&[3]);
        let big = Array::<f32>::ones(&[2, 3]);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| row += &big));
        assert!(r.is_err());
        Ok(())
    })
}

fn try_forms() -> TestResult {
    let a = Array::from_slice_on(Device::CPU, &[1i32, 2, 3], &[3])?;
    let b = Array::from_slice_on(Device::CPU, &[1i32, 2], &[2])?;
    let errs = [
        a.try_less(&b).err(),
        a.try_less_equal(&b).err(),
        a.try_greater(&b).err(),
        a.try_greater_equal(&b).err(),
        a.try_equal(&b).err(),
        a.try_not_equal(&b).err(),
    ];
    let more = [
        a.try_rem(&b).err(),
        a.try_fmod(&b).err(),
        a.try_pow(&b).err(),
        a.try_minimum(&b).err(),
        a.try_maximum(&b).err(),
        a.try_bitand(&b).err(),
        a.try_bitor(&b).err(),
        a.try_bitxor(&b).err(),
        a.try_shl(&b).err(),
        a.try_shr(&b).err(),
    ];
    for e in errs.iter().chain(&more) {
        let e = e.as_ref().expect("a shape mismatch is an Err").to_string();
        assert!(e.contains("[3]") && e.contains("[2]"), "{e}");
    }
    assert_eq!(a.try_less(2)?.to_vec()?, vec![true, false, false]);
    // The panicking form reports the caller's line, not the library's.
    let line = line!() + 1;
    let p = std::panic::catch_unwind(|| a.less(&b));
    assert!(p.is_err());
    let hook = std::panic::take_hook();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(None));
    let s2 = seen.clone();
    std::panic::set_hook(Box::new(move |info| {
        *s2.lock().unwrap() = info.location().map(|l| (l.file().to_string(), l.line()));
    }));
    let here = line!() + 1;
    let _ = std::panic::catch_unwind(|| &a % &b);
    std::panic::set_hook(hook);
    let got = seen.lock().unwrap().clone();
    assert_eq!(
        got,
        Some((file!().to_string(), here)),
        "panic location (line {line} too)"
    );
    Ok(())
}
