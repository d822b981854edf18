// Control and report functions of the fake libnccl.so.2. The fake keeps a communicator as a heap
// object (rank count, rank, device), checks every argument as NCCL does (ncclInvalidArgument,
// ncclInvalidUsage), never reaches a network or a device and never touches a buffer or a
// stream. Each loaded copy has its own counters.
#pragma once

#include <cstdint>

extern "C" {
// Calls of one entry point ("ncclAllReduce") that the fake accepted (nullptr: all together). The
// queries flopspy's hooks make themselves (ncclCommCount, ncclCommUserRank, ncclCommCuDevice,
// ncclGetVersion, ncclGetErrorString) are not counted, so a client's report cannot depend on
// whether flopspy is loaded.
uint64_t flopspy_fake_nccl_calls(const char* name);
// Calls of one entry point that the fake refused with an error (nullptr: all together).
uint64_t flopspy_fake_nccl_refused(const char* name);
// Communicators made and not yet destroyed or aborted.
int64_t flopspy_fake_nccl_live_comms();
// The ncclGroupStart nesting depth now.
int flopspy_fake_nccl_group_depth();
}
