#include "process_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace flopspy::interpose {
namespace {

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

int32_t RankFromEnvironment(const std::vector<const char*>& names) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    int32_t rank = -1;
    const char* end = value + std::char_traits<char>::length(value);
    const auto [ptr, ec] = std::from_chars(value, end, rank);
    if (ec == std::errc() && ptr == end && rank >= 0) return rank;
  }
  return -1;
}

std::string ReadThreadName(uint32_t tid) {
  return ReadFirstLine("/proc/self/task/" + std::to_string(tid) + "/comm");
}

ProcessIdentity ReadProcessIdentity() {
  ProcessIdentity id;
  id.pid = static_cast<uint32_t>(getpid());
  id.parent_pid = static_cast<uint32_t>(getppid());
  id.rank = RankFromEnvironment({"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"});
  id.local_rank = RankFromEnvironment(
      {"LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"});
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) id.host = host;
  if (id.host.empty()) id.host = "unknown-host";

  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(cmdline, arg, '\0')) id.command_line.push_back(arg);

  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) id.executable.assign(exe, static_cast<size_t>(n));

  utsname uts{};
  if (uname(&uts) == 0) {
    id.kernel_release = uts.release;
    id.machine = uts.machine;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 || line.rfind("Model", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos)
        id.cpu_model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  id.online_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return id;
}

}  // namespace flopspy::interpose
