// Zoo entry 10: an LDS preload bounded by rows x stride instead of (rows-1) x stride + K, reading past the
// end of a strided activation view (known-bugs #18). A small GEMV kernel on the sim backend preloads the
// view into LDS (the mutant's bound: rows·stride; correct: (rows-1)·stride + K) and computes y = a·w from
// LDS, bounded by K, so its values stay right ("no allclose test can catch this"). Detection follows the
// known-bugs test: the view's last valid byte is the last byte before a PROT_NONE guard page, and the
// kernel runs in a forked child; a read past the view faults there, and the child reports the faulting
// address (offset past the view's end). The values are also judged by the oracle.
// sim only (device memory is host memory there); on other backends the entry is absent.
#include "fuzz/zoo/zoo_detail.hpp"

#if defined(DSV4_BACKEND_SIM)
#include <fmt/format.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <random>

#include "kernels/port/hip_port.hpp"
#include "kernels/port/runtime.hpp"

namespace dsv4::fuzz::zoo::detail {

namespace {

__global__ void preload_gemv_kernel(const float* a, const float* w, float* y, int rows, int stride, int k,
                                    int preload_bound) {
  DSV4_LDS_DYNAMIC(float, a_lds);
  for (int i = static_cast<int>(threadIdx.x); i < preload_bound; i += static_cast<int>(blockDim.x)) a_lds[i] = a[i];
  __syncthreads();
  const int r = static_cast<int>(threadIdx.x);
  if (r < rows) {
    float acc = 0.f;
    for (int c = 0; c < k; ++c) acc += a_lds[r * stride + c] * w[c];
    y[r] = acc;
  }
}

int g_pipe_fd = -1;
void on_segv(int, siginfo_t* info, void*) {
  std::uint64_t msg[2] = {1, reinterpret_cast<std::uint64_t>(info->si_addr)};
  (void)!::write(g_pipe_fd, msg, sizeof msg);
  ::_exit(86);
}

struct GuardedRun {
  bool faulted = false;
  std::int64_t fault_offset = 0;  // bytes past the view's last valid byte + 1
  std::vector<float> y;
  std::string error;
};

GuardedRun run_guarded(int rows, int stride, int k, bool buggy, const std::vector<float>& a_vals,
                       const std::vector<float>& w) {
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::size_t valid = static_cast<std::size_t>((rows - 1) * stride + k);
  const std::size_t valid_bytes = valid * 4;
  const std::size_t data_pages = (valid_bytes + page - 1) / page;
  void* base = ::mmap(nullptr, (data_pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::runtime_error("zoo 10: mmap failed");
  ::mprotect(static_cast<char*>(base) + data_pages * page, page, PROT_NONE);
  auto* a = reinterpret_cast<float*>(static_cast<char*>(base) + data_pages * page - valid_bytes);
  std::memcpy(a, a_vals.data(), valid_bytes);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("zoo 10: pipe failed");
  GuardedRun res;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    g_pipe_fd = fds[1];
    static char alt[1 << 16];
    stack_t ss{};
    ss.ss_sp = alt;
    ss.ss_size = sizeof alt;
    ::sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigaction(SIGSEGV, &sa, nullptr);
    ::sigaction(SIGBUS, &sa, nullptr);
    try {
      port::DeviceBuffer dw = port::DeviceBuffer::from_host<float>(w);
      port::DeviceBuffer dy(static_cast<std::size_t>(rows) * 4);
      port::Stream s;
      const int bound = buggy ? rows * stride : static_cast<int>(valid);
      port::LaunchConfig cfg{port::Dim3(1), port::Dim3(64), static_cast<std::size_t>(rows * stride) * 4, &s,
                             buggy ? "preload_gemv<rows*stride>" : "preload_gemv",
                             {port::reads(a, valid_bytes, "a"), port::reads(dw.data(), w.size() * 4, "w"),
                              port::writes(dy.data(), rows * 4u, "y")}};
      port::launch(preload_gemv_kernel, cfg, static_cast<const float*>(a), dw.as<const float>(), dy.as<float>(), rows,
                   stride, k, bound);
      s.synchronize();
      const std::vector<float> y = dy.to_host<float>();
      const std::uint64_t head[2] = {0, static_cast<std::uint64_t>(y.size())};
      (void)!::write(fds[1], head, sizeof head);
      (void)!::write(fds[1], y.data(), y.size() * 4);
      ::_exit(0);
    } catch (...) {
      ::_exit(3);
    }
  }
  ::close(fds[1]);
  std::vector<char> buf;
  char tmp[4096];
  for (ssize_t n; (n = ::read(fds[0], tmp, sizeof tmp)) > 0;) buf.insert(buf.end(), tmp, tmp + n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::munmap(base, (data_pages + 1) * page);
  std::uint64_t head[2] = {9, 0};
  if (buf.size() >= sizeof head) std::memcpy(head, buf.data(), sizeof head);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 86 && head[0] == 1) {
    res.faulted = true;
    res.fault_offset = static_cast<std::int64_t>(head[1] - reinterpret_cast<std::uint64_t>(a + valid));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && head[0] == 0 && buf.size() >= sizeof head + head[1] * 4) {
    res.y.resize(head[1]);
    std::memcpy(res.y.data(), buf.data() + sizeof head, head[1] * 4);
  } else {
    res.error = fmt::format("child ended with status {:#x}", status);
  }
  return res;
}

}  // namespace

std::vector<ZooEntry> preload_entries() {
  ZooEntry e;
  e.id = "10";
  e.title = "LDS preload bounded by rows x stride instead of (rows-1) x stride + K reads past the tensor";
  e.known_bugs_ref = "known-bugs #18";
  e.enable = "mutant sim kernel preload_gemv (fuzz/zoo/mutant_preload.cpp) with preload bound rows*stride";
  e.expected = Detector::guard_page;
  e.diagnosis_must_contain = {"past the view"};
  e.cases.push_back({"rows=4 K=64 stride=64 (contiguous)", {{"rows", 4}, {"k", 64}, {"stride", 64}}});
  e.cases.push_back({"rows=4 K=64 stride=72", {{"rows", 4}, {"k", 64}, {"stride", 72}}});
  e.cases.push_back({"rows=8 K=96 stride=128", {{"rows", 8}, {"k", 96}, {"stride", 128}}});
  e.probe = [](const ZooCase& c, bool buggy) {
    const int rows = c.params["rows"], k = c.params["k"], stride = c.params["stride"];
    std::mt19937_64 rng(static_cast<std::uint64_t>(rows * 1000 + stride));
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> a(static_cast<std::size_t>((rows - 1) * stride + k)), w(static_cast<std::size_t>(k));
    for (auto& x : a) x = u(rng);
    for (auto& x : w) x = u(rng);
    const GuardedRun g = run_guarded(rows, stride, k, buggy, a, w);
    Probe p;
    if (g.faulted) {
      p.findings.push_back({Detector::guard_page,
                            fmt::format("read faulted at +{} B past the view's end (+0 = the byte after its last "
                                        "element; view (rows-1)*stride+K = {} elements; preload bound rows*stride "
                                        "= {} elements: {} B over)",
                                        g.fault_offset, (rows - 1) * stride + k, rows * stride,
                                        (rows * stride - ((rows - 1) * stride + k)) * 4)});
      return p;
    }
    if (!g.error.empty()) throw std::runtime_error("zoo 10: " + g.error);
    Tensor exp = Tensor::empty(DType::F32, {rows, 1}), act = Tensor::empty(DType::F32, {rows, 1});
    for (int r = 0; r < rows; ++r) {
      double acc = 0;
      for (int i = 0; i < k; ++i) acc += static_cast<double>(a[r * stride + i]) * w[i];
      exp.set({r, 0}, acc);
      act.set({r, 0}, g.y[r]);
    }
    const OracleSpec spec{"allclose", {{"rtol", 1e-5}, {"atol", 1e-5}}, "fp32 GEMV vs float64"};
    add_verdict_findings(judge_mutant("zoo_preload_gemv", {{"y", exp}}, {{"y", act}}, spec),
                         Detector::oracle_localisation, p);
    return p;
  };
  return {e};
}

}  // namespace dsv4::fuzz::zoo::detail

#else
namespace dsv4::fuzz::zoo::detail {
std::vector<ZooEntry> preload_entries() { return {}; }
}  // namespace dsv4::fuzz::zoo::detail
#endif
