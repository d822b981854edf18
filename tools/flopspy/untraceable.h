// Whether `flopspy run` can trace the program it starts. libflopspy.so reaches a program only
// through the dynamic loader's LD_PRELOAD, so a program without a loader (statically linked),
// one the loader runs in secure mode (set-user-ID or set-group-ID to someone else, file
// capabilities) or one built for another word size or machine runs untraced. The launcher runs
// it all the same and says why afterwards, instead of "nothing was recorded".
#pragma once

#include <string>

namespace flopspy::tools {

// The file execvp runs for `name`: `name` itself when it holds a '/', else the first executable
// regular file of that name in the folders of `path_variable` (PATH; "/bin:/usr/bin" when
// null, an empty entry meaning the current folder). "" when there is none.
std::string ResolveExecutable(const std::string& name, const char* path_variable);

// Why libflopspy.so cannot be loaded into the program in `path`, as the end of a sentence that
// starts with the path ("is statically linked (it has no ELF interpreter)"); "" when it can be,
// or when that cannot be told (a file that is not ELF runs under /bin/sh, which is dynamic). A
// script (#!) is judged by its interpreter.
std::string WhyUntraceable(const std::string& path);

}  // namespace flopspy::tools
