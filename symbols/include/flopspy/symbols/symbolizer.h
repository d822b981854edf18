// Native symbolisation for flopspy-report: a return address recorded in a trace's native stack,
// with the module it lies in (path, GNU build id, load bias), becomes a function name, source file
// and line (docs/call-sites.md, "Native symbols"). Reads the module's ELF symbol table and DWARF
// (or a separate debug file found by build id) with elfutils' libdw; never runs in the process
// that recorded the trace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace flopspy::symbols {

struct Module {
  std::string path;
  std::string build_id;  // hex, as recorded; "" when the object had none (not checked then)
  uint64_t bias = 0;     // runtime address minus link-time address
};

struct Symbol {
  std::string function;  // demangled; "" when the module has no symbol for the address
  std::string file;      // source file from debug info; "" without
  int line = 0;          // 0: unknown
};

// One per thread (libdw handles are not shared); opens each module once (by path and build id)
// and caches every address it resolved. Never throws: a module it cannot read, or a corrupt
// one, gives empty symbols and a line in ModulesWithoutSymbols().
class Symbolizer {
 public:
  // Looks for separate debug files in /usr/lib/debug/.build-id/.
  Symbolizer();
  // Looks in each `debug_dirs` entry's .build-id/ folder instead, in order.
  explicit Symbolizer(std::vector<std::string> debug_dirs);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // `runtime_address` is a return address: it points after its call instruction, so the
  // function and line are those of the byte before it.
  Symbol Resolve(const Module& module, uint64_t runtime_address);

  // "path: why" for every module asked about that had no symbols, could not be opened, or whose
  // build id differs from the recorded one; in the order they were first asked about.
  std::vector<std::string> ModulesWithoutSymbols() const;

  // "path" of the modules asked about that had symbols but no debug info (names, no lines).
  std::vector<std::string> ModulesWithoutDebugInfo() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace flopspy::symbols
