#include "report/csv_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "flopspy/platform/safe_file.h"
#include "report/call_sites_csv.h"
#include "report/json_report.h"
#include "report/report_model_json.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;
using Row = std::vector<std::pair<std::string, json>>;  // flattened: "placement.regime" -> value

std::string Scalar(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return "";
    // Whole numbers (ns, bytes, counts) without a fraction or exponent.
    if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{:.0f}", d);
    return fmt::format("{}", d);  // shortest text that reads back to the same double
  }
  if (v.is_array()) {
    if (std::all_of(v.begin(), v.end(), [](const json& e) { return !e.is_structured(); })) {
      std::string s;
      for (const auto& e : v) s += (s.empty() ? "" : ";") + Scalar(e);
      return s;
    }
    return std::to_string(v.size());  // an array of objects: its count (own file where useful)
  }
  return v.dump();
}

void Flatten(const json& v, const std::string& prefix, Row& out) {
  if (v.is_object()) {
    for (const auto& [key, member] : v.items()) {
      Flatten(member, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  out.emplace_back(prefix, v);
}

class Table {
 public:
  Table(std::string name, std::vector<std::string> leading, bool with_trace)
      : name_(std::move(name)), leading_(std::move(leading)), with_trace_(with_trace) {}

  // `object` flattened; `skip` lists top-level keys left out; `extra` comes first.
  void Add(const json& object, const Row& extra, const std::set<std::string>& skip = {}) {
    Row row = extra;
    if (object.is_object()) {
      for (const auto& [key, value] : object.items()) {
        if (!skip.contains(key)) Flatten(value, key, row);
      }
    } else {
      row.emplace_back("value", object);
    }
    rows_.push_back(std::move(row));
  }

  CsvFile Render() const {
    // Columns: the union over rows, each row's order kept; the leading ones first.
    std::vector<std::string> columns;
    if (with_trace_) columns.push_back("trace");
    for (const auto& c : leading_) columns.push_back(c);
    const size_t fixed = columns.size();
    for (const Row& row : rows_) {
      size_t pos = fixed;
      for (const auto& [key, value] : row) {
        const auto it = std::find(columns.begin(), columns.end(), key);
        if (it != columns.end()) {
          pos = std::max(pos, static_cast<size_t>(it - columns.begin()) + 1);
        } else {
          columns.insert(columns.begin() + static_cast<std::ptrdiff_t>(pos), key);
          ++pos;
        }
      }
    }
    // A field null in one row and an object in another: only the object's parts.
    std::erase_if(columns, [&](const std::string& c) {
      return std::any_of(columns.begin(), columns.end(),
                         [&](const std::string& o) { return o.starts_with(c + "."); });
    });
    // Leading columns that no row has are dropped too.
    std::erase_if(columns, [&](const std::string& c) {
      return std::none_of(rows_.begin(), rows_.end(), [&](const Row& r) {
        return std::any_of(r.begin(), r.end(), [&](const auto& kv) { return kv.first == c; });
      });
    });
    CsvFile file{name_ + ".csv", "", rows_.size()};
    for (size_t i = 0; i < columns.size(); ++i) {
      file.content += (i ? "," : "") + CsvField(columns[i]);
    }
    file.content += "\r\n";
    for (const Row& row : rows_) {
      std::map<std::string_view, const json*> cells;
      for (const auto& [key, value] : row) cells.emplace(key, &value);
      for (size_t i = 0; i < columns.size(); ++i) {
        const auto it = cells.find(columns[i]);
        file.content += (i ? "," : "") + (it == cells.end() ? "" : CsvField(Scalar(*it->second)));
      }
      file.content += "\r\n";
    }
    return file;
  }

  bool empty() const { return rows_.empty(); }

 private:
  std::string name_;
  std::vector<std::string> leading_;
  bool with_trace_;
  std::vector<Row> rows_;
};

// A section added to the model later: arrays of objects become tables of their own, the
// scalars of an object one row per trace.
void AddSection(std::map<std::string, Table>& tables, const std::string& name, const json& value,
                const Row& trace_column, bool with_trace) {
  const auto table = [&](const std::string& n) -> Table& {
    return tables.try_emplace(n, n, std::vector<std::string>{}, with_trace).first->second;
  };
  if (value.is_array()) {
    for (const auto& e : value) table(name).Add(e, trace_column);
    return;
  }
  if (!value.is_object()) {
    table(name).Add(json{{"value", value}}, trace_column);
    return;
  }
  std::set<std::string> nested;
  for (const auto& [key, member] : value.items()) {
    if (member.is_array() &&
        std::any_of(member.begin(), member.end(), [](const json& e) { return e.is_object(); })) {
      nested.insert(key);
      AddSection(tables, name + "_" + key, member, trace_column, with_trace);
    }
  }
  if (nested.size() < value.size()) table(name).Add(value, trace_column, nested);
}

const json kEmpty = json::array();

// Fields of the model read through these, so that a field of an unexpected type is skipped.
const json& List(const json& object, std::string_view key) {
  const json& v = model_json::Arr(object, key);
  return v.is_array() ? v : kEmpty;
}
json Member(const json& object, std::string_view key) {
  return object.is_object() && object.contains(key) ? object[std::string(key)] : json();
}

// The tables every report has, with their leading columns.
std::map<std::string, Table> FixedTables(bool several) {
  std::map<std::string, Table> tables;
  const auto make = [&](const std::string& name, std::vector<std::string> leading, bool trace) {
    tables.try_emplace(name, name, std::move(leading), trace);
  };
  make("traces", {"path", "read.status", "read.message"}, false);
  make("warnings", {"code", "time_ns", "message"}, several);
  make("devices", {"device", "properties.name"}, several);
  make("roofs", {"device", "kind", "name", "nominal", "nominal_source", "measured"}, several);
  make("kernels", {"name", "shape", "device", "gpu_ns", "gpu_share", "executions", "launches"},
       several);
  // The rollup's key first, as in the text (docs/flopspy-report.md, "Where the GPU time goes").
  make("kernel_rollup_families",
       {"family", "gpu_ns", "gpu_share", "count", "signatures", "flops_coverage", "regime"},
       several);
  make("kernel_rollup_names",
       {"name", "gpu_ns", "gpu_share", "count", "signatures", "flops_coverage", "regime"}, several);
  make("library_calls",
       {"routine", "family", "m", "n", "k", "batch", "types", "compute_type", "scale_type",
        "epilogue", "device", "calls", "gpu_ns", "flops", "epilogue_flops", "bytes"},
       several);
  make("library_diagnostics",
       {"library_call", "routine", "m", "n", "k", "batch", "kind", "severity", "sentence",
        "lost_fraction", "lost_ns"},
       several);
  make("copies",
       {"operation", "direction", "src_memory", "dst_memory", "count", "bytes", "ns", "bytes_per_s",
        "device", "source"},
       several);
  return tables;
}

// One trace's rows in every table; sections added later get tables of their own, named in
// `order` after the fixed ones.
void AddTraceRows(const json& t, bool several, std::map<std::string, Table>& tables,
                  std::vector<std::string>& order) {
  const Row trace_column = several ? Row{{"trace", Member(t, "path")}} : Row{};
  json summary = json::object();
  if (!t.is_object()) return;
  for (const auto& [key, value] : t.items()) {
    if (key == "warnings" && value.is_array()) {
      summary["warnings"] = value.size();
    } else if (key == "path" || key == "read" || key == "process" || key == "end" ||
               key == "lost" || key == "records" || !value.is_structured()) {
      summary[key] = value;
    }
  }
  tables.at("traces").Add(summary, {});
  for (const auto& w : List(t, "warnings")) tables.at("warnings").Add(w, trace_column);
  for (const auto& d : List(t, "devices")) {
    tables.at("devices").Add(d, trace_column, {"roofs"});
    const json& roofs = model_json::Obj(d, "roofs");
    if (!roofs.is_object()) continue;
    for (const char* kind : {"flops", "bandwidth"}) {
      const json& group = model_json::Obj(roofs, kind);
      if (!group.is_object()) continue;
      for (const auto& [name, r] : group.items()) {
        Row extra = trace_column;
        extra.insert(extra.end(), {{"device", Member(d, "device")},
                                   {"kind", kind},
                                   {"name", name},
                                   {"table_key", Member(roofs, "table_key")}});
        tables.at("roofs").Add(r, extra);
      }
    }
  }
  for (const auto& k : List(t, "kernels")) tables.at("kernels").Add(k, trace_column);
  const json& calls = List(t, "library_calls");
  for (size_t i = 0; i < calls.size(); ++i) {
    const json& c = calls[i];
    tables.at("library_calls").Add(c, trace_column);
    for (const auto& f : List(c, "diagnostics")) {
      Row extra = trace_column;
      extra.emplace_back("library_call", i);
      for (const char* key : {"routine", "m", "n", "k", "batch"}) {
        extra.emplace_back(key, Member(c, key));
      }
      tables.at("library_diagnostics").Add(f, extra);
    }
  }
  for (const auto& c : List(t, "copies")) tables.at("copies").Add(c, trace_column);
  for (const auto& [key, value] : t.items()) {
    // A count or flag of the trace is a column of traces.csv, not a file of one cell.
    if (IsTraceCoreKey(key) || !value.is_structured()) continue;
    // The call sites' tables have a shape and leading columns of their own (call_sites_csv.h).
    if (std::vector<CsvSection> sections = CallSiteCsvSections(key, value); !sections.empty()) {
      for (const CsvSection& c : sections) {
        if (std::find(order.begin(), order.end(), c.name) == order.end()) order.push_back(c.name);
        tables.try_emplace(c.name, c.name, c.leading, several);
        AddSection(tables, c.name, c.rows, trace_column, several);
      }
      continue;
    }
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
    AddSection(tables, key, value, trace_column, several);
  }
}

// The fixed tables in `order`, then the added sections by name; empty tables are left out.
std::vector<CsvFile> OrderedFiles(std::map<std::string, Table>& tables,
                                  const std::vector<std::string>& order) {
  std::vector<CsvFile> files;
  std::set<std::string> done;
  // The fixed tables in their order, then the added sections by name.
  for (const auto& name : order) {
    for (auto& [table_name, table] : tables) {
      if (done.contains(table_name) || table.empty()) continue;
      if (table_name == name || table_name.starts_with(name + "_")) {
        files.push_back(table.Render());
        done.insert(table_name);
      }
    }
  }
  for (auto& [table_name, table] : tables) {
    if (!done.contains(table_name) && !table.empty()) files.push_back(table.Render());
  }
  return files;
}

}  // namespace

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<CsvFile> RenderCsvTables(const json& report) {
  const json& traces = List(report, "traces");
  const bool several = traces.size() > 1;
  std::vector<std::string> order = {
      "traces", "warnings", "devices", "roofs", "kernels", "library_calls", "library_diagnostics",
      "copies"};
  std::map<std::string, Table> tables = FixedTables(several);
  for (const auto& t : traces) AddTraceRows(t, several, tables, order);
  if (report.is_object()) {
    for (const auto& [key, value] : report.items()) {
      if (IsDocumentKey(key)) continue;
      AddSection(tables, "run_" + key, value, {}, false);
    }
  }
  return OrderedFiles(tables, order);
}

SinkStatus CsvReportSink::Write(const ReportModel& model) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return {false, "cannot create " + dir_ + ": " + ec.message()};
  const std::vector<CsvFile> files = RenderCsvTables(model.Json());
  for (const CsvFile& f : files) {
    const std::string path = (std::filesystem::path(dir_) / f.name).string();
    if (inputs_.Contains(path)) {
      return {false, "not writing " + path + ": it is one of the traces being read"};
    }
    std::string error;
    if (!platform::WriteOutputFile(path, f.content, platform::kSharedFileMode, &error))
      return {false, error};
  }
  std::string names;
  for (const CsvFile& f : files) names += (names.empty() ? "" : ", ") + f.name;
  return {true, fmt::format("wrote {} CSV files to {}: {}", files.size(), dir_, names)};
}

}  // namespace flopspy::tools
