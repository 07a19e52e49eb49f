// Zoo mutants of attention-side paths that have no kernel here:
//  11 indexer logits with the KV scale broadcast on the wrong axis (kv_sf[i] of the query row instead of
//     kv_sf[j] of the key: what a [S] scale broadcast along the other axis does when S == S_kv). Inputs
//     from the registry's indexer_logits generator, judged by indexer_logits' own reference and oracle;
//  12 sparse decode whose mask is applied after the multiply: unreferenced KV slots (NaN, as the suite
//     fills them) reach the output as 0·NaN. Judged against a float64 gather-then-softmax reference.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "fuzz/harness/under_test.hpp"
#include "fuzz/zoo/zoo_detail.hpp"
#include "reference/registry/registry.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

ZooEntry indexer_entry() {
  ZooEntry e;
  e.id = "11";
  e.title = "indexer logits with the KV scale broadcast on the wrong axis";
  e.known_bugs_ref = "known-bugs #8 class (broadcast silently wrong when the axes coincide)";
  e.enable = "mutant indexer (fuzz/zoo/mutant_attention.cpp): kv_sf indexed by the query row";
  e.expected = Detector::oracle_localisation;
  e.diagnosis_must_contain = {"FAIL logits"};
  int seed = 110;
  for (const Json& s : {Json{{"S", 1}, {"S_kv", 1}, {"H", 4}, {"D", 32}}, Json{{"S", 5}, {"S_kv", 5}, {"H", 4}, {"D", 32}},
                        Json{{"S", 8}, {"S_kv", 8}, {"H", 8}, {"D", 64}}})
    e.cases.push_back({s.dump(), {{"shape", s}, {"seed", seed++}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    prepare_registry();
    const OpDescriptor* d = Registry::instance().find("indexer_logits");
    if (!d) throw InputError("zoo 11: indexer_logits is not registered");
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    OpCase oc = d->generate(rng, c.params["shape"]);
    validate_case(*d, oc);
    const Outputs expected = d->reference(oc);
    const Tensor &q = oc.in("q"), &kv = oc.in("kv"), &sf = oc.in("kv_sf"), &w = oc.in("weights");
    const Tensor &ks = oc.in("cu_seq_len_k_start"), &ke = oc.in("cu_seq_len_k_end");
    const std::int64_t S = q.size(0), H = q.size(1), D = q.size(2), S_kv = kv.size(0);
    Tensor out = Tensor::empty(DType::F32, {S, S_kv});
    out.fill(-std::numeric_limits<double>::infinity());
    for (std::int64_t i = 0; i < S; ++i)
      for (auto j = static_cast<std::int64_t>(ks.get({i})); j < static_cast<std::int64_t>(ke.get({i})); ++j) {
        const double scale = buggy ? sf.get({std::min(i, S_kv - 1)}) : sf.get({j});
        double acc = 0;
        for (std::int64_t h = 0; h < H; ++h) {
          double dot = 0;
          for (std::int64_t k = 0; k < D; ++k) dot += q.get({i, h, k}) * kv.get({j, k});
          acc += std::max(0.0, static_cast<double>(static_cast<float>(dot))) * w.get({i, h});
        }
        out.set({i, j}, acc * scale);
      }
    Probe p;
    add_verdict_findings(oracle::judge(*d, oc, expected, {{"logits", out}}), Detector::oracle_localisation, p);
    return p;
  };
  return e;
}

ZooEntry kv_nan_entry() {
  ZooEntry e;
  e.id = "12";
  e.title = "NaN from unreferenced KV-cache slots leaks into the output (mask applied after the multiply)";
  e.known_bugs_ref = "known-bugs #10";
  e.enable = "mutant sparse decode (fuzz/zoo/mutant_attention.cpp): out = sum over all slots of (p*v)*mask";
  e.expected = Detector::nan_placement;
  e.diagnosis_must_contain = {"NaN"};
  e.cases.push_back({"unreferenced slots zero-filled", {{"seed", 1}, {"fill_nan", false}}});
  e.cases.push_back({"unreferenced slots NaN-filled", {{"seed", 2}, {"fill_nan", true}}});
  e.cases.push_back({"unreferenced slots NaN-filled, topk 3", {{"seed", 3}, {"fill_nan", true}, {"topk", 3}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    std::mt19937_64 rng(c.params["seed"].get<std::uint64_t>());
    std::normal_distribution<double> n(0.0, 1.0);
    const int H = 4, D = 16, Dv = 8, slots = 24;
    const int topk = c.params.value("topk", 10);
    const double fill = c.params["fill_nan"].get<bool>() ? std::numeric_limits<double>::quiet_NaN() : 0.0;
    std::vector<int> idx(slots);
    for (int s = 0; s < slots; ++s) idx[s] = s;
    std::shuffle(idx.begin(), idx.end(), rng);
    idx.resize(topk);
    std::vector<char> ref(slots, 0);
    for (int s : idx) ref[s] = 1;
    std::vector<double> K(slots * D, fill), V(slots * Dv, fill), Q(H * D);
    for (int s : idx) {
      for (int k = 0; k < D; ++k) K[s * D + k] = n(rng);
      for (int k = 0; k < Dv; ++k) V[s * Dv + k] = n(rng);
    }
    for (auto& x : Q) x = n(rng);
    const double scale = 1.0 / std::sqrt(static_cast<double>(D));
    Tensor expected = Tensor::empty(DType::F32, {H, Dv}), actual = Tensor::empty(DType::F32, {H, Dv});
    for (int h = 0; h < H; ++h) {
      // float64 reference: gather the referenced slots, softmax, weighted sum.
      std::vector<double> sc(slots, -std::numeric_limits<double>::infinity());
      double mx = -std::numeric_limits<double>::infinity();
      for (int s : idx) {
        double dot = 0;
        for (int k = 0; k < D; ++k) dot += Q[h * D + k] * K[s * D + k];
        sc[s] = dot * scale;
        mx = std::max(mx, sc[s]);
      }
      double den = 0;
      for (int s : idx) den += std::exp(sc[s] - mx);
      for (int v = 0; v < Dv; ++v) {
        double e_acc = 0;
        for (int s : idx) e_acc += std::exp(sc[s] - mx) / den * V[s * Dv + v];
        expected.set({h, v}, e_acc);
        // Implementation under test, float32: masked logits, then the V loop over every slot.
        float a_acc = 0;
        for (int s = 0; s < slots; ++s) {
          const float p = ref[s] ? static_cast<float>(std::exp(sc[s] - mx) / den) : 0.0f;
          if (buggy) a_acc += (p * static_cast<float>(V[s * Dv + v])) * (ref[s] ? 1.0f : 0.0f);
          else if (ref[s]) a_acc += p * static_cast<float>(V[s * Dv + v]);
        }
        actual.set({h, v}, a_acc);
      }
    }
    const OracleSpec spec{"allclose", {{"rtol", 1e-5}, {"atol", 1e-6}}, "float32 decode vs float64 reference"};
    Probe p;
    add_verdict_findings(judge_mutant("zoo_sparse_decode", {{"out", expected}}, {{"out", actual}}, spec),
                         Detector::oracle_localisation, p);
    return p;
  };
  return e;
}

}  // namespace

std::vector<ZooEntry> attention_entries() { return {indexer_entry(), kv_nan_entry()}; }

}  // namespace dsv4::fuzz::zoo::detail
