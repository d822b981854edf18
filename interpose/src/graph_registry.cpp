#include "graph_registry.h"

#include <atomic>
#include <string>

#include "library_resolver.h"
#include "log.h"
#include "raw_events.h"

namespace flopspy::interpose {
namespace {

// Handle -> id without a lock: graph launches look their executable graph up on every call,
// graphs are made rarely. A destroyed handle's slot is marked gone, and reused.
class HandleIds {
 public:
  static constexpr size_t kSlots = 4096;

  explicit constexpr HandleIds(const char* what) : what_(what) {}

  uint32_t IdOf(uint64_t handle) noexcept {
    if (handle == 0 || handle == kGone || handle == kBusy) return 0;
    for (size_t i = 0, s = SlotOf(handle); i < kSlots; ++i, s = (s + 1) % kSlots) {
      const uint64_t key = slots_[s].handle.load(std::memory_order_acquire);
      if (key == handle) return slots_[s].id.load(std::memory_order_acquire);
      if (key == 0) break;
    }
    for (size_t i = 0, s = SlotOf(handle); i < kSlots; ++i, s = (s + 1) % kSlots) {
      uint64_t key = slots_[s].handle.load(std::memory_order_acquire);
      if (key == handle) return slots_[s].id.load(std::memory_order_acquire);
      // A slot is claimed busy, given its id, then published: a reader never sees the handle
      // with another id.
      if ((key == 0 || key == kGone) &&
          slots_[s].handle.compare_exchange_strong(key, kBusy, std::memory_order_acq_rel)) {
        const uint32_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
        slots_[s].id.store(id, std::memory_order_release);
        slots_[s].handle.store(handle, std::memory_order_release);
        return id;
      }
      if (key == handle) return slots_[s].id.load(std::memory_order_acquire);  // raced in
    }
    if (!full_reported_.exchange(true)) {
      try {
        ReportOnce(std::string("graph-table-") + what_, trace::WarningCode::kGeneric,
                   std::string("more than 4096 CUDA ") + what_ +
                       " alive at once; the others' kernels are counted without their graph");
      } catch (...) {
      }
    }
    return 0;
  }

  void Forget(uint64_t handle) noexcept {
    if (handle == 0) return;
    for (size_t i = 0, s = SlotOf(handle); i < kSlots; ++i, s = (s + 1) % kSlots) {
      uint64_t key = slots_[s].handle.load(std::memory_order_acquire);
      if (key == handle) {
        slots_[s].handle.compare_exchange_strong(key, kGone, std::memory_order_acq_rel);
        return;
      }
      if (key == 0) return;
    }
  }

 private:
  static constexpr uint64_t kGone = ~uint64_t{0};
  static constexpr uint64_t kBusy = ~uint64_t{0} - 1;
  struct Slot {
    std::atomic<uint64_t> handle{0};
    std::atomic<uint32_t> id{0};
  };
  static size_t SlotOf(uint64_t handle) {
    return static_cast<size_t>((handle * 0x9E3779B97F4A7C15ull) >> 52) % kSlots;
  }

  const char* what_;
  Slot slots_[kSlots];
  std::atomic<uint32_t> next_id_{1};
  std::atomic<bool> full_reported_{false};
};

constinit HandleIds g_graphs("graphs");
constinit HandleIds g_execs("executable graphs");
std::atomic<int> g_open_captures{0};

using CaptureInfoV3 = CUresult (*)(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*,
                                   const CUgraphNode**, const CUgraphEdgeData**, size_t*);
using CaptureInfoV2 = CUresult (*)(CUstream, CUstreamCaptureStatus*, cuuint64_t*, CUgraph*,
                                   const CUgraphNode**, size_t*);

}  // namespace

uint32_t GraphIdOf(CUgraph graph) noexcept {
  return g_graphs.IdOf(reinterpret_cast<uint64_t>(graph));
}
uint32_t ExecIdOf(CUgraphExec exec) noexcept {
  return g_execs.IdOf(reinterpret_cast<uint64_t>(exec));
}
void ForgetGraph(CUgraph graph) noexcept {
  g_graphs.Forget(reinterpret_cast<uint64_t>(graph));
}
void ForgetExec(CUgraphExec exec) noexcept {
  g_execs.Forget(reinterpret_cast<uint64_t>(exec));
}

void CaptureBegan() noexcept {
  g_open_captures.fetch_add(1, std::memory_order_relaxed);
}
void CaptureEnded() noexcept {
  int open = g_open_captures.load(std::memory_order_relaxed);
  while (open > 0 &&
         !g_open_captures.compare_exchange_weak(open, open - 1, std::memory_order_relaxed)) {
  }
}
bool CapturesOpen() noexcept {
  return g_open_captures.load(std::memory_order_relaxed) > 0;
}

std::optional<CapturedNode> CaptureOf(uint64_t stream, bool per_thread_stream) noexcept {
  // The driver's own functions: the ones flopspy does not wrap.
  static const auto v3 = reinterpret_cast<CaptureInfoV3>(
      ResolveReal(CudaLibrary::kDriver, "cuStreamGetCaptureInfo_v3"));
  static const auto v2 = v3 != nullptr ? nullptr
                                       : reinterpret_cast<CaptureInfoV2>(ResolveReal(
                                             CudaLibrary::kDriver, "cuStreamGetCaptureInfo_v2"));
  if (stream == 0 && per_thread_stream) stream = kStreamPerThreadHandle;
  const auto s = reinterpret_cast<CUstream>(stream);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0;
  CUgraph graph = nullptr;
  const CUgraphNode* dependencies = nullptr;
  size_t count = 0;
  CUresult result = CUDA_ERROR_NOT_FOUND;
  if (v3 != nullptr) {
    const CUgraphEdgeData* edges = nullptr;
    result = v3(s, &status, &id, &graph, &dependencies, &edges, &count);
  } else if (v2 != nullptr) {
    result = v2(s, &status, &id, &graph, &dependencies, &count);
  }
  if (result != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_ACTIVE) return std::nullopt;
  CapturedNode node;
  node.graph = GraphIdOf(graph);
  node.capture_id = id;
  // Right after a launch the stream depends on the one node it made.
  if (count == 1 && dependencies != nullptr)
    node.node = reinterpret_cast<uint64_t>(dependencies[0]);
  return node;
}

}  // namespace flopspy::interpose
