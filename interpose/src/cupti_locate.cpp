#include "cupti_locate.h"

#include <cupti_version.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstring>

#include "library_resolver.h"

namespace flopspy::interpose {
namespace {

// The major of the CUPTI headers flopspy was compiled with (130001 -> 13; before CUDA 13 the
// API version was a small integer and such headers are not supported for building).
constexpr int kHeaderMajor = CUPTI_API_VERSION >= 10000 ? CUPTI_API_VERSION / 10000 : 12;

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view DirName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view(".") : path.substr(0, slash);
}

struct Loaded {
  const char* stem;
  std::vector<std::string> paths;
};

int CollectLoaded(dl_phdr_info* info, size_t, void* data) {
  auto* loaded = static_cast<Loaded*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  const std::string_view base = BaseName(info->dlpi_name);
  if (base.substr(0, std::strlen(loaded->stem)) == loaded->stem) {
    loaded->paths.emplace_back(info->dlpi_name);
  }
  return 0;
}

std::vector<std::string> LoadedObjects(const char* stem) {
  Loaded loaded{stem, {}};
  dl_iterate_phdr(CollectLoaded, &loaded);
  return loaded.paths;
}

// The file a handle came from.
std::string HandlePath(void* handle, std::string_view fallback) {
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      map->l_name[0] != '\0') {
    return map->l_name;
  }
  return std::string(fallback);
}

void* Open(const std::string& file, std::string* errors) {
  dlerror();
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    if (!errors->empty()) *errors += "; ";
    *errors += why != nullptr ? why : file + ": cannot be loaded";
  }
  return handle;
}

}  // namespace

int LibraryMajor(std::string_view path, std::string_view stem) {
  const std::string_view base = BaseName(path);
  if (base.substr(0, stem.size()) != stem || base.size() < stem.size() + 2 ||
      base[stem.size()] != '.') {
    return -1;
  }
  int major = 0;
  size_t i = stem.size() + 1;
  const size_t first = i;
  for (; i < base.size() && base[i] >= '0' && base[i] <= '9' && i - first < 6; ++i) {
    major = major * 10 + (base[i] - '0');
  }
  return i == first ? -1 : major;
}

std::vector<std::string> CuptiCandidatesBesideCudart(std::string_view cudart_path, int major) {
  const std::string dir(DirName(cudart_path));
  const std::string file = "libcupti.so." + std::to_string(major);
  return {
      dir + "/" + file,  // CUDA 13 toolkit lib64/, cu13 wheels nvidia/cu13/lib
      dir + "/../extras/CUPTI/lib64/" + file,  // CUDA 12 toolkit
      dir + "/../../cuda_cupti/lib/" + file,   // cu12 wheels: nvidia/cuda_runtime/lib
  };
}

void* LoadedDriver() {
  return dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
}

CuptiLibrary LocateCupti(std::string_view configured_path) {
  CuptiLibrary found;

  // 1. A copy the program loaded.
  for (const std::string& path : LoadedObjects(LibraryStem(CudaLibrary::kCupti))) {
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      found.handle = handle;
      found.path = path;
      found.origin = "loaded by the program";
      return found;
    }
  }

  // 2. The one matching the loaded libcudart.
  std::string errors;
  const std::vector<std::string> cudarts = LoadedObjects(LibraryStem(CudaLibrary::kRuntime));
  for (const std::string& cudart : cudarts) {
    const int major = LibraryMajor(cudart, "libcudart.so");
    if (major < 0) continue;
    for (const std::string& candidate : CuptiCandidatesBesideCudart(cudart, major)) {
      if (access(candidate.c_str(), F_OK) != 0) continue;
      if (void* handle = Open(candidate, &errors)) {
        found.handle = handle;
        found.path = HandlePath(handle, candidate);
        found.origin = "matching " + std::string(BaseName(cudart));
        return found;
      }
    }
    const std::string soname = "libcupti.so." + std::to_string(major);
    if (void* handle = Open(soname, &errors)) {
      found.handle = handle;
      found.path = HandlePath(handle, soname);
      found.origin = "matching " + std::string(BaseName(cudart)) + ", by soname";
      return found;
    }
  }

  // 3. The configured file.
  if (!configured_path.empty()) {
    if (void* handle = Open(std::string(configured_path), &errors)) {
      found.handle = handle;
      found.path = HandlePath(handle, configured_path);
      found.origin = "FLOPSPY_CUPTI_PATH";
      return found;
    }
  }

  // 4. No libcudart to match: the CUPTI of flopspy's own headers, by soname.
  if (cudarts.empty()) {
    const std::string soname = "libcupti.so." + std::to_string(kHeaderMajor);
    if (void* handle = Open(soname, &errors)) {
      found.handle = handle;
      found.path = HandlePath(handle, soname);
      found.origin = "by soname (no libcudart loaded)";
      return found;
    }
  }

  found.error = "no libcupti is loaded and none could be found";
  if (!cudarts.empty()) found.error += " beside " + cudarts.front();
  found.error +=
      configured_path.empty() ? " (FLOPSPY_CUPTI_PATH is not set)" : " or at FLOPSPY_CUPTI_PATH";
  if (!errors.empty()) found.error += ": " + errors;
  return found;
}

}  // namespace flopspy::interpose
