#include "subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace flopspy::testing {
namespace {

void DrainInto(int fd, std::string& out) {
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return;
    out.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

ChildResult RunChild(const std::vector<std::string>& argv, const ChildOptions& options) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (options.env.contains(name)) continue;
    if (std::find(options.unset.begin(), options.unset.end(), name) != options.unset.end())
      continue;
    env.push_back(entry);
  }
  for (const auto& [name, value] : options.env) env.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    if (options.stderr_broken_pipe) {
      int broken[2];
      if (pipe(broken) != 0) _exit(126);
      close(broken[0]);
      dup2(broken[1], STDERR_FILENO);
      close(broken[1]);
      signal(SIGPIPE, SIG_DFL);
    }
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);

  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  bool action_done = !options.while_running;
  int status = 0;
  for (;;) {
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    poll(fds, 2, 10);
    DrainInto(out_pipe[0], result.out);
    DrainInto(err_pipe[0], result.err);
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (!action_done) action_done = options.while_running(pid);
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
  }
  // Read what is left after the child ended.
  fcntl(out_pipe[0], F_SETFL, 0);
  fcntl(err_pipe[0], F_SETFL, 0);
  DrainInto(out_pipe[0], result.out);
  DrainInto(err_pipe[0], result.err);
  close(out_pipe[0]);
  close(err_pipe[0]);
  result.exited = WIFEXITED(status);
  result.exit_code = result.exited ? WEXITSTATUS(status) : -1;
  result.signaled = WIFSIGNALED(status);
  result.signal = result.signaled ? WTERMSIG(status) : 0;
  return result;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "flopspy-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> TempDir::Files(const std::string& extension) const {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    if (entry.path().extension() == extension) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::set<std::string> ExportedSymbols(const std::string& file) {
  std::set<std::string> names;
  FILE* p = popen(("nm -D --defined-only " + file).c_str(), "r");
  if (p == nullptr) return names;
  char line[512];
  while (std::fgets(line, sizeof line, p) != nullptr) {
    std::string name(line);
    name = name.substr(name.rfind(' ') + 1);
    names.insert(name.substr(0, name.find_first_of("@\n")));
  }
  pclose(p);
  return names;
}

}  // namespace flopspy::testing
