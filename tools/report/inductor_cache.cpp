// Reads inductor's generated modules for the metadata of the Triton kernels a trace ran
// (docs/kernel-catalog.md, "Triton and torch.compile").
#include "report/inductor_cache.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

namespace flopspy::tools {
namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// The number after "'key': " inside `dict`; nullopt when absent or not a number.
std::optional<double> DictNumber(std::string_view dict, std::string_view key) {
  const std::string quoted = "'" + std::string(key) + "':";
  const size_t at = dict.find(quoted);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + quoted.size();
  while (i < dict.size() && dict[i] == ' ') ++i;
  double value = 0;
  const auto [end, ec] = std::from_chars(dict.data() + i, dict.data() + dict.size(), value);
  if (ec != std::errc() || end == dict.data() + i) return std::nullopt;
  return value;
}

// "NAME = 123" on an indented line of a kernel's body.
std::optional<int64_t> BodyConstant(std::string_view body, std::string_view name) {
  size_t from = 0;
  while (from < body.size()) {
    const size_t end = std::min(body.find('\n', from), body.size());
    std::string_view line = body.substr(from, end - from);
    from = end + 1;
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || first == 0) continue;
    line.remove_prefix(first);
    const std::string prefix = std::string(name) + " = ";
    if (!line.starts_with(prefix)) continue;
    line.remove_prefix(prefix.size());
    int64_t value = 0;
    const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (ec == std::errc() && p == line.data() + line.size() && value > 0) return value;
  }
  return std::nullopt;
}

// The body of the def starting at `def`: its indented lines, up to the first line that is not.
std::string_view DefBody(std::string_view text, size_t def) {
  size_t end = text.find('\n', def);
  if (end == std::string_view::npos) return {};
  const size_t start = end + 1;
  end = start;
  while (end < text.size()) {
    const size_t next = std::min(text.find('\n', end), text.size());
    const std::string_view line = text.substr(end, next - end);
    if (!line.empty() && line.front() != ' ' && line.front() != '\t') break;
    end = next + 1;
  }
  return text.substr(start, std::min(end, text.size()) - start);
}

}  // namespace

std::string DefaultInductorCacheDir() {
  if (const char* dir = std::getenv("TORCHINDUCTOR_CACHE_DIR"); dir && *dir) return dir;
  std::string user;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_name != nullptr) {
    user = pw->pw_name;
  } else if (const char* u = std::getenv("USER"); u && *u) {
    user = u;
  }
  return "/tmp/torchinductor_" + user;
}

std::vector<std::pair<std::string, InductorKernelMeta>> ParseInductorModule(std::string_view text) {
  std::vector<std::pair<std::string, InductorKernelMeta>> found;
  constexpr std::string_view kMeta = "inductor_meta={";
  constexpr std::string_view kDef = "@triton.jit\ndef ";
  size_t meta_at = std::string_view::npos;
  size_t pos = 0;
  while (true) {
    const size_t def = text.find(kDef, pos);
    if (def == std::string_view::npos) break;
    // This kernel's inductor_meta: the last one before its decorator, after the previous def.
    for (size_t m = text.find(kMeta, pos); m != std::string_view::npos && m < def;
         m = text.find(kMeta, m + 1)) {
      meta_at = m;
    }
    const size_t name_at = def + kDef.size();
    size_t name_end = name_at;
    while (name_end < text.size() && IsNameChar(text[name_end])) ++name_end;
    pos = name_end;
    const std::string name(text.substr(name_at, name_end - name_at));
    // "triton_" is every kernel's name when inductor's unique_kernel_names is off: ambiguous.
    if (name.empty() || name == "triton_" || name_end >= text.size() || text[name_end] != '(') {
      meta_at = std::string_view::npos;
      continue;
    }
    InductorKernelMeta meta;
    if (meta_at != std::string_view::npos) {
      // The dict nests small sets and dicts: reading up to the decorator is enough.
      const std::string_view dict = text.substr(meta_at, def - meta_at);
      if (const auto gb = DictNumber(dict, "kernel_num_gb"); gb && *gb > 0) meta.bytes = *gb * 1e9;
      if (const auto flop = DictNumber(dict, "kernel_flop"); flop && *flop > 0) meta.flops = *flop;
    }
    const std::string_view body = DefBody(text, def + kDef.size());
    meta.xnumel = BodyConstant(body, "xnumel");
    meta.rnumel = BodyConstant(body, "r0_numel");
    if (!meta.rnumel) meta.rnumel = BodyConstant(body, "rnumel");
    meta_at = std::string_view::npos;
    found.emplace_back(name, meta);
  }
  return found;
}

InductorCache ScanInductorCache(const std::string& dir, const std::set<std::string>& wanted,
                                const InductorCacheLimits& limits) {
  namespace fs = std::filesystem;
  InductorCache cache;
  cache.dir = dir;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code file_ec;
    if (entry.path().extension() != ".py" || !entry.is_regular_file(file_ec)) continue;
    if (cache.files_read >= limits.max_files) {
      cache.truncated = true;
      break;
    }
    const uint64_t size = entry.file_size(file_ec);
    if (file_ec) continue;
    if (size > limits.max_file_bytes) {
      ++cache.files_too_large;
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf())) {
      cache.warnings.push_back(
          fmt::format("flopspy: inductor cache: cannot read {}, skipped", entry.path().string()));
      continue;
    }
    ++cache.files_read;
    const std::string content = text.str();
    // Cheap test first: most files in the cache define none of the trace's kernels.
    if (content.find("@triton.jit") == std::string::npos) continue;
    for (auto& [name, meta] : ParseInductorModule(content)) {
      if (!wanted.empty() && !wanted.contains(name)) continue;
      if (cache.conflicts.contains(name)) continue;
      meta.file = entry.path().string();
      const auto [known, inserted] = cache.kernels.emplace(name, meta);
      if (inserted || known->second == meta) continue;
      cache.conflicts[name] =
          fmt::format("defined with different metadata in {} and {}: stale or foreign modules",
                      known->second.file, meta.file);
      cache.kernels.erase(known);
    }
  }
  return cache;
}

analyzers::ExternalKernelFigures InductorFigures(const InductorCache& cache) {
  analyzers::ExternalKernelFigures figures;
  for (const auto& [name, meta] : cache.kernels) {
    if (!meta.flops && !meta.bytes) continue;
    analyzers::ExternalKernelFigure f;
    f.flops = meta.flops;
    f.bytes = meta.bytes;
    if (meta.xnumel) f.shape_key = "xnumel=" + std::to_string(*meta.xnumel);
    if (meta.rnumel) {
      f.shape_key +=
          (f.shape_key.empty() ? "" : ",") + std::string("rnumel=") + std::to_string(*meta.rnumel);
    }
    f.reason = std::string("inductor cache: ") + (meta.flops ? "kernel_flop" : "") +
               (meta.flops && meta.bytes ? " and " : "") + (meta.bytes ? "kernel_num_gb" : "") +
               " of " + meta.file;
    figures.emplace(name, std::move(f));
  }
  return figures;
}

}  // namespace flopspy::tools
