// Small builders of JSON values the --json writers share.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

namespace flopspy::tools {

// A figure or null: null when it is absent, and when it is not finite (JSON has no infinity, and
// an intensity of +inf, bytes 0, must not read as a number).
inline nlohmann::json NumberOrNull(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace flopspy::tools
