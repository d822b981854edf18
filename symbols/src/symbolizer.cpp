#include "flopspy/symbols/symbolizer.h"

#include <cctype>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "elf_module.h"

namespace flopspy::symbols {

struct Symbolizer::State {
  struct Entry {
    std::string path;
    std::unique_ptr<ElfModule> elf;  // null: could not be used (problem says why)
    std::string problem;             // "" when it had symbols
  };
  struct AddressKey {
    size_t module;
    uint64_t address;
    bool operator==(const AddressKey&) const = default;
  };
  struct AddressHash {
    size_t operator()(const AddressKey& key) const {
      return std::hash<uint64_t>()(key.address * 0x9e3779b97f4a7c15ull ^ key.module);
    }
  };

  std::vector<std::string> debug_dirs;  // ElfModule's debug file search holds a pointer to it
  std::vector<Entry> modules;           // in the order first asked about
  std::unordered_map<std::string, size_t> by_key;  // path, NUL, lowercase build id
  std::unordered_map<AddressKey, Symbol, AddressHash> symbols;

  // The module asked about last: a stack's frames and a report's loops come in runs.
  std::string last_path, last_build_id;
  size_t last_index = SIZE_MAX;

  size_t ModuleIndex(const Module& module) {
    if (last_index != SIZE_MAX && module.path == last_path && module.build_id == last_build_id) {
      return last_index;
    }
    size_t index = FindOrOpen(module);
    last_index = SIZE_MAX;  // stays unset if a copy below runs out of memory
    last_path = module.path;
    last_build_id = module.build_id;
    last_index = index;
    return index;
  }

  size_t FindOrOpen(const Module& module) {
    std::string build_id;
    build_id.reserve(module.build_id.size());
    for (char c : module.build_id) {
      build_id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    std::string key = module.path;
    key += '\0';
    key += build_id;
    if (auto it = by_key.find(key); it != by_key.end()) return it->second;
    Entry entry;
    entry.path = module.path;
    entry.elf = ElfModule::Open(module.path, build_id, &debug_dirs, &entry.problem);
    modules.push_back(std::move(entry));
    try {
      by_key.emplace(std::move(key), modules.size() - 1);
    } catch (...) {
      modules.pop_back();
      throw;
    }
    return modules.size() - 1;
  }
};

Symbolizer::Symbolizer() : Symbolizer(std::vector<std::string>{"/usr/lib/debug"}) {}

Symbolizer::Symbolizer(std::vector<std::string> debug_dirs) : state_(std::make_unique<State>()) {
  state_->debug_dirs = std::move(debug_dirs);
}

Symbolizer::~Symbolizer() = default;

Symbol Symbolizer::Resolve(const Module& module, uint64_t runtime_address) {
  try {
    size_t index = state_->ModuleIndex(module);
    ElfModule* elf = state_->modules[index].elf.get();
    // A return address lies after its call, so at least one byte past the module's start.
    if (elf == nullptr || runtime_address <= module.bias) return {};
    uint64_t file_address = runtime_address - module.bias - 1;
    auto [it, inserted] = state_->symbols.try_emplace(State::AddressKey{index, file_address});
    if (inserted) it->second = elf->Lookup(file_address);
    return it->second;
  } catch (...) {  // out of memory: an unresolved frame, never an exception into the report
    return {};
  }
}

std::vector<std::string> Symbolizer::ModulesWithoutSymbols() const {
  std::vector<std::string> lines;
  for (const State::Entry& entry : state_->modules) {
    if (entry.problem.empty()) continue;
    std::string line = entry.path + ": " + entry.problem;
    bool seen = false;
    for (const std::string& earlier : lines) seen = seen || earlier == line;
    if (!seen) lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> Symbolizer::ModulesWithoutDebugInfo() const {
  std::vector<std::string> paths;
  for (const State::Entry& entry : state_->modules) {
    if (entry.elf == nullptr || !entry.elf->has_symbols() || entry.elf->has_debug_info()) continue;
    bool seen = false;
    for (const std::string& earlier : paths) seen = seen || earlier == entry.path;
    if (!seen) paths.push_back(entry.path);
  }
  return paths;
}

}  // namespace flopspy::symbols
