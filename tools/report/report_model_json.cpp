#include "report/report_model_json.h"

#include <fmt/format.h>

#include <cmath>

namespace flopspy::tools::model_json {

using nlohmann::json;

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

std::string Dump(const json& value, int indent) {
  return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string DimsText(const json& value) {
  if (!value.is_array()) return "";
  std::string s;
  for (const auto& d : value) s += (s.empty() ? "" : "x") + (d.is_number() ? Dump(d) : "?");
  return s;
}

}  // namespace flopspy::tools::model_json
