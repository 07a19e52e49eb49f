// clang-22 pass plugin (-fpass-plugin) that turns host-compiled HIP into checkable sim code. Two module passes:
//  1. at the pipeline start, every `__shared__` variable (a global the sim's hip_runtime.h puts in section
//     "dsv4_lds", or "dsv4_lds_dyn" for `extern __shared__`) is relocated into the running block's LDS arena: each
//     function that uses it calls __hipsim_lds(site) (or __hipsim_lds_dynamic()) once at entry and uses the result;
//     `site` is a constant {name, bytes, align} that the runtime allocates per block at first use.
//  2. at the end of the optimizer, every load, store, atomic and memory intrinsic whose underlying object is not a
//     stack slot or a constant global gets a call __hipsim_access(addr, bytes, flags, site, "file:line") before
//     it (for an access inlined from the sim's headers, the line of the user's call); `site` is the LDS variable the pointer was derived from when the optimizer can see it (provenance for
//     "ran past one variable into the next"; flag kDynamicLds for the extern __shared__ region); for a mutable
//     file-scope variable defined here (a `__device__` variable when a kernel touches it) flag kDeviceVar and a
//     constant {name, bytes, address}; else null. An instrumented linkonce/weak function becomes internal,
//     so the runtime (not instrumented) never links against this module's instrumented copy of an inline function.
// Invariant: pass 1 runs before any optimization, so no use of an LDS variable is folded or merged away.
#include <map>
#include <string>
#include <vector>

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

using namespace llvm;

namespace {

constexpr const char* kLdsSection = "dsv4_lds";
constexpr const char* kLdsDynSection = "dsv4_lds_dyn";
constexpr const char* kLdsFn = "__hipsim_lds";
constexpr const char* kLdsDynFn = "__hipsim_lds_dynamic";
constexpr const char* kAccessFn = "__hipsim_access";
enum : unsigned { kWrite = 1, kAtomic = 2, kRead = 4, kDynamicLds = 8, kDeviceVar = 16 };  // = hipsim/runtime/device.cpp

bool is_lds(const GlobalVariable& g) {
  return g.hasSection() && (g.getSection() == kLdsSection || g.getSection() == kLdsDynSection);
}

// A mutable variable defined in this module, not LDS: device memory when a kernel thread touches it.
bool is_device_var(const GlobalVariable& g) {
  return !is_lds(g) && !g.isConstant() && !g.isDeclaration() && !g.isThreadLocal() && !g.getName().starts_with("llvm.") &&
         !g.getName().starts_with("hipsim.");
}

GlobalVariable* string_constant(Module& m, StringRef s, std::map<std::string, GlobalVariable*>& cache) {
  auto it = cache.find(s.str());
  if (it != cache.end()) return it->second;
  Constant* init = ConstantDataArray::getString(m.getContext(), s);
  auto* g = new GlobalVariable(m, init->getType(), true, GlobalValue::PrivateLinkage, init, "hipsim.str");
  g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  cache[s.str()] = g;
  return g;
}

struct RelocateShared : PassInfoMixin<RelocateShared> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    std::vector<GlobalVariable*> lds;
    for (GlobalVariable& g : m.globals())
      if (is_lds(g)) lds.push_back(&g);
    if (lds.empty()) return PreservedAnalyses::all();
    LLVMContext& c = m.getContext();
    const DataLayout& dl = m.getDataLayout();
    Type* ptr = PointerType::getUnqual(c);
    Type* i64 = Type::getInt64Ty(c);
    StructType* site_ty = StructType::get(c, {ptr, i64, i64});
    FunctionCallee lds_fn = m.getOrInsertFunction(kLdsFn, FunctionType::get(ptr, {ptr}, false));
    FunctionCallee dyn_fn = m.getOrInsertFunction(kLdsDynFn, FunctionType::get(ptr, {}, false));
    for (FunctionCallee f : {lds_fn, dyn_fn}) {
      auto* fn = cast<Function>(f.getCallee());
      fn->addFnAttr(Attribute::NoUnwind);
      fn->addFnAttr(Attribute::WillReturn);
      fn->setMemoryEffects(MemoryEffects::inaccessibleMemOnly(ModRefInfo::Ref));
    }
    std::map<std::string, GlobalVariable*> strings;
    std::map<Function*, Instruction*> last_call;
    for (GlobalVariable* g : lds) {
      const bool dynamic = g->getSection() == kLdsDynSection || g->isDeclaration();
      Value* site = nullptr;
      if (!dynamic) {
        const std::string name = demangle(g->getName().str());
        const std::uint64_t bytes = dl.getTypeAllocSize(g->getValueType());
        const std::uint64_t align = std::max<std::uint64_t>(16, g->getAlign().valueOrOne().value());
        Constant* init = ConstantStruct::get(site_ty, {string_constant(m, name, strings), ConstantInt::get(i64, bytes),
                                                       ConstantInt::get(i64, align)});
        site = new GlobalVariable(m, site_ty, true, GlobalValue::PrivateLinkage, init, "hipsim.site." + g->getName());
      }
      convertUsersOfConstantsToInstructions({g});
      std::map<Function*, Value*> per_fn;
      std::vector<Use*> uses;
      for (Use& u : g->uses()) uses.push_back(&u);
      for (Use* u : uses) {
        auto* inst = dyn_cast<Instruction>(u->getUser());
        if (!inst) continue;
        Function* f = inst->getFunction();
        Value*& p = per_fn[f];
        if (!p) {  // in declaration order after the earlier ones: the arena is laid out in that order
          Instruction* at = &*f->getEntryBlock().getFirstInsertionPt();
          if (Instruction* last = last_call[f]) at = last->getNextNode();
          IRBuilder<> b(at);
          CallInst* call = dynamic ? b.CreateCall(dyn_fn, {}, "lds.dyn") : b.CreateCall(lds_fn, {site}, "lds." + g->getName());
          p = last_call[f] = call;
        }
        u->set(p);
      }
      if (g->use_empty()) {
        g->eraseFromParent();
      }
    }
    return PreservedAnalyses::none();
  }
};

struct InstrumentAccesses : PassInfoMixin<InstrumentAccesses> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    LLVMContext& c = m.getContext();
    const DataLayout& dl = m.getDataLayout();
    Type* ptr = PointerType::getUnqual(c);
    Type* i64 = Type::getInt64Ty(c);
    Type* i32 = Type::getInt32Ty(c);
    FunctionCallee access = m.getOrInsertFunction(kAccessFn, FunctionType::get(Type::getVoidTy(c), {ptr, i64, i32, ptr, ptr}, false));
    std::map<std::string, GlobalVariable*> strings;
    std::map<GlobalVariable*, GlobalVariable*> var_sites;
    StructType* var_site_ty = StructType::get(c, {ptr, i64, ptr});
    bool changed = false;
    for (Function& f : m) {
      if (f.isDeclaration() || f.getName().starts_with("__hipsim") ||
          f.hasFnAttribute(Attribute::DisableSanitizerInstrumentation))
        continue;
      std::vector<std::pair<Instruction*, std::vector<std::tuple<Value*, Value*, unsigned>>>> work;
      for (Instruction& i : instructions(f)) {
        std::vector<std::tuple<Value*, Value*, unsigned>> acc;  // pointer, size, flags
        auto fixed = [&](Type* t) -> Value* {
          TypeSize s = dl.getTypeStoreSize(t);
          return s.isScalable() ? nullptr : ConstantInt::get(i64, s.getFixedValue());
        };
        if (auto* l = dyn_cast<LoadInst>(&i)) {
          if (Value* s = fixed(l->getType())) acc.emplace_back(l->getPointerOperand(), s, kRead | (l->isAtomic() ? kAtomic : 0));
        } else if (auto* st = dyn_cast<StoreInst>(&i)) {
          if (Value* s = fixed(st->getValueOperand()->getType()))
            acc.emplace_back(st->getPointerOperand(), s, kWrite | (st->isAtomic() ? kAtomic : 0));
        } else if (auto* rmw = dyn_cast<AtomicRMWInst>(&i)) {
          acc.emplace_back(rmw->getPointerOperand(), fixed(rmw->getValOperand()->getType()), kRead | kWrite | kAtomic);
        } else if (auto* x = dyn_cast<AtomicCmpXchgInst>(&i)) {
          acc.emplace_back(x->getPointerOperand(), fixed(x->getNewValOperand()->getType()), kRead | kWrite | kAtomic);
        } else if (auto* mt = dyn_cast<MemTransferInst>(&i)) {
          acc.emplace_back(mt->getSource(), mt->getLength(), kRead);
          acc.emplace_back(mt->getDest(), mt->getLength(), kWrite);
        } else if (auto* ms = dyn_cast<MemSetInst>(&i)) {
          acc.emplace_back(ms->getDest(), ms->getLength(), kWrite);
        }
        llvm::erase_if(acc, [](const auto& a) {
          const Value* obj = getUnderlyingObject(std::get<0>(a), 0);
          return std::get<1>(a) == nullptr || isa<AllocaInst>(obj) ||
                 (isa<GlobalVariable>(obj) && !is_lds(*cast<GlobalVariable>(obj)) &&
                  !is_device_var(*cast<GlobalVariable>(obj)));
        });
        if (!acc.empty()) work.emplace_back(&i, std::move(acc));
      }
      for (auto& [i, acc] : work) {
        IRBuilder<> b(i);
        Value* loc = ConstantPointerNull::get(cast<PointerType>(ptr));
        if (const DILocation* d = i->getDebugLoc().get()) {
          // An access inlined from the sim's own headers (atomicAdd, a vector load) is reported at the user's call.
          while (d->getInlinedAt() && d->getFilename().contains("hipsim/include/")) d = d->getInlinedAt();
          loc = string_constant(m, (d->getFilename() + ":" + Twine(d->getLine())).str(), strings);
        }
        for (auto& [p, size, flags] : acc) {
          Value* site = ConstantPointerNull::get(cast<PointerType>(ptr));
          unsigned fl = flags;
          if (auto* gv = dyn_cast<GlobalVariable>(getUnderlyingObject(p, 0)); gv && is_device_var(*gv)) {
            GlobalVariable*& s = var_sites[gv];
            if (!s) {
              Constant* init = ConstantStruct::get(
                  var_site_ty, {string_constant(m, demangle(gv->getName().str()), strings),
                                ConstantInt::get(i64, dl.getTypeAllocSize(gv->getValueType())), gv});
              s = new GlobalVariable(m, var_site_ty, true, GlobalValue::PrivateLinkage, init, "hipsim.var." + gv->getName());
            }
            site = s;
            fl |= kDeviceVar;
          } else if (auto* call = dyn_cast<CallInst>(getUnderlyingObject(p, 0))) {
            if (Function* callee = call->getCalledFunction(); callee && callee->getName() == kLdsFn)
              site = call->getArgOperand(0);
            else if (callee && callee->getName() == kLdsDynFn)
              fl |= kDynamicLds;
          }
          b.CreateCall(access, {p, b.CreateZExtOrTrunc(size, i64), ConstantInt::get(i32, fl), site, loc});
        }
        changed = true;
      }
      // An instrumented inline function (a libstdc++ template, say) must not be the copy the linker keeps for the
      // uninstrumented runtime too: this module keeps its own.
      if (!work.empty() && (f.hasLinkOnceLinkage() || f.hasWeakLinkage())) {
        f.setLinkage(GlobalValue::InternalLinkage);
        f.setComdat(nullptr);
      }
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "hipsim", "1", [](PassBuilder& pb) {
            pb.registerPipelineStartEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(RelocateShared()); });
            pb.registerOptimizerLastEPCallback([](ModulePassManager& mpm, OptimizationLevel, ThinOrFullLTOPhase) {
              mpm.addPass(InstrumentAccesses());
            });
          }};
}
