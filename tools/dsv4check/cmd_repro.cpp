// `dsv4check repro --op OP --shape k=v,... [...]`: generate a case, run the kernel under test and the
// reference, print verdict, localisation and plan (see repro_run.hpp). Exit 0 pass, 1 mismatch, 2 bad input.
#include <iostream>

#include "tools/dsv4check/command.hpp"
#include "tools/dsv4check/repro_run.hpp"
#include "tools/dsv4check/shape_arg.hpp"

namespace {

dsv4::cli::Registrar reg{
    "repro", "Generate a case for an op, run a kernel and the reference, judge it; optionally save a fixture",
    [](dsv4::cli::Args& sub) -> dsv4::cli::Action {
      struct Opts {
        dsv4::cli::ReproOptions r;
        std::string shape, attrs;
      };
      auto o = std::make_shared<Opts>();
      sub.add_option("--op", o->r.op, "Op registry name (ops.md section), e.g. skinny_gemm")->required();
      sub.add_option("--shape", o->shape, "Shape for the op's generator: k=v,... (e.g. N=65,K=5248,M=16)");
      sub.add_option("--dtype", o->r.dtype, "Element dtype, passed to the generator as shape key 'dtype' (e.g. BF16)");
      sub.add_option("--attrs", o->attrs, "Attribute overrides: k=v,... or a JSON object");
      sub.add_option("--backend", o->r.backend, "Kernel backend: reference (default), sim, cuda, hip");
      sub.add_option("--arch", o->r.arch, "Arch profile: gfx942, gfx950, sm_90");
      sub.add_option("--variant", o->r.variant, "Kernel variant (bug zoo); default: the correct kernel");
      sub.add_option("--seed", o->r.seed, "Generator seed (default 1)");
      sub.add_option("--streams", o->r.streams, "Run the kernel on N concurrent streams (where supported)");
      sub.add_option("--save", o->r.save, "Save the case (inputs, attrs, outputs under test) as a fixture");
      sub.add_option("--heatmap", o->r.heatmap, "Write the error map of the first failing (else first) output as PNG");
      sub.add_option("--set-code", o->r.set_codes,
                     "Force a raw code into a generated input: NAME:INDEX=CODE (row-major index; repeatable)");
      sub.add_option("--note", o->r.note, "Free-text note stored in the saved fixture");
      return [o]() -> int {
        o->r.shape = dsv4::cli::parse_key_values(o->shape, "--shape");
        if (!o->attrs.empty()) {
          if (o->attrs.front() == '{') {
            try {
              o->r.attrs = dsv4::Json::parse(o->attrs);
            } catch (const dsv4::Json::exception& e) {
              throw dsv4::cli::UsageError(std::string("--attrs is not valid JSON: ") + e.what());
            }
          } else {
            o->r.attrs = dsv4::cli::parse_key_values(o->attrs, "--attrs");
          }
        }
        return dsv4::cli::run_repro(o->r, std::cout);
      };
    }};

}  // namespace
