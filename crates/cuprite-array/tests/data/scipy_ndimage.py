"""Writes `scipy-ndimage.txt`, the reference values of `tests/image_more.rs`, in the format of
`scipy-signal.txt`. Run from this folder with SciPy 1.17.1:
`python3 scipy_ndimage.py > scipy-ndimage.txt`. The inputs are formulas that the Rust tests
evaluate the same way."""
import numpy as np
from scipy import ndimage as nd
out = []
def arr(name, v, ty='f'):
    v = np.asarray(v).ravel()
    if np.iscomplexobj(v):
        out.append(f"{name} c " + " ".join(f"{float(z.real)!r} {float(z.imag)!r}" for z in v))
    elif ty == 'i' or v.dtype == bool:
        out.append(f"{name} i " + " ".join(str(int(z)) for z in v))
    else:
        out.append(f"{name} f " + " ".join(repr(float(z)) for z in v))
G = np.array([[np.round(9 * np.sin(0.7 * i + 1.3 * j) ** 2) for j in range(9)] for i in range(8)])
fp = np.array([[0, 1, 1], [1, 1, 0], [0, 1, 0]], bool)
arr('grad_3x3', nd.morphological_gradient(G, size=(3, 3)))
arr('grad_fp_const', nd.morphological_gradient(G, footprint=fp, mode='constant', cval=2.0))
arr('lap_3x3', nd.morphological_laplace(G, size=(3, 3)))
arr('lap_u8', nd.morphological_laplace(G.astype(np.uint8), size=(3, 2)))
B = np.array([[np.sin(1.1 * i * j + 0.3 * i) > 0.2 for j in range(10)] for i in range(9)])
arr('hit_default', nd.binary_hit_or_miss(B))
s1 = np.array([[0, 0, 0], [0, 1, 1], [0, 0, 0]], bool)
s2 = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0]], bool)
arr('hit_s1s2', nd.binary_hit_or_miss(B, s1, s2))
arr('hit_origins', nd.binary_hit_or_miss(B, s1, s2, origin1=[0, -1], origin2=[1, 0]))
seed = np.zeros((9, 10), bool); seed[4, 5] = True; seed[0, 0] = True
arr('prop_mask', nd.binary_propagation(seed, mask=B))
arr('prop_struct', nd.binary_propagation(seed, structure=np.ones((3, 3), bool), mask=B))
F = np.fft.fftn(np.array([[np.cos(0.4 * i - 0.9 * j) + 0.1 * i for j in range(7)] for i in range(6)]))
arr('fg', nd.fourier_gaussian(F, [1.2, 0.7]))
arr('fu', nd.fourier_uniform(F, 3.0))
arr('fs', nd.fourier_shift(F, [1.5, -2.25]))
R = np.fft.rfft(np.array([[np.cos(0.4 * i - 0.9 * j) + 0.1 * i for j in range(7)] for i in range(6)]), axis=1)
arr('fg_rfft', nd.fourier_gaussian(R, [1.2, 0.7], n=7, axis=1))
arr('fs_rfft', nd.fourier_shift(R, [0.5, 2.0], n=7, axis=-1))
arr('ggm_sobel', nd.generic_gradient_magnitude(G, nd.sobel))
arr('glap_gauss', nd.generic_laplace(G, lambda a, ax, output, mode, cval: nd.gaussian_filter1d(a, 1.0, axis=ax, order=2, output=output, mode=mode, cval=cval)))
arr('fe_2d', nd.fourier_ellipsoid(F, [3.0, 4.5]))
E2 = np.fft.fftn(np.array([[np.sin(0.2 * i + 0.05 * j * j) for j in range(40)] for i in range(36)]))
arr('fe_2d_big', nd.fourier_ellipsoid(E2, [35.0, 60.0]))
arr('fe_1d', nd.fourier_ellipsoid(np.fft.fft(np.cos(0.3 * np.arange(11.0))), 2.5))
E3 = np.fft.fftn(np.array([[[np.cos(0.3 * i + 0.2 * j - 0.1 * k) for k in range(5)] for j in range(4)] for i in range(3)]))
arr('fe_3d', nd.fourier_ellipsoid(E3, [2.0, 1.5, 3.0]))
arr('fe_rfft', nd.fourier_ellipsoid(R, [3.0, 2.0], n=7, axis=1))
V = np.array([[[int(3 * np.sin(0.9 * i + 0.4 * j * k) ** 2) for k in range(4)] for j in range(3)] for i in range(2)])
vi = nd.value_indices(V, ignore_value=1)
arr('vi_keys', sorted(vi.keys()), 'i')
for key in sorted(vi.keys()):
    for a, ix in enumerate(vi[key]):
        arr(f'vi_{key}_{a}', ix, 'i')
lab = np.array([[(i * 3 + j) % 4 for j in range(9)] for i in range(8)])
arr('lc_std', nd.labeled_comprehension(G, lab, [0, 1, 2, 3, 7], np.std, float, -1.0))
def wsum(v):
    return float(np.sum(v * np.arange(1, len(v) + 1)))
arr('gf_box', nd.generic_filter(G, wsum, size=(3, 2), mode='nearest'))
arr('gf_fp_const', nd.generic_filter(G, np.median, footprint=fp, mode='constant', cval=-3.0, origin=[1, 0]))
def d1(i, o):
    o[:] = i[2:] - i[:-2]
arr('gf1d', nd.generic_filter1d(G, d1, 3, axis=0, mode='mirror'))
arr('gf1d_origin', nd.generic_filter1d(G, lambda i, o: o.__setitem__(slice(None), i[:-3] * 2 + i[3:]), 4, axis=1, mode='wrap', origin=1))
print("\n".join(out))
