#include "elf_module.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "debug_file.h"

namespace flopspy::symbols {
namespace {

// Every module is reported with its ELF already open, so libdwfl never has to find one.
int NoElfToFind(Dwfl_Module*, void**, const char*, Dwarf_Addr, char**, Elf**) {
  return -1;
}

const Dwfl_Callbacks kCallbacks = {
    .find_elf = NoElfToFind,
    .find_debuginfo = FindDebugFileByBuildId,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

bool StartsWithElfMagic(int fd) {
  unsigned char magic[4] = {};
  return pread(fd, magic, sizeof magic, 0) == static_cast<ssize_t>(sizeof magic) &&
         std::memcmp(magic,
                     "\x7f"
                     "ELF",
                     4) == 0;
}

bool HasDefinedFunction(Dwfl_Module* module) {
  int count = dwfl_module_getsymtab(module);
  for (int i = 1; i < count; ++i) {
    GElf_Sym sym{};
    GElf_Addr address = 0;
    GElf_Word section = 0;
    if (dwfl_module_getsym_info(module, i, &sym, &address, &section, nullptr, nullptr) == nullptr) {
      continue;
    }
    int type = GELF_ST_TYPE(sym.st_info);
    if ((type == STT_FUNC || type == STT_GNU_IFUNC) && section != SHN_UNDEF) return true;
  }
  return false;
}

}  // namespace

std::string HexOf(const void* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    unsigned byte = static_cast<const unsigned char*>(bytes)[i];
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

std::string DemangleSymbol(const char* name) {
  if (name == nullptr) return {};
  if (name[0] != '_' || name[1] != 'Z') return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) {
    std::free(demangled);
    return name;
  }
  std::string text(demangled);
  std::free(demangled);
  return text;
}

std::unique_ptr<ElfModule> ElfModule::Open(const std::string& path, std::string_view build_id_hex,
                                           const std::vector<std::string>* debug_dirs,
                                           std::string* problem) {
  static std::once_flag elf_version_once;
  std::call_once(elf_version_once, [] { elf_version(EV_CURRENT); });

  int fd = OpenRegularFile(path.c_str());
  if (fd < 0) {
    int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      *problem = "not found";
    } else if (error == ENODEV) {
      *problem = "not a regular file";
    } else {
      *problem = std::string("could not be opened (") + std::strerror(error) + ")";
    }
    return nullptr;
  }
  // Checked first so that libdwfl never tries to decompress a file that is not ELF.
  if (!StartsWithElfMagic(fd)) {
    close(fd);
    *problem = "not an ELF file";
    return nullptr;
  }

  std::unique_ptr<ElfModule> self(new ElfModule());
  self->dwfl_ = dwfl_begin(&kCallbacks);
  if (self->dwfl_ == nullptr) {
    close(fd);
    *problem = std::string("could not be read (") + dwfl_errmsg(-1) + ")";
    return nullptr;
  }
  dwfl_report_begin(self->dwfl_);
  // Base 0: libdwfl's addresses are then the file's own (link-time) addresses, so one open
  // module serves every process that loaded it, at any bias.
  self->module_ = dwfl_report_elf(self->dwfl_, path.c_str(), path.c_str(), fd, 0, true);
  dwfl_report_end(self->dwfl_, nullptr, nullptr);
  if (self->module_ == nullptr) {
    close(fd);  // libdwfl owns the descriptor only once the module is reported
    *problem = std::string("not a readable ELF file (") + dwfl_errmsg(-1) + ")";
    return nullptr;
  }

  void** userdata = nullptr;
  dwfl_module_info(self->module_, &userdata, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (userdata != nullptr) *userdata = const_cast<std::vector<std::string>*>(debug_dirs);

  if (!build_id_hex.empty()) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    int size = dwfl_module_build_id(self->module_, &bits, &vaddr);
    if (size <= 0 || HexOf(bits, static_cast<size_t>(size)) != build_id_hex) {
      *problem = "the file changed since the trace was recorded";
      return nullptr;
    }
  }

  Dwarf_Addr dwarf_bias = 0;
  self->has_debug_info_ = dwfl_module_getdwarf(self->module_, &dwarf_bias) != nullptr;
  self->has_symbols_ = HasDefinedFunction(self->module_);
  if (!self->has_symbols_ && !self->has_debug_info_) *problem = "no symbols";
  return self;
}

ElfModule::~ElfModule() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

Symbol ElfModule::Lookup(uint64_t file_address) {
  Symbol symbol;
  GElf_Off offset = 0;
  GElf_Sym sym{};
  const char* name =
      dwfl_module_addrinfo(module_, file_address, &offset, &sym, nullptr, nullptr, nullptr);
  if (name != nullptr && name[0] != '\0') symbol.function = DemangleSymbol(name);
  if (has_debug_info_) {
    std::string inlined = inline_finder_.InlinedFunctionAt(module_, file_address);
    if (!inlined.empty()) symbol.function = std::move(inlined);
    if (Dwfl_Line* line = dwfl_module_getsrc(module_, file_address)) {
      int number = 0;
      const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
      if (file != nullptr) symbol.file = file;
      symbol.line = number > 0 ? number : 0;
    }
  }
  return symbol;
}

}  // namespace flopspy::symbols
