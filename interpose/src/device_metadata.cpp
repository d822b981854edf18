#include "device_metadata.h"

#include <nlohmann/json.hpp>

#include "flopspy/gpu_roofline/device_properties_json.h"
#include "flopspy/gpu_roofline/device_reader.h"
#include "library_resolver.h"
#include "recorder.h"

namespace flopspy::interpose {

std::atomic<bool> g_devices_noted{false};

namespace {

void* DriverFunction(const char* name) {
  return ResolveReal(CudaLibrary::kDriver, name);
}

}  // namespace

void NoteDevices() noexcept {
  if (g_devices_noted.exchange(true, std::memory_order_acq_rel)) return;
  try {
    Recorder* recorder = Recorder::Get();
    if (recorder == nullptr) return;
    const gpuroof::DeviceReadResult read = gpuroof::ReadDevices(&DriverFunction);
    nlohmann::json devices = nlohmann::json::array();
    for (const auto& d : read.devices) devices.push_back(gpuroof::DevicePropertiesToJson(d));
    nlohmann::json block = {
        {"devices", devices},
        {"cuda", {{"driver_api_version", read.driver_api_version}, {"devices_error", read.error}}}};
    recorder->AddMetadata(block.dump());
  } catch (...) {  // out of memory: the trace goes on without the device block
  }
}

}  // namespace flopspy::interpose
