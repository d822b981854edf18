#include "report/html_util.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "flopspy/analyzers/display_text.h"
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

std::string Fold(const PageSection& section) {
  return fmt::format(R"(<details class="sec" id="{}"{}><summary><h3>{}</h3></summary>)"
                     R"(<div class="sec-body">{}</div></details>)",
                     Escape(section.id), section.open ? " open" : "", Escape(section.title),
                     section.body) +
         "\n";
}

std::string Toc(const std::vector<PageSection>& sections, std::string_view heading) {
  std::string s = R"(<nav class="toc"><span class="toc-title">)" + Escape(heading) + "</span><ul>";
  for (const PageSection& p : sections) {
    s += fmt::format(R"(<li><a href="#{}">{}</a></li>)", Escape(p.id), Escape(p.title));
  }
  return s + "</ul></nav>\n";
}

std::string ShortName(std::string_view label, std::string_view full, size_t max_chars) {
  const std::string shown = analyzers::ShortenKernelName(label, max_chars);
  const std::string_view title = full.empty() ? label : full;
  return fmt::format(R"(<span class="kname" title="{}">{}</span>)", Escape(title), Escape(shown));
}

std::string RoofName(std::string_view name) {
  if (const auto path = analyzers::ComputePathFromName(name)) return RoofPathLabel(*path);
  if (name == "dram" || name == "l2" || name == "l3" || name == "l1") {
    std::string upper(name);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return upper;
  }
  return std::string(name);
}

std::string KernelLabel(const json& kernel) {
  // The operation ("gelu", "pointwise add+mul"), else the functor, as the text report shows.
  const std::string op = Str(kernel, "op");
  return tools::KernelLabel(Str(kernel, "name"), op.empty() ? Str(kernel, "functor") : op,
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
