// Turning command-line arguments into trace files: files as given, folders searched for *.fspy.
#pragma once

#include <string>
#include <vector>

namespace flopspy::tools {

struct TraceInputs {
  std::vector<std::string> files;
  // One line each: arguments that cannot be read (missing, a loop, a FIFO or device: never
  // opened), folders that cannot be listed or hold no trace, entries that are not files.
  std::vector<std::string> errors;
};

// Folders contribute their *.fspy files (sorted, not recursive). Only regular files are kept.
TraceInputs ExpandTraceArguments(const std::vector<std::string>& arguments);

}  // namespace flopspy::tools
