// Small pieces shared by the HTML report's parts: escaping, numbers, facts lists, labels.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/labels.h"
#include "report/report_model_json.h"

namespace flopspy::tools::html {

// Text and attribute values: & < > " ' become entities; control characters other than tab and
// newline are dropped (they are not allowed in HTML text).
std::string Escape(std::string_view text);

// The pages read the model's JSON document (report_model_json.h).
using model_json::Arr;
using model_json::Bool;
using model_json::DimsText;
using model_json::Dump;
using model_json::Int;
using model_json::Num;
using model_json::NumOr;
using model_json::Obj;
using model_json::Str;

// Display forms (the raw figure goes into data- attributes and CSV).
std::string Si(std::optional<double> v, std::string_view unit);  // "1.5 TFLOP/s", "-"
std::string Ns(std::optional<double> ns);                        // "12.3 us", "-"
std::string Pct(std::optional<double> pct, int decimals = 0);    // 12.3 -> "12%", "-"
std::string Plain(std::optional<double> v);                      // 3 significant digits, "-"
// A number written exactly enough to read back (shortest round trip), for data- attributes.
std::string Exact(double v);

// A `<dl class="facts">` of name and value pairs: names are escaped, values are HTML already.
std::string Facts(const std::vector<std::pair<std::string, std::string>>& rows);

// A section of the page that folds (<details>, no script needed): its id is the table of
// contents' anchor, its title an <h3> inside the <summary>.
struct PageSection {
  std::string id;
  std::string title;
  std::string body;  // HTML
  bool open = true;
};
std::string Fold(const PageSection& section);
// The table of contents of `sections`: a <nav class="toc"> of links to their ids.
std::string Toc(const std::vector<PageSection>& sections, std::string_view heading);

// A long kernel name shortened for a cell (analyzers::ShortenKernelName: the tile sizes stay),
// the full name in a title attribute: "<span title=...>short</span>", escaped.
std::string ShortName(std::string_view label, std::string_view full, size_t max_chars = 60);

// A roof's name as the text report writes it: "tf32_tensor" -> "tf32-tensor", "fp32" ->
// "fp32-cuda" (labels.h RoofPathLabel); "dram" -> "DRAM"; other names as they are.
std::string RoofName(std::string_view name);

// A kernel's label as every output writes it (labels.h): "mul [n=1000] ·
// vectorized_elementwise_kernel"; the full name goes into a tooltip.
std::string KernelLabel(const nlohmann::json& kernel);
// "cublasGemmEx 4096x4096x4096 b8 bf16->f32"; a grouped GEMM's shape as labels.h writes it.
std::string LibraryLabel(const nlohmann::json& call);
// "GPU 0 NVIDIA H100 80GB HBM3"
std::string DeviceLabel(const nlohmann::json& device);

}  // namespace flopspy::tools::html
