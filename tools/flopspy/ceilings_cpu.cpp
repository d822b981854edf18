// flopspy ceilings --cpu: runs the CPU microbenchmarks of cpu_roofline/, prints the measured
// peaks beside the theoretical ones, and saves the JSON flopspy-report reads for traces taken on
// the same CPU model.
#include <iostream>

#include "flopspy/ceilings.h"
#include "flopspy/cpu_roofline/ceilings.h"
#include "flopspy/cpu_roofline/cpu_identity.h"
#include "flopspy/cpu_roofline/cpu_roofline_report.h"
#include "flopspy/platform/safe_file.h"

namespace flopspy::tools {

int RunCpuCeilingsCommand(const CeilingsCommand& command, std::string* json_text) {
  const cpuroof::CpuIdentity cpu = cpuroof::DetectCpuIdentity();
  cpuroof::CeilingsOptions options;
  options.quick = command.quick;
  if (!command.quick) {
    // Shorter points than the library's full mode (0.1 s) and two repeats, the best kept: the
    // default run stays under about 30 s even on a busy two-core machine.
    options.seconds_per_point = 0.03;
    options.repeats = 2;
  }
  std::cerr << "flopspy: measuring CPU ceilings on " << cpuroof::DescribeCpu(cpu)
            << (command.quick ? " (quick)" : "") << "...\n";
  const cpuroof::CpuCeilings ceilings =
      cpuroof::RunCpuCeilings(options, cpu, cpuroof::DetectCacheSizes());
  if (ceilings.flops.empty() && ceilings.bandwidth.empty()) {
    std::cerr << "flopspy ceilings --cpu: nothing could be measured\n";
    return 1;
  }

  int status = 0;
  std::string saved;
  if (command.save) {
    const std::string path =
        command.output.empty() ? cpuroof::DefaultCeilingsPath(cpu) : command.output;
    std::string error;
    const auto target = command.output.empty() ? platform::Destination::kPrivateCache
                                               : platform::Destination::kUserNamed;
    if (cpuroof::SaveCeilings(ceilings, path, &error, target)) {
      saved = path;
    } else {
      std::cerr << "flopspy ceilings --cpu: not saved: " << error << "\n";
      status = 1;
    }
  }
  if (!command.svg.empty()) {
    cpuroof::CpuRooflineInputs inputs;
    inputs.ceilings = &ceilings;
    const std::string svg = cpuroof::CpuRooflineSvg(cpuroof::BuildCpuRoofline({}, inputs));
    std::string error;
    if (!platform::WriteOutputFile(command.svg, svg, platform::kSharedFileMode, &error)) {
      std::cerr << "flopspy ceilings --svg: " << error << "\n";
      status = 1;
    }
  }

  if (command.json || json_text != nullptr) {
    const std::string json = cpuroof::CeilingsToJson(ceilings);
    if (json_text != nullptr) {
      *json_text = json;
    } else {
      std::cout << json;
      if (json.empty() || json.back() != '\n') std::cout << "\n";
    }
  } else {
    std::cout << cpuroof::FormatCeilingsTable(ceilings);
    std::cout << "measured in " << static_cast<int>(ceilings.seconds + 0.5) << " s\n";
    if (!saved.empty()) {
      std::cout << "saved to " << saved;
      if (command.output.empty()) std::cout << " (flopspy-report uses it for this CPU model)";
      std::cout << "\n";
    }
    if (!command.svg.empty() && status == 0) std::cout << "chart: " << command.svg << "\n";
  }
  return status;
}

}  // namespace flopspy::tools
