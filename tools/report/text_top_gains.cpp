#include "report/text_top_gains.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "flopspy/analyzers/display_text.h"
#include "report/format.h"

namespace flopspy::tools {

inline constexpr size_t kTopGains = 3;

void PrintTopGains(const std::vector<analyzers::Advice>& advice, std::ostream& out) {
  // The advice is ranked already: findings with an estimate come first, largest first.
  size_t shown = 0;
  for (size_t i = 0; i < advice.size() && shown < kTopGains; ++i) {
    const analyzers::Advice& a = advice[i];
    if (!a.gain_ns || *a.gain_ns <= 0) continue;
    const std::string share =
        a.share > 0 ? analyzers::PercentText(100 * a.share) + " of kernel time; " : "";
    const std::string first = fmt::format("  {:<10}{}. ", shown == 0 ? "est. gain" : "", shown + 1);
    fmt::print(out, "{}",
               Paragraph(a.title + ": " + Duration(*a.gain_ns) + " (" + share + "advice " +
                             std::to_string(i + 1) + ")",
                         first, std::string(first.size(), ' ')));
    ++shown;
  }
}

}  // namespace flopspy::tools
