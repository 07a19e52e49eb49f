// `dsv4check verify FILE...`: recompute the reference of each fixture and judge its out.* tensors (see
// fixture_verify.hpp). Exit 0 all pass, 1 any mismatch, 2 any invalid file.
#include <iostream>

#include "tools/dsv4check/command.hpp"
#include "tools/dsv4check/fixture_verify.hpp"

namespace {

dsv4::cli::Registrar reg{
    "verify", "Verify fixture files (safetensors): recompute the reference and judge every out.* tensor",
    [](dsv4::cli::Args& sub) -> dsv4::cli::Action {
      struct Opts {
        std::vector<std::string> files;
        std::string policy, params, heatmap_dir;
        bool json = false;
      };
      auto o = std::make_shared<Opts>();
      sub.add_option("files", o->files, "Fixture files (.safetensors)")->required();
      sub.add_option("--policy", o->policy,
                     "Judge every output with this oracle policy instead of the op's default "
                     "(exact, ulp, allclose, error-bound, cosine, topk-set)");
      sub.add_option("--params", o->params, "JSON parameters of --policy, e.g. '{\"atol\":1e-3,\"rtol\":1e-2}'");
      sub.add_option("--heatmap-dir", o->heatmap_dir, "Write an error-map PNG per failing output into this folder");
      sub.add_flag("--json", o->json, "Print one JSON object per file");
      return [o]() -> int {
        dsv4::cli::VerifyOptions vo;
        vo.heatmap_dir = o->heatmap_dir;
        vo.json = o->json;
        if (!o->params.empty() && o->policy.empty()) throw dsv4::cli::UsageError("--params needs --policy");
        if (!o->policy.empty()) {
          dsv4::OracleSpec spec;
          spec.policy = o->policy;
          try {
            spec.params = o->params.empty() ? dsv4::Json::object() : dsv4::Json::parse(o->params);
          } catch (const dsv4::Json::exception& e) {
            throw dsv4::cli::UsageError(std::string("--params is not valid JSON: ") + e.what());
          }
          spec.rationale = "given on the command line";
          vo.overrides["*"] = spec;
        }
        return dsv4::cli::verify_files(o->files, vo, std::cout);
      };
    }};

}  // namespace
