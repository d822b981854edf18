// What the ceilings need from the host (private): its caches, one CPU per physical core, pinned
// threads, and its memory size.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "flopspy/cpu_roofline/ceilings.h"

namespace flopspy::cpuroof {

// One CPU per physical core this process may run on (at least one).
std::vector<int> CoreCpus(const HostPaths& paths);
// Pins the calling thread to `cpu`.
void PinTo(int cpu);
// Physical memory in bytes; 0 when unknown.
uint64_t PhysicalMemory();

// Runs fn(thread_index) on one thread per CPU, pinned; returns when all are done.
template <class Fn>
void OnCpus(const std::vector<int>& cpus, Fn fn) {
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  for (size_t i = 0; i < cpus.size(); ++i) {
    threads.emplace_back([&, i] {
      PinTo(cpus[i]);
      fn(static_cast<int>(i));
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace flopspy::cpuroof
