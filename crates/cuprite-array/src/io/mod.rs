//! Files: NumPy's `.npy` and `.npz` formats ([`Array::save_npy`](crate::Array::save_npy), [`Array::load_npy`](crate::Array::load_npy),
//! [`NpzWriter`], [`Npz`]); text (`loadtxt`, `genfromtxt`, `savetxt`, `fromstring`), raw
//! bytes (`frombuffer`, `fromfile`, [`Array::tofile`](crate::Array::tofile)) and NumPy's float
//! formatting (`format_float_positional`, `format_float_scientific`).

mod floatfmt;
mod npy;
mod printf;
mod raw;
mod text;
mod zip;

pub use floatfmt::{FloatFormat, TrimMode, format_float_positional, format_float_scientific};
pub use npy::{Npz, NpzWriter};
pub use raw::{frombuffer, fromfile, fromstring};
pub use text::{LoadTxt, SaveTxt, genfromtxt, loadtxt, loadtxt_with, savetxt};
