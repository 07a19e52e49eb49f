// The extension module dsv4check._core: pybind11 glue over python/core/bridge.hpp, plus reading a DLPack
// capsule (dlpack_abi.hpp). Arrays arrive as (dtype name, shape, element strides, address) tuples made by
// dsv4check/_arrays.py, which keeps their owners alive during the call; results go back as
// (dtype name, shape, bytes). std::invalid_argument (bad input) becomes ValueError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <stdexcept>

#include "python/binding/dlpack_abi.hpp"
#include "python/core/bridge.hpp"

namespace py = pybind11;
using namespace dsv4py;

namespace {

using ViewTuple = std::tuple<std::string, std::vector<std::int64_t>, std::vector<std::int64_t>, std::uintptr_t>;

ArrayViews to_views(const std::map<std::string, ViewTuple>& in) {
  ArrayViews v;
  for (auto& [n, t] : in)
    v[n] = ArrayView{std::get<0>(t), std::get<1>(t), std::get<2>(t), reinterpret_cast<const std::byte*>(std::get<3>(t))};
  return v;
}

py::bytes to_bytes(const std::vector<std::byte>& b) { return py::bytes(reinterpret_cast<const char*>(b.data()), b.size()); }

py::dict to_dict(const std::map<std::string, Array>& arrays) {
  py::dict d;
  for (auto& [n, a] : arrays) d[py::str(n)] = py::make_tuple(a.dtype, py::tuple(py::cast(a.shape)), to_bytes(a.bytes));
  return d;
}

// What the capsule describes: device, dtype code/bits/lanes, shape, strides (None when compact), the address of
// element (0,...,0) and whether the producer marked it read-only. The capsule stays unconsumed (its producer's
// destructor frees it), so the caller must keep it alive while the address is used.
py::dict dlpack_view(py::capsule cap) {
  PyObject* o = cap.ptr();
  const dlpack::DLTensor* t = nullptr;
  bool versioned = false, readonly = false;
  if (PyCapsule_IsValid(o, "dltensor_versioned")) {
    auto* m = static_cast<dlpack::DLManagedTensorVersioned*>(PyCapsule_GetPointer(o, "dltensor_versioned"));
    if (m->version.major != 1)
      throw std::invalid_argument("DLPack capsule of major version " + std::to_string(m->version.major) +
                                  " (this reader knows version 1)");
    t = &m->dl_tensor;
    versioned = true;
    readonly = (m->flags & 1u) != 0;
  } else if (PyCapsule_IsValid(o, "dltensor")) {
    t = &static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(o, "dltensor"))->dl_tensor;
  } else {
    throw std::invalid_argument("__dlpack__() did not return an unconsumed DLPack capsule ('dltensor' or "
                                "'dltensor_versioned')");
  }
  py::dict d;
  d["device_type"] = t->device.device_type;
  d["device_id"] = t->device.device_id;
  d["code"] = t->dtype.code;
  d["bits"] = t->dtype.bits;
  d["lanes"] = t->dtype.lanes;
  std::vector<std::int64_t> shape(t->shape, t->shape + t->ndim);
  d["shape"] = py::tuple(py::cast(shape));
  if (t->strides && t->ndim > 0) d["strides"] = py::tuple(py::cast(std::vector<std::int64_t>(t->strides, t->strides + t->ndim)));
  else d["strides"] = py::none();
  d["data"] = reinterpret_cast<std::uintptr_t>(static_cast<const char*>(t->data) + t->byte_offset);
  d["versioned"] = versioned;
  d["readonly"] = readonly;
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "dsv4check's C++ core (registry, references, oracle, fixtures); use the dsv4check package instead";
  m.def("registry_json", &registry_json);
  m.def("canonical_dtype", &canonical_dtype);
  m.def("dlpack_view", &dlpack_view);
  m.def("reference", [](const std::string& op, const std::map<std::string, ViewTuple>& in, const std::string& attrs) {
    std::map<std::string, Array> r;
    {
      py::gil_scoped_release nogil;
      r = reference(op, to_views(in), attrs);
    }
    return to_dict(r);
  });
  m.def("judge", [](const std::string& op, const std::map<std::string, ViewTuple>& in,
                    const std::map<std::string, ViewTuple>& out, const std::string& attrs, const std::string& name) {
    Judgement j;
    {
      py::gil_scoped_release nogil;
      j = judge(op, to_views(in), to_views(out), attrs, name);
    }
    return py::make_tuple(j.pass, j.text, j.json);
  });
  m.def("fixture_bytes", [](const std::string& op, const std::map<std::string, ViewTuple>& in,
                            const std::map<std::string, ViewTuple>& out, const std::string& attrs,
                            const std::string& source, const std::string& note) {
    std::vector<std::byte> b;
    {
      py::gil_scoped_release nogil;
      b = fixture_bytes(op, to_views(in), to_views(out), attrs, source, note);
    }
    return to_bytes(b);
  });
  m.def("example_case", [](const std::string& op, std::uint64_t seed, int shape_index) {
    Case c = example_case(op, seed, shape_index);
    return py::make_tuple(to_dict(c.inputs), c.attrs_json);
  });
  m.def("decode", [](const std::string& dtype, py::bytes raw) {
    std::string s = raw;
    std::vector<std::byte> b(s.size());
    if (!s.empty()) std::memcpy(b.data(), s.data(), s.size());
    std::vector<double> v = decode(dtype, b);
    return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  });
}
