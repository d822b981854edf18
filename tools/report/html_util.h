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

// A kernel's label as every output writes it (labels.h): "mul [n=1000] ·
// vectorized_elementwise_kernel"; the full name goes into a tooltip.
std::string KernelLabel(const nlohmann::json& kernel);
// "cublasGemmEx 4096x4096x4096 b8 bf16->f32"; a grouped GEMM's shape as labels.h writes it.
std::string LibraryLabel(const nlohmann::json& call);
// "GPU 0 NVIDIA H100 80GB HBM3"
std::string DeviceLabel(const nlohmann::json& device);

}  // namespace flopspy::tools::html
