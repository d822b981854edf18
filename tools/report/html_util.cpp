#include "report/html_util.h"

#include <fmt/format.h>

#include <cmath>

#include "flopspy/analyzers/demangle.h"
#include "report/format.h"

namespace flopspy::tools::html {

using nlohmann::json;

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
      case '\n':
        out += c;
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
    }
  }
  return out;
}

namespace {
const json& Member(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}
}  // namespace

std::optional<double> Num(const json& object, std::string_view key) {
  const json& v = Member(object, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

double NumOr(const json& object, std::string_view key, double fallback) {
  return Num(object, key).value_or(fallback);
}

bool Bool(const json& object, std::string_view key, bool fallback) {
  const json& v = Member(object, key);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

int64_t Int(const json& object, std::string_view key, int64_t fallback) {
  const std::optional<double> v = Num(object, key);
  return v && std::fabs(*v) < 9e18 ? static_cast<int64_t>(*v) : fallback;
}

std::string Str(const json& object, std::string_view key, std::string fallback) {
  const json& v = Member(object, key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return fmt::format("{:.4g}", v.get<double>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return fallback;
}

const json& Obj(const json& object, std::string_view key) {
  static const json kNull;
  const json& v = Member(object, key);
  return v.is_object() ? v : kNull;
}

const json& Arr(const json& object, std::string_view key) {
  static const json kNull;
  const json& v = Member(object, key);
  return v.is_array() ? v : kNull;
}

std::string Si(std::optional<double> v, std::string_view unit) {
  if (!v) return "-";
  if (*v != 0 && std::fabs(*v) < 1) return fmt::format("{:.3g} {}", *v, unit);
  return SiValue(*v) + std::string(unit);
}

std::string Ns(std::optional<double> ns) {
  return ns ? Duration(*ns) : "-";
}

std::string Pct(std::optional<double> pct, int decimals) {
  return pct ? fmt::format("{:.{}f}%", *pct, decimals) : "-";
}

std::string Plain(std::optional<double> v) {
  return v ? fmt::format("{:.3g}", *v) : "-";
}

std::string Dump(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string Exact(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "0";
}

std::string KernelLabel(const json& kernel) {
  const std::string name = Str(kernel, "name");
  std::string label;
  if (name.empty()) {
    label = "(unnamed kernel)";
  } else {
    const analyzers::FunctionNameParts parts = analyzers::SplitFunctionName(name);
    label = parts.base.empty() ? name : std::string(parts.base);
  }
  const std::string functor = Str(kernel, "functor");
  if (!functor.empty()) label = functor + " · " + label;
  const std::string shape = Str(kernel, "shape");
  if (!shape.empty()) label += " [" + shape + "]";
  return label;
}

std::string LibraryLabel(const json& call) {
  std::string label = fmt::format("{} {}x{}x{}", Str(call, "routine", "?"), Str(call, "m", "?"),
                                  Str(call, "n", "?"), Str(call, "k", "?"));
  if (NumOr(call, "batch", 1) > 1) label += " b" + Str(call, "batch");
  const json& types = Arr(call, "types");
  if (types.size() == 4 && types[0].is_string() && types[3].is_string()) {
    label += " " + types[0].get<std::string>();
    if (types[3] != types[0] && types[3] != "unknown" && types[3] != "") {
      label += "->" + types[3].get<std::string>();
    }
  }
  return label;
}

std::string DeviceLabel(const json& device) {
  std::string label = "GPU " + Str(device, "device", "?");
  const std::string name = Str(Obj(device, "properties"), "name");
  if (!name.empty()) label += " " + name;
  return label;
}

std::string_view RegimeColor(std::string_view regime) {
  if (regime == "compute_bound") return "#2b6cb0";
  if (regime == "memory_bound") return "#dd6b20";
  if (regime == "overhead_bound") return "#805ad5";
  return "#718096";
}

std::string RegimeText(std::string_view regime) {
  if (regime.empty()) return "-";
  std::string out(regime);
  for (char& c : out) {
    if (c == '_') c = ' ';
  }
  return out;
}

}  // namespace flopspy::tools::html
