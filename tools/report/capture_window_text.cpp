#include "report/capture_window_text.h"

#include <fmt/format.h>

namespace flopspy::tools {
namespace {

double NumberAt(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0;
}

}  // namespace

std::string CaptureWindowText(const nlohmann::json& metadata) {
  if (!metadata.is_object() || !metadata.contains("config")) return "";
  const nlohmann::json& config = metadata["config"];
  if (!config.is_object()) return "";
  const double delay = NumberAt(config, "delay_ns") / 1e9;
  const double duration = NumberAt(config, "duration_ns") / 1e9;
  const auto range_it = config.find("capture_range");
  const std::string range =
      range_it != config.end() && range_it->is_string() ? range_it->get<std::string>() : "";
  std::string text;
  if (!range.empty()) {
    const size_t colon = range.find(':');
    text = fmt::format("inside the first {} range {}", range.substr(0, colon),
                       range.substr(colon + 1));
    if (duration > 0) text += fmt::format(", for at most {:.1f} s", duration);
  } else if (delay > 0 || duration > 0) {
    text = fmt::format("{:.1f} s after start", delay);
    text += duration > 0 ? fmt::format(", for {:.1f} s", duration) : ", to the end";
  } else {
    return "";
  }
  const auto window = metadata.find("capture_window");
  if (window == metadata.end() || !window->is_object() || !window->contains("opened_s")) {
    return text + " (never opened: nothing was recorded)";
  }
  const double opened = NumberAt(*window, "opened_s");
  if (!window->contains("closed_s")) return text + fmt::format(" (open from {:.2f} s)", opened);
  return text +
         fmt::format(" (open from {:.2f} s to {:.2f} s)", opened, NumberAt(*window, "closed_s"));
}

}  // namespace flopspy::tools
