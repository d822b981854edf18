#include "flopspy/platform/fork_wiped_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <new>

namespace flopspy::platform {
namespace {

size_t PageRounded(size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes == 0 ? 1 : bytes + page - 1) / page * page;
}

class ForkWipedResource final : public std::pmr::memory_resource {
 private:
  void* do_allocate(size_t bytes, size_t /*alignment: pages are enough*/) override {
    void* memory = MapForkWiped(bytes);
    if (memory == nullptr) throw std::bad_alloc();
    return memory;
  }
  void do_deallocate(void* p, size_t bytes, size_t /*alignment*/) override {
    UnmapForkWiped(p, bytes);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
};

}  // namespace

void* MapForkWiped(size_t bytes) {
  const size_t length = PageRounded(bytes);
  void* memory = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  const int saved_errno = errno;
  madvise(memory, length, MADV_WIPEONFORK);  // an older kernel says EINVAL: ordinary memory
  errno = saved_errno;
  return memory;
}

void UnmapForkWiped(void* memory, size_t bytes) {
  if (memory != nullptr) munmap(memory, PageRounded(bytes));
}

std::pmr::memory_resource* ForkWipedMemory() {
  static ForkWipedResource* resource = new ForkWipedResource;  // never destroyed: used at exit
  return resource;
}

}  // namespace flopspy::platform
