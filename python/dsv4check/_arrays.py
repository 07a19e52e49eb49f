"""Arrays in and out of the C++ core.

In: NumPy arrays (NumPy's dtypes, and ml_dtypes' bfloat16/float8 dtypes by name) and any object with
``__dlpack__`` (a PyTorch tensor on CPU or GPU; torch is never imported here) become the
(dtype name, shape, element strides, address) views python/binding/module.cpp reads; the owners stay
referenced in ``keep`` until the call returns. A GPU tensor is asked for a host copy through the protocol
(``__dlpack__(dl_device=(kDLCPU, 0), copy=True)``). Strides are honoured as given (any sign).

Out: the core's (dtype name, shape, bytes) become NumPy arrays; dtypes NumPy lacks (BF16, fp8, e8m0) come back
as CodeArray, their raw codes (uint16 / uint8) with the format named.
"""
import json
import sys

import numpy as np

from . import _core

# DLPack (type code, bits) -> dtype name of reference/tensor/dtype.hpp (DLPack v1.1 codes; lanes must be 1).
_FROM_DLPACK = {
    (2, 64): "F64", (2, 32): "F32", (2, 16): "F16", (4, 16): "BF16",
    (0, 64): "I64", (0, 32): "I32", (0, 16): "I16", (0, 8): "I8", (1, 8): "U8",
    (10, 8): "F8_E4M3FN", (11, 8): "F8_E4M3FNUZ", (12, 8): "F8_E5M2", (13, 8): "F8_E5M2FNUZ", (14, 8): "F8_E8M0",
}
_DLPACK_CPU = (1, 0)
_HOST_DEVICES = {1, 3, 11}  # kDLCPU, kDLCUDAHost, kDLROCMHost: addressable from the host
# dtype names by NumPy / torch dtype name (NumPy's own, ml_dtypes', torch's without "torch.").
_BY_NAME = {
    "float64": "F64", "float32": "F32", "float16": "F16", "bfloat16": "BF16",
    "int64": "I64", "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8",
    "float8_e4m3fn": "F8_E4M3FN", "float8_e4m3fnuz": "F8_E4M3FNUZ", "float8_e5m2": "F8_E5M2",
    "float8_e5m2fnuz": "F8_E5M2FNUZ", "float8_e8m0fnu": "F8_E8M0",
}
_SIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "U16": 2,
         "F8_E4M3FN": 1, "F8_E4M3FNUZ": 1, "F8_E5M2": 1, "F8_E5M2FNUZ": 1, "F8_E8M0": 1}
_NUMPY_OF = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
             "I16": np.int16, "I8": np.int8, "U8": np.uint8}
_CODES_OF = {2: np.uint16, 1: np.uint8}  # NumPy dtype of the raw codes by element size


class CodeArray(np.ndarray):
    """Raw codes of a dtype NumPy has no type for: BF16 as uint16, fp8 and e8m0 as uint8. ``format`` names the
    dtype ("BF16", "F8_E4M3FN", "F8_E4M3FNUZ", "F8_E5M2", "F8_E5M2FNUZ", "F8_E8M0"); passed to judge() or
    save_fixture() it keeps it. ``decode()`` gives the exact float64 values."""

    def __new__(cls, codes, format):
        obj = np.asarray(codes).view(cls)
        obj.format = format
        return obj

    def __array_finalize__(self, obj):
        self.format = getattr(obj, "format", None)

    def decode(self):
        codes = np.ascontiguousarray(self.view(np.ndarray))
        raw = _core.decode(self.format, codes.tobytes())
        return np.frombuffer(raw, dtype=np.float64).reshape(codes.shape).copy()

    def __repr__(self):
        return f"CodeArray({self.format}, {self.view(np.ndarray)!r})"


def _dtype_error(label, what):
    return ValueError(f"{label}: dtype {what} is not one dsv4check reads (it reads {', '.join(sorted(_BY_NAME))}; "
                      "uint8 or uint16 codes with their format named in attrs['dtypes'])")


def _retyped(label, dtype, retype):
    """The dtype after an attrs['dtypes'] entry: only raw codes of the same size are re-typed."""
    if retype is None:
        return dtype
    if _SIZE.get(dtype) != _SIZE[retype] or dtype not in ("U8", "I8", "U16", "I16", retype):
        raise ValueError(f"{label}: attrs['dtypes'] names it {retype}, but it holds {dtype}; only raw codes of "
                         f"the same size (uint8 for fp8/e8m0, uint16 for BF16/F16) can be re-typed")
    return retype


def _numpy_view(label, a, retype):
    if isinstance(a, CodeArray) and a.format:
        dtype = a.format
        if a.itemsize != _SIZE.get(dtype, -1):
            raise ValueError(f"{label}: a CodeArray of format {dtype} must hold {_SIZE.get(dtype)}-byte codes, "
                             f"got {a.dtype}")
    elif a.dtype.name == "uint16":
        dtype = "U16"  # raw codes: valid only when re-typed below
    else:
        dtype = _BY_NAME.get(a.dtype.name)
        if dtype is None:
            raise _dtype_error(label, a.dtype.name)
    if a.dtype.byteorder == ">":
        raise ValueError(f"{label}: big-endian arrays are not read; use a.astype(a.dtype.newbyteorder('='))")
    dtype = _retyped(label, dtype, retype)
    if dtype == "U16":
        raise ValueError(f"{label}: uint16 is read only as BF16 or F16 codes named in attrs['dtypes']")
    if any(s % a.itemsize for s in a.strides):
        a = np.ascontiguousarray(a)
    strides = [s // a.itemsize for s in a.strides]
    return (dtype, list(a.shape), strides, a.ctypes.data if a.size else 0), a


def _export(obj, **kw):
    """obj.__dlpack__(**kw), asking for a versioned capsule where the producer knows max_version."""
    try:
        return obj.__dlpack__(max_version=(1, 1), **kw)
    except TypeError:
        return obj.__dlpack__(**kw)


def _torch_name(obj):
    name = str(getattr(obj, "dtype", ""))
    return name[len("torch."):] if name.startswith("torch.") else name


def _dlpack_view(label, obj, retype):
    if callable(getattr(obj, "detach", None)):  # a tensor that requires grad exports only detached
        obj = obj.detach()
    device = tuple(int(x) for x in obj.__dlpack_device__()) if hasattr(obj, "__dlpack_device__") else _DLPACK_CPU
    try:
        if device[0] in _HOST_DEVICES:
            cap = _export(obj)
        else:
            try:
                cap = _export(obj, dl_device=_DLPACK_CPU, copy=True)
            except (TypeError, BufferError, NotImplementedError, ValueError, RuntimeError) as e:
                if callable(getattr(obj, "cpu", None)):  # a producer without cross-device export: its own copy
                    return _dlpack_view(label, obj.cpu(), retype)
                raise ValueError(f"{label} lives on DLPack device {device} and its producer gives no host copy "
                                 f"through __dlpack__(dl_device=(1, 0), copy=True) ({e}); copy it to the host first")
    except (BufferError, RuntimeError, TypeError) as e:
        # Producers that cannot export a float8 dtype through DLPack (older PyTorch): its bytes as uint8.
        fmt = _BY_NAME.get(_torch_name(obj))
        torch = sys.modules.get("torch")
        if fmt and _SIZE[fmt] == 1 and torch is not None and callable(getattr(obj, "view", None)):
            view, keep = _dlpack_view(label, obj.view(torch.uint8), retype or fmt)
            return view, (keep, obj)
        raise ValueError(f"{label}: its __dlpack__ export failed ({e})") from e
    try:
        info = _core.dlpack_view(cap)
    except ValueError as e:
        raise ValueError(f"{label}: {e}") from None
    if info["device_type"] not in _HOST_DEVICES:
        raise ValueError(f"{label}: the producer returned a capsule on device {info['device_type']} instead of a "
                         "host copy")
    if info["lanes"] != 1:
        raise _dtype_error(label, f"with {info['lanes']} lanes")
    dtype = _FROM_DLPACK.get((info["code"], info["bits"]))
    if dtype is None:
        if (info["code"], info["bits"]) == (1, 16):
            dtype = "U16"
        else:
            raise _dtype_error(label, f"(DLPack code {info['code']}, {info['bits']} bits)")
    dtype = _retyped(label, dtype, retype)
    if dtype == "U16":
        raise ValueError(f"{label}: uint16 is read only as BF16 or F16 codes named in attrs['dtypes']")
    shape = list(info["shape"])
    strides = list(info["strides"]) if info["strides"] is not None else _compact(shape)
    return (dtype, shape, strides, info["data"]), (cap, obj)


def _compact(shape):
    strides, n = [], 1
    for d in reversed(shape):
        strides.append(n)
        n *= d
    return list(reversed(strides))


def view_of(label, obj, retype=None):
    """The core's view of obj and what must stay alive while it is used; ValueError names `label`."""
    if isinstance(obj, np.ndarray):
        return _numpy_view(label, obj, retype)
    if hasattr(obj, "__dlpack__"):
        return _dlpack_view(label, obj, retype)
    if isinstance(obj, (np.generic, int, float, list, tuple)):
        return _numpy_view(label, np.asarray(obj), retype)
    raise ValueError(f"{label}: a {type(obj).__name__} is not an array (pass a NumPy array or an object with "
                     "__dlpack__, e.g. a torch.Tensor)")


def split_attrs(op, attrs, inputs, outputs):
    """(attrs without 'dtypes' as JSON text, {input: dtype}, {output: dtype}): attrs['dtypes'] re-types raw
    codes, keyed as in fixtures ('<input>', 'out.<output>'; a bare output name also works)."""
    if attrs is None:
        attrs = {}
    if not isinstance(attrs, dict):
        raise ValueError(f"{op}: attrs must be a dict, got {type(attrs).__name__}")
    attrs = dict(attrs)
    named = attrs.pop("dtypes", None) or {}
    if not isinstance(named, dict):
        raise ValueError(f"{op}: attrs['dtypes'] must be a dict of tensor name -> dtype name, got {named!r}")
    in_types, out_types = {}, {}
    for key, spelling in named.items():
        canon = _core.canonical_dtype(str(spelling))
        if not canon:
            raise ValueError(f"{op}: attrs['dtypes'][{key!r}] = {spelling!r} names no dtype (F8_E4M3FN, "
                             "F8_E4M3FNUZ, F8_E5M2, F8_E5M2FNUZ, F8_E8M0, BF16, F16, or e4m3fnuz-style names)")
        if key in inputs:
            in_types[key] = canon
        elif key.startswith("out.") and key[4:] in outputs:
            out_types[key[4:]] = canon
        elif key in outputs:
            out_types[key] = canon
        else:
            raise ValueError(f"{op}: attrs['dtypes'] names tensor {key!r}, which is not among the arguments "
                             f"(inputs: {', '.join(inputs) or 'none'}; outputs: "
                             f"{', '.join('out.' + k for k in outputs) or 'none'})")
    return json.dumps(attrs, default=_json_default), in_types, out_types


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"attribute value {o!r} of type {type(o).__name__} is not JSON")


def views(kind, tensors, types, keep):
    """{name: view} of a dict of tensors (None entries, i.e. absent optional inputs, are left out)."""
    if tensors is None:
        return {}
    if not isinstance(tensors, dict):
        raise ValueError(f"{kind}s must be a dict of name -> array, got {type(tensors).__name__}")
    out = {}
    for name, t in tensors.items():
        if t is None:
            continue
        label = f"{kind} '{name}'" if kind == "input" else f"output '{name}' (out.{name})"
        v, k = view_of(label, t, types.get(name))
        out[str(name)] = v
        keep.append(k)
    return out


def to_numpy(dtype, shape, raw):
    """An array of the core's (dtype, shape, bytes)."""
    if dtype in _NUMPY_OF:
        return np.frombuffer(raw, dtype=_NUMPY_OF[dtype]).reshape(shape).copy()
    codes = np.frombuffer(raw, dtype=_CODES_OF[_SIZE[dtype]]).reshape(shape).copy()
    return CodeArray(codes, dtype)
