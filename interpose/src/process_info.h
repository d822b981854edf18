// Facts about this process and machine, read from /proc and the environment (never on a hot path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flopspy::interpose {

struct ProcessIdentity {
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  int32_t rank = -1;  // RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK
  int32_t local_rank =
      -1;  // LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID
  std::string host;
  std::vector<std::string> command_line;
  std::string executable;
  std::string kernel_release;
  std::string machine;
  std::string cpu_model;
  int online_cpus = 0;
};

ProcessIdentity ReadProcessIdentity();

// The first of `names` that is set to a whole number >= 0, else -1.
int32_t RankFromEnvironment(const std::vector<const char*>& names);

// /proc/self/task/<tid>/comm, empty if the thread is gone.
std::string ReadThreadName(uint32_t tid);

}  // namespace flopspy::interpose
