#include "flopspy/untraceable.h"

#include <elf.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <optional>
#include <string_view>

#include "flopspy/platform/safe_file.h"

namespace flopspy::tools {
namespace {

// The kernel follows at most this many nested #! interpreters (BINPRM_MAX_RECURSION).
constexpr int kMaxInterpreterDepth = 4;
// The kernel reads the #! line from the first 256 bytes of a script (BINPRM_BUF_SIZE).
constexpr size_t kScriptHeaderBytes = 256;

#if defined(__x86_64__)
constexpr uint16_t kOurMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kOurMachine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr uint16_t kOurMachine = EM_PPC64;
#else
constexpr uint16_t kOurMachine = EM_NONE;  // not checked
#endif
constexpr unsigned char kOurClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
constexpr unsigned char kOurByteOrder =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

bool ReadAt(int fd, void* out, size_t size, uint64_t offset) {
  auto* bytes = static_cast<char*>(out);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd, bytes + done, size - done, static_cast<off_t>(offset + done));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Whether the program headers name an interpreter (the dynamic loader). nullopt when they
// cannot be read, so that nothing is claimed.
template <class Header, class ProgramHeader>
std::optional<bool> HasInterpreter(int fd) {
  Header h{};
  if (!ReadAt(fd, &h, sizeof(h), 0)) return std::nullopt;
  if (h.e_phentsize != sizeof(ProgramHeader) || h.e_phnum == 0 || h.e_phnum > 4096) {
    return std::nullopt;
  }
  for (uint64_t i = 0; i < h.e_phnum; ++i) {
    ProgramHeader ph{};
    if (!ReadAt(fd, &ph, sizeof(ph), h.e_phoff + i * sizeof(ProgramHeader))) return std::nullopt;
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}

std::string ElfReason(int fd, const unsigned char* ident) {
  if (ident[EI_DATA] != kOurByteOrder) return "";  // it will not run here at all
  uint16_t machine = 0;
  if (!ReadAt(fd, &machine, sizeof(machine), offsetof(Elf64_Ehdr, e_machine))) return "";
  if (ident[EI_CLASS] != kOurClass || (kOurMachine != EM_NONE && machine != kOurMachine)) {
    return fmt::format(
        "is built for another machine or word size (ELF class {}, machine {}) than "
        "libflopspy.so, which the loader therefore does not preload",
        ident[EI_CLASS] == ELFCLASS64 ? 64 : 32, machine);
  }
  const std::optional<bool> interpreter = kOurClass == ELFCLASS64
                                              ? HasInterpreter<Elf64_Ehdr, Elf64_Phdr>(fd)
                                              : HasInterpreter<Elf32_Ehdr, Elf32_Phdr>(fd);
  if (interpreter.has_value() && !*interpreter) {
    return "is statically linked (it has no ELF interpreter, the loader that preloads "
           "libflopspy.so)";
  }
  return "";
}

// The loader ignores LD_PRELOAD paths in secure mode (AT_SECURE), which the kernel sets when the
// exec changes the effective user or group away from the real one, or grants file capabilities.
std::string SecureModeReason(const std::string& path, const struct stat& st) {
  // No set-ID bits or file capabilities under no_new_privs or on a nosuid mount.
  bool elevates = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1;
  struct statvfs mount {};
  if (statvfs(path.c_str(), &mount) == 0 && (mount.f_flag & ST_NOSUID) != 0) elevates = false;
  const bool setuid = elevates && (st.st_mode & S_ISUID) != 0;
  // Set-group-ID without group execute is mandatory locking, not set-group-ID.
  const bool setgid = elevates && (st.st_mode & S_ISGID) != 0 && (st.st_mode & S_IXGRP) != 0;
  const uid_t euid = setuid ? st.st_uid : geteuid();
  const gid_t egid = setgid ? st.st_gid : getegid();
  constexpr std::string_view kSecure =
      ", so the loader runs it in secure mode and ignores LD_PRELOAD";
  if (euid != getuid()) {
    return setuid ? fmt::format("is set-user-ID (it runs as uid {}, you are uid {}){}", euid,
                                getuid(), kSecure)
                  : fmt::format("runs with an effective uid ({}) other than the real one ({}){}",
                                euid, getuid(), kSecure);
  }
  if (egid != getgid()) {
    return setgid ? fmt::format("is set-group-ID (it runs as gid {}, you are gid {}){}", egid,
                                getgid(), kSecure)
                  : fmt::format("runs with an effective gid ({}) other than the real one ({}){}",
                                egid, getgid(), kSecure);
  }
  // Capabilities granted to a program of a non-root user make it secure too.
  if (elevates && getuid() != 0 && getxattr(path.c_str(), "security.capability", nullptr, 0) > 0) {
    return std::string("has file capabilities (security.capability)") + std::string(kSecure);
  }
  return "";
}

// The interpreter named by a "#!" line, or "" when there is none.
std::string Interpreter(std::string_view header) {
  if (!header.starts_with("#!")) return "";
  header.remove_prefix(2);
  header = header.substr(0, header.find('\n'));
  const size_t start = header.find_first_not_of(" \t");
  if (start == std::string_view::npos) return "";
  header.remove_prefix(start);
  return std::string(header.substr(0, header.find_first_of(" \t")));
}

std::string Why(const std::string& path, int depth) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";  // exec will say why
  // The file's content first: Linux ignores set-ID bits on scripts.
  const int fd = platform::OpenRegularForReading(path, nullptr);
  if (fd < 0) return SecureModeReason(path, st);  // execute-only: its bits still count
  char header[kScriptHeaderBytes] = {};
  const ssize_t got = pread(fd, header, sizeof(header), 0);
  std::string reason;
  if (got >= SELFMAG && std::memcmp(header, ELFMAG, SELFMAG) == 0 && got >= EI_NIDENT) {
    reason = SecureModeReason(path, st);
    if (reason.empty()) reason = ElfReason(fd, reinterpret_cast<unsigned char*>(header));
  } else if (got > 2) {
    const std::string interpreter = Interpreter(std::string_view(header, static_cast<size_t>(got)));
    if (!interpreter.empty() && depth < kMaxInterpreterDepth) {
      const std::string inner = Why(interpreter, depth + 1);
      if (!inner.empty()) reason = "is a script whose interpreter " + interpreter + " " + inner;
    }
  }
  close(fd);
  return reason;
}

}  // namespace

std::string ResolveExecutable(const std::string& name, const char* path_variable) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  const std::string_view folders = path_variable != nullptr ? path_variable : "/bin:/usr/bin";
  for (size_t start = 0;;) {
    const size_t end = folders.find(':', start);
    const std::string_view folder = folders.substr(start, end - start);
    const std::string candidate =
        folder.empty() ? name : std::string(folder) + (folder.ends_with('/') ? "" : "/") + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (end == std::string_view::npos) return "";
    start = end + 1;
  }
}

std::string WhyUntraceable(const std::string& path) {
  return Why(path, 0);
}

}  // namespace flopspy::tools
