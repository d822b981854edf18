#include "test_library.h"

#include <elf.h>
#include <link.h>

#include <cstring>
#include <fstream>

namespace flopspy::symbols::testing {
namespace {

struct Search {
  const std::string* name;
  Module* module;
  bool found = false;
};

std::string HexBytes(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < size; ++i) {
    hex += kDigits[bytes[i] >> 4];
    hex += kDigits[bytes[i] & 15];
  }
  return hex;
}

// The GNU build id from the object's PT_NOTE segments, as mapped.
std::string BuildIdOf(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
    if (phdr.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + phdr.p_vaddr);
    const unsigned char* end = at + phdr.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof note);
      const unsigned char* name = at + sizeof note;
      const unsigned char* desc = name + ((note.n_namesz + 3) & ~3u);
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        return HexBytes(desc, note.n_descsz);
      }
      at = desc + ((note.n_descsz + 3) & ~3u);
    }
  }
  return "";
}

int Visit(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (search->found || *search->name != name) return 0;
  search->module->bias = info->dlpi_addr;
  search->module->build_id = BuildIdOf(info);
  search->found = true;
  return 1;
}

}  // namespace

Module LoadedModule(const std::string& name, const std::string& path) {
  Module module;
  module.path = path;
  Search search{&name, &module};
  dl_iterate_phdr(Visit, &search);
  return module;
}

int LineOf(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.find(marker) != std::string::npos) return line;
  }
  return 0;
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace flopspy::symbols::testing
