//! The inverse short-time Fourier transform (SciPy's `istft`): each segment transformed back,
//! windowed again and overlap-added, divided by the overlap-added squared window.

use super::elem::wide;
use super::frames::{WindowSpec, along_last, norm_axis, sc, slice_axis};
use super::psd::Work;
use super::psd_opts::{IstftOpts, Scaling};
use super::windows::window_values;
use crate::array::Array;
use crate::dtype::ComplexElement;
use crate::error::{Error, Result};
use crate::ops::fft::{FftElement, FftOpts};
use crate::shape::SliceArg;

/// The segment length, transform length, overlap and window of an inverse transform of
/// `nfreq` frequencies.
fn settings(o: &IstftOpts, nfreq: usize) -> Result<(usize, usize, usize, Vec<f64>)> {
    let c = &o.c;
    if !(c.fs > 0.0 && c.fs.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "istft: the sampling frequency fs must be positive and finite, not {}",
            c.fs
        )));
    }
    // SciPy's default segment length comes from the frequencies alone, whatever `nfft`.
    let n_default = if c.onesided {
        2 * nfreq.saturating_sub(1)
    } else {
        nfreq
    };
    let nperseg = c.nperseg.unwrap_or(n_default);
    if nperseg == 0 {
        return Err(Error::InvalidArgument(format!(
            "istft: nperseg must be positive, not 0 ({nfreq} frequencies)"
        )));
    }
    let nfft = match c.nfft {
        None if c.onesided && nperseg == n_default + 1 => nperseg,
        None => n_default,
        Some(m) if m < nperseg => {
            return Err(Error::InvalidArgument(format!(
                "istft: nfft {m} is less than nperseg {nperseg}"
            )));
        }
        Some(m) => m,
    };
    if nfft < nperseg {
        return Err(Error::InvalidArgument(format!(
            "istft: the transform's length {nfft} (from {nfreq} frequencies) is less than \
             nperseg {nperseg}"
        )));
    }
    let noverlap = c.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(Error::InvalidArgument(format!(
            "istft: noverlap {noverlap} must be less than nperseg {nperseg}"
        )));
    }
    let win = match &c.window {
        WindowSpec::Named(w) => window_values(*w, nperseg, true)?,
        WindowSpec::Values(v) if v.len() != nperseg => {
            return Err(Error::InvalidArgument(format!(
                "istft: the window's length {} differs from nperseg {nperseg}",
                v.len()
            )));
        }
        WindowSpec::Values(v) => v.clone(),
    };
    Ok((nperseg, nfft, noverlap, win))
}

/// `segs` (`[..., nseg, nperseg]`) overlap-added with step `step`: `[..., nperseg + (nseg - 1)
/// step]`. Each segment is cut into `K = ceil(nperseg / step)` pieces of `step` values; piece
/// `k` of every segment lands at `(i + k) step`, so the pieces `k` of all segments, laid end
/// to end, form one contiguous run shifted by `k step`.
fn overlap_add<R: Work>(segs: &Array<R>, step: usize) -> Result<Array<R>> {
    let nd = segs.ndim();
    let (nseg, nperseg) = (segs.shape()[nd - 2], segs.shape()[nd - 1]);
    let k_n = nperseg.div_ceil(step);
    let mut w = vec![(0, 0); nd];
    w[nd - 1] = (0, k_n * step - nperseg);
    let padded = segs.pad(&w, sc::<R>(0.0))?;
    let mut shape = segs.shape()[..nd - 1].to_vec();
    shape.extend([k_n, step]);
    let pieces = padded.reshape(&shape)?;
    let mut flat = segs.shape()[..nd - 2].to_vec();
    flat.push(nseg * step);
    let mut sum: Option<Array<R>> = None;
    for k in 0..k_n {
        let mut args: Vec<SliceArg> = vec![(..).into(); nd + 1];
        args[nd - 1] = SliceArg::Index(k as isize);
        let run = pieces.slice(&args)?.reshape(&flat)?;
        let mut w = vec![(0, 0); nd - 1];
        w[nd - 2] = (k * step, (k_n - 1 - k) * step);
        let run = run.pad(&w, sc::<R>(0.0))?;
        sum = Some(match sum {
            None => run,
            Some(s) => s.try_add(&run)?,
        });
    }
    let sum = sum.expect("at least one piece");
    slice_axis(&sum, nd - 2, 0, nperseg + (nseg - 1) * step, 1)
}

fn istft_core<R: Work>(z: &Array<R::Complex>, o: &IstftOpts) -> Result<(Vec<f64>, Array<R>)> {
    let nd = z.ndim();
    if nd < 2 {
        return Err(Error::Shape(format!(
            "istft needs at least 2 dimensions (frequencies and segments), not shape {:?}",
            z.shape()
        )));
    }
    let fa = norm_axis("istft", o.freq_axis, nd)?;
    let ta = norm_axis("istft", o.time_axis, nd)?;
    if fa == ta {
        return Err(Error::InvalidArgument(format!(
            "istft: freq_axis {} and time_axis {} are the same axis",
            o.freq_axis, o.time_axis
        )));
    }
    let (nfreq, nseg) = (z.shape()[fa], z.shape()[ta]);
    if nfreq == 0 || nseg == 0 {
        return Err(Error::InvalidArgument(format!(
            "istft of an empty transform (shape {:?})",
            z.shape()
        )));
    }
    let (nperseg, nfft, noverlap, win) = settings(o, nfreq)?;
    let step = nperseg - noverlap;
    let mut perm: Vec<usize> = (0..nd).filter(|&a| a != fa && a != ta).collect();
    perm.extend([fa, ta]);
    let zp = z.permute(&perm)?;
    let opts = FftOpts::new().n(nfft).axis(-2);
    let xs = if o.c.onesided {
        zp.irfft_with(opts)?.cast::<R>()
    } else {
        zp.ifft_with(opts)?.real().cast::<R>()
    };
    let xs = slice_axis(&xs, nd - 2, 0, nperseg, 1)?.moveaxis(-1, -2)?;
    let scale = match o.c.scaling {
        Scaling::Spectrum => win.iter().sum::<f64>(),
        Scaling::Density => (o.c.fs * win.iter().map(|w| w * w).sum::<f64>()).sqrt(),
    };
    let ws: Vec<f64> = win.iter().map(|w| w * scale).collect();
    let segs = xs.try_mul(&along_last::<R>(&xs, &ws)?)?;
    let y = overlap_add(&segs, step)?;
    let len = nperseg + (nseg - 1) * step;
    let mut norm = vec![0.0f64; len];
    for i in 0..nseg {
        for (j, w) in win.iter().enumerate() {
            norm[i * step + j] += w * w;
        }
    }
    let (lo, hi) = if o.boundary {
        (nperseg / 2, len - nperseg / 2)
    } else {
        (0, len)
    };
    let div: Vec<f64> = norm[lo..hi]
        .iter()
        .map(|&v| if v > 1e-10 { v } else { 1.0 })
        .collect();
    let y = slice_axis(&y, nd - 2, lo, hi, 1)?;
    let y = y.try_div(&along_last::<R>(&y, &div)?)?;
    let y = if ta != nd - 1 {
        let to = if fa < ta { ta - 1 } else { ta };
        y.moveaxis(-1, to as isize)?
    } else {
        y
    };
    let t = (0..hi - lo).map(|i| i as f64 / o.c.fs).collect();
    Ok((t, y))
}

/// The inverse of [`stft`](super::stft) with SciPy's defaults ([`IstftOpts`]): times and the
/// signal, from a transform with frequencies along axis `-2` and segments along `-1`.
///
/// # Errors
/// As [`istft_with`].
///
/// ```
/// use cuprite_array::{Array, signal::{istft, stft}};
/// let x: Vec<f64> = (0..300).map(|i| (i as f64 * 0.05).sin() + (i % 7) as f64).collect();
/// let (_, _, z) = stft(&Array::from_slice(&x, &[300])?)?;
/// let (_, y) = istft(&z)?;
/// // The padded end comes back as zeros after the signal.
/// let y = y.to_vec()?;
/// assert!(x.iter().zip(&y).all(|(a, b)| (a - b).abs() < 1e-9));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn istft<C: FftElement + ComplexElement>(
    z: &Array<C>,
) -> Result<(Vec<f64>, Array<<C as FftElement>::Real>)> {
    istft_with(z, &IstftOpts::new())
}

/// [`istft`] with options: each segment's inverse transform (of `nfft` points, its first
/// `nperseg` values) multiplied by the window and by `Σ w` ([`Scaling::Spectrum`]) or
/// `sqrt(fs Σ w²)` ([`Scaling::Density`]), overlap-added with step `nperseg - noverlap`, then
/// divided by the overlap-added `w²` where that exceeds `1e-10`; the boundary extension's
/// `nperseg / 2` values at each end removed when `boundary`. The result has the transform's
/// other axes in order and the time along `time_axis` (counted without the frequency axis).
/// The transform recovers the signal when the window satisfies the NOLA condition.
///
/// # Errors
/// A transform of fewer than 2 dimensions or empty, axes out of range or equal, a
/// non-positive `fs`, `nperseg` 0, `nfft < nperseg`, `noverlap >= nperseg`, a window of
/// values whose length differs from `nperseg`, each named.
///
/// ```
/// use cuprite_array::{Array, signal::{IstftOpts, StftOpts, Window, istft_with, stft_with}};
/// let x: Vec<f32> = (0..100).map(|i| (i as f32 * 0.2).cos()).collect();
/// let so = StftOpts::new().nperseg(32).noverlap(24).window(Window::Hamming);
/// let (_, _, z) = stft_with(&Array::from_slice(&x, &[100])?, &so)?;
/// let io = IstftOpts::new().nperseg(32).noverlap(24).window(Window::Hamming);
/// let (t, y) = istft_with(&z, &io)?;
/// let y = y.to_vec()?;
/// assert!(t.len() >= 100 && x.iter().zip(&y).all(|(a, b)| (a - b).abs() < 1e-4));
/// # Ok::<(), cuprite_array::Error>(())
/// ```
pub fn istft_with<C: FftElement + ComplexElement>(
    z: &Array<C>,
    opts: &IstftOpts,
) -> Result<(Vec<f64>, Array<<C as FftElement>::Real>)> {
    if wide(C::DTYPE) {
        let (t, y) = istft_core::<f64>(&z.cast(), opts)?;
        Ok((t, y.cast()))
    } else {
        let (t, y) = istft_core::<f32>(&z.cast(), opts)?;
        Ok((t, y.cast()))
    }
}
