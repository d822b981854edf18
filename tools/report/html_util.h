// Small pieces shared by the HTML report's parts: escaping, reading the JSON model, numbers.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace flopspy::tools::html {

// Text and attribute values: & < > " ' become entities; control characters other than tab and
// newline are dropped (they are not allowed in HTML text).
std::string Escape(std::string_view text);

// A finite number at `key` of an object, else nullopt (absent, null, not a number).
std::optional<double> Num(const nlohmann::json& object, std::string_view key);
// The number at `key`, or `fallback`.
double NumOr(const nlohmann::json& object, std::string_view key, double fallback);
// A boolean at `key`, else `fallback`.
bool Bool(const nlohmann::json& object, std::string_view key, bool fallback = false);
// An integer at `key` (a number, truncated), else `fallback`.
int64_t Int(const nlohmann::json& object, std::string_view key, int64_t fallback);
// A string at `key`, else `fallback`; numbers and booleans are written out.
std::string Str(const nlohmann::json& object, std::string_view key, std::string fallback = "");
// The object or array at `key`, or a null json when absent or of another type.
const nlohmann::json& Obj(const nlohmann::json& object, std::string_view key);
const nlohmann::json& Arr(const nlohmann::json& object, std::string_view key);

// Display forms (the raw figure goes into data- attributes and CSV).
std::string Si(std::optional<double> v, std::string_view unit);  // "1.5 TFLOP/s", "-"
std::string Ns(std::optional<double> ns);                        // "12.3 us", "-"
std::string Pct(std::optional<double> pct, int decimals = 0);    // 12.3 -> "12%", "-"
std::string Plain(std::optional<double> v);                      // 3 significant digits, "-"
// JSON text of a value; invalid UTF-8 in strings is replaced rather than thrown on.
std::string Dump(const nlohmann::json& value, int indent = -1);
// A number written exactly enough to read back (shortest round trip), for data- attributes.
std::string Exact(double v);

// A kernel's short label, as the text report writes it: "mul · vectorized_elementwise_kernel
// [n=1000]"; the full name goes into a tooltip.
std::string KernelLabel(const nlohmann::json& kernel);
// "cublasGemmEx 4096x4096x4096 b8 bf16->f32"
std::string LibraryLabel(const nlohmann::json& call);
// "GPU 0 NVIDIA H100 80GB HBM3"
std::string DeviceLabel(const nlohmann::json& device);

// The colour of a regime (compute_bound, memory_bound, overhead_bound, unknown).
std::string_view RegimeColor(std::string_view regime);
// "compute bound"
std::string RegimeText(std::string_view regime);

}  // namespace flopspy::tools::html
