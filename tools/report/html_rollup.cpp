#include "report/html_rollup.h"

#include <fmt/format.h>

#include "report/html_tables.h"
#include "report/html_util.h"
#include "report/labels.h"
#include "report/report_model_json.h"

namespace flopspy::tools::html {
namespace {

using nlohmann::json;

std::string RollupTable(const json& rows, const json& rest, const char* key, const char* heading,
                        const std::string& id) {
  if (!rows.is_array() || rows.empty()) return "";
  HtmlTable t(id, {{heading, false, ""},
                   {"GPU %", true, "share of the trace's kernel GPU time"},
                   {"GPU time", true, "summed GPU time"},
                   {"runs", true, "GPU executions (CPU launches when there are no GPU records)"},
                   {"signatures", true, "kernel signatures in the row"},
                   {"FLOPs known", true, "share of the row's time whose FLOPs are known"},
                   {"regime", false, "the regime holding most of the row's time, and its share"}});
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& r = rows[i];
    const double share = 100 * NumOr(r, "gpu_share", 0);
    const double coverage = 100 * NumOr(r, "flops_coverage", 0);
    const std::string regime = Str(r, "regime", "unknown");
    const double regime_share = 100 * NumOr(Obj(r, "regime_shares"), regime, 0);
    Cell name;
    name.html = ShortName(Str(r, key), Str(r, key), 48);
    name.sort_text = Str(r, key);
    name.cls = "name";
    Cell regime_cell;
    regime_cell.html = fmt::format(R"(<span style="color:{}">{}</span> {:.0f}%)",
                                   RegimeColor(regime), Escape(RegimeText(regime)), regime_share);
    regime_cell.sort_text = regime;
    t.AddRow(
        fmt::format("{}-{}", id, i),
        {name, Number(share, fmt::format("{:.1f}", share)),
         Number(Num(r, "gpu_ns"), Ns(Num(r, "gpu_ns"))), Number(Num(r, "count"), Str(r, "count")),
         Number(Num(r, "signatures"), Str(r, "signatures")),
         Number(coverage, fmt::format("{:.0f}%", coverage)), regime_cell});
  }
  std::string s = t.Render();
  if (NumOr(rest, "rows", 0) > 0) {
    s += fmt::format(R"(<p class="note">{} more ({:.1f}% of kernel time): --top N shows more.</p>)",
                     Str(rest, "rows"), 100 * NumOr(rest, "gpu_share", 0));
  }
  return s;
}

}  // namespace

std::string KernelRollupSection(const json& trace, const std::string& id) {
  const json& r = Obj(trace, "kernel_rollup");
  if (!r.is_object()) return "";
  const std::string families =
      RollupTable(Arr(r, "families"), Obj(r, "more_families"), "family", "family", id + "-fam");
  const std::string names =
      RollupTable(Arr(r, "names"), Obj(r, "more_names"), "name", "name", id + "-names");
  if (families.empty() && names.empty()) return "";
  return fmt::format(
      "<p class=\"note\">{} of kernel time by family and by "
      "name (the operation, else the kernel's short name).</p><div class=\"pair\"><div>{}</div>"
      "<div>{}</div></div>",
      Escape(Ns(Num(r, "kernel_ns"))), families, names);
}

}  // namespace flopspy::tools::html
