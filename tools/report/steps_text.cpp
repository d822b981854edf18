#include "report/steps_text.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

#include "flopspy/analyzers/display_text.h"
#include "report/format.h"
#include "report/text_table.h"

namespace flopspy::tools {

using analyzers::WholePercentText;

namespace {

// Every step is listed up to this many; beyond, the warm-up steps and the slowest and fastest.
constexpr size_t kAllSteps = 20;
constexpr size_t kEnds = 5;

std::string SourceText(const analyzers::StepReport& s) {
  switch (s.source) {
    case analyzers::StepSource::kRanges:
      return "ranges named like steps (\"" + s.detail + "\" first); CPU time of each range";
    case analyzers::StepSource::kOptimizer:
      return "a step ends at each burst of optimizer kernels (" + s.detail +
             "); GPU time from one step's first kernel to the next's";
    case analyzers::StepSource::kGraph:
      return "each launch of the most launched CUDA graph (" + s.detail + "); GPU time";
    case analyzers::StepSource::kPeriod:
      return "the period of the kernel launch sequence (" + s.detail +
             "); GPU time from one step's first kernel to the next's";
    case analyzers::StepSource::kNone:
      break;
  }
  return "none";
}

std::string SteadyText(const analyzers::StepReport& s) {
  const analyzers::StepSummary& m = s.steady;
  std::string text = fmt::format(
      "{}: mean {}, p50 {}, p95 {}; GPU busy {}", Counted(m.steps, "step", "steps"),
      Duration(m.mean_ns), Duration(m.p50_ns), Duration(m.p95_ns), WholePercentText(m.busy_share));
  text += fmt::format(
      "; kernel time compute bound {}, memory bound {}, overhead bound {}, "
      "unplaced {}; launch bound {}",
      WholePercentText(m.regime_share[1]), WholePercentText(m.regime_share[2]),
      WholePercentText(m.regime_share[3]), WholePercentText(m.regime_share[0]),
      WholePercentText(m.launch_bound_share));
  if (m.flop_rate > 0) {
    text += fmt::format(
        "; achieved {}FLOP/s of counted FLOPs ({}FLOP per step, over the {} of kernel time "
        "whose FLOPs are known)",
        SiValue(m.flop_rate), SiValue(m.flops), WholePercentText(m.flop_coverage));
  }
  if (m.mfu) {
    text += fmt::format(
        "; MFU {:.1f}% ({}FLOP of model per step over the mean step, against "
        "{}FLOP/s)",
        100 * *m.mfu, SiValue(s.model_flops_per_step), SiValue(s.peak_flops));
    // Above the peak cannot be: the FLOPs given are wrong (per step? per sample?), say so.
    if (*m.mfu > 1) text += "; above 100%: the model FLOPs per step given are too high";
  } else if (s.model_flops_per_step > 0) {
    text += "; MFU unknown: no peak known for this GPU";
  } else {
    text += "; MFU: give --model-flops-per-step (or FLOPSPY_MODEL_FLOPS)";
  }
  return text;
}

}  // namespace

void PrintSteps(const TraceReport& t, std::ostream& out) {
  const analyzers::StepReport& s = t.steps;
  if (s.empty()) return;
  fmt::print(out, "\n  Steps\n");
  fmt::print(out, "{}", Paragraph(SourceText(s), "  source    ", kLabelPad));
  if (s.warmup > 0) {
    fmt::print(out, "{}",
               Paragraph(fmt::format("{} set apart from the figures below (slower, or with "
                                     "more kernels)",
                                     s.warmup == 1 ? std::string("step 1")
                                                   : fmt::format("steps 1-{}", s.warmup)),
                         "  warm-up   ", kLabelPad));
  }
  fmt::print(out, "{}", Paragraph(SteadyText(s), "  steady    ", kLabelPad));
  if (!s.slowest.empty()) {
    std::string slowest;
    for (uint32_t n : s.slowest) {
      if (!slowest.empty()) slowest += ", ";
      slowest += fmt::format("#{} ({})", n, Duration(s.steps[n - 1].time_ns()));
    }
    fmt::print(out, "{}", Paragraph(slowest, "  slowest   ", kLabelPad));
  }
  // Which steps the table lists: all when few, else warm-up, slowest and fastest.
  std::vector<bool> shown(s.steps.size(), s.steps.size() <= kAllSteps);
  if (s.steps.size() > kAllSteps) {
    std::vector<size_t> order;
    for (size_t i = s.warmup; i < s.steps.size(); ++i) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return s.steps[a].time_ns() > s.steps[b].time_ns();
    });
    for (size_t i = 0; i < s.warmup; ++i) shown[i] = true;
    for (size_t i = 0; i < order.size() && i < kEnds; ++i) shown[order[i]] = true;
    for (size_t i = 0; i < order.size() && i < kEnds; ++i)
      shown[order[order.size() - 1 - i]] = true;
  }
  TextTable table({{"step"},
                   {"time"},
                   {"kernels"},
                   {"GPU busy"},
                   {"FLOPs"},
                   {"FLOP/s"},
                   {"copies"},
                   {"", TextTable::Align::kLeft}});
  for (size_t i = 0; i < s.steps.size(); ++i) {
    if (!shown[i]) continue;
    const analyzers::Step& step = s.steps[i];
    table.AddRow(
        {Grouped(step.number), Duration(step.time_ns()), Grouped(step.kernels),
         step.time_ns() > 0 ? WholePercentText(std::min(1.0, step.busy_ns / step.time_ns())) : "-",
         step.flops > 0 ? SiValue(step.flops) : "-",
         step.flops_ns > 0 ? SiValue(step.flops / (step.flops_ns / 1e9)) + "FLOP/s" : "-",
         step.copies > 0 ? Grouped(step.copies) : "-", step.warmup ? "warm-up" : ""});
  }
  table.Print(out);
  if (s.steps.size() > kAllSteps) {
    fmt::print(out,
               "  ({} of {} steps: the warm-up, the {} slowest and the {} fastest; --json "
               "has all)\n",
               std::count(shown.begin(), shown.end(), true), s.steps.size(), kEnds, kEnds);
  }
}

}  // namespace flopspy::tools
