#include "inline_finder.h"

#include <dwarf.h>

#include <algorithm>
#include <utility>

#include "elf_module.h"

namespace flopspy::symbols {
namespace {

// Damaged DWARF may chain DIEs in a loop (a sibling pointing back): every walk is bounded.
constexpr int kMaxSteps = 1 << 20;

// GCC and clang put a member function's definition (the DIE with addresses) at namespace level,
// pointing at its declaration in the class: classes, full of declarations, need no visit.
bool IsScopeHolder(int tag) {
  return tag == DW_TAG_namespace;
}

}  // namespace

std::string FunctionNameOf(Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (dwarf_attr_integrate(die, name, &attribute) != nullptr) {
      if (const char* linkage = dwarf_formstring(&attribute)) return DemangleSymbol(linkage);
    }
  }
  const char* plain = dwarf_diename(die);
  return plain != nullptr ? plain : "";
}

const std::vector<InlineFinder::Range>& InlineFinder::FunctionsOf(Dwarf_Die* unit) {
  auto [it, inserted] = units_.try_emplace(unit->addr);
  if (!inserted) return it->second;
  std::vector<Range>& ranges = it->second;
  // Function definitions sit at the unit's top level, or inside namespaces.
  std::vector<Dwarf_Die> pending{*unit};
  int steps = 0;
  while (!pending.empty() && steps < kMaxSteps) {
    Dwarf_Die parent = pending.back();
    pending.pop_back();
    Dwarf_Die child;
    if (dwarf_child(&parent, &child) != 0) continue;
    do {
      int tag = dwarf_tag(&child);
      if (tag == DW_TAG_subprogram) {
        Dwarf_Addr base = 0, low = 0, high = 0;
        ptrdiff_t offset = 0;
        while ((offset = dwarf_ranges(&child, offset, &base, &low, &high)) > 0 &&
               ++steps < kMaxSteps) {
          if (low < high) ranges.push_back({low, high, child});
        }
      } else if (IsScopeHolder(tag)) {
        pending.push_back(child);
      }
    } while (++steps < kMaxSteps && dwarf_siblingof(&child, &child) == 0);
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.low < b.low; });
  return ranges;
}

std::string InlineFinder::InlinedFunctionAt(Dwfl_Module* module, uint64_t address) {
  Dwarf_Addr bias = 0;
  Dwarf_Die* unit = dwfl_module_addrdie(module, address, &bias);
  if (unit == nullptr) return {};
  Dwarf_Addr pc = address - bias;
  const std::vector<Range>& ranges = FunctionsOf(unit);
  auto after = std::upper_bound(ranges.begin(), ranges.end(), pc,
                                [](Dwarf_Addr value, const Range& r) { return value < r.low; });
  if (after == ranges.begin()) return {};
  const Range& range = *std::prev(after);
  if (pc >= range.high) return {};

  // Descend through the blocks and inlined calls that hold the address; the last inlined call
  // met is the innermost.
  Dwarf_Die scope = range.function;
  Dwarf_Die inlined{};
  bool found_inlined = false;
  int steps = 0;
  for (bool deeper = true; deeper && steps < kMaxSteps;) {
    deeper = false;
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) break;
    do {
      int tag = dwarf_tag(&child);
      if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
          dwarf_haspc(&child, pc) > 0) {
        if (tag == DW_TAG_inlined_subroutine) {
          inlined = child;
          found_inlined = true;
        }
        scope = child;
        deeper = true;
        break;
      }
    } while (++steps < kMaxSteps && dwarf_siblingof(&child, &child) == 0);
  }
  return found_inlined ? FunctionNameOf(&inlined) : std::string();
}

}  // namespace flopspy::symbols
