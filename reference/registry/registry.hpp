// The op registry: all descriptors by name. Built on first use from builtin_ops.cpp (explicit
// registration, so nothing depends on static-initialiser order or on archive members being linked).
#pragma once
#include <string>
#include <vector>

#include "reference/registry/op_descriptor.hpp"

namespace dsv4 {

class Registry {
 public:
  static Registry& instance();
  void add(OpDescriptor d);                         // throws on a duplicate name
  const OpDescriptor& get(const std::string& name) const;  // throws InputError listing known ops
  const OpDescriptor* find(const std::string& name) const;
  std::vector<const OpDescriptor*> all() const;      // sorted by name
  std::vector<std::string> names() const;

  // Hooks for layers above reference/ (oracle defaults, kernels, generators) to amend descriptors.
  OpDescriptor& mutable_get(const std::string& name);

 private:
  std::vector<OpDescriptor> ops_;
};

// Runs the reference of op `name` on a validated copy of `c`.
Outputs run_reference(const std::string& name, OpCase c);

}  // namespace dsv4
