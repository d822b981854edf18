// Files flopspy creates and files it is given to read.
//
// Created files never follow a symlink and never truncate a file flopspy did not create: a
// planted link or file at the name is refused (CreateExclusive) or replaced as a name, its target
// untouched (ReplaceFile). Files given to read are checked before they are opened: a FIFO would
// block the open until a writer comes, a device (/dev/zero) never ends, so anything that is not
// a regular file is refused without opening it, and what is read has a size bound.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace flopspy::platform {

// Mode for files that hold process data (traces, counter recordings): the user's only.
inline constexpr mode_t kPrivateFileMode = 0600;
// Mode for what the user asked to write for reading (reports, the ceilings cache).
inline constexpr mode_t kSharedFileMode = 0644;

// Creates `path` (relative to `dir_fd`, or AT_FDCWD) for writing: O_EXCL|O_NOFOLLOW, close-on-
// exec, `mode` (before the umask). -1 with errno set when it exists, is a link, or cannot be made.
int CreateExclusive(int dir_fd, const std::string& path, mode_t mode);

// Why `path` cannot be read as a file, or "" when it is a regular file. Names what it is
// instead ("a FIFO", "a folder", "a device"), without opening it.
std::string NotARegularFile(const std::string& path);

// Opens a regular file for reading without ever blocking on a FIFO: checks the type first, opens
// with O_NONBLOCK and checks again (the name may have changed in between). -1 with `error` set
// ("<path> is a FIFO, not a file"; "cannot open <path>: <reason>").
int OpenRegularForReading(const std::string& path, std::string* error);

// Reads a whole regular file of at most `max_bytes` into `out`. False with `error` set when it is
// not a regular file, cannot be read, or is larger than the bound.
bool ReadRegularFile(const std::string& path, uint64_t max_bytes, std::string* out,
                     std::string* error);

// Writes `content` to `path` by way of a new file beside it renamed over it: a symlink at `path`
// is replaced, never followed, and readers never see a half-written file. False with `error`.
// (flopspy's own cache; what the user names goes through WriteOutputFile.)
bool ReplaceFile(const std::string& path, std::string_view content, mode_t mode,
                 std::string* error);

// A file the user named for output (a report, a CSV table, ceilings they asked for), written
// whole under the rules of output_file.h: a device, a FIFO or a descriptor's name (/dev/stdout)
// is written into as it is, anything else replaced by a new file renamed over the name. Every
// failure, a full disk and /dev/full included, returns false with `error` naming the file and
// the reason.
bool WriteOutputFile(const std::string& path, std::string_view content, mode_t mode,
                     std::string* error);

// The most flopspy reads of a small settings file it is pointed at (measured ceilings, a CPU
// counter replay aside): 16 MiB, far beyond any real one, far below harm.
inline constexpr uint64_t kMaxSettingsFileBytes = uint64_t{16} << 20;

// Where a file flopspy saves goes: its own cache (~/.cache/flopspy), or a name the user chose.
enum class Destination {
  kPrivateCache,  // the folder must be a real folder of this user's; the file is replaced
  kUserNamed,     // as WriteOutputFile: a device or FIFO the user named is written into
};

// Creates the missing folders above `path` (mode 0755; mkdir never follows a link at the name it
// creates, links above it are the user's own). For kPrivateCache the folder that holds the file
// must also be a real folder, not a link, owned by this user, so nobody else can plant a link
// or file in it. False with `error`.
bool PrepareFolderFor(const std::string& path, Destination destination, std::string* error);

// PrepareFolderFor, then ReplaceFile (kPrivateCache) or WriteOutputFile (kUserNamed), mode 0644.
bool SaveFile(const std::string& path, std::string_view content, Destination destination,
              std::string* error);

// write(2) of every byte, retried on EINTR and short writes. False with errno set.
bool WriteAll(int fd, const void* data, size_t size);

}  // namespace flopspy::platform
