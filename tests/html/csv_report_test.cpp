// flopspy-report --csv: one RFC 4180 file per table, read back with a strict parser: the right
// files, one row per entry of the model, quoting that survives commas, quotes and line breaks,
// plain numbers, and a trace column when there are several traces.
#include "report/csv_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "demo_trace.h"
#include "subprocess.h"
#include "test_programs.h"

namespace flopspy::testing {
namespace {

using nlohmann::json;

using CsvRows = std::vector<std::vector<std::string>>;

// RFC 4180, strictly: CRLF records, fields quoted or not, "" inside quotes. Fails the test on
// anything else (a bare quote, a ragged row).
CsvRows ParseCsv(const std::string& text) {
  CsvRows rows;
  std::vector<std::string> row;
  std::string field;
  size_t i = 0;
  bool at_field_start = true;
  while (i < text.size()) {
    const char c = text[i];
    if (at_field_start && c == '"') {
      ++i;
      while (true) {
        if (i >= text.size()) {
          ADD_FAILURE() << "quoted field never closed";
          return rows;
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += text[i++];
      }
      at_field_start = false;
      if (i < text.size() && text[i] != ',' && text[i] != '\r') {
        ADD_FAILURE() << "text after a closing quote at " << i;
      }
      continue;
    }
    if (c == ',') {
      row.push_back(field);
      field.clear();
      at_field_start = true;
      ++i;
    } else if (c == '\r') {
      EXPECT_TRUE(i + 1 < text.size() && text[i + 1] == '\n') << "CR without LF at " << i;
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
      at_field_start = true;
      i += 2;
    } else {
      EXPECT_NE(c, '"') << "bare quote at " << i;
      EXPECT_NE(c, '\n') << "bare LF at " << i;
      field += c;
      at_field_start = false;
      ++i;
    }
  }
  EXPECT_TRUE(row.empty() && field.empty()) << "last record without CRLF";
  if (!rows.empty()) {
    for (const auto& r : rows) EXPECT_EQ(r.size(), rows[0].size()) << "ragged row";
  }
  return rows;
}

// A table as header -> column index, plus its rows.
struct Table {
  std::vector<std::string> header;
  CsvRows rows;
  size_t Col(const std::string& name) const {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
};

Table ReadTable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream s;
  s << in.rdbuf();
  CsvRows rows = ParseCsv(s.str());
  Table t;
  if (rows.empty()) return t;
  t.header = rows[0];
  t.rows.assign(rows.begin() + 1, rows.end());
  return t;
}

struct ReportRun {
  json model;
  std::string dir;
};

ReportRun Report(const TempDir& dir, const std::vector<std::vector<uint8_t>>& traces) {
  std::vector<std::string> args = {kReport};
  for (size_t i = 0; i < traces.size(); ++i) {
    const std::string path = dir.path() + "/t" + std::to_string(i) + ".fspy";
    WriteFile(path, traces[i]);
    args.push_back(path);
  }
  const std::string out = dir.path() + "/csv/deeper";
  args.insert(args.end(), {"--json", "--csv", out});
  const auto r = RunChild(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("CSV files to " + out), std::string::npos) << r.err;
  return {json::parse(r.out), out};
}

TEST(CsvReport, OneFilePerTableWithOneRowPerEntry) {
  TempDir dir;
  const ReportRun run = Report(dir, {DemoTrace()});
  const json& trace = run.model["traces"][0];
  for (const char* name : {"traces", "devices", "roofs", "kernels", "library_calls",
                           "library_diagnostics", "copies"}) {
    EXPECT_TRUE(std::filesystem::exists(run.dir + "/" + name + ".csv")) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(run.dir + "/warnings.csv"));  // no warnings: no file

  const Table kernels = ReadTable(run.dir + "/kernels.csv");
  ASSERT_EQ(kernels.rows.size(), trace["kernels"].size());
  EXPECT_EQ(kernels.header[0], "name");  // no trace column with one trace
  const size_t name = kernels.Col("name"), gpu_ns = kernels.Col("gpu_ns");
  const size_t regime = kernels.Col("placement.regime"), flops = kernels.Col("timed.flops");
  const size_t grid = kernels.Col("grid");
  bool nasty = false;
  for (size_t i = 0; i < kernels.rows.size(); ++i) {
    const auto& row = kernels.rows[i];
    const json& k = trace["kernels"][i];
    EXPECT_EQ(row[name], k["name"].get<std::string>());
    EXPECT_DOUBLE_EQ(std::stod(row[gpu_ns]), k["gpu_ns"].get<double>());
    EXPECT_EQ(row[gpu_ns].find_first_of("e,"), std::string::npos) << row[gpu_ns];  // plain ns
    if (k["placement"].is_null()) {
      EXPECT_EQ(row[regime], "");
    } else {
      EXPECT_EQ(row[regime], k["placement"]["regime"].get<std::string>());
    }
    EXPECT_DOUBLE_EQ(std::stod(row[flops]), k["timed"]["flops"].get<double>());
    EXPECT_EQ(row[grid], std::to_string(k["grid"][0].get<int>()) + ";" +
                             std::to_string(k["grid"][1].get<int>()) + ";" +
                             std::to_string(k["grid"][2].get<int>()));
    nasty |= row[name] == kNastyKernel;
  }
  EXPECT_TRUE(nasty);  // quotes, commas, angle brackets survive the round trip

  const Table calls = ReadTable(run.dir + "/library_calls.csv");
  ASSERT_EQ(calls.rows.size(), 1u);
  EXPECT_EQ(calls.rows[0][calls.Col("routine")], "cublasSgemm_v2");
  EXPECT_EQ(calls.rows[0][calls.Col("m")], "1024");
  std::string types;
  for (const auto& t : trace["library_calls"][0]["types"]) {
    types += (types.empty() ? "" : ";") + t.get<std::string>();
  }
  EXPECT_EQ(calls.rows[0][calls.Col("types")], types);
  EXPECT_DOUBLE_EQ(std::stod(calls.rows[0][calls.Col("flops")]), 2.0 * 1024 * 1024 * 1024);
  const Table diagnostics = ReadTable(run.dir + "/library_diagnostics.csv");
  EXPECT_EQ(diagnostics.rows.size(), trace["library_calls"][0]["diagnostics"].size());
  for (const auto& row : diagnostics.rows) {
    EXPECT_EQ(row[diagnostics.Col("library_call")], "0");
    EXPECT_FALSE(row[diagnostics.Col("sentence")].empty());
  }

  const Table copies = ReadTable(run.dir + "/copies.csv");
  ASSERT_EQ(copies.rows.size(), 1u);
  EXPECT_EQ(copies.rows[0][copies.Col("bytes")], "10000000");
  EXPECT_EQ(copies.rows[0][copies.Col("ns")], "1000000");
  EXPECT_EQ(copies.rows[0][copies.Col("bytes_per_s")], "10000000000");
  EXPECT_EQ(copies.rows[0][copies.Col("direction")], "HtoD");

  const Table devices = ReadTable(run.dir + "/devices.csv");
  ASSERT_EQ(devices.rows.size(), 1u);
  EXPECT_EQ(devices.rows[0][devices.Col("properties.name")], "NVIDIA H100 80GB HBM3");
  const Table roofs = ReadTable(run.dir + "/roofs.csv");
  const json& r = trace["devices"][0]["roofs"];
  EXPECT_EQ(roofs.rows.size(), r["flops"].size() + r["bandwidth"].size());
  bool fp32 = false;
  for (const auto& row : roofs.rows) {
    if (row[roofs.Col("name")] == "fp32") {
      fp32 = true;
      EXPECT_EQ(row[roofs.Col("kind")], "flops");
      EXPECT_EQ(row[roofs.Col("nominal")], "67000000000000");
      EXPECT_EQ(row[roofs.Col("nominal_source")], "datasheet");
    }
  }
  EXPECT_TRUE(fp32);

  const Table traces = ReadTable(run.dir + "/traces.csv");
  ASSERT_EQ(traces.rows.size(), 1u);
  EXPECT_EQ(traces.rows[0][traces.Col("read.status")], "ok");
  EXPECT_EQ(traces.rows[0][traces.Col("process.pid")], "4242");
}

TEST(CsvReport, CountsOfATraceAreColumnsNotFiles) {
  // replayed_gpu_records (0 here) and any later count: a column of traces.csv, never a file
  // of one cell.
  TempDir dir;
  const ReportRun run = Report(dir, {DemoTrace()});
  ASSERT_EQ(run.model["traces"][0]["replayed_gpu_records"], 0);
  EXPECT_FALSE(std::filesystem::exists(run.dir + "/replayed_gpu_records.csv"));
  const Table traces = ReadTable(run.dir + "/traces.csv");
  ASSERT_EQ(traces.rows.size(), 1u);
  EXPECT_EQ(traces.rows[0][traces.Col("replayed_gpu_records")], "0");
  json model = run.model;
  model["traces"][0]["a_later_count"] = 5;
  for (const auto& f : tools::RenderCsvTables(model)) {
    EXPECT_NE(f.name, "a_later_count.csv");
    if (f.name == "traces.csv") {
      EXPECT_NE(f.content.find("a_later_count"), std::string::npos);
    }
  }
}

TEST(CsvReport, LibraryCallsLeadWithTypesFlopsBytesAndEpilogueFlops) {
  TempDir dir;
  const ReportRun run = Report(dir, {DemoTrace()});
  const Table calls = ReadTable(run.dir + "/library_calls.csv");
  ASSERT_EQ(calls.rows.size(), 1u);
  const std::vector<std::string> leading = {
      "routine",        "family",     "m",        "n",      "k",     "batch",  "types",
      "compute_type",   "scale_type", "epilogue", "device", "calls", "gpu_ns", "flops",
      "epilogue_flops", "bytes"};
  ASSERT_GE(calls.header.size(), leading.size());
  EXPECT_EQ(std::vector<std::string>(calls.header.begin(), calls.header.begin() + leading.size()),
            leading);
  EXPECT_EQ(calls.rows[0][calls.Col("bytes")], "12582912");  // 3 x 1024^2 x 4
  EXPECT_EQ(calls.rows[0][calls.Col("epilogue_flops")], "0");
}

TEST(CsvReport, SeveralTracesGetATraceColumn) {
  TempDir dir;
  const ReportRun run = Report(dir, {DemoTrace(1, 0), DemoTrace(2, 1)});
  const Table kernels = ReadTable(run.dir + "/kernels.csv");
  ASSERT_FALSE(kernels.header.empty());
  EXPECT_EQ(kernels.header[0], "trace");
  const size_t per_trace = run.model["traces"][0]["kernels"].size();
  ASSERT_EQ(kernels.rows.size(), 2 * per_trace);
  EXPECT_EQ(kernels.rows.front()[0], run.model["traces"][0]["path"].get<std::string>());
  EXPECT_EQ(kernels.rows.back()[0], run.model["traces"][1]["path"].get<std::string>());
  const Table traces = ReadTable(run.dir + "/traces.csv");
  ASSERT_EQ(traces.rows.size(), 2u);
  EXPECT_EQ(traces.rows[1][traces.Col("process.rank")], "1");
}

TEST(CsvReport, FieldsAreQuotedAsRfc4180Says) {
  EXPECT_EQ(tools::CsvField("plain"), "plain");
  EXPECT_EQ(tools::CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(tools::CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(tools::CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(tools::CsvField("cr\r"), "\"cr\r\"");
  EXPECT_EQ(tools::CsvField(""), "");
  const CsvRows rows = ParseCsv("a,\"b,\"\"c\"\"\",\"d\r\ne\"\r\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"a", "b,\"c\"", "d\r\ne"}));
}

TEST(CsvReport, AddedSectionsGetFilesOfTheirOwn) {
  json model = {{"schema", "flopspy-report"}, {"schema_version", 2}, {"totals", json::object()}};
  json trace = {{"path", "x.fspy"}, {"kernels", json::array()}};
  trace["cpu_roofline"] = {
      {"roofs", {{{"name", "dram"}, {"kind", "bandwidth"}, {"value", 1e11}}}},
      {"points", {{{"name", "a, \"b\""}, {"intensity", 0.5}, {"flops_per_s", 2e10}}}}};
  trace["launch_overhead"] = {{"verdict", "overhead_bound"},
                              {"streams", {{{"stream", 7}, {"busy_ns", 5}}, {{"stream", 8}}}}};
  trace["advice"] = json::array({{{"title", "x"}, {"gain_ns", 1.5}}});
  model["traces"] = json::array({trace});
  model["ranks"] = json::array({{{"rank", 0}}, {{"rank", 1}}});
  std::map<std::string, std::string> files;
  for (const auto& f : tools::RenderCsvTables(model)) files[f.name] = f.content;
  ASSERT_TRUE(files.contains("cpu_roofline_points.csv"));
  ASSERT_TRUE(files.contains("cpu_roofline_roofs.csv"));
  ASSERT_TRUE(files.contains("launch_overhead.csv"));
  ASSERT_TRUE(files.contains("launch_overhead_streams.csv"));
  ASSERT_TRUE(files.contains("advice.csv"));
  ASSERT_TRUE(files.contains("run_ranks.csv"));
  const CsvRows points = ParseCsv(files["cpu_roofline_points.csv"]);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0], (std::vector<std::string>{"flops_per_s", "intensity", "name"}));
  EXPECT_EQ(points[1], (std::vector<std::string>{"20000000000", "0.5", "a, \"b\""}));
  const CsvRows streams = ParseCsv(files["launch_overhead_streams.csv"]);
  ASSERT_EQ(streams.size(), 3u);
  EXPECT_EQ(streams[2][0], "");  // stream 8 has no busy_ns: an empty field
  const CsvRows advice = ParseCsv(files["advice.csv"]);
  ASSERT_EQ(advice.size(), 2u);
  EXPECT_EQ(advice[1], (std::vector<std::string>{"1.5", "x"}));
  EXPECT_EQ(ParseCsv(files["launch_overhead.csv"])[1],
            (std::vector<std::string>{"overhead_bound"}));
  EXPECT_EQ(ParseCsv(files["run_ranks.csv"]).size(), 3u);
}

}  // namespace
}  // namespace flopspy::testing
