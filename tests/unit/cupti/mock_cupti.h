// A mock CUPTI and driver for the GPU-timing tests: a function table whose entries record what
// they were asked and answer as a test configures them, activity buffers built from the CUPTI
// header structs, and an iterator over them that walks records the way CUPTI's does.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cupti_api.h"
#include "cupti_decode.h"
#include "cupti_session.h"

namespace flopspy::testing {

struct MockCupti {
  // --- Answers.
  uint32_t version = 130001;
  CUresult init_result = CUDA_SUCCESS;
  int device_count = 1;
  CUptiResult subscribe_result = CUPTI_SUCCESS;
  std::string holder;           // written into oldSubscriberName with MULTIPLE_SUBSCRIBERS
  std::set<int> failing_kinds;  // cuptiActivityEnable answers CUPTI_ERROR_NOT_SUPPORTED
  CUptiResult register_callbacks_result = CUPTI_SUCCESS;
  size_t dropped = 0;  // cuptiActivityGetNumDroppedRecords returns this, then 0
  CUptiResult forced_flush_result = CUPTI_SUCCESS;  // cuptiActivityFlushAll(FORCED) answers this
  size_t kernel_record_size = sizeof(CUpti_ActivityKernel10);  // for the iterator
  size_t memcpy_record_size = sizeof(CUpti_ActivityMemcpy6);

  // --- What was asked.
  std::vector<std::string> calls;  // CUPTI and driver calls in order
  std::string subscriber_name;
  int subscribers = 0;  // held now
  CUpti_TimestampCallbackFunc timestamp = nullptr;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  std::set<int> enabled_kinds;
  // Calls switched on or off one by one (cuptiActivityEnableDriverApi, ...RuntimeApi). As in
  // CUPTI, enabling the DRIVER or RUNTIME kind resets its switches.
  std::set<uint32_t> driver_cbids, driver_cbids_off;
  std::set<uint32_t> runtime_cbids, runtime_cbids_off;
  std::vector<std::pair<int, uint64_t>> pushes;
  int pops = 0;
  int flush_forced = 0;
  int flush_default = 0;
};

// The process-wide mock (reset by ResetMock).
MockCupti& Mock();
void ResetMock();

// A table pointing at the mock. `with_names` false leaves cuptiGetCallbackName out (older or
// unusual libraries); `with_v2` false leaves cuptiSubscribe_v2 out.
interpose::CuptiApi MockApi(bool with_names = true, bool with_v2 = true);

// What a session said: stderr lines (one per report key) and metadata blocks.
struct Said {
  std::vector<std::string> reports;
  std::vector<std::string> notices;  // lines FLOPSPY_QUIET would silence
  std::vector<std::string> metadata;
  interpose::ActivitySource* attached = nullptr;
};

// An environment serving the mock table; `driver_loaded` says whether libcuda.so.1 is loaded.
interpose::CuptiEnvironment MockEnvironment(Said* said, bool driver_loaded = true,
                                            interpose::CuptiApi api = MockApi());

// The iterator over buffers built by ActivityBuffer (record sizes from the mock's settings).
CUptiResult MockNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record);

// A CUPTI activity buffer assembled from header structs.
class ActivityBuffer {
 public:
  template <class T>
  ActivityBuffer& Add(const T& record, size_t size = sizeof(T)) {
    const size_t at = bytes_.size();
    bytes_.resize(at + size, 0);
    std::memcpy(bytes_.data() + at, &record, std::min(size, sizeof(T)));
    return *this;
  }
  uint8_t* data() { return bytes_.data(); }
  size_t size() const { return bytes_.size(); }
  interpose::ActivityBufferView view() { return {bytes_.data(), bytes_.size()}; }

 private:
  std::vector<uint8_t> bytes_;
};

// Records with sensible defaults.
CUpti_ActivityKernel10 Kernel(uint32_t correlation, uint64_t start, uint64_t end, const char* name);
CUpti_ActivityMemcpy6 Memcpy(uint32_t correlation, uint64_t start, uint64_t end, uint64_t bytes,
                             CUpti_ActivityMemcpyKind kind, CUpti_ActivityMemoryKind src,
                             CUpti_ActivityMemoryKind dst);
CUpti_ActivityMemset4 Memset(uint32_t correlation, uint64_t start, uint64_t end, uint64_t bytes,
                             CUpti_ActivityMemoryKind kind);
CUpti_ActivityExternalCorrelation External(
    uint32_t correlation, uint64_t flopspy_id,
    CUpti_ExternalCorrelationKind kind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2);
CUpti_ActivityAPI ApiRecord(uint32_t correlation,
                            CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_DRIVER,
                            uint32_t cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);

// A sink that keeps what it is given; signatures are numbered by (name, shape) in order.
class RecordingSink : public interpose::ActivitySink {
 public:
  uint32_t KernelSignature(std::string_view mangled_name,
                           const interpose::KernelShape& shape) override;
  void Emit(const trace::GpuActivityRecord& record) override { records.push_back(record); }

  struct Signature {
    std::string name;
    interpose::KernelShape shape;
  };
  std::vector<trace::GpuActivityRecord> records;
  std::vector<Signature> signatures;  // index = id - 1
};

}  // namespace flopspy::testing
