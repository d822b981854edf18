// Which inlined function an address lies in, from DWARF: the symbol table names only the function
// the code was inlined into, while the DWARF line belongs to the inlined one. libdw's
// dwarf_getscopes walks a whole compile unit per address (milliseconds in a large C++ unit); this
// indexes each unit's functions once and then descends only into the one holding the address.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace flopspy::symbols {

class InlineFinder {
 public:
  // The innermost function inlined at `address` (a module address), named as its symbol would
  // be; "" when the address is not in inlined code or the module's DWARF does not say.
  std::string InlinedFunctionAt(Dwfl_Module* module, uint64_t address);

 private:
  struct Range {
    Dwarf_Addr low, high;  // [low, high) in the unit's DWARF addresses
    Dwarf_Die function;
  };
  const std::vector<Range>& FunctionsOf(Dwarf_Die* unit);

  std::unordered_map<const void*, std::vector<Range>> units_;  // by the unit DIE's address
};

// The name of a function DIE or of the function an inlined call stands for: its linkage name
// demangled, else its own name.
std::string FunctionNameOf(Dwarf_Die* die);

}  // namespace flopspy::symbols
