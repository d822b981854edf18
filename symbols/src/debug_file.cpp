#include "debug_file.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "elf_module.h"

namespace flopspy::symbols {

int OpenRegularFile(const char* path) {
  // O_NONBLOCK: a trace may name a FIFO, which would block open() until a writer comes.
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat st {};
  struct statfs fs {};
  // /proc and /sys hold "regular" files that are not what they seem (/proc/kcore: an ELF image
  // of all memory); a trace naming one is damaged or hostile.
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &fs) != 0 ||
      fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC) {
    close(fd);
    errno = ENODEV;
    return -1;
  }
  return fd;
}

namespace {

bool HasBuildId(int fd, const void* want, size_t size) {
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return false;
  const void* id = nullptr;
  ssize_t n = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &id) : -1;
  bool same = n > 0 && static_cast<size_t>(n) == size && std::memcmp(id, want, size) == 0;
  elf_end(elf);
  return same;
}

}  // namespace

int FindDebugFileByBuildId(Dwfl_Module* module, void** userdata, const char*, Dwarf_Addr,
                           const char*, const char* debuglink_file, GElf_Word debuglink_crc,
                           char** debuginfo_file_name) {
  // libdwfl asks again for a dwz alternate file (.gnu_debugaltlink: a name and no CRC); that
  // file has a build id of its own, which libdw looks up itself when this says no.
  if (debuglink_file != nullptr && debuglink_crc == 0) return -1;
  const auto* dirs =
      userdata != nullptr ? static_cast<const std::vector<std::string>*>(*userdata) : nullptr;
  if (dirs == nullptr) return -1;
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  int size = dwfl_module_build_id(module, &bits, &vaddr);
  if (size < 2) return -1;
  try {
    std::string hex = HexOf(bits, static_cast<size_t>(size));
    std::string relative = "/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
    for (const std::string& dir : *dirs) {
      std::string path = dir + relative;
      int fd = OpenRegularFile(path.c_str());
      if (fd < 0) continue;
      if (!HasBuildId(fd, bits, static_cast<size_t>(size))) {
        close(fd);
        continue;
      }
      if (debuginfo_file_name != nullptr) *debuginfo_file_name = strdup(path.c_str());
      return fd;
    }
  } catch (...) {  // out of memory: no debug file, never an exception through libdwfl
  }
  return -1;
}

}  // namespace flopspy::symbols
