#include "cudnn_shadow.h"

#include <cudnn_graph.h>

#include <cstring>
#include <string>

#include "log.h"

namespace flopspy::interpose::cudnn {

using analyzers::DnnGraphSummary;

BackendShadow& BackendShadow::Get() {
  static auto* shadow = new BackendShadow();  // never destroyed: hooks may run during exit
  return *shadow;
}

void BackendShadow::Created(const void* descriptor, int type) {
  const std::lock_guard lock(mutex_);
  Descriptor& d = descriptors_[descriptor];
  d = Descriptor{};
  d.type = type;
}

void BackendShadow::Destroyed(const void* descriptor) {
  {
    const std::lock_guard lock(mutex_);
    descriptors_.erase(descriptor);
  }
  Unpublish(descriptor);
}

int BackendShadow::TypeOf(const void* descriptor) const {
  const std::lock_guard lock(mutex_);
  const auto it = descriptors_.find(descriptor);
  return it == descriptors_.end() ? -1 : it->second.type;
}

void BackendShadow::Linked(const void* descriptor, int attribute, const void* const* targets,
                           int64_t count) {
  if (targets == nullptr || count <= 0) return;
  const std::lock_guard lock(mutex_);
  Descriptor& d = descriptors_[descriptor];
  if (attribute == CUDNN_ATTR_OPERATIONGRAPH_OPS) {
    d.ops.assign(targets, targets + count);
    return;
  }
  bool replaced = false;
  for (auto& [name, target] : d.links) {
    if (name == attribute) {
      target = targets[0];
      replaced = true;
    }
  }
  if (!replaced) d.links.emplace_back(attribute, targets[0]);
  for (int64_t i = 0; i < count; ++i) {
    const auto it = descriptors_.find(targets[i]);
    if (it != descriptors_.end() && it->second.graph) {
      d.graph = it->second.graph;
      return;
    }
  }
}

const void* BackendShadow::LinkOf(const void* descriptor, int attribute) const {
  const std::lock_guard lock(mutex_);
  const auto it = descriptors_.find(descriptor);
  if (it == descriptors_.end()) return nullptr;
  for (const auto& [name, target] : it->second.links) {
    if (name == attribute) return target;
  }
  return nullptr;
}

void BackendShadow::Derived(const void* source, const void* const* results, int64_t count) {
  if (results == nullptr || count <= 0) return;
  const std::lock_guard lock(mutex_);
  const auto it = descriptors_.find(source);
  if (it == descriptors_.end() || !it->second.graph) return;
  const auto graph = it->second.graph;
  for (int64_t i = 0; i < count; ++i) {
    if (results[i] != nullptr) descriptors_[results[i]].graph = graph;
  }
}

void BackendShadow::NoteBeta(const void* operation, bool non_zero) {
  const std::lock_guard lock(mutex_);
  Descriptor& d = descriptors_[operation];
  d.beta_known = true;
  d.beta_non_zero = non_zero;
}

bool BackendShadow::BetaNonZero(const void* operation, bool& known) const {
  const std::lock_guard lock(mutex_);
  const auto it = descriptors_.find(operation);
  known = it != descriptors_.end() && it->second.beta_known;
  return known && it->second.beta_non_zero;
}

void BackendShadow::SetOperation(const void* operation, const OperationModel& model) {
  const std::lock_guard lock(mutex_);
  descriptors_[operation].model = std::make_unique<OperationModel>(model);
}

void BackendShadow::GraphFinalized(const void* graph) {
  const std::lock_guard lock(mutex_);
  Descriptor& g = descriptors_[graph];
  DnnGraphSummary summary;
  for (const void* op : g.ops) {
    const auto it = descriptors_.find(op);
    const OperationModel* m = it != descriptors_.end() ? it->second.model.get() : nullptr;
    switch (m != nullptr ? m->kind : OperationModel::Kind::kUnknown) {
      case OperationModel::Kind::kConvolution:
        summary.AddConvolution(m->conv);
        break;
      case OperationModel::Kind::kMatmul:
        summary.AddMatmul(m->a, m->b, m->c, m->compute_type);
        break;
      case OperationModel::Kind::kPointwise:
        summary.AddPointwise(m->c, {&m->a, m->b.rank > 0 ? &m->b : nullptr});
        break;
      case OperationModel::Kind::kReduction:
        summary.AddReduction(m->a, m->c);
        break;
      case OperationModel::Kind::kAttentionForward:
      case OperationModel::Kind::kAttentionBackward:
        summary.AddAttention(m->a, m->b, m->v, m->c,
                             m->kind == OperationModel::Kind::kAttentionBackward,
                             {&m->more[0], &m->more[1], &m->more[2], &m->more[3], &m->more[4]});
        break;
      case OperationModel::Kind::kUnknown:
        summary.AddUnknown();
        break;
    }
  }
  g.graph = std::make_shared<const trace::LibraryCallRecord>(summary.Record());
}

void BackendShadow::PlanFinalized(const void* plan) {
  trace::LibraryCallRecord record{};
  {
    const std::lock_guard lock(mutex_);
    const auto it = descriptors_.find(plan);
    if (it == descriptors_.end() || !it->second.graph) return;
    record = *it->second.graph;
  }
  Publish(plan, record);
}

size_t BackendShadow::SlotOf(const void* plan) {
  return (reinterpret_cast<uintptr_t>(plan) * 0x9E3779B97F4A7C15ull) >> 52 & (kPlanSlots - 1);
}

// Writers hold the mutex (one at a time); the record is written before the key is published.
void BackendShadow::Publish(const void* plan, const trace::LibraryCallRecord& record) {
  const std::lock_guard lock(mutex_);
  const auto key = reinterpret_cast<uintptr_t>(plan);
  size_t free_slot = kPlanSlots;
  for (size_t i = 0, s = SlotOf(plan); i < kPlanSlots; ++i, s = (s + 1) & (kPlanSlots - 1)) {
    const uintptr_t k = plans_[s].key.load(std::memory_order_relaxed);
    if (k == key) {
      free_slot = s;
      break;
    }
    if (k <= kTombstone && free_slot == kPlanSlots) free_slot = s;
    if (k == 0) break;
  }
  if (free_slot == kPlanSlots) {
    if (plans_not_kept_.fetch_add(1, std::memory_order_relaxed) == 0) {
      ReportOnce("cudnn-plan-table-full", trace::WarningCode::kGeneric,
                 "more than " + std::to_string(kPlanSlots) +
                     " cuDNN execution plans alive at once; the runs of later plans are "
                     "recorded without figures");
    }
    return;
  }
  plans_[free_slot].key.store(kTombstone, std::memory_order_release);
  plans_[free_slot].record = record;
  plans_[free_slot].key.store(key, std::memory_order_release);
}

void BackendShadow::Unpublish(const void* plan) {
  const std::lock_guard lock(mutex_);
  const auto key = reinterpret_cast<uintptr_t>(plan);
  for (size_t i = 0, s = SlotOf(plan); i < kPlanSlots; ++i, s = (s + 1) & (kPlanSlots - 1)) {
    const uintptr_t k = plans_[s].key.load(std::memory_order_relaxed);
    if (k == 0) return;
    if (k == key) {
      plans_[s].key.store(kTombstone, std::memory_order_release);
      return;
    }
  }
}

bool BackendShadow::PlanRecord(const void* plan, trace::LibraryCallRecord& out) const {
  const auto key = reinterpret_cast<uintptr_t>(plan);
  for (size_t i = 0, s = SlotOf(plan); i < kPlanSlots; ++i, s = (s + 1) & (kPlanSlots - 1)) {
    const uintptr_t k = plans_[s].key.load(std::memory_order_acquire);
    if (k == 0) return false;
    if (k == key) {
      // A plan is not destroyed while it runs, so its slot does not change under this copy.
      std::memcpy(&out, &plans_[s].record, sizeof out);
      return true;
    }
  }
  return false;
}

void ReportShadowFailure() noexcept {
  try {
    ReportOnce("cudnn-shadow", trace::WarningCode::kInternalError,
               "could not follow a cuDNN backend call (out of memory); runs of plans built "
               "from now on may be recorded without figures");
  } catch (...) {
  }
}

}  // namespace flopspy::interpose::cudnn
