// The one place text output gets colour (--color of flopspy-report, the summary of flopspy
// run): every coloured element of every text output goes through TextStyle, so never on, or
// never, means the same everywhere.
#pragma once

#include <string>
#include <string_view>

namespace flopspy::tools {

struct TextStyle {
  bool color = false;
  std::string Bold(const std::string& s) const { return Wrap("\033[1m", s); }
  std::string Warn(const std::string& s) const { return Wrap("\033[33m", s); }
  std::string Bad(const std::string& s) const { return Wrap("\033[31m", s); }

 private:
  std::string Wrap(std::string_view code, const std::string& s) const {
    return color ? std::string(code) + s + "\033[0m" : s;
  }
};

// --color auto|always|never: `terminal` says whether the output is one; auto is off when the
// NO_COLOR environment variable is set and not empty (no-color.org).
bool UseColor(std::string_view choice, bool terminal);

}  // namespace flopspy::tools
