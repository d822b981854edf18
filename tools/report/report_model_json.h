// Reading the report model's JSON document (docs/report-json.md) by key, for the sinks that
// still render from it (CSV, HTML): a member of an unexpected type reads as absent, so that a
// document from another version never throws.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace flopspy::tools::model_json {

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

// JSON text of a value; invalid UTF-8 in strings is replaced rather than thrown on.
std::string Dump(const nlohmann::json& value, int indent = -1);

// A shape or grid written as an array of numbers: [128, 64, 1] -> "128x64x1"; "?" for an entry
// that is not a number, "" when it is not an array.
std::string DimsText(const nlohmann::json& value);

}  // namespace flopspy::tools::model_json
