// The symbolizer tests' view of a loaded object: its bias and build id as the recorder would
// write them into a ModuleRecord (dl_iterate_phdr), and the lines marked in a source file.
#pragma once

#include <cstdint>
#include <string>

#include "flopspy/symbols/symbolizer.h"

namespace flopspy::symbols::testing {

// The loaded object whose dl_iterate_phdr name is `name` ("" for the program itself), described
// with `path` as its file; bias 0 and no build id when it is not loaded.
Module LoadedModule(const std::string& name, const std::string& path);

// The 1-based line of `source` that contains `marker`; 0 when none does.
int LineOf(const std::string& source, const std::string& marker);

// The part of a path after its last '/'.
std::string BaseName(const std::string& path);

}  // namespace flopspy::symbols::testing
