// The GPUs' properties in the trace's metadata: read once, at the first CUDA call flopspy
// records (by then the program has initialised the driver), because the report needs them to
// pick each GPU's roofs. The record functions check one flag; the reading is cold and out of line.
#pragma once

#include <atomic>

namespace flopspy::interpose {

extern std::atomic<bool> g_devices_noted;

// Reads the devices and queues their metadata block, once per process. Never throws: a device
// block that cannot be made is left out (the report then has no roofs for the GPU).
void NoteDevices() noexcept;

inline void NoteCudaInUse() {
  if (__builtin_expect(!g_devices_noted.load(std::memory_order_relaxed), 0)) NoteDevices();
}

}  // namespace flopspy::interpose
