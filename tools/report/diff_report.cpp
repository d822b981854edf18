#include "report/diff_report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "flopspy/analyzers/display_text.h"
#include "flopspy/platform/terminal_text.h"
#include "report/format.h"
#include "report/json_report.h"
#include "report/json_values.h"
#include "report/report_outputs.h"
#include "report/text_table.h"
#include "report/trace_inputs.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

json SideJson(const DiffRun& run) {
  const analyzers::RunAggregate& a = run.views.aggregate;
  json models = json::array();
  for (const auto& m : a.models) models.push_back(m.name);
  return {{"path", run.path},
          {"traces", run.traces.size()},
          {"readable", UsableTraces(run.traces)},
          {"ranks", a.ranks},
          {"gpus", a.gpus},
          {"gpu_models", models},
          {"launches", a.launches},
          {"kernel_gpu_ns", a.kernel_gpu_ns},
          {"kernel_flops", a.kernel_flops},
          {"busy_fraction", NumberOrNull(a.busy_fraction)},
          {"counted_flops_of_peak", NumberOrNull(a.mfu)}};
}

json FiguresJson(const analyzers::DiffFigures& f) {
  if (!f.present) return nullptr;
  const bool known = f.gpu_time_known;
  return {{"count", f.count},
          {"launches", f.launches},
          {"executions", f.executions},
          {"gpu_time_known", known},
          {"gpu_ns", known ? json(f.gpu_ns) : json(nullptr)},
          {"mean_ns", known ? json(f.mean_ns) : json(nullptr)},
          {"flops_per_s", NumberOrNull(f.flops_per_s)},
          {"pct_of_roof", NumberOrNull(f.pct_of_roof)},
          {"gpu_models", f.models},
          {"signatures", f.signatures},
          {"per_step_ns", NumberOrNull(f.per_step_ns)}};
}

json RowsJson(const std::vector<analyzers::DiffRow>& rows) {
  json list = json::array();
  for (const analyzers::DiffRow& r : rows) {
    list.push_back({{"label", r.label},
                    {"name", r.name},
                    {"presence", std::string(analyzers::DiffPresenceName(r.presence))},
                    {"a", FiguresJson(r.a)},
                    {"b", FiguresJson(r.b)},
                    {"change_ns", r.change_known ? json(r.change_ns) : json(nullptr)},
                    {"change_pct", NumberOrNull(r.change_pct)},
                    {"count_change_pct", NumberOrNull(r.count_change_pct)},
                    {"mean_change_pct", NumberOrNull(r.mean_change_pct)},
                    {"mean_change_ns", NumberOrNull(r.mean_change_ns)},
                    {"rank_change_ns", r.change_known ? json(r.rank_ns) : json(nullptr)},
                    {"rate_change_pct", NumberOrNull(r.rate_change_pct)}});
  }
  return list;
}

constexpr size_t kDiffWidth = 100;

// The first `n` characters (UTF-8 aware) of `s`, or its last `n` when `from_end`.
std::string Chars(std::string_view s, size_t n, bool from_end) {
  const size_t total = DisplayWidth(s);
  if (n >= total) return std::string(s);
  const size_t skip = from_end ? total - n : 0;
  std::string out;
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool starts = (s[i] & 0xC0) != 0x80;
    if (starts) ++seen;
    if (seen > skip && seen <= skip + n) out += s[i];
  }
  return out;
}

}  // namespace

std::string MiddleCut(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width <= 5) return Chars(text, width, false);
  const size_t tail = (width - 3) / 2, head = width - 3 - tail;
  return Chars(text, head, false) + "..." + Chars(text, tail, true);
}

namespace {

json StepJson(const std::optional<analyzers::DiffStep>& s) {
  if (!s) return nullptr;
  return {{"region", s->region}, {"count", s->count}, {"mean_ns", s->mean_ns}, {"ranks", s->ranks}};
}

// The ranking change (per step or per call x count B); "?" where a side has no GPU time (no
// GPU records): the change is not known.
std::string Signed(const analyzers::DiffRow& r) {
  if (!r.change_known) return "?";
  if (r.rank_ns == 0) return "0";
  return (r.rank_ns < 0 ? "-" : "+") + Duration(std::fabs(r.rank_ns));
}

// The relative change on the ranking's basis: of the time per step, or of the mean per call.
std::string ChangeText(const analyzers::DiffRow& r, analyzers::DiffBasis basis) {
  switch (r.presence) {
    case analyzers::DiffPresence::kOnlyA:
      return "only A";
    case analyzers::DiffPresence::kOnlyB:
      return "only B";
    case analyzers::DiffPresence::kBoth:
      break;
  }
  if (!r.change_known) return "?";
  if (basis == analyzers::DiffBasis::kPerCall) {
    return r.mean_change_pct ? fmt::format("{:+.0f}%", *r.mean_change_pct) : "-";
  }
  const double a = r.a.per_step_ns.value_or(0), b = r.b.per_step_ns.value_or(0);
  return a > 0 ? fmt::format("{:+.0f}%", 100 * (b - a) / a) : "-";
}

// Exact up to 99,999; past that three significant digits keep the column narrow.
std::string Count(const analyzers::DiffFigures& f) {
  if (!f.present) return "-";
  return f.count < 100'000 ? Grouped(f.count) : SiValue(static_cast<double>(f.count));
}
std::string Mean(const analyzers::DiffFigures& f) {
  if (!f.present) return "-";
  if (!f.gpu_time_known) return "?";
  return Duration(f.mean_ns);
}
std::string PerStep(const analyzers::DiffFigures& f) {
  if (!f.present) return "-";
  if (!f.gpu_time_known) return "?";
  return f.per_step_ns ? Duration(*f.per_step_ns) : "-";
}
std::string Rate(const analyzers::DiffFigures& f) {
  return f.flops_per_s ? SiValue(*f.flops_per_s) : "-";
}
// Share of the attainable FLOP/s: "53%", "3.2%", "0.43%".
std::string Roof(const analyzers::DiffFigures& f) {
  if (!f.pct_of_roof) return "-";
  const double v = *f.pct_of_roof;
  return fmt::format("{:.{}f}%", v, v >= 10 ? 0 : v >= 1 ? 1 : 2);
}

// Labels on a line of their own are cut in the middle, so that both the name's start and its
// shape or launch detail at the end stay readable; rows whose labels still read the same get
// their row number.
std::vector<std::string> RowLabels(const std::vector<analyzers::DiffRow>& rows, size_t limit,
                                   size_t width) {
  std::vector<std::string> labels;
  std::map<std::string, int> uses;
  // Kernel names shortened keeping what tells rows apart (tile sizes, the end); then cut in
  // the middle should a label still be too wide.
  const auto shorten = [](const std::string& label, size_t w) {
    return MiddleCut(analyzers::ShortenKernelName(platform::EscapeControls(label), w), w);
  };
  for (size_t i = 0; i < rows.size() && i < limit; ++i) {
    labels.push_back(shorten(rows[i].label, width));
    ++uses[labels.back()];
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    if (uses[labels[i]] > 1) {
      labels[i] = shorten(rows[i].label, width - 6) + fmt::format(" (#{})", i + 1);
    }
  }
  return labels;
}

void PrintRows(const std::vector<analyzers::DiffRow>& rows, analyzers::DiffBasis basis,
               const std::string& title, const std::string& what, std::ostream& out, size_t limit) {
  if (rows.empty()) return;
  const bool per_step = basis == analyzers::DiffBasis::kPerStep;
  fmt::print(out, "\n  {}, largest change {} first ({} under each row)\n", title,
             per_step ? "per step" : "per call", what);
  std::vector<TextTable::Column> columns = {{"change"}, {"%"}};
  if (per_step) {
    columns.insert(columns.end(), {{"step A"}, {"step B"}});
  }
  columns.insert(columns.end(), {{"mean A"}, {"mean B"}});
  if (!per_step) columns.insert(columns.end(), {{"count A"}, {"count B"}});
  columns.insert(columns.end(), {{"FLOP/s A"}, {"FLOP/s B"}, {"roof A"}, {"roof B"}});
  TextTable table(columns, kDiffWidth);
  // Names on a line of their own under their row (indented 6), shortened to fit, and numbered
  // where two would still read the same.
  const std::vector<std::string> labels =
      RowLabels(rows, limit, kDiffWidth - table.detail_indent());
  for (size_t i = 0; i < labels.size(); ++i) {
    const analyzers::DiffRow& r = rows[i];
    std::vector<std::string> cells = {Signed(r), ChangeText(r, basis)};
    if (per_step) cells.insert(cells.end(), {PerStep(r.a), PerStep(r.b)});
    cells.insert(cells.end(), {Mean(r.a), Mean(r.b)});
    if (!per_step) cells.insert(cells.end(), {Count(r.a), Count(r.b)});
    cells.insert(cells.end(), {Rate(r.a), Rate(r.b), Roof(r.a), Roof(r.b)});
    table.AddRow(std::move(cells));
    table.AddDetail(labels[i]);
  }
  table.Print(out);
  if (rows.size() > limit) fmt::print(out, "  ... {} more (--json has all)\n", rows.size() - limit);
}

}  // namespace

DiffRun LoadDiffRun(const std::string& path, const ReportOptions& options,
                    std::vector<std::string>* errors) {
  DiffRun run;
  run.path = path;
  // Paths that are neither a file nor a folder were reported when the arguments were read.
  const TraceInputs inputs = ExpandTraceArguments({path});
  run.traces = AnalyzeTraces(inputs.files, options);
  if (errors) {
    for (const TraceReport& t : run.traces) {
      if (t.read.status != trace::ReadStatus::kOk)
        errors->push_back(t.path + ": " + t.read.message);
    }
  }
  run.views = BuildRunViews(run.traces, options.thresholds);
  return run;
}

analyzers::RunDiff DiffOf(const DiffRun& a, const DiffRun& b, analyzers::DiffMatch match) {
  return analyzers::DiffRuns(a.views.aggregate, a.views.ranks, b.views.aggregate, b.views.ranks,
                             match);
}

json BuildDiffJson(const DiffRun& a, const DiffRun& b, const analyzers::RunDiff& d) {
  json doc;
  doc["schema"] = "flopspy-report";
  doc["schema_version"] = kReportJsonSchemaVersion;
  doc["flopspy_version"] = FLOPSPY_VERSION;
  std::optional<double> step_change;
  if (d.step_a && d.step_b && d.step_a->region == d.step_b->region && d.step_a->mean_ns > 0) {
    step_change = 100 * (d.step_b->mean_ns - d.step_a->mean_ns) / d.step_a->mean_ns;
  }
  doc["diff"] = {{"match", std::string(analyzers::DiffMatchName(d.match))},
                 {"basis", std::string(analyzers::DiffBasisName(d.basis))},
                 {"a", SideJson(a)},
                 {"b", SideJson(b)},
                 {"summary", d.summary},
                 {"notes", d.notes},
                 {"kernel_gpu_ns_a", d.kernel_ns_a},
                 {"kernel_gpu_ns_b", d.kernel_ns_b},
                 {"kernel_change_ns", d.kernel_ns_b - d.kernel_ns_a},
                 {"kernel_change_pct",
                  d.kernel_ns_a > 0 ? json(100 * (d.kernel_ns_b - d.kernel_ns_a) / d.kernel_ns_a)
                                    : json(nullptr)},
                 {"step_a", StepJson(d.step_a)},
                 {"step_b", StepJson(d.step_b)},
                 {"step_change_pct", NumberOrNull(step_change)},
                 {"kernels", RowsJson(d.kernels)},
                 {"library_calls", RowsJson(d.libraries)}};
  return doc;
}

void WriteDiffText(const DiffRun& a, const DiffRun& b, const analyzers::RunDiff& d,
                   std::ostream& out, size_t limit) {
  const auto side = [](const DiffRun& r) {
    const auto& g = r.views.aggregate;
    std::string models;
    for (const auto& m : g.models) models += (models.empty() ? "" : ", ") + m.name;
    return fmt::format("{} ({} of {} traces readable{}{})", platform::EscapeControls(r.path),
                       UsableTraces(r.traces), r.traces.size(),
                       g.ranks > 0 ? fmt::format(", {} ranks", g.ranks) : "",
                       models.empty() ? "" : ", " + platform::EscapeControls(models));
  };
  fmt::print(out, "flopspy-report --diff\n  A  {}\n  B  {}\n\n", side(a), side(b));
  fmt::print(out, "  {}\n", Wrap(d.summary, 96, 2));
  for (const auto& note : d.notes) fmt::print(out, "  note: {}\n", Wrap(note, 90, 8));
  const std::string kernels =
      d.match == analyzers::DiffMatch::kName ? "Kernels by name" : "Kernels by signature";
  PrintRows(d.kernels, d.basis, kernels, "kernel", out, limit);
  PrintRows(d.libraries, d.basis, "cuBLAS, cuBLASLt and cuDNN shapes", "call", out, limit);
  const std::string legend =
      d.basis == analyzers::DiffBasis::kPerStep
          ? "change: GPU time per step, B - A, and % of A's; step: GPU time per step; mean: per "
            "call; "
          : "change: (mean B - mean A) x count B, the time the change per call made in B; %: of "
            "the mean per call; ";
  fmt::print(out, "\n  {}\n",
             Wrap(legend + "only A/B: its whole time; roof: share of the attainable FLOP/s; ?: GPU "
                           "time unknown (no GPU records: the count is of launches).",
                  96, 2));
}

int RunDiffReport(const std::string& a_path, const std::string& b_path,
                  const ReportOptions& options, const DiffOutputs& outputs, std::ostream& out,
                  std::ostream& err, analyzers::DiffMatch match) {
  std::vector<std::string> errors;
  DiffRun a = LoadDiffRun(a_path, options, &errors);
  DiffRun b = LoadDiffRun(b_path, options, &errors);
  for (const auto& e : errors) err << "flopspy-report: " << platform::EscapeControls(e) << "\n";
  for (const DiffRun* run : {&a, &b}) {
    if (UsableTraces(run->traces) == 0) {
      err << "flopspy-report: --diff: no trace of " << platform::EscapeControls(run->path)
          << " could be read; nothing to compare\n";
      return 1;
    }
  }
  ReportOutputs files;
  files.json = outputs.json;
  files.html_path = outputs.html_path;
  files.csv_dir = outputs.csv_dir;
  files.inputs = outputs.inputs;
  const ReportModel model = BuildDiffModel(std::move(a), std::move(b), match);
  return WriteReportOutputs(
      model, files,
      [&out](std::string_view text) {
        out << text;
        return true;
      },
      err);
}

}  // namespace flopspy::tools
