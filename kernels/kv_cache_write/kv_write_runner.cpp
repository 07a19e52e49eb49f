// Kernel-registry entry of kv_cache_write: converts a validated OpCase into a plan and device buffers, launches, and
// returns the plan as JSON. The cache is updated in place, so the device cache starts as a byte copy of the caller's
// input cache (its whole span: blocks, inter-block padding, unreferenced slots that the generator poisons with NaN
// bytes) and the caller's output receives every logical byte back: a stray write anywhere in the cache differs from
// the reference (which is the input cache plus the written rows) under the exact policy. Block padding bytes (outside
// the logical view) are checked here and reported as "block_padding_untouched". Duplicate non-negative slots are a
// precondition this kernel does not implement (parallel writers give no "later row wins" order): CannotImplement.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "kernels/kernel_registry.hpp"
#include "kernels/runner_support.hpp"
#include "kernels/kv_cache_write/kv_cache_write.hpp"

namespace dsv4::kernels {

namespace {

using namespace kvw;
constexpr const char* kOp = "kv_cache_write";

Json run_kv_write(const OpCase& c, Outputs& outs, const RunOptions& o) {
  const Tensor& kv = c.in("kv");
  const Tensor& slots = c.in("slot_mapping");
  const Tensor& cache = c.in("k_cache");
  if (kv.dim() != 2 || slots.dim() != 1 || cache.dim() != 4)
    throw InputError("kv_cache_write: kv must be [n_tokens, d_qk], slot_mapping [n_tokens], k_cache 4-d");
  KvWriteShape shape;
  const std::string layout = c.attrs.at("cache_layout").get<std::string>();
  if (layout != "V32_FP8Sparse" && layout != "MODEL1_FP8Sparse")
    throw InputError("kv_cache_write: cache_layout must be V32_FP8Sparse or MODEL1_FP8Sparse");
  shape.layout = layout == "V32_FP8Sparse" ? Layout::v32 : Layout::model1;
  shape.n_tokens = kv.size(0);
  shape.num_blocks = cache.size(0);
  shape.block_size = cache.size(1);
  const std::int64_t bpt = cache.size(3);
  const std::int64_t need = shape.block_size * bpt;
  shape.block_stride = shape.num_blocks > 1 ? cache.stride(0) : need;
  shape.kv = kv.dtype() == DType::F32 ? KvType::f32 : KvType::bf16;
  shape.slot = slots.dtype() == DType::I32 ? SlotType::i32 : SlotType::i64;
  KvWriteOptions opt;
  const auto recipe = parse_recipe(c.attrs.at("scale_recipe").get<std::string>());
  if (!recipe) throw InputError("kv_cache_write: unknown scale_recipe");
  opt.recipe = *recipe;
  opt.fp8 = c.attrs.value("fp8_format", std::string("e4m3fn")) == "e4m3fnuz" ? Fp8::e4m3fnuz : Fp8::e4m3fn;
  const auto v = parse_kv_write_variant(o.variant);
  if (!v) throw unknown_variant("kv_cache_write", o.variant);
  opt.variant = *v;
  const port::ArchProfile& arch = run_arch(kOp, o);
  opt.wave_size = effective_wave_size(arch);
  const KvWritePlan plan = make_kv_write_plan(shape, arch, opt);
  require_plan("kv_cache_write", plan);

  // Slots: the runner's own precondition check (duplicates).
  const Tensor sc = slots.contiguous();
  std::unordered_set<std::int64_t> seen;
  for (std::int64_t i = 0; i < shape.n_tokens; ++i) {
    const auto s = static_cast<std::int64_t>(sc.get({i}));
    if (s >= 0 && !seen.insert(s).second)
      throw CannotImplement(fmt::format("kv_cache_write kernel cannot implement this case: slot_mapping[{}] = {} "
                                        "repeats an earlier slot (duplicate slots have no defined winner in a "
                                        "parallel writer)", i, s));
  }

  port::DeviceBuffer dkv = upload_contiguous(kv, 16), dslot = upload_contiguous(sc, 8);

  // Cache span on the device: num_blocks x block_stride bytes; the bytes the caller's storage holds are copied in.
  const std::int64_t nb = shape.num_blocks, stride = plan.block_stride;
  const std::size_t dev_bytes = static_cast<std::size_t>(nb * stride);
  const std::size_t span = nb > 0 ? static_cast<std::size_t>((nb - 1) * stride + need) : 0;
  const std::size_t avail = cache.storage_bytes() - static_cast<std::size_t>(cache.offset() * cache.element_bytes());
  std::vector<std::uint8_t> host(dev_bytes, 0xA5);
  std::memcpy(host.data(), cache.data(), std::min(avail, dev_bytes));
  if (avail < span) throw InputError("kv_cache_write: k_cache storage does not hold every block");
  const std::vector<std::uint8_t> before = host;
  port::DeviceBuffer dcache = upload_vector(host, 4);

  launch_repeated(o, [&](port::Stream& stream) {
    launch_kv_cache_write(plan, KvWriteBuffers{dkv.data(), dslot.data(), dcache.data()}, stream);
  });
  if (dev_bytes) dcache.copy_to_host(host.data(), dev_bytes);

  Tensor& out = outs.at("k_cache");
  bool padding_untouched = true;
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::uint8_t* blk = host.data() + b * stride;
    for (std::int64_t i = 0; i < need; ++i) out.set_code_linear(b * need + i, blk[i]);
    for (std::int64_t i = need; i < stride; ++i) padding_untouched = padding_untouched && blk[i] == before[b * stride + i];
  }

  PlanFields f = plan_fields(kOp, plan);
  f.lds_capacity = arch.lds_bytes_per_block;
  f.tile_map = tile_map_json("k_cache", 1, "block", bpt, "token (one wave per token)", 1);
  Json j = plan_json(f);
  j["block_stride"] = stride;
  j["block_padding_untouched"] = padding_untouched;
  return j;
}

}  // namespace

void register_kv_cache_write_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.op = kOp;
  e.summary = "FP8 sparse KV-cache writer (V32 656 B / MODEL1 584 B per token): one wave per token, tile amax by "
              "segmented butterfly, recipe scales (fp32 / UE8M0), bf16 RoPE, slot < 0 skipped";
  e.variants = {"default", "python_negative_slot"};
  e.run = run_kv_write;
  e.check_shapes = {
      Json{{"n_tokens", 12}, {"d_qk", 576}, {"block_size", 7}, {"num_blocks", 3}, {"recipe", "flashmla-kv-test"}},
      Json{{"n_tokens", 12}, {"d_qk", 512}, {"block_size", 5}, {"num_blocks", 3}},
      Json{{"n_tokens", 8}, {"d_qk", 512}, {"block_size", 64}, {"num_blocks", 1}, {"recipe", "flashmla-kv-test"},
           {"slot_dtype", "I32"}}};
  e.plan_sweeps = {kvw::kv_write_plan_sweep()};
  r.add(std::move(e));
}

}  // namespace dsv4::kernels
