// The FLOP coverage facts of a trace's summary in the HTML page (docs/report-html.md).
#include "report/html_coverage.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/html_util.h"

namespace flopspy::tools::html {

using nlohmann::json;

std::vector<std::pair<std::string, std::string>> CoverageFacts(const json& summary) {
  std::vector<std::pair<std::string, std::string>> facts;
  const json& coverage = Obj(summary, "flop_coverage");
  const std::string sentence = Str(coverage, "sentence");
  if (sentence.empty()) return facts;
  facts.push_back({"FLOP coverage", Escape(sentence)});
  const json& unknown = Arr(summary, "unknown_flops_kernels");
  if (!unknown.is_array() || unknown.empty()) return facts;
  std::string list = R"(<ol class="unknown-flops">)";
  for (const json& k : unknown) {
    if (!k.is_object()) continue;
    list +=
        fmt::format("<li>{} ({}) {}: would be known from {}</li>",
                    Escape(Pct(100 * NumOr(k, "share", 0), 1)), Escape(Ns(Num(k, "unknown_ns"))),
                    ShortName(Str(k, "label"), Str(k, "name")), Escape(Str(k, "remedy_text")));
  }
  list += "</ol>";
  const double more = NumOr(coverage, "unknown_rows", 0) - static_cast<double>(unknown.size());
  if (more >= 1) {
    list += Escape(fmt::format("and {} more kernel rows without FLOPs", GroupedCount(more)));
  }
  facts.push_back({"unknown FLOPs, largest first", list});
  return facts;
}

}  // namespace flopspy::tools::html
