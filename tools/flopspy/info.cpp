// flopspy info: what this machine offers a profiler, and why something is missing.
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "flopspy/commands.h"
#include "flopspy/gpu_roofline/cuda_probe.h"
#include "flopspy/gpu_roofline/device_properties_json.h"

namespace flopspy::tools {
namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string ReadFirstLine(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Tries to open one counter for this process; empty string when it works, else why not.
std::string TryCounter(uint32_t type, uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd >= 0) {
    close(static_cast<int>(fd));
    return "";
  }
  const int err = errno;
  switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
      return fmt::format("no PMU for it here ({}; common in VMs and containers)", strerror(err));
    case EACCES:
    case EPERM:
      return fmt::format(
          "not permitted ({}; perf_event_paranoid is {}; lower it or grant "
          "CAP_PERFMON)",
          strerror(err), ReadFirstLine("/proc/sys/kernel/perf_event_paranoid"));
    default:
      return strerror(err);
  }
}

std::string Version(int v) {
  return v ? fmt::format("{}.{}", v / 1000, (v % 1000) / 10) : "?";
}

int Info(bool json) {
  const auto cuda = gpuroof::ProbeCuda();
  const std::string cycles = TryCounter(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  const std::string task_clock = TryCounter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  const std::string paranoid = ReadFirstLine("/proc/sys/kernel/perf_event_paranoid");

  if (json) {
    nlohmann::json j;
    j["cpu"] = {{"model", CpuModel()},
                {"logical_cpus", std::thread::hardware_concurrency()},
                {"perf_event_paranoid", paranoid},
                {"hardware_counters", cycles.empty()},
                {"hardware_counters_error", cycles},
                {"software_counters", task_clock.empty()}};
    j["cuda"] = {{"driver",
                  {{"found", cuda.driver.found},
                   {"path", cuda.driver.path},
                   {"version", cuda.driver.version},
                   {"error", cuda.driver.error}}},
                 {"initialized", cuda.driver_initialized},
                 {"init_error", cuda.init_error},
                 {"runtime",
                  {{"found", cuda.runtime.found},
                   {"path", cuda.runtime.path},
                   {"version", cuda.runtime.version},
                   {"error", cuda.runtime.error}}},
                 {"cupti",
                  {{"found", cuda.cupti.found},
                   {"path", cuda.cupti.path},
                   {"version", cuda.cupti.version},
                   {"error", cuda.cupti.error}}},
                 {"injection_path", cuda.injection_path},
                 {"profiling_restricted_to_admin", cuda.profiling_restricted}};
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : cuda.gpus) gpus.push_back(gpuroof::DevicePropertiesToJson(g));
    j["gpus"] = gpus;
    std::cout << j.dump(2) << "\n";
    return 0;
  }

  const auto yes_no = [](bool ok, const std::string& why) { return ok ? "yes" : "no: " + why; };
  fmt::print("CPU\n");
  fmt::print("  model                 {}\n", CpuModel());
  fmt::print("  logical CPUs          {}\n", std::thread::hardware_concurrency());
  fmt::print("  perf_event_paranoid   {}\n", paranoid.empty() ? "unreadable" : paranoid);
  fmt::print("  hardware counters     {}\n", yes_no(cycles.empty(), cycles));
  fmt::print("  software counters     {}\n", yes_no(task_clock.empty(), task_clock));
  fmt::print("CUDA\n");
  fmt::print("  driver (libcuda.so.1) {}\n",
             cuda.driver.found
                 ? fmt::format("{} ({})", Version(cuda.driver.version), cuda.driver.path)
                 : "not found: " + cuda.driver.error);
  if (cuda.driver.found) {
    fmt::print("  initialised           {}\n", yes_no(cuda.driver_initialized, cuda.init_error));
  }
  fmt::print("  runtime (libcudart)   {}\n",
             cuda.runtime.found
                 ? fmt::format("{} ({}){}", Version(cuda.runtime.version), cuda.runtime.path,
                               cuda.runtime.error.empty() ? "" : "; " + cuda.runtime.error)
                 : "not found: " + cuda.runtime.error);
  fmt::print("  CUPTI                 {}\n",
             cuda.cupti.found ? fmt::format("API {} ({}){}", cuda.cupti.version, cuda.cupti.path,
                                            cuda.cupti.error.empty() ? "" : "; " + cuda.cupti.error)
                              : "not found: " + cuda.cupti.error);
  fmt::print("  injected tool         {}\n", cuda.injection_path.empty()
                                                 ? "none"
                                                 : "CUDA_INJECTION64_PATH=" + cuda.injection_path +
                                                       " (another profiler may hold CUPTI)");
  if (!cuda.profiling_restricted.empty()) {
    fmt::print("  GPU counters          {}\n",
               cuda.profiling_restricted == "1"
                   ? "admin only (NVreg_RestrictProfilingToAdminUsers=1)"
                   : "allowed for all users");
  }
  fmt::print("GPUs                    {}\n", cuda.gpus.empty() ? "none" : "");
  for (size_t i = 0; i < cuda.gpus.size(); ++i) {
    const auto& g = cuda.gpus[i];
    fmt::print("  {}  {}  sm_{}{}  {} SMs  {:.0f} MHz  {:.1f} GiB  {}\n", i, g.name, g.cc_major,
               g.cc_minor, g.sm_count, g.clock_khz / 1e3,
               static_cast<double>(g.total_memory_bytes) / (1u << 30), g.uuid);
  }
  return 0;
}

}  // namespace

void RegisterInfo(CLI::App& app, CommandFn* run) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("info", "What this machine offers: CPU counters, CUDA, GPUs");
  sub->add_flag("--json", *json, "print JSON");
  sub->callback([json, run] { *run = [json] { return Info(*json); }; });
}

}  // namespace flopspy::tools
