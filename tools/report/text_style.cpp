#include "report/text_style.h"

#include <cstdlib>

namespace flopspy::tools {

bool UseColor(std::string_view choice, bool terminal) {
  if (choice == "always") return true;
  if (choice == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return terminal && (no_color == nullptr || *no_color == '\0');
}

}  // namespace flopspy::tools
