//! Files: NumPy's `.npy` and `.npz` formats ([`Array::save_npy`](crate::Array::save_npy), [`Array::load_npy`](crate::Array::load_npy),
//! [`NpzWriter`], [`Npz`]).

mod npy;
mod zip;

pub use npy::{Npz, NpzWriter};
