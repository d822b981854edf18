#include "nvtx_names.h"

#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <utility>

namespace flopspy::interpose {
namespace {

std::mutex g_names_mutex;

// Both maps are leaked on purpose: handles stay valid through exit and its destructors.
std::map<std::string, NvtxDomain*, std::less<>>& Domains() {
  static auto* domains = new std::map<std::string, NvtxDomain*, std::less<>>();
  return *domains;
}
std::map<std::pair<const NvtxDomain*, std::string>, const char*>& Registered() {
  static auto* registered = new std::map<std::pair<const NvtxDomain*, std::string>, const char*>();
  return *registered;
}

const char* CopyText(std::string_view text) {
  char* copy = new char[text.size() + 1];
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}

size_t Utf8Length(uint32_t c) {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

}  // namespace

const NvtxDomain* NvtxDomainNamed(std::string_view name) noexcept {
  try {
    std::lock_guard lock(g_names_mutex);
    auto& domains = Domains();
    if (const auto it = domains.find(name); it != domains.end()) return it->second;
    const auto slot =
        static_cast<uint32_t>(std::min<size_t>(domains.size() + 1, kNvtxDepthSlots - 1));
    auto* domain = new NvtxDomain{slot, CopyText(name)};
    domains.emplace(std::string(name), domain);
    return domain;
  } catch (...) {  // bad_alloc: the domain's records go to the default domain
    return nullptr;
  }
}

const char* NvtxRegisteredString(const NvtxDomain* domain, std::string_view text) noexcept {
  try {
    std::lock_guard lock(g_names_mutex);
    auto key = std::make_pair(domain, std::string(text));
    auto& registered = Registered();
    if (const auto it = registered.find(key); it != registered.end()) return it->second;
    const char* copy = CopyText(text);
    registered.emplace(std::move(key), copy);
    return copy;
  } catch (...) {  // bad_alloc: events with this handle carry no name
    return nullptr;
  }
}

size_t WideToUtf8(const wchar_t* wide, char* out, size_t capacity) noexcept {
  if (wide == nullptr) return 0;
  size_t n = 0;
  for (; *wide != L'\0'; ++wide) {
    auto c = static_cast<uint32_t>(*wide);
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
    const size_t length = Utf8Length(c);
    if (n + length > capacity) break;
    if (length == 1) {
      out[n] = static_cast<char>(c);
    } else if (length == 2) {
      out[n] = static_cast<char>(0xC0 | (c >> 6));
      out[n + 1] = static_cast<char>(0x80 | (c & 0x3F));
    } else if (length == 3) {
      out[n] = static_cast<char>(0xE0 | (c >> 12));
      out[n + 1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out[n + 2] = static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out[n] = static_cast<char>(0xF0 | (c >> 18));
      out[n + 1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out[n + 2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out[n + 3] = static_cast<char>(0x80 | (c & 0x3F));
    }
    n += length;
  }
  return n;
}

}  // namespace flopspy::interpose
