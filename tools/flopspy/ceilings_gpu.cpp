// flopspy ceilings --gpu: runs the GPU microbenchmarks of gpu_roofline/ on one device, prints
// them against the datasheet, and adds the entry (key: device UUID and driver version) to the
// ceilings file flopspy-report reads.
#include <cstdlib>
#include <iostream>

#include "flopspy/ceilings.h"
#include "flopspy/gpu_roofline/ceilings_results.h"
#include "flopspy/gpu_roofline/ceilings_runner.h"
#include "flopspy/gpu_roofline/device_table.h"
#include "flopspy/platform/safe_file.h"
#include "report/trace_report.h"

namespace flopspy::tools {

int RunGpuCeilingsCommand(const CeilingsCommand& command, bool skip_missing_gpu,
                          std::string* json_text) {
  gpuroof::GpuCeilingsOptions options;
  options.device_index = command.device;
  options.quick = command.quick;
  options.progress = [](const std::string& what) {
    std::cerr << "flopspy: measuring " << what << "\n";
  };
  const gpuroof::GpuCeilingsRun run = gpuroof::RunGpuCeilings(options);
  if (!run.error.empty()) {
    if (skip_missing_gpu && run.error.rfind("no CUDA device", 0) == 0) {
      std::cerr << "flopspy ceilings: GPU skipped: " << run.error << "\n";
      return 0;
    }
    std::cerr << "flopspy ceilings --gpu: " << run.error << "\n";
    return 1;
  }

  const analyzers::DeviceRoofs roofs = gpuroof::RoofsForDevice(run.device);
  // Without /proc/driver/nvidia/version the driver's version is unknown; the report then finds
  // the entry by UUID alone (FindCeilingsAnyDriver).
  const gpuroof::MeasuredCeilings entry = gpuroof::CeilingsFromRun(
      run, UtcNowIso8601(), std::string("flopspy ceilings ") + FLOPSPY_VERSION, "unknown");
  int status = 0;
  if (entry.flops.empty() && entry.bandwidth.empty()) {
    std::cerr << "flopspy ceilings --gpu: nothing could be measured (every benchmark was "
                 "skipped; see the table)\n";
    status = 1;
  }
  std::string saved;
  std::string note;
  if (command.save && status == 0) {
    const std::string path = command.output.empty() ? DefaultCeilingsPath() : command.output;
    // -o FILE or FLOPSPY_CEILINGS: a name the user chose, not the private cache.
    const bool user_named = !command.output.empty() || std::getenv("FLOPSPY_CEILINGS") != nullptr;
    const auto destination =
        user_named ? platform::Destination::kUserNamed : platform::Destination::kPrivateCache;
    std::string error;
    if (path.empty()) {
      std::cerr << "flopspy ceilings --gpu: not saved: neither HOME nor XDG_CACHE_HOME is set "
                   "(use -o FILE)\n";
      status = 1;
    } else if (gpuroof::SaveCeilingsEntry(path, entry, destination, &note, &error)) {
      saved = path;
    } else {
      std::cerr << "flopspy ceilings --gpu: not saved: " << error << "\n";
      status = 1;
    }
    if (!note.empty()) std::cerr << "flopspy ceilings --gpu: " << note << "\n";
  }

  if (command.json || json_text != nullptr) {
    const std::string json = gpuroof::GpuCeilingsRunJson(run, roofs, entry, saved);
    if (json_text != nullptr) {
      *json_text = json;
    } else {
      std::cout << json;
    }
  } else {
    std::cout << gpuroof::FormatGpuCeilingsTable(run, roofs);
    std::cout << "measured in " << static_cast<int>(run.seconds + 0.5) << " s\n";
    if (!saved.empty()) {
      std::cout << "saved to " << saved << " (entry " << entry.uuid << ", driver "
                << entry.driver_version << ")\n";
    }
  }
  return status;
}

}  // namespace flopspy::tools
