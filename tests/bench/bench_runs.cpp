#include "bench_runs.h"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

namespace flopspy::testing {

std::string SelfPath() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

bool ReadRepetitions(const std::string& path, std::map<std::string, std::vector<double>>& out) {
  std::ifstream in(path);
  if (!in) return false;
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (report.is_discarded() || !report.contains("benchmarks")) return false;
  for (const auto& b : report["benchmarks"]) {
    if (b.value("run_type", "") != "iteration" || b.contains("error_occurred")) continue;
    const std::string unit = b.value("time_unit", "ns");
    const double scale = unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : 1.0;
    std::string name = b.value("run_name", b.value("name", ""));
    name = name.substr(0, name.find("/iterations"));
    out[name].push_back(b.value("cpu_time", 0.0) * scale);
  }
  return true;
}

}  // namespace flopspy::testing
