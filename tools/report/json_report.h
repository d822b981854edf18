// The --json report: one document, schema written down in docs/report-json.md.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>
#include <vector>

#include "report/report_sink.h"
#include "report/run_views.h"
#include "report/trace_report.h"

namespace flopspy::tools {

inline constexpr int kReportJsonSchemaVersion = 2;

// The keys every trace of the document has (its facts and the analysis's core tables), the one
// list the sinks that read the document share. Any other key of a trace is a section (summary,
// advice, timeline, ...), shown generically by a sink without a renderer of its own for it.
inline constexpr std::array<std::string_view, 22> kTraceCoreKeys = {"path",
                                                                    "read",
                                                                    "process",
                                                                    "span_ns",
                                                                    "records",
                                                                    "lost",
                                                                    "lost_total",
                                                                    "lost_exact",
                                                                    "warnings",
                                                                    "end",
                                                                    "threads",
                                                                    "metadata",
                                                                    "gpu_timing",
                                                                    "launches",
                                                                    "gpu_kernel_records",
                                                                    "unmatched_launches",
                                                                    "unmatched_gpu_records",
                                                                    "replayed_gpu_records",
                                                                    "devices",
                                                                    "kernels",
                                                                    "library_calls",
                                                                    "copies"};
// The document's own keys; any other is a run section (aggregate, ranks, stragglers).
inline constexpr std::array<std::string_view, 6> kDocumentKeys = {
    "schema", "schema_version", "flopspy_version", "totals", "traces", "view"};

bool IsTraceCoreKey(std::string_view key);
bool IsDocumentKey(std::string_view key);

// The document of `traces`, with the run sections from `run` when given (the model's), else
// from views built here when two or more traces are readable.
nlohmann::json BuildJsonReport(const std::vector<TraceReport>& traces,
                               const RunViews* run = nullptr);

// --json: the model's serialisation on `out`.
class JsonReportSink : public ReportSink {
 public:
  explicit JsonReportSink(std::ostream& out) : out_(out) {}
  SinkStatus Write(const ReportModel& model) override;

 private:
  std::ostream& out_;
};

// Pieces of a TRACE (docs/report-json.md), also used for the run's merged groups.
// `trace_gpu_ns`: the kernel time `gpu_share` is a share of.
nlohmann::json KernelJson(const analyzers::KernelGroup& g, double trace_gpu_ns);
nlohmann::json LibraryJson(const analyzers::LibraryGroup& g);
nlohmann::json PlacementJson(const std::optional<analyzers::Placement>& placement);
nlohmann::json RoofsJson(const analyzers::DeviceRoofs& r);
// A trace's `advice`, and the run's (the merged run's findings).
nlohmann::json AdviceJson(const std::vector<analyzers::Advice>& advice);

}  // namespace flopspy::tools
