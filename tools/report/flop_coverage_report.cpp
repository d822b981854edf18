// The run summary's FLOP coverage in words and JSON (docs/flopspy-report.md, "FLOP coverage").
#include "report/flop_coverage_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/format.h"
#include "report/labels.h"

namespace flopspy::tools {
namespace {

using analyzers::FlopCoverage;
using trace::FigureSource;

// One decimal, as the regime sentence's shares: the two read together.
std::string CoveragePercent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}

std::string UnknownKernelLabel(const analyzers::UnknownFlopsKernel& k) {
  return KernelLabel(k.name, k.op, k.shape_key);
}

}  // namespace

std::string FlopCoverageSentence(const FlopCoverage& c) {
  if (c.kernel_ns <= 0) return "";
  return fmt::format(
      "FLOPs known for {} of kernel time: analytic {}, catalog {}, counters {}; unknown {}",
      CoveragePercent(c.KnownShare()), CoveragePercent(c.Share(FigureSource::kAnalytic)),
      CoveragePercent(c.Share(FigureSource::kCatalog)),
      CoveragePercent(c.Share(FigureSource::kCounters)),
      CoveragePercent(c.Share(FigureSource::kUnknown)));
}

std::string UnknownFlopsLine(const analyzers::UnknownFlopsKernel& k) {
  return fmt::format("{} ({}) {}: would be known from {}", CoveragePercent(k.share),
                     Duration(k.unknown_ns), UnknownKernelLabel(k),
                     analyzers::CoverageRemedyText(k.remedy));
}

// The coverage line and the largest unknown rows under it (docs/flopspy-report.md, "FLOP
// coverage").
void PrintFlopCoverage(const FlopCoverage& c, std::ostream& out) {
  if (c.kernel_ns <= 0) return;
  fmt::print(out, "{}", Paragraph(FlopCoverageSentence(c), "  coverage  ", kLabelPad));
  for (const analyzers::UnknownFlopsKernel& k : c.largest_unknown) {
    fmt::print(out, "{}", Paragraph(UnknownFlopsLine(k), "  unknown   ", kLabelPad));
  }
  if (c.unknown_rows > c.largest_unknown.size()) {
    const size_t more = c.unknown_rows - c.largest_unknown.size();
    fmt::print(
        out, "{}",
        Paragraph(fmt::format("... {} more kernel row{} without FLOPs (in the kernels table)",
                              Grouped(more), more == 1 ? "" : "s"),
                  kLabelPad, kLabelPad));
  }
}

nlohmann::json FlopCoverageJson(const FlopCoverage& c) {
  return {{"kernel_ns", c.kernel_ns},
          {"known", c.KnownShare()},
          {"analytic", c.Share(FigureSource::kAnalytic)},
          {"catalog", c.Share(FigureSource::kCatalog)},
          {"counters", c.Share(FigureSource::kCounters)},
          {"unknown", c.Share(FigureSource::kUnknown)},
          {"unknown_rows", c.unknown_rows},
          {"sentence", FlopCoverageSentence(c)}};
}

nlohmann::json UnknownFlopsKernelsJson(const FlopCoverage& c) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyzers::UnknownFlopsKernel& k : c.largest_unknown) {
    list.push_back({{"name", k.name},
                    {"label", UnknownKernelLabel(k)},
                    {"op", k.op},
                    {"category", k.category},
                    {"device", k.device},
                    {"unknown_ns", k.unknown_ns},
                    {"share", k.share},
                    {"remedy", std::string(analyzers::CoverageRemedyName(k.remedy))},
                    {"remedy_text", std::string(analyzers::CoverageRemedyText(k.remedy))}});
  }
  return list;
}

}  // namespace flopspy::tools
