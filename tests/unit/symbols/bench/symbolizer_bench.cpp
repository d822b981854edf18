// The report's symbolisation cost (symbols/): 10,000 distinct return addresses spread over 50
// modules, each a link to this program (a large PIE with debug info) under its own path, so each
// is opened and indexed on its own. The goal (docs/call-sites.md, "Native symbols"): a cold
// Symbolizer resolves them all in well under a second; a warm one from its cache.
#include <benchmark/benchmark.h>
#include <link.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "flopspy/symbols/symbolizer.h"

namespace {

constexpr int kModules = 50;
constexpr int kAddressesPerModule = 200;

struct Program {
  uint64_t bias = 0, text_start = 0, text_end = 0;  // executable segment, link-time addresses
};

int FindProgram(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;
  auto* program = static_cast<Program*>(data);
  program->bias = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
    if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X) != 0) {
      program->text_start = phdr.p_vaddr;
      program->text_end = phdr.p_vaddr + phdr.p_memsz;
    }
  }
  return 1;
}

struct Workload {
  std::filesystem::path dir;
  std::vector<flopspy::symbols::Module> modules;
  std::vector<std::pair<int, uint64_t>> frames;  // module index, runtime address

  Workload() {
    Program program;
    dl_iterate_phdr(FindProgram, &program);
    std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    dir = std::filesystem::temp_directory_path() /
          ("flopspy_symbols_bench_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    uint64_t span = program.text_end - program.text_start;
    for (int m = 0; m < kModules; ++m) {
      std::filesystem::path link = dir / ("module" + std::to_string(m) + ".so");
      std::filesystem::create_symlink(self, link);
      modules.push_back({link.string(), "", program.bias});
      for (int a = 0; a < kAddressesPerModule; ++a) {
        uint64_t step = span / (kAddressesPerModule + 1);
        uint64_t address = program.text_start + step * static_cast<uint64_t>(a + 1) +
                           static_cast<uint64_t>(m) % step;
        frames.emplace_back(m, program.bias + address);
      }
    }
  }
  ~Workload() { std::filesystem::remove_all(dir); }
};

Workload& TheWorkload() {
  static Workload workload;
  return workload;
}

void BM_ColdSymbolizer10kAddresses50Modules(benchmark::State& state) {
  Workload& work = TheWorkload();
  size_t named = 0;
  for (auto _ : state) {
    flopspy::symbols::Symbolizer symbolizer;
    named = 0;
    for (const auto& [module, address] : work.frames) {
      named += symbolizer.Resolve(work.modules[static_cast<size_t>(module)], address).line > 0;
    }
  }
  state.counters["frames"] = static_cast<double>(work.frames.size());
  state.counters["with_line"] = static_cast<double>(named);
}
BENCHMARK(BM_ColdSymbolizer10kAddresses50Modules)->Unit(benchmark::kMillisecond);

void BM_WarmSymbolizer10kAddresses50Modules(benchmark::State& state) {
  Workload& work = TheWorkload();
  flopspy::symbols::Symbolizer symbolizer;
  for (auto _ : state) {
    for (const auto& [module, address] : work.frames) {
      benchmark::DoNotOptimize(
          symbolizer.Resolve(work.modules[static_cast<size_t>(module)], address));
    }
  }
}
BENCHMARK(BM_WarmSymbolizer10kAddresses50Modules)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
