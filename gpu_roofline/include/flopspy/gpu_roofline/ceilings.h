// Measured GPU ceilings: the file `flopspy ceilings --gpu` writes, keyed by device UUID and
// driver version, and merging it into DeviceRoofs. docs/gpu-peaks.md documents the JSON format.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopspy/analyzers/compute_path.h"
#include "flopspy/analyzers/roofline.h"
#include "flopspy/platform/safe_file.h"

namespace flopspy::gpuroof {

inline constexpr std::string_view kCeilingsFormat = "flopspy-gpu-ceilings";
inline constexpr int kCeilingsVersion = 1;

struct MeasuredValue {
  double value = 0;    // FLOP/s (op/s for int8) or bytes/s
  std::string method;  // how it was measured: "cublasLt bf16 8192^3", "device-to-device copy"
};

struct MeasuredCeilings {
  std::string uuid;            // "GPU-..." as nvidia-smi / cuDeviceGetUuid print it
  std::string driver_version;  // "580.159.03"
  std::string name;            // device name at measurement time
  std::string measured_at;     // ISO 8601 UTC
  std::string tool;            // "flopspy ceilings 0.1.0"
  double sm_clock_mhz = 0;     // SM clock seen during the measurement; 0 = not recorded
  std::map<analyzers::ComputePath, MeasuredValue> flops;
  std::map<analyzers::MemoryLevel, MeasuredValue> bandwidth;
};

struct CeilingsFile {
  std::vector<MeasuredCeilings> devices;
};

struct CeilingsLoad {
  std::optional<CeilingsFile> file;   // nullopt on error
  std::string error;                  // why the whole file was refused
  std::vector<std::string> warnings;  // entries or values skipped
};

CeilingsLoad ParseCeilings(std::string_view json_text);
// Reads a regular file of at most platform::kMaxSettingsFileBytes: a FIFO, device or folder is
// refused without being opened, an unreadable path is an error, never an exception.
CeilingsLoad LoadCeilingsFile(const std::string& path);
std::string SerializeCeilings(const CeilingsFile& file);
// Writes the file as platform::SaveFile does: never through a link planted at the name, never
// truncated in place (a new file is renamed over it), the cache only into a folder of the user's.
bool SaveCeilingsFile(const std::string& path, const CeilingsFile& file,
                      platform::Destination destination, std::string* error);

// Adds `entry`, replacing any entry with the same UUID and driver version.
void UpsertCeilings(CeilingsFile& file, MeasuredCeilings entry);
// The entry measured on this device under this driver, or nullptr.
const MeasuredCeilings* FindCeilings(const CeilingsFile& file, std::string_view uuid,
                                     std::string_view driver_version);
// The last entry for this device under any driver (for "measured under another driver" notes).
const MeasuredCeilings* FindCeilingsAnyDriver(const CeilingsFile& file, std::string_view uuid);

// Sets Roof::measured for every measured path and level (keeping the nominal figures) and notes
// where the measurement came from. Returns how many roofs were set.
int MergeMeasuredCeilings(analyzers::DeviceRoofs& roofs, const MeasuredCeilings& ceilings);

}  // namespace flopspy::gpuroof
