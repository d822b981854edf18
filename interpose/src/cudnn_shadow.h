// What flopspy keeps about cuDNN backend descriptors, to know what an execution plan computes when
// cudnnBackendExecute runs it (docs/cudnn-hooks.md §3).
//
// The backend API builds a plan in steps: tensors, operations (convolution, matmul, pointwise...)
// over them, an operation graph of those operations, engine configurations for the graph (set
// by hand or returned by a heuristics descriptor), and a plan of one configuration. By the time
// the plan runs, the descriptors that say what it computes may be gone. So:
//   - an operation is modelled when it is finalized (its tensors are alive then): the hooks read
//     them and hand the model here (SetOperation);
//   - a graph's record (analyzers::DnnGraphSummary) is made when the graph is finalized, from its
//     operations' models;
//   - every descriptor linked to a descriptor that knows a graph (set as its attribute, or
//     returned by its GetAttribute) knows that graph too: engine, configuration, heuristics, plan;
//   - a finalized plan's record goes into a table that cudnnBackendExecute reads without a lock.
// Everything but that table is on the building path (create, set, finalize, destroy), under one
// mutex; a process makes plans once and runs them many times.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flopspy/analyzers/dnn_formulas.h"
#include "flopspy/trace/schema.h"

namespace flopspy::interpose::cudnn {

// An operation as it was when finalized.
struct OperationModel {
  enum class Kind : uint8_t {
    kUnknown,
    kConvolution,
    kMatmul,
    kPointwise,
    kReduction,
    kAttentionForward,
    kAttentionBackward
  };
  Kind kind = Kind::kUnknown;
  analyzers::DnnConvolution conv;  // kConvolution
  analyzers::DnnTensor a, b, c;    // kMatmul: C = A·B; kPointwise: inputs a, b (b.rank 0 if
                                   // none), output c; kReduction: input a, output c;
                                   // attention: Q, K, O
  analyzers::DnnTensor v;          // attention: V
  std::array<analyzers::DnnTensor, 5> more;  // attention: statistics; dO, dQ, dK, dV backward
  uint8_t compute_type = analyzers::kNotApplicable;
};

class BackendShadow {
 public:
  // The process's one shadow (never destroyed: hooks may run during exit).
  static BackendShadow& Get();

  void Created(const void* descriptor, int type);
  void Destroyed(const void* descriptor);
  // SetAttribute succeeded with descriptor-valued elements: an operation graph's operations
  // (CUDNN_ATTR_OPERATIONGRAPH_OPS), or a link from `descriptor` to `targets` (the first target
  // is kept, and a graph a target knows is known to `descriptor` too).
  void Linked(const void* descriptor, int attribute, const void* const* targets, int64_t count);
  // The descriptor set as `attribute` of `descriptor`; nullptr if none was.
  const void* LinkOf(const void* descriptor, int attribute) const;
  // GetAttribute succeeded and filled `results` (copies made from `source`).
  void Derived(const void* source, const void* const* results, int64_t count);
  // A scalar the models need: an operation's beta (non-zero or not).
  void NoteBeta(const void* operation, bool non_zero);
  bool BetaNonZero(const void* operation, bool& known) const;
  // A finalized operation's model.
  void SetOperation(const void* operation, const OperationModel& model);
  // Finalize succeeded on an operation graph: its record, from its operations' models.
  void GraphFinalized(const void* graph);
  // Finalize succeeded on an execution plan: its record goes to the plan table.
  void PlanFinalized(const void* plan);
  // The descriptor type given at creation; -1 if unknown.
  int TypeOf(const void* descriptor) const;

  // cudnnBackendExecute's path, no lock: the record of a finalized plan (routine kDnnGraph),
  // or false when the plan is not one flopspy saw finalized (a plan restored from its
  // serialised form, or made before flopspy was loaded).
  bool PlanRecord(const void* plan, trace::LibraryCallRecord& out) const;

  // Plans the table could not hold (its capacity is fixed): their runs are recorded without
  // figures.
  uint64_t plans_not_kept() const { return plans_not_kept_.load(std::memory_order_relaxed); }

  static constexpr size_t kPlanSlots = 4096;

 private:
  struct Descriptor {
    int type = -1;
    std::vector<const void*> ops;                    // an operation graph's operations
    std::vector<std::pair<int, const void*>> links;  // attribute, first descriptor set
    std::shared_ptr<const trace::LibraryCallRecord> graph;
    std::unique_ptr<OperationModel> model;
    bool beta_known = false;
    bool beta_non_zero = false;
  };
  struct PlanSlot {
    std::atomic<uintptr_t> key{0};  // 0 empty, kTombstone removed, else the plan
    trace::LibraryCallRecord record{};
  };
  static constexpr uintptr_t kTombstone = 1;

  void Publish(const void* plan, const trace::LibraryCallRecord& record);
  void Unpublish(const void* plan);
  static size_t SlotOf(const void* plan);

  mutable std::mutex mutex_;
  std::unordered_map<const void*, Descriptor> descriptors_;
  std::unique_ptr<PlanSlot[]> plans_{new PlanSlot[kPlanSlots]};
  std::atomic<uint64_t> plans_not_kept_{0};
};

// Says once, on stderr and in the trace, that the shadow could not follow a call (memory ran
// out): plans built from then on may run without figures. Never throws.
void ReportShadowFailure() noexcept;

// Runs `feed` on the shadow from a hook. The building path allocates, and no exception may cross
// a hook (docs/guarantees.md): a failure is reported once and the program's call is unaffected.
template <class F>
void FeedShadow(F&& feed) noexcept {
  try {
    feed(BackendShadow::Get());
  } catch (...) {
    ReportShadowFailure();
  }
}

}  // namespace flopspy::interpose::cudnn
