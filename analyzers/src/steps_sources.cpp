// Where steps come from when no range names them: the optimizer's kernel bursts and the period of
// the kernel launch sequence.
#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

#include "flopspy/analyzers/steps.h"
#include "helpers_internal.h"

namespace flopspy::analyzers {

namespace {

bool Has(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Non-optimizer kernels allowed between two optimizer kernels of one burst (a foreach
// optimizer's helper kernels).
constexpr size_t kBurstGap = 1;

}  // namespace

bool IsOptimizerKernel(std::string_view name) {
  const std::string n = helpers::AsciiLower(name);
  const bool rule = Has(n, "adam") || Has(n, "sgd") || Has(n, "lamb") || Has(n, "adagrad");
  return rule && (Has(n, "multi_tensor") || Has(n, "fused") || Has(n, "optim"));
}

std::vector<KernelSpan> OptimizerSteps(std::span<const std::string_view> names) {
  std::vector<size_t> burst_ends;  // one past the last optimizer kernel of each burst
  size_t last = SIZE_MAX;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!IsOptimizerKernel(names[i])) continue;
    if (last != SIZE_MAX && i - last <= kBurstGap + 1) {
      burst_ends.back() = i + 1;
    } else {
      burst_ends.push_back(i + 1);
    }
    last = i;
  }
  std::vector<KernelSpan> steps;
  if (burst_ends.size() < 2) return steps;
  size_t begin = 0;
  for (size_t end : burst_ends) {
    steps.emplace_back(begin, end);
    begin = end;
  }
  return steps;
}

std::vector<KernelSpan> PeriodSteps(std::span<const uint32_t> sequence) {
  std::vector<KernelSpan> steps;
  std::unordered_map<uint32_t, std::vector<size_t>> at;
  for (size_t i = 0; i < sequence.size(); ++i) at[sequence[i]].push_back(i);
  // The step count: the count most signatures share (each kernel run once per step has it);
  // warm-up extras and noise give other counts. Ties go to the smaller count.
  std::map<size_t, size_t> signatures_with;
  for (const auto& [sig, positions] : at) {
    if (positions.size() >= 3) ++signatures_with[positions.size()];
  }
  size_t n = 0, most = 0;
  for (const auto& [count, how_many] : signatures_with) {
    if (how_many > most) n = count, most = how_many;
  }
  if (most < 2 || sequence.size() < 2 * n) return steps;
  std::vector<const std::vector<size_t>*> once;  // signatures run once per step, by first run
  for (const auto& [sig, positions] : at) {
    if (positions.size() == n) once.push_back(&positions);
  }
  std::sort(once.begin(), once.end(),
            [](const auto* a, const auto* b) { return a->front() < b->front(); });
  // The anchor: the earliest of them that the others follow once between its runs.
  for (const std::vector<size_t>* anchor : once) {
    const std::vector<size_t>& a = *anchor;
    size_t agree = 0, others = 0;
    for (const std::vector<size_t>* other : once) {
      if (other == anchor) continue;
      ++others;
      bool follows = true;
      for (size_t k = 0; k < n && follows; ++k) {
        const size_t next = k + 1 < n ? a[k + 1] : SIZE_MAX;
        follows = (*other)[k] > a[k] && (*other)[k] < next;
      }
      if (follows) ++agree;
    }
    if (others == 0 || 2 * agree < others) continue;
    for (size_t k = 0; k < n; ++k) {
      steps.emplace_back(k == 0 ? 0 : a[k], k + 1 < n ? a[k + 1] : sequence.size());
    }
    return steps;
  }
  return steps;
}

}  // namespace flopspy::analyzers
