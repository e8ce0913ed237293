use cuprite_array::{Array, s};

fn main() -> cuprite_array::Result<()> {
    // CUDA when a driver and a GPU are present, else all CPU cores (CUPRITE_BACKEND=cpu|cuda).
    println!("{}", cuprite_array::info());
    let a = Array::<f32>::rand_uniform(&[1024, 1024], 1)?; // Philox: same numbers on CPU and GPU
    let b = Array::<f32>::rand_normal(&[1024], 2)?;
    let c = Array::full(&[1024, 1], 0.5f32);

    // Lazy: nothing runs yet. Broadcasting [1024,1024] x [1024] x [1024,1].
    let y = (&a * &b + &c).sin() * b.exp() - &a / 2.0;
    let total = (&y * &y).sum()?; // one fused reduction kernel, no temporaries
    let cols = y.max_axes(&[0])?; // shape [1024]
    let corner = y.slice(&s![..4, ..;256])?; // a strided view, no copy
    println!(
        "sum of squares {} | col max {} | corner\n{corner}",
        total.item()?,
        cols.len()
    );

    // Integer division by zero is defined (0), NaN propagates, promotion follows written rules.
    let q = Array::from_slice(&[7i32, -8, 9], &[3])? / Array::from_slice(&[2i32, 0, -3], &[3])?;
    assert_eq!(q.to_vec()?, vec![3, 0, -3]);
    Ok(())
}
