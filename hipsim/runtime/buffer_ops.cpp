// Raw buffer loads and stores of hipsim/amdgcn_mem.h through a buffer resource made by make_buffer_rsrc. Rules (AMD
// CDNA3 ISA guide, "Buffer Instructions", address computation and range checking; LLVM AMDGPUUsage "Relaxed Buffer OOB
// Mode" for the per-dword rule):
// - Raw buffer (stride 0): the byte address is base + soffset + voffset; the range check is on voffset (unsigned),
//   soffset is not part of it. An element is in range when it ends at or before num_records bytes.
// - Loads and stores of 1, 2 or 4 bytes are one element; of 8, 12 or 16 bytes they are checked dword by dword.
// - Out of range: a load returns 0 for that element, a store drops it. Kernels rely on this on purpose (tails of
//   tiles), so it is not a finding unless DSV4_SIM_REPORT_BUFFER_OOB=1, which reports each one as global_out_of_range
//   (array "buffer resource", offset voffset, array bytes num_records).
// - An in-range element must still lie in a live device allocation: a descriptor wider than its allocation is
//   reported like any global access past the allocation's end.
// - A stride other than 0 (structured buffer addressing, swizzle) is not modelled: kernel_exception naming it.
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "hipsim/include/hipsim/abi_mem.h"
#include "hipsim/runtime/state.hpp"
#include "kernels/backend/sim/sim_internal.hpp"

namespace sd = dsv4::port::sim::detail;
using dsv4::port::sim::Violation;
using dsv4::port::sim::ViolationKind;

namespace {
bool report_oob() {
  static const bool on = [] {
    const char* e = std::getenv("DSV4_SIM_REPORT_BUFFER_OOB");
    return e && std::strcmp(e, "0") != 0 && *e;
  }();
  return on;
}
}  // namespace

extern "C" void __hipsim_raw_buffer(const __hipsim_buffer_rsrc* r, int voffset, int soffset, void* data,
                                    unsigned bytes, int write, const std::source_location* loc) {
  sd::ThreadCtx* c = sd::g_current;
  const std::string site = std::string(loc->file_name()) + ":" + std::to_string(loc->line());
  if (r->stride != 0)
    throw std::runtime_error("raw buffer access at " + site + " through a resource of stride " +
                             std::to_string(r->stride) + ": only stride 0 is modelled");
  auto* d = static_cast<unsigned char*>(data);
  const unsigned elem = bytes <= 4 ? bytes : 4;
  for (unsigned e = 0; e < bytes; e += elem) {
    const std::uint64_t off = std::uint64_t(std::uint32_t(voffset)) + e;
    const bool in_range = off + elem <= r->num_records;
    if (!in_range) {
      if (!write) std::memset(d + e, 0, elem);
      if (report_oob() && c) {
        sd::Executor& ex = sd::Executor::get();
        Violation v = ex.make_violation(ViolationKind::global_out_of_range, c->block, &ex.current_thread());
        v.array = "buffer resource";
        v.offset = std::int64_t(off);
        v.size = elem;
        v.array_bytes = r->num_records;
        v.detail = std::string("raw buffer ") + (write ? "store" : "load") + " of " + std::to_string(elem) +
                   " B at voffset " + std::to_string(off) + " past num_records " + std::to_string(r->num_records) +
                   (write ? ": dropped" : ": returned 0") +
                   " (reported because DSV4_SIM_REPORT_BUFFER_OOB is set) at " + site;
        ex.add_violation(v);
      }
      continue;
    }
    const auto p = reinterpret_cast<std::uintptr_t>(r->base) + std::uintptr_t(std::intptr_t(soffset)) + off;
    if (c) hipsim::check_global(sd::Executor::get(), *c->block, p, elem, write != 0, site.c_str());
    if (write) std::memcpy(reinterpret_cast<void*>(p), d + e, elem);
    else std::memcpy(d + e, reinterpret_cast<const void*>(p), elem);
  }
}
