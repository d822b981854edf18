#include "report/html_util.h"

#include <fmt/format.h>

#include <cmath>

#include "flopspy/platform/html_text.h"
#include "report/format.h"

namespace flopspy::tools::html {

using nlohmann::json;

std::string Escape(std::string_view text) {
  return platform::EscapeHtml(text);
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
  return v ? Significant(*v) : "-";  // no "1e+03" among "813" (format.h)
}

std::string Exact(double v) {
  return std::isfinite(v) ? fmt::format("{}", v) : "0";
}

std::string Facts(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string s = R"(<dl class="facts">)";
  for (const auto& [k, v] : rows) s += "<dt>" + Escape(k) + "</dt><dd>" + v + "</dd>";
  return s + "</dl>\n";
}

std::string KernelLabel(const json& kernel) {
  // The operation when the catalog has no functor for it ("gelu"), as the text report shows.
  const std::string functor = Str(kernel, "functor");
  return tools::KernelLabel(Str(kernel, "name"), functor.empty() ? Str(kernel, "op") : functor,
                            Str(kernel, "shape"));
}

std::string LibraryLabel(const json& call) {
  std::string label = Str(call, "routine", "?") + " ";
  if (const std::string groups = Str(Obj(call, "groups"), "summary"); !groups.empty()) {
    label += groups;
  } else {
    label += fmt::format("{}x{}x{}", Str(call, "m", "?"), Str(call, "n", "?"), Str(call, "k", "?"));
    if (NumOr(call, "batch", 1) > 1) label += " b" + Str(call, "batch");
  }
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

}  // namespace flopspy::tools::html
