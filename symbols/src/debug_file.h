// Separate debug files (a -dbg/-dbgsym package's, objcopy --only-keep-debug's), found by the
// module's GNU build id: DIR/.build-id/xx/rest.debug.
#pragma once

#include <elfutils/libdwfl.h>

namespace flopspy::symbols {

// A libdwfl find_debuginfo callback. The module's userdata must point to the
// std::vector<std::string> of folders to search. Opens only a regular file whose own build id
// is the module's; returns its descriptor (libdwfl owns it) or -1.
int FindDebugFileByBuildId(Dwfl_Module* module, void** userdata, const char* module_name,
                           Dwarf_Addr base, const char* file_name, const char* debuglink_file,
                           GElf_Word debuglink_crc, char** debuginfo_file_name);

// Opens `path` for reading without blocking on a FIFO or device and without a controlling
// terminal; -1 with errno set when it cannot be opened or is not a regular file (ENODEV then).
int OpenRegularFile(const char* path);

}  // namespace flopspy::symbols
