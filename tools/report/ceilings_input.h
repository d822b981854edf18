// The measured ceilings files the report reads (`flopspy ceilings` writes them). Their paths come
// from HOME, XDG_CACHE_HOME, FLOPSPY_CEILINGS or --ceilings, so they may lie in another user's
// folder (sudo keeping HOME), loop, or name a FIFO: a missing file is no news, anything else that
// cannot be read is one warning, and nothing throws or blocks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "flopspy/gpu_roofline/ceilings.h"

namespace flopspy::tools {

// Measured GPU ceilings from `path`, or nullopt. Each problem is one line in `warnings`
// (without the program's name): the file refused, or entries of it skipped. A missing file is a
// problem only when the user `named` it; the default cache path may not exist yet.
std::optional<gpuroof::CeilingsFile> LoadGpuCeilings(const std::string& path, bool named,
                                                     std::vector<std::string>* warnings);

}  // namespace flopspy::tools
