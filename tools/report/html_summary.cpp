#include "report/html_summary.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/html_coverage.h"
#include "report/html_tables.h"
#include "report/html_util.h"

namespace flopspy::tools::html {

using nlohmann::json;

namespace {

std::string Fraction(const json& object, std::string_view key) {
  const std::optional<double> f = Num(object, key);
  return f ? Pct(100 * *f, 1) : "-";
}

// "compute bound: 64.0% of kernel time compute bound, ..." with the regime word highlighted.
std::string RegimeFact(const json& regime) {
  const std::string name = Str(regime, "regime", "unknown");
  std::string s =
      fmt::format(R"(<span class="regime {}">{}</span>)", Escape(name), Escape(RegimeText(name)));
  const std::string sentence = Str(regime, "sentence");
  if (!sentence.empty()) {
    s += " <span class=\"muted\">(" + Escape(sentence) + ")</span>";
    return s;
  }
  // No sentence: the numbers behind the verdict from the fields.
  const json& share = Obj(regime, "kernel_share");
  std::string parts;
  for (const std::string_view r : kRegimeNames) {
    if (!Num(share, r)) continue;
    parts += (parts.empty() ? "" : ", ") + Fraction(share, r) + " " + RegimeText(r);
  }
  if (!parts.empty()) s += " <span class=\"muted\">(kernel time: " + Escape(parts) + ")</span>";
  return s;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> SummaryFacts(const json& trace) {
  const json& summary = Obj(trace, "summary");
  std::vector<std::pair<std::string, std::string>> facts;
  if (!summary.is_object()) return facts;
  if (const auto busy = Num(summary, "gpu_busy_ns")) {
    std::string text = Duration(*busy);
    if (Num(summary, "busy_fraction")) {
      text += " of a " + Ns(Num(summary, "gpu_window_ns")) + " window (" +
              Fraction(summary, "busy_fraction") + ")";
    }
    facts.push_back({"GPU busy", Escape(text)});
  }
  const json& flops = Obj(summary, "flops");
  if (const auto known = Num(flops, "known"); known && *known > 0) {
    std::string text = Si(*known, "FLOP");
    std::string by;
    for (const char* source : {"analytic", "catalog", "counters"}) {
      if (NumOr(flops, source, 0) > 0) {
        by += (by.empty() ? "" : ", ") + std::string(source) + " " + Si(Num(flops, source), "");
      }
    }
    if (!by.empty()) text += " (" + by + ")";
    facts.push_back({"FLOPs", Escape(text)});
  }
  for (auto& fact : CoverageFacts(summary)) facts.push_back(std::move(fact));
  if (const auto rate = Num(summary, "achieved_flops_per_s")) {
    facts.push_back({"achieved", Escape(Si(*rate, "FLOP/s") + " over the GPU window")});
  }
  const json& regime = Obj(summary, "regime");
  if (regime.is_object()) facts.push_back({"regime", RegimeFact(regime)});
  return facts;
}

std::string NoFindings(const json& trace) {
  const size_t kernels = Arr(trace, "kernels").size();
  const size_t shapes = Arr(trace, "library_calls").size();
  const size_t copies = Arr(trace, "copies").size();
  if (kernels == 0 && shapes == 0 && copies == 0) {
    return "<p class=\"note\">No findings: the trace has no kernels, cuBLAS calls or copies for "
           "the advice rules to judge.</p>\n";
  }
  return fmt::format(
      "<p class=\"note\">No findings: none of the advice rules (docs/advice.md) applies to "
      "this trace's {} kernel signatures, {} cuBLAS shapes and {} copy groups. No memory-bound "
      "elementwise kernels take 5% of the GPU time, no FP32 GEMM runs on CUDA cores beside "
      "tensor cores, no GEMM shape loses time to alignment or quantization, no copy is from "
      "pageable memory, fewer than 100 kernel runs are launch bound, and no compute-bound "
      "kernel with 5% of the time is far from its roof.</p>\n",
      kernels, shapes, copies);
}

std::string RegionsTable(const json& regions, const std::string& id) {
  HtmlTable t(id, {{"region", false, "name given to flopspy_region_begin/end"},
                   {"count", true, "completed begin/end pairs"},
                   {"total", true, "summed time of the completed pairs"},
                   {"mean", true, "time per pair"},
                   {"p50", true, "median time per pair"},
                   {"p95", true, "95th percentile of the time per pair"},
                   {"max", true, "longest pair"},
                   {"never ended", true, "begins without an end (the process stopped inside)"}});
  for (const json& r : regions) {
    if (!r.is_object()) continue;
    const auto time = [&](std::string_view key) {
      const std::optional<double> v = Num(r, key);
      return Number(v, NumOr(r, "count", 0) > 0 ? Ns(v) : "-");
    };
    const double open = NumOr(r, "open", 0);
    t.AddRow(
        "", {Text(Str(r, "name", "?")), Number(Num(r, "count"), GroupedCount(NumOr(r, "count", 0))),
             time("total_ns"), time("mean_ns"), time("p50_ns"), time("p95_ns"), time("max_ns"),
             Number(open, open > 0 ? GroupedCount(open) : "-")});
  }
  return t.Render();
}

}  // namespace flopspy::tools::html
