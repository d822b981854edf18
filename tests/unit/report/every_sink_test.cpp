// Every output of flopspy-report renders the one report model: one model built from a test
// trace, written by each sink (text, JSON, CSV, HTML, Chrome), shows the same kernels with the
// same GPU time, FLOPs, bytes and regime in all five.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rank_trace.h"
#include "report/chrome_sink.h"
#include "report/csv_report.h"
#include "report/format.h"
#include "report/html_report.h"
#include "report/html_util.h"
#include "report/json_report.h"
#include "report/labels.h"
#include "report/report_model.h"
#include "report/text_labels.h"
#include "report/text_report.h"
#include "subprocess.h"

namespace flopspy::tools {
namespace {

using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Near(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)) + 1e-9;
}

// Fields of one RFC 4180 line with no line breaks inside quotes (the test trace has none).
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// kernels.csv as one map of column to field per row.
std::vector<std::map<std::string, std::string>> CsvRows(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find("\r\n", at);
    lines.push_back(CsvFields(text.substr(at, end - at)));
    at = end == std::string::npos ? text.size() : end + 2;
  }
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < lines.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < lines[0].size() && c < lines[r].size(); ++c) {
      row[lines[0][c]] = lines[r][c];
    }
    rows.push_back(row);
  }
  return rows;
}

class EverySink : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string trace = dir_.path() + "/rank0.fspy";
    std::ofstream(trace, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes_.data()),
               static_cast<std::streamsize>(bytes_.size()));
    model_ = BuildReportModel({AnalyzeTrace(trace)});
    ASSERT_EQ(model_.traces.size(), 1u);
    ASSERT_TRUE(model_.traces[0].usable());
  }

  const std::vector<analyzers::KernelGroup>& Kernels() const {
    return model_.traces[0].run.kernels;
  }

  std::vector<uint8_t> bytes_ = testing::RankTrace({});
  testing::TempDir dir_;
  ReportModel model_;
};

TEST_F(EverySink, TheTestTraceHasKernelsWithFigures) {
  // An SGEMM with analytic FLOPs and a layer norm, both placed on the roofline. Every launch has
  // a GPU time, so the timed figures are all the figures.
  ASSERT_EQ(Kernels().size(), 2u);
  size_t with_flops = 0;
  for (const auto& g : Kernels()) {
    EXPECT_GT(g.gpu_ns, 0);
    EXPECT_EQ(g.timed.flops, g.all.flops);
    EXPECT_EQ(g.timed.bytes, g.all.bytes);
    EXPECT_TRUE(g.placement.has_value());
    with_flops += g.timed.flops_source != trace::FigureSource::kUnknown ? 1 : 0;
  }
  EXPECT_GE(with_flops, 1u);
}

TEST_F(EverySink, TextShowsEachKernelsFigures) {
  std::ostringstream out;
  TextReportSink(TextOptions{}, out).Write(model_);
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const auto& g : Kernels()) {
    // The row of figures is the line above the kernel's label, in the kernels table (the rollup
    // before it may name the kernel too).
    const std::string label = KernelLabel(g);
    size_t at = 0;
    while (at < lines.size() && lines[at].find("Kernels by") == std::string::npos) ++at;
    while (at < lines.size() && lines[at].find(label) == std::string::npos) ++at;
    ASSERT_LT(at, lines.size()) << label;
    ASSERT_GT(at, 0u);
    const std::string& row = lines[at - 1];
    EXPECT_NE(row.find(Duration(g.gpu_ns)), std::string::npos) << row;
    EXPECT_NE(row.find(FigureText(g.all.flops, g.all.flops_source)), std::string::npos) << row;
    EXPECT_NE(row.find(FigureText(g.all.bytes, g.all.bytes_source)), std::string::npos) << row;
    EXPECT_NE(row.find(" " + RegimeTag(g.placement) + " "), std::string::npos) << row;
  }
}

TEST_F(EverySink, JsonIsTheModelsSerialisation) {
  std::ostringstream out;
  JsonReportSink(out).Write(model_);
  const json doc = json::parse(out.str());
  EXPECT_EQ(doc, model_.Json());
  const json& kernels = doc["traces"][0]["kernels"];
  ASSERT_EQ(kernels.size(), Kernels().size());
  for (size_t i = 0; i < Kernels().size(); ++i) {
    const auto& g = Kernels()[i];
    EXPECT_EQ(kernels[i]["name"], g.name);
    EXPECT_TRUE(Near(kernels[i]["gpu_ns"].get<double>(), g.gpu_ns));
    EXPECT_TRUE(Near(kernels[i]["timed"]["flops"].get<double>(), g.timed.flops));
    EXPECT_TRUE(Near(kernels[i]["timed"]["bytes"].get<double>(), g.timed.bytes));
    if (g.placement) {
      EXPECT_EQ(kernels[i]["placement"]["regime"], analyzers::RegimeName(g.placement->regime));
    } else {
      EXPECT_TRUE(kernels[i]["placement"].is_null());
    }
  }
}

TEST_F(EverySink, CsvHasOneRowPerKernelWithItsFigures) {
  const std::string csv_dir = dir_.path() + "/csv";
  ASSERT_TRUE(CsvReportSink(csv_dir).Write(model_).ok);
  const auto rows = CsvRows(ReadFile(csv_dir + "/kernels.csv"));
  ASSERT_EQ(rows.size(), Kernels().size());
  for (size_t i = 0; i < Kernels().size(); ++i) {
    const auto& g = Kernels()[i];
    const auto& row = rows[i];
    EXPECT_EQ(row.at("name"), g.name);
    EXPECT_TRUE(Near(std::stod(row.at("gpu_ns")), g.gpu_ns));
    EXPECT_TRUE(Near(std::stod(row.at("timed.flops")), g.timed.flops));
    EXPECT_TRUE(Near(std::stod(row.at("timed.bytes")), g.timed.bytes));
    EXPECT_EQ(row.count("placement.regime") ? row.at("placement.regime") : "",
              g.placement ? std::string(analyzers::RegimeName(g.placement->regime)) : "");
  }
}

TEST_F(EverySink, HtmlRowsCarryTheSameFigures) {
  const std::string path = dir_.path() + "/report.html";
  ASSERT_TRUE(HtmlReportSink(path).Write(model_).ok);
  const std::string page = ReadFile(path);
  for (const auto& g : Kernels()) {
    // The kernel table's row: the label as every output writes it, then the raw figures as
    // sort keys.
    // (the cell's text is shortened; its sort key is the whole label)
    const size_t label = page.find("data-s=\"" + html::Escape(KernelLabel(g)) + "\"",
                                   page.find("id=\"t0-kernels\""));
    ASSERT_NE(label, std::string::npos) << KernelLabel(g);
    const size_t begin = page.rfind("<tr", label);
    const size_t end = page.find("</tr>", label);
    ASSERT_NE(begin, std::string::npos);
    const std::string row = page.substr(begin, end - begin);
    EXPECT_NE(row.find("data-v=\"" + html::Exact(g.gpu_ns) + "\""), std::string::npos) << row;
    if (g.timed.flops_source != trace::FigureSource::kUnknown) {
      EXPECT_NE(row.find("data-v=\"" + html::Exact(g.timed.flops) + "\""), std::string::npos);
    }
    if (g.timed.bytes_source != trace::FigureSource::kUnknown) {
      // Bytes open under the kernel's name (the table keeps to the page's width).
      EXPECT_NE(row.find(html::Si(g.timed.bytes, "B") + " moved"), std::string::npos) << row;
    }
    if (g.placement) {
      const std::string regime(analyzers::RegimeName(g.placement->regime));
      EXPECT_NE(row.find(RegimeText(regime)), std::string::npos) << row;
    }
  }
}

TEST_F(EverySink, ChromeKernelSlicesCarryTheSameFigures) {
  const std::string path = dir_.path() + "/trace.json";
  ASSERT_TRUE(ChromeReportSink(path).Write(model_).ok);
  const json doc = json::parse(ReadFile(path));
  for (const auto& g : Kernels()) {
    double gpu_us = 0;
    double flops = 0;
    double bytes = 0;
    size_t slices = 0;
    for (const json& e : doc["traceEvents"]) {
      if (e.value("cat", "") != "kernel" || e.value("name", "") != g.name) continue;
      ++slices;
      gpu_us += e["dur"].get<double>();
      const json& args = e["args"];
      if (args["flops"].is_number()) flops += args["flops"].get<double>();
      if (args["bytes"].is_number()) bytes += args["bytes"].get<double>();
      EXPECT_EQ(args["regime"], g.placement ? analyzers::RegimeName(g.placement->regime)
                                            : std::string_view("unknown"));
    }
    EXPECT_EQ(slices, g.executions) << g.name;
    EXPECT_NEAR(gpu_us * 1000, g.gpu_ns, 1e-6 * g.gpu_ns) << g.name;
    // Per-execution figures, written with six significant digits.
    EXPECT_NEAR(flops, g.timed.flops_source == trace::FigureSource::kUnknown ? 0 : g.timed.flops,
                1e-5 * g.timed.flops);
    EXPECT_NEAR(bytes, g.timed.bytes_source == trace::FigureSource::kUnknown ? 0 : g.timed.bytes,
                1e-5 * g.timed.bytes);
  }
}

}  // namespace
}  // namespace flopspy::tools
