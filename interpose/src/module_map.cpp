#include "module_map.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "flopspy/trace/schema.h"

namespace flopspy::interpose {
namespace {

struct Module {
  std::string path;
  std::string build_id;  // raw bytes of the note's descriptor
  uint64_t bias = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  bool loaded = true;  // still listed by the last dl_iterate_phdr
};

struct ModuleList {
  std::mutex mutex;
  std::vector<Module> modules;  // append-only: indexes stay valid
  std::string main_path;        // the program's own path, read once
  bool main_path_read = false;
};

// Never destroyed: a thread may launch while the process exits. A fork child drops it and starts
// a new one (ResetModuleMapInChild): another thread of the parent may have held its mutex.
std::atomic<ModuleList*> g_list{nullptr};

// nullptr only when no memory is left for it.
ModuleList* List() {
  ModuleList* list = g_list.load(std::memory_order_acquire);
  if (__builtin_expect(list != nullptr, 1)) return list;
  auto* made = new (std::nothrow) ModuleList;
  if (made == nullptr) return nullptr;
  if (g_list.compare_exchange_strong(list, made, std::memory_order_acq_rel)) return made;
  delete made;  // another thread made it first
  return list;
}

std::string ProgramPath() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n > 0) return std::string(buffer, static_cast<size_t>(n));
  // No /proc: the path the program was started by (maybe relative to the first folder).
  const auto* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
  return execfn != nullptr ? std::string(execfn) : std::string();
}

std::string BuildIdOf(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const uint8_t*>(info.dlpi_addr + ph.p_vaddr);
    const uint8_t* const end = at + ph.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof(note));
      const uint8_t* name = at + sizeof(note);
      const uint8_t* desc = name + ((note.n_namesz + 3u) & ~3u);
      const uint8_t* next = desc + ((note.n_descsz + 3u) & ~3u);
      if (next > end || next <= at) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        return std::string(reinterpret_cast<const char*>(desc), note.n_descsz);
      }
      at = next;
    }
  }
  return {};
}

struct Listing {
  ModuleList* list;
  bool first = true;
};

int NoteObject(dl_phdr_info* info, size_t, void* data) {
  auto& listing = *static_cast<Listing*>(data);
  const bool main_program = listing.first;
  listing.first = false;
  uint64_t start = UINT64_MAX, end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    start = std::min<uint64_t>(start, info->dlpi_addr + ph.p_vaddr);
    end = std::max<uint64_t>(end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (start >= end) return 0;
  std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (path.empty() && main_program) {
    if (!listing.list->main_path_read) {
      listing.list->main_path = ProgramPath();
      listing.list->main_path_read = true;
    }
    path = listing.list->main_path;
  }
  for (Module& m : listing.list->modules) {
    if (m.start == start && m.end == end && m.bias == info->dlpi_addr && m.path == path) {
      m.loaded = true;
      return 0;
    }
  }
  listing.list->modules.push_back(
      {std::move(path), BuildIdOf(*info), info->dlpi_addr, start, end, true});
  return 0;
}

int FindLoaded(const std::vector<Module>& modules, uint64_t address) {
  // Newest first: an object mapped where an unloaded one was wins.
  for (size_t i = modules.size(); i-- > 0;) {
    const Module& m = modules[i];
    if (m.loaded && address >= m.start && address < m.end) return static_cast<int>(i);
  }
  return kNoModule;
}

}  // namespace

int ModuleIndexOf(uint64_t address) noexcept {
  try {
    ModuleList* const listed = List();
    if (listed == nullptr) return kNoModule;
    ModuleList& list = *listed;
    std::lock_guard lock(list.mutex);
    if (const int found = FindLoaded(list.modules, address); found != kNoModule) return found;
    for (Module& m : list.modules) m.loaded = false;
    Listing listing{&list};
    dl_iterate_phdr(NoteObject, &listing);
    return FindLoaded(list.modules, address);
  } catch (...) {
    return kNoModule;
  }
}

size_t DescribeModule(int index, uint8_t* out, size_t capacity) noexcept {
  ModuleList* const listed = List();
  if (listed == nullptr) return 0;
  ModuleList& list = *listed;
  std::lock_guard lock(list.mutex);
  if (index < 0 || static_cast<size_t>(index) >= list.modules.size()) return 0;
  const Module& m = list.modules[static_cast<size_t>(index)];
  const size_t path_length = std::min<size_t>(m.path.size(), UINT16_MAX);
  const size_t id_length = std::min<size_t>(m.build_id.size(), 64);
  const size_t size = trace::AlignRecordSize(sizeof(trace::ModuleRecord) + path_length + id_length);
  if (size > capacity || size > trace::kMaxRecordBytes) return 0;
  std::memset(out, 0, size);
  trace::ModuleRecord record{};
  record.h = trace::MakeHeader<trace::ModuleRecord>();
  record.h.size8 = static_cast<uint16_t>(size / trace::kRecordAlign);
  record.path_length = static_cast<uint16_t>(path_length);
  record.build_id_length = static_cast<uint16_t>(id_length);
  record.bias = m.bias;
  record.start = m.start;
  record.end = m.end;
  std::memcpy(out, &record, sizeof(record));
  std::memcpy(out + sizeof(record), m.path.data(), path_length);
  std::memcpy(out + sizeof(record) + path_length, m.build_id.data(), id_length);
  return size;
}

void ResetModuleMapInChild() noexcept {
  g_list.store(nullptr, std::memory_order_release);  // the parent's list is left, not freed
}

AddressRange ObjectRangeOf(const void* address) noexcept {
  const int index = ModuleIndexOf(reinterpret_cast<uint64_t>(address));
  ModuleList* const list = List();
  if (index == kNoModule || list == nullptr) return {};
  std::lock_guard lock(list->mutex);
  if (static_cast<size_t>(index) >= list->modules.size()) return {};
  const Module& m = list->modules[static_cast<size_t>(index)];
  return {m.start, m.end};
}

}  // namespace flopspy::interpose
