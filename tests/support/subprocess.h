// Running a child program for integration tests: environment additions, captured output, exit
// status or signal, and an optional action while it runs.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace flopspy::testing {

struct ChildResult {
  bool exited = false;
  int exit_code = -1;
  bool signaled = false;
  int signal = 0;
  bool timed_out = false;
  std::string out;
  std::string err;
};

struct ChildOptions {
  std::map<std::string, std::string> env;  // added to (or replacing in) this process's environment
  std::vector<std::string> unset;          // removed from the environment
  std::chrono::milliseconds timeout{60000};
  std::string cwd;  // the child's working folder; empty: this process's
  // The child's stderr is a pipe whose reader is gone, and SIGPIPE has its default action (a
  // vanished log collector): whatever it writes there raises SIGPIPE. `err` stays empty.
  bool stderr_broken_pipe = false;
  // Called repeatedly (every 10 ms) while the child runs, with its pid; return true once done.
  std::function<bool(pid_t)> while_running;
};

ChildResult RunChild(const std::vector<std::string>& argv, const ChildOptions& options = {});

// The names of the functions and objects a shared library defines and exports (`nm -D
// --defined-only`, without version suffixes); empty when nm cannot read it.
std::set<std::string> ExportedSymbols(const std::string& file);

// A fresh empty folder under the system temp folder, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::vector<std::string> Files(const std::string& extension) const;

 private:
  std::string path_;
};

}  // namespace flopspy::testing
