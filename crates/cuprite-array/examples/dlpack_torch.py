#!/usr/bin/env python3
"""DLPack between cuprite-array and PyTorch, zero-copy both ways, on a CUDA GPU.

usage: dlpack_torch.py path/to/libdlpack_py.so

The library is the `dlpack_py` example of cuprite-array, built as a cdylib
(`cargo build --release -p cuprite-array --example dlpack_py`). Checks: a cuprite array
reaches torch through `torch.from_dlpack` (the DLPack protocol object, versioned, with the
stream hand-off; and a legacy "dltensor" capsule), with the same values and data pointer;
torch tensors come back to cuprite (versioned and legacy capsules, contiguous and strided)
with the same values and data pointer, and cuprite's GPU sum matches torch's; a cuprite array
exported to torch and handed back is the same memory; the exports outlive cuprite's arrays;
unsupported and mismatched dtypes are refused with a message naming them. Exits non-zero on
any failure.
"""
import ctypes
import gc
import sys

import torch

lib = ctypes.CDLL(sys.argv[1])
c_void_p, c_char_p, c_int, c_size_t, c_u64 = (
    ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_uint64)
F32P = ctypes.POINTER(ctypes.c_float)
lib.cuprite_dl_export.argtypes = [c_size_t, c_u64, c_int, c_size_t, F32P,
                                  ctypes.POINTER(c_void_p), ctypes.POINTER(c_u64), c_char_p,
                                  c_size_t]
lib.cuprite_dl_export.restype = c_int
lib.cuprite_dl_import.argtypes = [c_void_p, c_int, F32P, c_size_t, ctypes.POINTER(c_u64),
                                  ctypes.POINTER(ctypes.c_double), c_char_p, c_size_t]
lib.cuprite_dl_import.restype = c_int
lib.cuprite_dl_delete.argtypes = [c_void_p, c_int]
lib.cuprite_dl_stream.restype = c_size_t

api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
api.PyCapsule_GetPointer.restype = c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, c_char_p]
api.PyCapsule_SetName.restype = c_int
api.PyCapsule_SetName.argtypes = [ctypes.py_object, c_char_p]
api.PyCapsule_GetName.restype = c_char_p
api.PyCapsule_GetName.argtypes = [ctypes.py_object]
# Raw-pointer prototypes for use inside the capsule destructor.
raw_is_valid = ctypes.PYFUNCTYPE(c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", api))
raw_get_ptr = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", api))

DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)
deleted_unused = [0]


@DESTRUCTOR
def capsule_destructor(cap):
    # Per DLPack: a capsule still named "dltensor[_versioned]" was never consumed.
    for name, versioned in ((b"dltensor_versioned", 1), (b"dltensor", 0)):
        if raw_is_valid(cap, name):
            lib.cuprite_dl_delete(raw_get_ptr(cap, name), versioned)
            deleted_unused[0] += 1


checks = [0]


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}", flush=True)
        sys.exit(1)
    checks[0] += 1
    print(f"ok: {what}", flush=True)


def export(n, seed, versioned, stream):
    values = (ctypes.c_float * n)()
    out, ptr = c_void_p(), c_u64()
    msg = ctypes.create_string_buffer(512)
    rc = lib.cuprite_dl_export(n, seed, versioned, stream, values, ctypes.byref(out),
                               ctypes.byref(ptr), msg, 512)
    if rc != 0:
        print("export failed:", msg.value.decode())
        sys.exit(1)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    cap = api.PyCapsule_New(out.value, name, ctypes.cast(capsule_destructor, c_void_p))
    return cap, torch.tensor(list(values), dtype=torch.float32), ptr.value


class CupriteArray:
    """A DLPack producer: the protocol PyTorch's from_dlpack speaks."""

    def __init__(self, n, seed):
        self.n, self.seed, self.ptr, self.values = n, seed, None, None

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        versioned = max_version is not None and max_version[0] >= 1
        self.versioned = versioned
        cap, self.values, self.ptr = export(self.n, self.seed, 1 if versioned else 0,
                                            stream or 0)
        return cap


def to_cuprite(t, expected, versioned):
    """Hands a torch tensor to cuprite through __dlpack__ with cuprite's stream."""
    kwargs = {"stream": lib.cuprite_dl_stream()}
    if versioned:
        kwargs["max_version"] = (1, 0)
    cap = t.__dlpack__(**kwargs)
    name = api.PyCapsule_GetName(cap)
    want_name = b"dltensor_versioned" if versioned else b"dltensor"
    check(name == want_name, f"torch gives a {want_name.decode()} capsule")
    p = api.PyCapsule_GetPointer(cap, name)
    exp = expected.contiguous().cpu().numpy().astype("float32")
    buf = (ctypes.c_float * exp.size)(*exp.ravel().tolist())
    ptr, s = c_u64(), ctypes.c_double()
    msg = ctypes.create_string_buffer(512)
    rc = lib.cuprite_dl_import(p, 1 if versioned else 0, buf, exp.size, ctypes.byref(ptr),
                               ctypes.byref(s), msg, 512)
    api.PyCapsule_SetName(cap, b"used_" + name)  # consumed: cuprite owns the managed tensor
    return rc, msg.value.decode(), ptr.value, s.value


def main():
    torch.cuda.init()
    print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
    n = 1_000_003

    # 1. cuprite -> torch through the DLPack protocol (versioned, stream hand-off).
    producer = CupriteArray(n, 11)
    t = torch.from_dlpack(producer)
    check(t.device.type == "cuda" and t.dtype == torch.float32 and t.shape == (n,),
          "torch.from_dlpack(cuprite array): cuda float32 tensor of the right shape")
    check(producer.versioned, "torch asked for a versioned tensor (max_version)")
    check(t.data_ptr() == producer.ptr, "same data pointer in torch as in cuprite")
    check(torch.equal(t.cpu(), producer.values), "same values in torch")
    gc.collect()  # cuprite's arrays are long gone; the tensor still reads its memory
    check(float((t * 2).sum()) != 0.0 and torch.isfinite(t).all().item(), "export outlives producer")

    # 2. cuprite -> torch through a legacy capsule.
    cap, vals, ptr = export(4096, 12, 0, 0)
    torch.cuda.synchronize()
    t2 = torch.from_dlpack(cap)
    check(t2.data_ptr() == ptr and torch.equal(t2.cpu(), vals), "legacy capsule: same pointer and values")

    # 3. torch -> cuprite: torch-computed data, versioned and legacy.
    u = t * 3.0 + 1.0
    for versioned in (1, 0):
        rc, msg, ptr, s = to_cuprite(u, u, versioned)
        check(rc == 0, f"cuprite imports a torch tensor ({'versioned' if versioned else 'legacy'}) {msg}")
        check(ptr == u.data_ptr(), "same data pointer in cuprite as in torch")
        ts = float(u.double().sum())
        check(abs(s - ts) <= 1e-6 * max(1.0, abs(ts)), f"cuprite's GPU sum {s} = torch's {ts}")

    # 4. Round trip: cuprite memory -> torch -> cuprite is the same memory.
    rc, msg, ptr, _ = to_cuprite(t, t, 1)
    check(rc == 0 and ptr == producer.ptr, "cuprite -> torch -> cuprite: the original pointer")

    # 5. A strided torch view (transposed) imports with its strides.
    m = torch.randn(513, 257, device="cuda")
    rc, msg, _, s = to_cuprite(m.t(), m.t(), 1)
    check(rc == 0, f"strided (transposed) torch tensor: values in row-major order {msg}")

    # 6. Refusals: mismatched and unsupported dtypes name themselves.
    d = torch.randn(16, device="cuda", dtype=torch.float64)
    rc, msg, _, _ = to_cuprite(d, d.float(), 1)
    check(rc == -2 and "f64" in msg and "f32" in msg, f"float64 into Array<f32> refused: {msg}")
    refused = 0
    for dt in (torch.complex32, torch.float8_e4m3fn):
        try:
            z = torch.zeros(16, device="cuda", dtype=dt)
            z.__dlpack__(stream=lib.cuprite_dl_stream(), max_version=(1, 0))
        except Exception as e:  # torch itself cannot export this dtype
            print(f"(torch cannot export {dt}: {e})")
            continue
        rc, msg, _, _ = to_cuprite(z, torch.zeros(16), 1)
        check(rc == -2 and "unsupported DLPack dtype" in msg, f"{dt} refused, named: {msg}")
        refused += 1
    check(refused >= 1, "at least one unsupported dtype tried")

    # 7. An unconsumed capsule is released by its destructor; everything is dropped safely.
    cap, _, _ = export(1024, 13, 1, 0)
    del cap
    gc.collect()
    check(deleted_unused[0] >= 1, "an unused capsule's destructor calls cuprite's deleter")
    del t, t2, u, producer
    gc.collect()
    torch.cuda.synchronize()
    print(f"dlpack_torch: all {checks[0]} checks passed")


main()
