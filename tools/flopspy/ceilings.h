// flopspy ceilings: the two halves (CPU and GPU) behind the command line of ceilings.cpp.
#pragma once

#include <string>

namespace flopspy::tools {

struct CeilingsCommand {
  bool cpu = false;
  bool gpu = false;
  bool quick = false;
  bool json = false;
  bool save = true;
  std::string output;  // -o: the file to write instead of the default path
  std::string svg;     // --svg: the CPU roofs as an SVG chart
  int device = 0;      // --device: the GPU to measure
};

// Each prints its table (or JSON) on stdout and progress on stderr; 0 on success, 1 when nothing
// was measured or saved. `json_text` gets the JSON instead of printing it when not null.
int RunCpuCeilingsCommand(const CeilingsCommand& command, std::string* json_text);
// `skip_missing_gpu`: without a GPU, say so on stderr and return 0 (`flopspy ceilings` with
// neither --cpu nor --gpu measures what there is).
int RunGpuCeilingsCommand(const CeilingsCommand& command, bool skip_missing_gpu,
                          std::string* json_text);

// The current time as ISO 8601 UTC: "2026-10-28T12:00:00Z".
std::string UtcNowIso8601();

}  // namespace flopspy::tools
