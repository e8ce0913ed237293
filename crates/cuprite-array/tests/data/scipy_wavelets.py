"""Writes `scipy-wavelets.txt`, the wavelet reference values of `tests/signal_more.rs`, in
the format of `scipy-signal.txt`. SciPy 1.15 removed these routines, so this script needs
SciPy 1.14.1: `python3 scipy_wavelets.py > scipy-wavelets.txt`."""
import warnings
import numpy as np, scipy.signal as s
warnings.simplefilter("ignore")
out = []
def arr(name, v):
    v = np.asarray(v).ravel()
    if np.iscomplexobj(v):
        out.append(f"{name} c " + " ".join(f"{float(z.real)!r} {float(z.imag)!r}" for z in v))
    else:
        out.append(f"{name} f " + " ".join(repr(float(z)) for z in v))
arr("ricker_9_2", s.ricker(9, 2.0))
arr("ricker_10_1.5", s.ricker(10, 1.5))
arr("morlet_8", s.morlet(8, 5.0, 1.0, True))
arr("morlet_7_incomplete", s.morlet(7, 4.0, 0.5, False))
arr("morlet2_9", s.morlet2(9, 2.0, 5.0))
arr("qmf", s.qmf(np.array([0.5, 1.5, -2.0, 0.25, 3.0])))
x = np.array([np.sin(0.4 * i) + 0.3 * np.cos(1.7 * i) for i in range(40)])
arr("cwt_ricker", s.cwt(x, s.ricker, [1.0, 2.0, 3.5, 6.0]))
arr("cwt_morlet2", s.cwt(x.astype(complex), s.morlet2, [1.0, 2.5, 5.0], w=6.0))
print("\n".join(out))
