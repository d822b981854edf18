// One module's ELF file, symbol table and DWARF, opened once through libdwfl.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/symbols/symbolizer.h"
#include "inline_finder.h"

namespace flopspy::symbols {

class ElfModule {
 public:
  // Opens `path` (a regular ELF file; a FIFO or device is refused without blocking) and checks
  // its build id against `build_id_hex` (lowercase; "" checks nothing). Separate debug files are
  // looked for by build id under each of `debug_dirs`, which must outlive the module. On failure
  // returns null and sets `problem` to why ("not found", "not an ELF file", ...).
  static std::unique_ptr<ElfModule> Open(const std::string& path, std::string_view build_id_hex,
                                         const std::vector<std::string>* debug_dirs,
                                         std::string* problem);
  ~ElfModule();
  ElfModule(const ElfModule&) = delete;
  ElfModule& operator=(const ElfModule&) = delete;

  // The function (demangled), file and line of the byte at this link-time address.
  Symbol Lookup(uint64_t file_address);

  bool has_symbols() const { return has_symbols_; }  // a defined function symbol anywhere
  bool has_debug_info() const { return has_debug_info_; }

 private:
  ElfModule() = default;
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
  bool has_symbols_ = false;
  bool has_debug_info_ = false;
  InlineFinder inline_finder_;
};

// Itanium C++ names demangled; anything else (C names, a name the demangler rejects) unchanged.
std::string DemangleSymbol(const char* name);

// Bytes as lowercase hex.
std::string HexOf(const void* bytes, size_t size);

}  // namespace flopspy::symbols
