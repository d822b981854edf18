// flopspy ceilings [--cpu] [--gpu] [--quick] [-o FILE] [--json] [--svg FILE] [--device N]:
// measures what this machine's CPU and GPU really sustain and saves it where flopspy-report
// looks for roofs. docs/flopspy-ceilings.md.
#include "flopspy/ceilings.h"

#include <ctime>
#include <iostream>
#include <memory>

#include "flopspy/commands.h"
#include "report/cli_style.h"

namespace flopspy::tools {
namespace {

int Ceilings(CeilingsCommand command) {
  const bool both = command.cpu == command.gpu;  // neither flag: both, the GPU where there is one
  if (both) command.cpu = command.gpu = true;
  if (both && !command.output.empty()) {
    return UsageError("ceilings", "-o names one file; use it with --cpu or --gpu alone");
  }
  if (!command.svg.empty() && !command.cpu) {
    return UsageError("ceilings", "--svg draws the CPU roofs; use it with --cpu");
  }
  if (!both) {
    return command.cpu ? RunCpuCeilingsCommand(command, nullptr)
                       : RunGpuCeilingsCommand(command, false, nullptr);
  }
  std::string cpu_json, gpu_json;
  const int cpu_status = RunCpuCeilingsCommand(command, command.json ? &cpu_json : nullptr);
  if (!command.json) std::cout << "\n";
  const int gpu_status = RunGpuCeilingsCommand(command, true, command.json ? &gpu_json : nullptr);
  if (command.json) {
    std::cout << "{\n\"cpu\": " << (cpu_json.empty() ? "null\n" : cpu_json)
              << ",\n\"gpu\": " << (gpu_json.empty() ? "null\n" : gpu_json) << "}\n";
  }
  return cpu_status != 0 ? cpu_status : gpu_status;
}

}  // namespace

std::string UtcNowIso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void RegisterCeilings(CLI::App& app, CommandFn* run) {
  auto command = std::make_shared<CeilingsCommand>();
  CLI::App* sub = app.add_subcommand(
      "ceilings",
      "Measure this machine's peak FLOP/s and bandwidths (the roofs of flopspy-report) and save "
      "them where flopspy-report looks; without --cpu or --gpu, both (the GPU where there is one)");
  sub->add_flag("--cpu", command->cpu,
                "CPU: FP64/FP32 peaks per instruction set on one core and on all, L1/L2/L3/DRAM "
                "bandwidth");
  sub->add_flag("--gpu", command->gpu,
                "GPU: CUDA-core FMA peaks, cuBLASLt GEMM peaks per data type, DRAM and L2 "
                "bandwidth");
  sub->add_flag("--quick", command->quick, "shorter runs (a few seconds each), less precise");
  sub->add_option("-o,--output", command->output,
                  "write the ceilings to FILE instead of the default path (flopspy-report finds "
                  "only the default one unless told)")
      ->type_name("FILE");
  sub->add_flag("!--no-save", command->save, "measure and print, write no file");
  sub->add_flag("--json", command->json, "print JSON instead of a table");
  sub->add_option("--svg", command->svg, "draw the CPU roofs as an SVG chart in FILE")
      ->type_name("FILE");
  WholeNumber(
      sub->add_option("--device", command->device, "the GPU to measure (CUDA device index)"), 0,
      65535);
  sub->callback([command, run] { *run = [command] { return Ceilings(*command); }; });
}

}  // namespace flopspy::tools
