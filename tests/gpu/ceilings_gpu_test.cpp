// `flopspy ceilings --gpu --quick` on a real GPU, against the device table:
//   - FP32 FMA chains reach 50-105% of the FP32 datasheet (or computed) peak;
//   - the device-to-device copy reaches 50-105% of the datasheet DRAM bandwidth (bytes read +
//     written);
//   - the bf16 cuBLASLt GEMM reaches at least 50% of the dense bf16 tensor peak (sm_80 on);
//   - the ceilings file holds the device's entry under its UUID and driver version.
// Exit 77 (skipped) when the CUDA runtime sees no device.
//
//   flopspy_ceilings_gpu_test [FLOPSPY]   (default: the flopspy built beside this test)
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "flopspy/gpu_roofline/ceilings.h"
#include "subprocess.h"

namespace {

using nlohmann::json;

int g_failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++g_failures;
}

const json* Result(const json& run, const std::string& id) {
  for (const json& r : run.at("results")) {
    if (r.value("id", "") == id) return &r;
  }
  return nullptr;
}

std::string Describe(const json& r) {
  char text[256];
  if (r.contains("skipped")) return r.value("id", "?") + " skipped: " + r.value("skipped", "");
  std::snprintf(text, sizeof text, "%s %.4g/s best, %.4g/s median", r.value("id", "?").c_str(),
                r.value("best_rate", 0.0), r.value("median_rate", 0.0));
  std::string out = text;
  if (r.contains("nominal")) {
    std::snprintf(text, sizeof text, ", %.1f%% of %.4g/s (%s, %s)",
                  100 * r.value("fraction_of_nominal", 0.0), r.value("nominal", 0.0),
                  r.value("nominal_of", "").c_str(), r.value("nominal_source", "").c_str());
    out += text;
  }
  return out + "; " + r.value("name", "");
}

// `id` measured, and its best within [low, high] of its nominal figure.
void CheckFraction(const json& run, const std::string& id, double low, double high) {
  const json* r = Result(run, id);
  if (r == nullptr || r->contains("skipped") || !r->contains("fraction_of_nominal")) {
    Check(false, id + " measured against a nominal figure" + (r ? ": " + Describe(*r) : ""));
    return;
  }
  const double f = r->value("fraction_of_nominal", 0.0);
  char range[64];
  std::snprintf(range, sizeof range, " (want %.0f%%..%.0f%%)", 100 * low, 100 * high);
  Check(f >= low && f <= high, Describe(*r) + range);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string flopspy = argc > 1 ? argv[1] : FLOPSPY_LAUNCHER_PATH;
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess || count == 0) {
    std::printf("skipped: no CUDA device (%s)\n",
                rc != cudaSuccess ? cudaGetErrorString(rc) : "the runtime sees none");
    return 77;
  }

  flopspy::testing::TempDir dir;
  const std::string file = dir.path() + "/gpu-ceilings.json";
  flopspy::testing::ChildOptions options;
  options.timeout = std::chrono::milliseconds(540000);
  const auto child = flopspy::testing::RunChild(
      {flopspy, "ceilings", "--gpu", "--quick", "--json", "-o", file}, options);
  std::fputs(child.err.c_str(), stdout);
  Check(child.exited && child.exit_code == 0, "flopspy ceilings --gpu --quick exits 0 (exit " +
                                                  std::to_string(child.exit_code) +
                                                  (child.timed_out ? ", timed out" : "") + ")");
  const json run = json::parse(child.out, nullptr, false);
  if (!run.is_object() || !run.contains("results")) {
    Check(false, "it prints the run as JSON: " + child.out.substr(0, 400));
    return 1;
  }
  const json& device = run.at("device");
  std::printf("device: %s, sm_%d%d, %d SMs, %s, driver %s, table entry '%s', SM clock %.0f MHz\n",
              device.value("name", "").c_str(), device.value("cc_major", 0),
              device.value("cc_minor", 0), device.value("sm_count", 0),
              device.value("uuid", "").c_str(), device.value("driver_version", "").c_str(),
              device.value("table_key", "").c_str(), run.value("sm_clock_mhz", 0.0));
  for (const json& r : run.at("results")) std::printf("  %s\n", Describe(r).c_str());
  for (const json& note : run.at("notes")) std::printf("  note: %s\n", note.dump().c_str());

  CheckFraction(run, "fma_fp32", 0.50, 1.05);
  CheckFraction(run, "copy_dram", 0.50, 1.05);
  if (device.value("cc_major", 0) >= 8) {
    CheckFraction(run, "gemm_bf16", 0.50, 1.05);
  } else {
    std::printf("skip: no bf16 tensor cores before sm_80\n");
  }

  const auto load = flopspy::gpuroof::LoadCeilingsFile(file);
  Check(load.file.has_value(),
        "the ceilings file reads back" + (load.error.empty() ? std::string() : ": " + load.error));
  if (load.file) {
    const auto* entry = flopspy::gpuroof::FindCeilings(
        *load.file, device.value("uuid", ""), run.at("ceilings").value("driver_version", ""));
    Check(entry != nullptr, "it holds this device's entry");
    if (entry != nullptr) {
      Check(entry->flops.count(flopspy::analyzers::ComputePath::kFp32) == 1,
            "the entry has an fp32 roof");
      Check(entry->bandwidth.count(flopspy::analyzers::MemoryLevel::kDram) == 1,
            "the entry has a DRAM roof");
    }
  }
  std::printf("%s\n", g_failures == 0 ? "PASSED" : "FAILED");
  return g_failures == 0 ? 0 : 1;
}
