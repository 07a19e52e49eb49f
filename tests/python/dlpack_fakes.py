"""DLPack producers for tests without torch: capsules made with ctypes from the DLPack v1 layout (a legacy
"dltensor" DLManagedTensor), with any dtype code, strides and device; and wrappers that forward NumPy's own
__dlpack__ while claiming another device."""
import ctypes

import numpy as np


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

# DLPack type codes (v1.1) of the dtypes torch exports.
CODES = {"BF16": (4, 16), "F16": (2, 16), "F32": (2, 32), "F64": (2, 64), "I32": (0, 32), "I64": (0, 64),
         "U8": (1, 8), "F8_E4M3FN": (10, 8), "F8_E4M3FNUZ": (11, 8), "F8_E5M2": (12, 8), "F8_E5M2FNUZ": (13, 8),
         "F8_E8M0": (14, 8)}


class RawDLPack:
    """Exports `array`'s memory (any strides) as a capsule of DLPack dtype `dtype` (a key of CODES); with
    `version` a DLPack 1.x "dltensor_versioned" capsule of that (major, minor) version."""

    def __init__(self, array, dtype, device=(1, 0), version=None):
        self.array = array
        self.version = version
        self.code, self.bits = CODES[dtype]
        self.device = device
        self.calls = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kw):
        self.calls.append(kw)
        a = self.array
        self._shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        self._strides = (ctypes.c_int64 * max(a.ndim, 1))(*[s // a.itemsize for s in a.strides])
        m = _DLManagedTensorVersioned() if self.version else _DLManagedTensor()
        if self.version:
            m.version = _DLPackVersion(*self.version)
        m.dl_tensor.data = a.ctypes.data
        m.dl_tensor.device = _DLDevice(*self.device)
        m.dl_tensor.ndim = a.ndim
        m.dl_tensor.dtype = _DLDataType(self.code, self.bits, 1)
        m.dl_tensor.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        m.dl_tensor.strides = ctypes.cast(self._strides, ctypes.POINTER(ctypes.c_int64))
        m.dl_tensor.byte_offset = 0
        self._managed = m  # alive as long as this producer: the capsule has no destructor
        name = b"dltensor_versioned" if self.version else b"dltensor"
        return _new_capsule(ctypes.addressof(m), name, None)


class NumpyDLPack:
    """Only NumPy's __dlpack__ / __dlpack_device__ (numpy 1.24 takes no keywords)."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, **kw):
        return self.array.__dlpack__()


class FakeGpuTensor:
    """Claims to live on CUDA device 0. With `can_copy` it honours __dlpack__(dl_device=(1, 0), copy=True) by
    exporting its host array; without, it refuses as a producer without cross-device export does."""

    def __init__(self, array, can_copy=True):
        self.array = np.asarray(array)
        self.can_copy = can_copy
        self.calls = []

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(dict(dl_device=dl_device, copy=copy))
        if not self.can_copy or dl_device != (1, 0):
            raise BufferError("this producer exports on its own device only")
        return self.array.__dlpack__()
