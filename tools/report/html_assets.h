// The HTML report's style sheet and script, inlined into every page (nothing is fetched).
#pragma once

namespace flopspy::tools::html {

extern const char kStyleSheet[];
extern const char kScript[];

}  // namespace flopspy::tools::html
