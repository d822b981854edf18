// The on-disk trace format: plain fixed-size little-endian records inside checksummed chunks.
// docs/trace-format.md describes every field; this header is the single source of truth for it.
//
// A file is a FileHeader followed by chunks. A chunk is a ChunkHeader and a payload of records.
// Every record starts with a RecordHeader whose size lets a reader skip types it does not know,
// so adding a record type or appending fields to the end of one keeps old readers working.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace flopspy::trace {

static_assert(std::endian::native == std::endian::little,
              "the trace format is little-endian and written as native structs");

// ---------------------------------------------------------------------------------------------
// Versions

// The version this code writes. History (docs/trace-format.md, "Versions"):
//   1  the first format
//   2  LibraryGroupsRecord (type 27) after grouped GEMM calls whose groups differ
//   3  RangeRecord (type 28) and ResourceNameRecord (type 29) from the NVTX receiver, and
//      RangePayloadRecord (type 30) from NVTX payloads
//   4  call sites: PyCodeRecord (31), StackRecord (32), ModuleRecord (33), StackSampleRecord (34)
//   5  CUDA graphs: GraphNodeRecord (35), GraphEventRecord (36), the kLaunchCaptured launch flag
//      and the executable graph's id in a graph launch's ApiCallRecord::detail
//   6  zstd-compressed chunks (ChunkFlags::kChunkZstd); a file that has any says
//      min_reader_version 6
inline constexpr uint16_t kFormatVersion = 6;
// The oldest reader version that can read what this code writes (bumped only on breaking changes).
inline constexpr uint16_t kMinReaderVersion = 1;
// ... when chunks are compressed: a reader of format 5 or older cannot read them.
inline constexpr uint16_t kMinReaderVersionCompressed = 6;
// The oldest file format version this code can still read.
inline constexpr uint16_t kOldestReadableVersion = 1;

// ---------------------------------------------------------------------------------------------
// File header

inline constexpr char kFileMagic[8] = {'F', 'L', 'O', 'P', 'S', 'P', 'Y', '\0'};
inline constexpr size_t kHostNameBytes = 64;

enum FileFlags : uint32_t {
  kFileForkedChild = 1u << 0,  // written by a child after fork(); parent_pid says whose
  kFileAfterExec = 1u << 1,    // this process image came from an execve of a traced process
};

struct FileHeader {
  char magic[8];                // kFileMagic
  uint16_t format_version;      // kFormatVersion of the writer
  uint16_t min_reader_version;  // a reader older than this must refuse the file
  uint32_t header_size;         // sizeof(FileHeader) of the writer; chunks start here
  uint32_t pid;
  uint32_t parent_pid;  // set with kFileForkedChild
  int32_t rank;         // RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK or PMI_RANK; -1 if none
  int32_t local_rank;   // LOCAL_RANK, SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK; -1 if none
  uint32_t flags;       // FileFlags
  uint32_t reserved0;
  uint64_t start_realtime_ns;   // CLOCK_REALTIME and CLOCK_MONOTONIC read back to back at start:
  uint64_t start_monotonic_ns;  // every timestamp in the file is CLOCK_MONOTONIC nanoseconds
  uint64_t run_id;  // shared by all processes of one `flopspy run` (FLOPSPY_RUN_ID); 0 if none
  char host[kHostNameBytes];  // NUL-terminated host name, truncated
  uint8_t reserved[76];
  uint32_t header_crc;  // CRC-32C of the bytes before this field
};
static_assert(sizeof(FileHeader) == 208);

// ---------------------------------------------------------------------------------------------
// Chunks

inline constexpr uint32_t kChunkMagic = 0x4B4E4843;  // "CHNK" in file byte order
// A reader treats anything larger as corruption, which bounds its memory per chunk.
inline constexpr uint32_t kMaxChunkPayload = 16u << 20;

enum class ChunkSource : uint16_t {
  kThread = 1,       // records of one application thread (thread_id says which)
  kProcess = 2,      // definitions, metadata, warnings, lost counts, end: written by the flusher
  kGpuActivity = 3,  // decoded CUPTI activity records
  kCpuSampler = 4,   // CPU counter samples
};

enum ChunkFlags : uint16_t {
  // The payload is one zstd frame, zero-padded to a multiple of 8; decompressed, it is raw_size
  // bytes: the records, or with kChunkColumns the records arranged in columns. A reader that
  // meets a flag it does not know stops there.
  kChunkZstd = 1u << 0,
  // With kChunkZstd only: records grouped by type and size and stored word by word
  // (trace/src/chunk_columns.h has the layout).
  kChunkColumns = 1u << 1,
};
inline constexpr uint16_t kKnownChunkFlags = kChunkZstd | kChunkColumns;

struct ChunkHeader {
  uint32_t magic;         // kChunkMagic
  uint32_t payload_size;  // bytes after this header (as stored); a multiple of 8
  uint32_t record_count;
  uint32_t thread_id;  // OS thread id for ChunkSource::kThread, else 0
  uint16_t source;     // ChunkSource
  uint16_t flags;      // ChunkFlags (format 6; 0 before)
  uint32_t sequence;   // 0, 1, 2, ... in file order; a gap means lost chunks
  uint32_t raw_size;   // kChunkZstd: the records' bytes once decompressed; else 0
  uint32_t crc;        // CRC-32C of this header's first 28 bytes, then of the payload as stored
};
static_assert(sizeof(ChunkHeader) == 32);

// ---------------------------------------------------------------------------------------------
// Records

enum class RecordType : uint8_t {
  kPadding = 0,  // skipped by readers
  // Definitions: give meaning to the ids used by events. Always written before first use.
  kString = 1,           // StringDef
  kMetadata = 2,         // MetadataBlock (JSON text)
  kThread = 3,           // ThreadDef
  kFunction = 4,         // FunctionDef
  kKernelSignature = 5,  // KernelSignatureDef
  kStream = 6,           // StreamDef
  // Events.
  kApiCall = 16,        // ApiCallRecord
  kKernelLaunch = 17,   // KernelLaunchRecord
  kLaunchParams = 18,   // LaunchParamsRecord, extends the kKernelLaunch just before it in the chunk
  kGpuActivity = 19,    // GpuActivityRecord
  kLibraryCall = 20,    // LibraryCallRecord
  kCpuSample = 21,      // CpuSampleRecord
  kRegion = 22,         // RegionRecord (marker begin/end)
  kLostRecords = 23,    // LostRecordsRecord
  kKernelMetrics = 24,  // KernelMetricsRecord (hardware counters of one kernel)
  kWarning = 25,        // WarningRecord
  kTraceEnd = 26,       // TraceEndRecord
  kLibraryGroups = 27,  // LibraryGroupsRecord, extends the kLibraryCall just before it (format 2)
  kRange = 28,          // RangeRecord: an NVTX mark or range edge (format 3)
  kResourceName =
      29,  // ResourceNameRecord: a name NVTX gave a thread, stream, device... (format 3)
  kRangePayload = 30,  // RangePayloadRecord: figures from the payload of the RangeRecord before it
  kPyCode = 31,        // PyCodeRecord: a Python code object a stack names (format 4)
  kStack = 32,         // StackRecord: the frames of one stack id (format 4)
  kModule = 33,        // ModuleRecord: a loaded object native frames lie in (format 4)
  kStackSample = 34,   // StackSampleRecord: the stacks of one launch (format 4)
  kGraphNode = 35,     // GraphNodeRecord: a kernel node recorded into a CUDA graph (format 5)
  kGraphEvent = 36,    // GraphEventRecord: a graph captured, instantiated, updated (format 5)
};
inline constexpr int kRecordTypeCount = 37;

// Record sizes are multiples of 8, stored in 8-byte units so one header covers up to 512 KiB.
inline constexpr size_t kRecordAlign = 8;
inline constexpr size_t kMaxRecordBytes = 0xFFFFu * kRecordAlign;

struct RecordHeader {
  uint8_t type;    // RecordType
  uint8_t flags;   // meaning depends on the type
  uint16_t size8;  // whole record size (header included) / 8

  constexpr size_t size() const { return size_t{size8} * kRecordAlign; }
};
static_assert(sizeof(RecordHeader) == 4);

constexpr size_t AlignRecordSize(size_t bytes) {
  return (bytes + kRecordAlign - 1) / kRecordAlign * kRecordAlign;
}

// Every fixed-size record type T has `static constexpr RecordType kType` and starts with a header.
template <class T>
constexpr RecordHeader MakeHeader(uint8_t flags = 0) {
  static_assert(sizeof(T) % kRecordAlign == 0);
  return RecordHeader{static_cast<uint8_t>(T::kType), flags, static_cast<uint16_t>(sizeof(T) / 8)};
}

// --- Definitions ------------------------------------------------------------------------------

// Interned text. Followed by `length` bytes (no NUL), padded with zeros to a multiple of 8.
// Id 0 is never defined and means "no string".
struct StringDef {
  static constexpr RecordType kType = RecordType::kString;
  RecordHeader h;
  uint32_t id;
  uint32_t length;
  uint32_t reserved;
};
static_assert(sizeof(StringDef) == 16);  // the text starts at offset 16

// JSON text (UTF-8) describing the process: configuration, host, devices, versions, warnings.
// Followed by `length` bytes, zero-padded. Several blocks may appear; later keys add to earlier.
struct MetadataBlock {
  static constexpr RecordType kType = RecordType::kMetadata;
  RecordHeader h;
  uint32_t length;
};
static_assert(sizeof(MetadataBlock) == 8);

struct ThreadDef {
  static constexpr RecordType kType = RecordType::kThread;
  RecordHeader h;
  uint32_t thread_id;
  uint32_t name;  // StringDef id (thread name when first seen), 0 if unknown
  uint32_t reserved;
};
static_assert(sizeof(ThreadDef) == 16);

inline constexpr int kMaxParamLayout = 12;

// A kernel function (CUfunction, CUkernel or host stub), once per handle.
struct FunctionDef {
  static constexpr RecordType kType = RecordType::kFunction;
  RecordHeader h;
  uint32_t id;            // used by KernelSignatureDef::function
  uint64_t handle;        // the pointer value the program used
  uint32_t mangled_name;  // StringDef ids; demangled == mangled when the name is not C++
  uint32_t demangled_name;
  uint16_t param_count;   // from cuFuncGetParamInfo; 0xFFFF if unknown
  uint16_t layout_count;  // entries valid in param_offset/param_size
  uint32_t reserved;
  uint16_t param_offset[kMaxParamLayout];  // byte offset of parameter i in the packed buffer
  uint16_t param_size[kMaxParamLayout];    // byte size of parameter i
};
static_assert(sizeof(FunctionDef) == 80);

// A kernel signature: what launched (function) and how (grid, block, cluster, shared memory).
// Launch records and GPU kernel records point at one; the report groups by it.
struct KernelSignatureDef {
  static constexpr RecordType kType = RecordType::kKernelSignature;
  RecordHeader h;
  uint32_t id;
  uint32_t function;  // FunctionDef id; 0 when only the name is known (graph kernels from CUPTI)
  uint32_t name;      // StringDef id of the mangled name (also set when function != 0)
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t cluster[3];  // 0,0,0 when no cluster was requested
  uint32_t dynamic_smem;
  uint32_t reserved[2];
};
static_assert(sizeof(KernelSignatureDef) == 64);

enum StreamFlags : uint8_t {
  kStreamPerThreadDefault = 1u << 0,  // launched through a _ptsz entry point or flags=2 lookup
  kStreamLegacyDefault = 1u << 1,     // handle was 0 (legacy default stream)
};

struct StreamDef {
  static constexpr RecordType kType = RecordType::kStream;
  RecordHeader h;
  uint32_t id;
  uint64_t handle;  // CUstream / cudaStream_t value as the program passed it
  int32_t device;
  uint32_t stream_flags;  // StreamFlags
};
static_assert(sizeof(StreamDef) == 24);

// --- Events -----------------------------------------------------------------------------------

// Which API an ApiCall or KernelLaunch record came from. Values are stable across versions.
enum class Api : uint16_t {
  kUnknown = 0,
  // Driver launches.
  kCuLaunchKernel = 1,
  kCuLaunchKernelPtsz = 2,
  kCuLaunchKernelEx = 3,
  kCuLaunchKernelExPtsz = 4,
  kCuLaunchCooperativeKernel = 5,
  kCuLaunchCooperativeKernelPtsz = 6,
  kCuGraphLaunch = 7,
  kCuGraphLaunchPtsz = 8,
  // Graph building: a kernel node made or changed through the graph API, recorded as a launch
  // record (kLaunchCaptured) with its parameters.
  kCuGraphAddKernelNode = 9,
  kCuGraphAddNode = 10,
  kCuGraphKernelNodeSetParams = 11,
  kCuGraphExecKernelNodeSetParams = 12,
  // Runtime launches.
  kCudaLaunchKernel = 16,
  kCudaLaunchKernelPtsz = 17,
  kCudaLaunchKernelExC = 18,
  kCudaLaunchKernelExCPtsz = 19,
  kCudaLaunchCooperativeKernel = 20,
  kCudaLaunchCooperativeKernelPtsz = 21,
  kCudaGraphLaunch = 22,
  kCudaGraphLaunchPtsz = 23,
  kCudaLaunchKernelStub = 24,      // __cudaLaunchKernel (CUDA 13 <<<>>>)
  kCudaLaunchKernelStubPtsz = 25,  // __cudaLaunchKernel_ptsz
  // Synchronisation (explains idle gaps).
  kCuCtxSynchronize = 64,
  kCuStreamSynchronize = 65,
  kCuStreamSynchronizePtsz = 66,
  kCuEventSynchronize = 67,
  kCuStreamWaitEvent = 68,
  kCuStreamWaitEventPtsz = 69,
  kCudaDeviceSynchronize = 80,
  kCudaStreamSynchronize = 81,
  kCudaStreamSynchronizePtsz = 82,
  // Copies and sets.
  kCuMemcpy = 96,  // the whole cuMemcpy* family; ApiCallRecord::detail says which
  kCuMemcpyAsync = 97,
  kCuMemset = 98,
  kCuMemsetAsync = 99,
  kCudaMemcpy = 112,
  kCudaMemcpyAsync = 113,
  kCudaMemcpyAsyncPtsz = 114,
  kCudaMemset = 115,
  kCudaMemsetAsync = 116,
  // Marker API and flopspy-internal.
  kFlopspyRegion = 200,
};
std::string_view ApiName(Api api);

enum ApiCallFlags : uint8_t {
  kApiCallSynchronizing = 1u << 0,  // the CPU may block inside this call (sync or blocking copy)
  kApiCallInsideLibrary = 1u << 1,  // made while a cuBLAS/cuBLASLt call was in progress
};

// Copy direction and host memory kind of a memcpy, packed into ApiCallRecord::detail.
enum class CopyKind : uint8_t {
  kUnknown = 0,
  kHostToDevice = 1,
  kDeviceToHost = 2,
  kDeviceToDevice = 3,
  kHostToHost = 4,
  kPeer = 5,
  kDefault = 6,  // cudaMemcpyDefault: inferred from pointers by the runtime
};
enum class MemoryKind : uint8_t {
  kUnknown = 0,
  kPageable = 1,
  kPinned = 2,
  kDevice = 3,
  kArray = 4,
  kManaged = 5,
};

// Any intercepted API call other than a kernel launch.
struct ApiCallRecord {
  static constexpr RecordType kType = RecordType::kApiCall;
  RecordHeader h;  // flags: ApiCallFlags
  uint16_t api;    // Api
  int16_t device;  // -1 if unknown
  uint64_t enter_ns;
  uint64_t exit_ns;
  int32_t result;  // CUresult / cudaError_t, returned unchanged to the program
  // memcpy: CopyKind | src MemoryKind << 8 | dst MemoryKind << 16; graph launch: the executable
  // graph's id (GraphEventRecord::exec), 0 if unknown
  uint32_t detail;
  uint64_t correlation;  // flopspy correlation id (also pushed to CUPTI as external id)
  uint64_t stream;       // stream or event handle the call waited on, 0 if none
  uint64_t bytes;        // bytes copied or set, 0 if none
};
static_assert(sizeof(ApiCallRecord) == 56);

enum LaunchFlags : uint8_t {
  kLaunchInsideLibrary = 1u << 0,      // launched while a cuBLAS/cuBLASLt call was in progress
  kLaunchDurationSaturated = 1u << 1,  // the call took longer than 2^32-1 ns
  kLaunchParamsTruncated = 1u << 2,    // more leading parameters existed than were captured
  kLaunchFromRuntime = 1u << 3,        // recorded by a runtime hook (the driver hook saw it nested)
  // Ran nothing: recorded into a CUDA graph (a launch on a capturing stream, or a kernel node made
  // or changed through the graph API). A GraphNodeRecord with its correlation follows it.
  kLaunchCaptured = 1u << 4,
};

inline constexpr size_t kInlineParamBytes = 20;

// One kernel launch on the CPU side. 64 bytes: the format's budget per launch.
struct KernelLaunchRecord {
  static constexpr RecordType kType = RecordType::kKernelLaunch;
  RecordHeader h;  // flags: LaunchFlags
  uint16_t api;    // Api
  int16_t device;
  uint64_t enter_ns;
  uint32_t duration_ns;  // exit - enter, saturated (kLaunchDurationSaturated)
  int32_t result;
  uint64_t correlation;
  uint32_t signature;   // KernelSignatureDef id
  uint32_t stream;      // StreamDef id
  uint8_t param_bytes;  // valid bytes in params (then in a following LaunchParamsRecord)
  uint8_t reserved[3];
  uint8_t params[kInlineParamBytes];  // leading kernel parameters, packed per FunctionDef layout
};
static_assert(sizeof(KernelLaunchRecord) == 64);

inline constexpr size_t kExtraParamBytes = 240;

// More leading parameter bytes of the launch record just before it (same chunk).
struct LaunchParamsRecord {
  static constexpr RecordType kType = RecordType::kLaunchParams;
  RecordHeader h;
  uint16_t length;  // valid bytes in bytes[]; they continue KernelLaunchRecord::params
  uint16_t reserved;
  uint8_t bytes[kExtraParamBytes];
};
static_assert(sizeof(LaunchParamsRecord) == 248);

enum class GpuActivityKind : uint8_t {
  kKernel = 1,
  kMemcpy = 2,
  kMemset = 3,
};

enum GpuActivityFlags : uint8_t {
  kGpuDeviceLaunched = 1u << 0,  // launched from device code (no CPU launch record)
  kGpuFromGraph = 1u << 1,       // a node of a CUDA graph (graph_id, graph_node_id valid)
};

// One interval of GPU work, from CUPTI activity records, on flopspy's clock.
struct GpuActivityRecord {
  static constexpr RecordType kType = RecordType::kGpuActivity;
  RecordHeader h;     // flags: GpuActivityFlags
  uint8_t kind;       // GpuActivityKind
  uint8_t copy_kind;  // CopyKind for memcpy
  uint8_t src_kind;   // MemoryKind
  uint8_t dst_kind;   // MemoryKind
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t correlation;        // flopspy correlation id of the launch or API call; 0 if unknown
  uint32_t cupti_correlation;  // CUPTI's own correlation id
  int32_t device;
  uint32_t stream;     // CUPTI stream id (not a StreamDef id)
  uint32_t signature;  // kernels: KernelSignatureDef id
  uint64_t bytes;      // memcpy/memset bytes
  uint32_t graph_id;
  uint32_t context;  // CUPTI context id
  uint64_t graph_node_id;
};
static_assert(sizeof(GpuActivityRecord) == 72);

// --- CUDA graphs (format 5; docs/cuda-graphs.md) ----------------------------------------------

// Graphs and executable graphs are named by flopspy ids, given at first sight of a handle and
// dropped when it is destroyed (a handle the driver reuses gets a new id). 0 means unknown.

enum GraphNodeFlags : uint8_t {
  kGraphNodeCaptured = 1u << 0,  // recorded by stream capture (else through the graph API)
  kGraphNodeInExec = 1u << 1,    // a node of an executable graph changed in place (`exec` valid)
};

// A kernel node recorded into a graph: the KernelLaunchRecord with the same correlation (flag
// kLaunchCaptured, just before it on the same thread) holds its kernel, shape and parameters.
struct GraphNodeRecord {
  static constexpr RecordType kType = RecordType::kGraphNode;
  RecordHeader h;  // flags: GraphNodeFlags
  uint32_t graph;  // the graph it belongs to
  uint64_t correlation;
  uint64_t node;        // CUgraphNode handle, 0 if the driver did not say
  uint64_t capture_id;  // the capture sequence (cuStreamGetCaptureInfo), 0 for the graph API
  uint32_t exec;        // kGraphNodeInExec: the executable graph changed
  uint32_t reserved;
};
static_assert(sizeof(GraphNodeRecord) == 40);

enum class GraphEvent : uint8_t {
  kCaptured = 1,      // cuStreamEndCapture returned `graph`
  kInstantiated = 2,  // `exec` made from `graph`: it runs the graph's kernel nodes as they are now
  kUpdated = 3,       // cuGraphExecUpdate: `exec` now runs `graph`'s nodes (same topology)
  kExecDestroyed = 4,
  kGraphDestroyed = 5,
};

struct GraphEventRecord {
  static constexpr RecordType kType = RecordType::kGraphEvent;
  RecordHeader h;
  uint8_t event;  // GraphEvent
  uint8_t reserved0[3];
  uint64_t enter_ns;
  uint64_t exit_ns;
  int32_t result;  // CUresult of the call
  uint32_t graph;
  uint32_t exec;
  uint32_t reserved1;
};
static_assert(sizeof(GraphEventRecord) == 40);

// --- Library calls (cuBLAS, cuBLASLt) ---------------------------------------------------------

enum class FigureSource : uint8_t {
  kUnknown = 0,
  kAnalytic = 1,  // exact, from a library call's own arguments
  kCatalog = 2,   // a model of a known kernel from its name and parameters
  kCounters = 3,  // measured by hardware counters
};
std::string_view FigureSourceName(FigureSource source);

enum LibraryCallFlags : uint32_t {
  kLibBetaKnown = 1u << 0,    // beta was read on the host (pointer mode host)
  kLibBetaNonZero = 1u << 1,  // valid with kLibBetaKnown
  kLibAlphaKnown = 1u << 2,
  kLibBiasPresent = 1u << 3,    // cuBLASLt bias pointer set
  kLibAuxPresent = 1u << 4,     // cuBLASLt epilogue aux pointer set
  kLibScalePointers = 1u << 5,  // any of A/B/C/D scale pointers set (FP8 scaling)
  kLibAmaxPointer = 1u << 6,
  kLibFastAccum = 1u << 7,
  kLibBatchedPointers = 1u << 8,  // pointer-array batched form (alignment of A/B/C unknown)
  // Grouped batched whose groups differ: m/n/k/ld/transposes describe the first group and batch
  // is the group count; with kLibGroupsFollow, LibraryGroups records hold every group.
  kLibGrouped = 1u << 9,
  kLibDescriptorIncomplete = 1u << 10,  // a cuBLASLt attribute could not be read
  kLibUnknownRoutine = 1u << 11,
  // Legacy cublas.h API: the call's status went to cublasGetError(), which flopspy does not call
  // (it would clear the program's error); `status` reads 0.
  kLibStatusUnknown = 1u << 12,
  // The stream is not known (legacy API after the program called cublasSetKernelStream);
  // `stream` is 0.
  kLibStreamUnknown = 1u << 13,
  // LibraryGroups records follow this record in its chunk (format 2): ceil(listed / 8) of them,
  // listed = min(batch, groups the writer lists), the rest summed in LibraryGroupsRecord::cut.
  kLibGroupsFollow = 1u << 14,
  // An NCCL call made between ncclGroupStart and ncclGroupEnd: its kernels are launched by the
  // group's end, whose record (routine ncclGroupEnd) owns them (docs/nccl.md).
  kLibCommInGroup = 1u << 15,
};

// One cuBLAS or cuBLASLt call. The hook fills the arguments; the flusher fills flops and bytes.
struct LibraryCallRecord {
  static constexpr RecordType kType = RecordType::kLibraryCall;
  RecordHeader h;
  uint16_t routine;  // analyzers' BlasRoutine id (stable numbering, see analyzers/blas_routine.h)
  int16_t device;
  uint64_t enter_ns;
  uint64_t exit_ns;
  uint64_t correlation;
  int32_t status;   // cublasStatus_t returned to the program
  uint32_t stream;  // StreamDef id, 0 if unknown
  int64_t m, n, k;
  int64_t batch;  // 1 when not batched; group count for grouped calls
  int64_t lda, ldb, ldc, ldd;
  int64_t stride_a, stride_b, stride_c, stride_d;  // elements, for strided batched
  uint8_t type_a, type_b, type_c, type_d;          // cudaDataType values; 0xFF if not applicable
  uint8_t compute_type;                            // cublasComputeType_t - 64, or 0xFF
  uint8_t scale_type;                              // cudaDataType of alpha/beta, 0xFF if unknown
  uint8_t trans_a, trans_b;                        // cublasOperation_t: 0 N, 1 T, 2 C
  uint8_t side, uplo, diag;  // cublasSideMode_t, cublasFillMode_t, cublasDiagType_t; 0xFF if n/a
  uint8_t source;            // FigureSource of flops/bytes
  uint32_t epilogue;         // cublasLtEpilogue_t; 1 (default) for plain cuBLAS
  uint32_t flags;            // LibraryCallFlags
  uint32_t ptr_align;        // log2 alignment of A, B, C, D pointers, 8 bits each (capped at 255)
  uint32_t name;             // StringDef id of the routine's exported name
  double flops;              // main operation, LAWN 41 conventions
  double epilogue_flops;     // bias, activation: counted apart
  double bytes;              // minimum DRAM bytes
};
static_assert(sizeof(LibraryCallRecord) == 192);

// One group of a grouped batched GEMM (cublasGemmGroupedBatchedEx and the typed forms).
inline constexpr uint8_t kGroupBetaUnknown = 0xFF;  // beta not read (device pointer mode)
struct LibraryGroupShape {
  int64_t m, n, k;
  int64_t count;  // problems in the group (group_size)
  int64_t lda, ldb, ldc;
  uint8_t trans_a, trans_b;  // cublasOperation_t
  uint8_t beta;              // 0 zero, 1 non-zero, kGroupBetaUnknown
  uint8_t reserved[5];
};
static_assert(sizeof(LibraryGroupShape) == 64);

// The groups a writer did not list (it lists a bounded number), as the sums the GEMM formulas
// need: over every problem p of those groups, m*n*k, m*k, k*n and m*n (and m*n where beta may be
// non-zero: C is read). Exact FLOPs and minimum bytes need nothing more.
struct LibraryGroupsCut {
  int64_t groups;
  int64_t problems;
  double mnk, mk, kn, mn;
  double mn_reads_c;
};
static_assert(sizeof(LibraryGroupsCut) == 56);

inline constexpr int kGroupsPerRecord = 8;

// Groups of the grouped LibraryCallRecord just before it in the same chunk (kLibGroupsFollow).
// A call's records come in order, `first` 0, 8, 16...; `cut` is set in the first, zero in the
// others.
struct LibraryGroupsRecord {
  static constexpr RecordType kType = RecordType::kLibraryGroups;
  RecordHeader h;
  uint16_t first;  // index in the call of groups[0]
  uint16_t valid;  // entries of groups[] in use
  LibraryGroupsCut cut;
  LibraryGroupShape groups[kGroupsPerRecord];
};
static_assert(sizeof(LibraryGroupsRecord) == 576);

// --- CPU side ---------------------------------------------------------------------------------

enum class CpuSampleScope : uint8_t {
  kInterval = 1,  // one FLOPSPY_CPU_INTERVAL_MS period
  kRegion = 2,    // between flopspy_region_begin and _end of one name
  kRun = 3,       // the whole process lifetime
};

// Which CpuSampleRecord values are valid (bit set) or missing.
enum CpuValue : uint32_t {
  kCpuFlopsDp = 1u << 0,
  kCpuFlopsSp = 1u << 1,
  kCpuFlopsHp = 1u << 2,
  kCpuFlopsAny = 1u << 3,  // no precision split available: flops_any only
  kCpuBytesRead = 1u << 4,
  kCpuBytesWrite = 1u << 5,
  kCpuBytesAny = 1u << 6,  // reads and writes not separated
  kCpuCycles = 1u << 7,
  kCpuRefCycles = 1u << 8,
  kCpuInstructions = 1u << 9,
  kCpuTaskClock = 1u << 10,
};

// Quality flags carried by every CPU roofline point.
enum CpuSampleFlags : uint32_t {
  kCpuMultiplexed = 1u << 0,         // counters were scaled by time_enabled / time_running
  kCpuSpeculative = 1u << 1,         // FP events count speculative operations
  kCpuExecutedNotRetired = 1u << 2,  // FP events count executed operations (may over-count)
  kCpuNoPrecisionSplit = 1u << 3,
  kCpuSystemWideMemory = 1u << 4,   // memory traffic is per socket, not per process
  kCpuOverlapsGpuCopies = 1u << 5,  // host<->device copies ran during the interval
  kCpuTooShort = 1u << 6,           // interval too short for the counters to be trusted
  kCpuMemoryFromPcm = 1u << 7,      // memory traffic read from Intel PCM tools
};

struct CpuSampleRecord {
  static constexpr RecordType kType = RecordType::kCpuSample;
  RecordHeader h;
  uint8_t scope;  // CpuSampleScope
  uint8_t reserved0[3];
  uint64_t begin_ns;
  uint64_t end_ns;
  uint32_t region;  // StringDef id of the region name (kRegion), else 0
  uint32_t valid;   // CpuValue bits
  uint32_t flags;   // CpuSampleFlags
  uint32_t reserved1;
  double flops_dp, flops_sp, flops_hp, flops_any;
  double bytes_read, bytes_write, bytes_any;
  double cycles, ref_cycles, instructions;
  double task_clock_ns;
  double running_fraction;  // min over counters of time_running / time_enabled
};
static_assert(sizeof(CpuSampleRecord) == 136);

enum class RegionEdge : uint8_t { kBegin = 1, kEnd = 2 };

// flopspy_region_begin / flopspy_region_end, on the calling thread (chunk thread_id).
struct RegionRecord {
  static constexpr RecordType kType = RecordType::kRegion;
  RecordHeader h;
  uint8_t edge;  // RegionEdge
  uint8_t reserved[3];
  uint64_t time_ns;
  uint32_t name;  // StringDef id
  uint32_t reserved1;
};
static_assert(sizeof(RegionRecord) == 24);

// --- NVTX -------------------------------------------------------------------------------------

enum class RangeEdge : uint8_t {
  kPush = 1,   // nvtxRangePush*, nvtxDomainRangePushEx: nests per thread and domain
  kPop = 2,    // closes the innermost push of its thread and domain
  kStart = 3,  // nvtxRangeStart*, nvtxDomainRangeStartEx: paired with kEnd by range_id
  kEnd = 4,    // may come from another thread than its kStart
  kMark = 5,   // nvtxMark*, nvtxDomainMarkEx: an instant
};

// One NVTX event on the calling thread (chunk thread_id).
struct RangeRecord {
  static constexpr RecordType kType = RecordType::kRange;
  RecordHeader h;
  uint8_t edge;  // RangeEdge
  uint8_t reserved0[3];
  uint64_t time_ns;
  uint64_t range_id;  // kStart/kEnd: the nvtxRangeId_t flopspy handed out; else 0
  uint32_t name;      // StringDef id of the message; 0 for kPop, kEnd and messages without text
  uint32_t domain;    // StringDef id of the domain's name; 0 for the default domain
  uint32_t category;  // NVTX category as given; 0 if none
  uint32_t color;     // ARGB as given; 0 if none
};
static_assert(sizeof(RangeRecord) == 40);

enum RangePayloadFlags : uint32_t {
  kPayloadBytes = 1u << 0,  // `bytes` is the payload's message size
  kPayloadOp = 1u << 1,     // `op` names the reduction
  kPayloadComm = 1u << 2,   // `comm` is the communicator
};

// Figures read from an NVTX extension payload (NCCL's collectives). It follows the RangeRecord
// (push, start or mark) it belongs to, on the same thread, with nothing in between.
struct RangePayloadRecord {
  static constexpr RecordType kType = RecordType::kRangePayload;
  RecordHeader h;
  uint32_t flags;  // RangePayloadFlags: which fields were found
  uint64_t bytes;  // message size in bytes
  uint64_t comm;   // communicator id as the payload gives it (NCCL: a hash)
  uint32_t op;     // StringDef id of the reduction's name ("Sum"); 0 if none
  uint32_t reserved;
};
static_assert(sizeof(RangePayloadRecord) == 32);

enum class NamedResource : uint8_t {
  kCategory = 1,     // handle: the category id (per domain)
  kOsThread = 2,     // handle: the OS thread id
  kCudaDevice = 3,   // handle: the device ordinal
  kCudaContext = 4,  // handle: the CUcontext pointer value
  kCudaStream = 5,   // handle: the CUstream / cudaStream_t pointer value
  kCudaEvent = 6,    // handle: the CUevent / cudaEvent_t pointer value
};

// nvtxNameCategory, nvtxNameOsThread, nvtxNameCuStream, nvtxNameCudaDevice and the like.
struct ResourceNameRecord {
  static constexpr RecordType kType = RecordType::kResourceName;
  RecordHeader h;
  uint8_t resource;  // NamedResource
  uint8_t reserved0[3];
  uint64_t handle;
  uint32_t name;    // StringDef id of the name
  uint32_t domain;  // StringDef id of the domain's name (categories); 0 for the default domain
};
static_assert(sizeof(ResourceNameRecord) == 24);

// --- Call sites (docs/call-sites.md) ---------------------------------------------------------
// A sampled launch carries stack ids (StackSampleRecord); each stack's frames are written once
// per thread that saw it (StackRecord; a reader keeps the first of equal ids). Python frames name
// code objects by a key (PyCodeRecord, once per thread per code object); native frames are
// return addresses inside the loaded objects ModuleRecord lists. The report resolves lines and
// symbols; the process never does.

enum class StackKind : uint8_t {
  kPython = 1,  // frames are PyFrame entries, innermost first
  kNative = 2,  // frames are return addresses (uint64), innermost first
};

enum StackFlags : uint8_t {
  kStackTruncated = 1u << 0,  // the stack was deeper than the frames kept (the outermost are cut)
};

inline constexpr int kMaxStackFrames = 128;

// One Python frame: the code object it ran (PyCodeRecord::code_key) and where in its bytecode:
// the byte offset of the instruction being executed from the start of the code's instructions.
struct PyFrame {
  uint64_t code_key;
  uint32_t instr_offset;
  uint32_t reserved;
};
static_assert(sizeof(PyFrame) == 16);

// The frames of one stack. Followed by `depth` PyFrame (kPython) or uint64_t addresses
// (kNative), then zero padding to a multiple of 8.
struct StackRecord {
  static constexpr RecordType kType = RecordType::kStack;
  RecordHeader h;  // flags: StackFlags
  uint8_t kind;    // StackKind
  uint8_t reserved0;
  uint16_t depth;
  uint64_t stack_id;  // hash of kind and frames; never 0
};
static_assert(sizeof(StackRecord) == 16);

enum PyCodeFlags : uint32_t {
  kPyCodeLinetableCut = 1u << 0,  // the line table was longer than kMaxPyLinetable: cut
};

// The line table formats CPython has used; the report decodes them to lines.
enum class PyLinetableFormat : uint8_t {
  kUnknown = 0,
  kPy310 = 1,  // co_linetable of 3.10: (byte delta, line delta) pairs over bytecode bytes
  kPy311 = 2,  // co_linetable of 3.11 and later: location entries over 2-byte code units
};

inline constexpr size_t kMaxPyText = 1024;
inline constexpr size_t kMaxPyLinetable = 32768;

// A Python code object, described on the thread that first saw it in a stack. Followed by
// `filename_length` bytes of co_filename, `name_length` bytes of co_qualname (co_name before
// 3.11), `linetable_length` bytes of co_linetable (UTF-8, no NULs), then zero padding.
struct PyCodeRecord {
  static constexpr RecordType kType = RecordType::kPyCode;
  RecordHeader h;
  uint32_t flags;            // PyCodeFlags
  uint64_t code_key;         // what PyFrame::code_key holds: the code object's address mixed with
                             // fields that tell a new object at a reused address apart
  int32_t first_line;        // co_firstlineno
  uint16_t python_version;   // 0x030B for 3.11: major << 8 | minor
  uint8_t linetable_format;  // PyLinetableFormat
  uint8_t reserved0;
  uint16_t filename_length;
  uint16_t name_length;
  uint32_t linetable_length;
};
static_assert(sizeof(PyCodeRecord) == 32);

// A loaded object (the program, a shared library) as it was mapped: native addresses between
// `start` and `end` lie in it, at file-relative address `address - bias`. Followed by
// `path_length` bytes of path and `build_id_length` bytes of GNU build id, then zero padding.
struct ModuleRecord {
  static constexpr RecordType kType = RecordType::kModule;
  RecordHeader h;
  uint16_t path_length;
  uint16_t build_id_length;  // 0: the object has no build id note
  uint64_t bias;             // dl_phdr_info::dlpi_addr: load address minus link-time address
  uint64_t start;            // lowest address of its PT_LOAD segments, as mapped
  uint64_t end;              // one past the highest
};
static_assert(sizeof(ModuleRecord) == 32);

enum class StackSampleReason : uint8_t {
  kNewSignature = 1,  // the first launch of its kernel signature on this thread
  kSampled = 2,       // one in FLOPSPY_STACK_SAMPLE of a signature's later launches
};

// The stacks of one launch, on the launching thread, right after its KernelLaunchRecord.
struct StackSampleRecord {
  static constexpr RecordType kType = RecordType::kStackSample;
  RecordHeader h;
  uint8_t reason;  // StackSampleReason
  uint8_t reserved0[3];
  uint64_t correlation;   // the launch's
  uint64_t python_stack;  // StackRecord ids; 0: none captured (no Python frames, or not asked)
  uint64_t native_stack;
  uint32_t sample_every;  // FLOPSPY_STACK_SAMPLE when it was taken
  uint32_t reserved1;
};
static_assert(sizeof(StackSampleRecord) == 40);

// --- Bookkeeping ------------------------------------------------------------------------------

enum class LossSource : uint16_t {
  kThreadBuffer = 1,  // an application thread's buffer was full
  kCuptiBuffer = 2,   // CUPTI dropped activity records
  kWriteFailed = 3,   // chunks that could not be written (reported once writing works again)
  kCounterSamples = 4,
  kNoBuffer = 5,  // threads that got no buffer: flopspy's address-space budget was spent
};

struct LostRecordsRecord {
  static constexpr RecordType kType = RecordType::kLostRecords;
  RecordHeader h;
  uint16_t source;  // LossSource
  uint16_t reserved;
  uint32_t thread_id;  // kThreadBuffer: whose buffer
  uint32_t reserved1;
  uint64_t count;    // records lost since the previous LostRecordsRecord of this source/thread
  uint64_t time_ns;  // when the loss was noticed
};
static_assert(sizeof(LostRecordsRecord) == 32);

// Which KernelMetricsRecord values were measured.
enum KernelMetricsValid : uint32_t {
  kMetricsFp32 = 1u << 0,
  kMetricsFp64 = 1u << 1,
  kMetricsFp16 = 1u << 2,
  kMetricsTensor = 1u << 3,
  kMetricsDram = 1u << 4,
  kMetricsL2 = 1u << 5,
  kMetricsDuration = 1u << 6,
  // The record holds part of a sample (FLOPSPY_COUNTERS_REPLAY=launches: not every pass group
  // of its sample measured yet); figures whose bit is not set are 0. Never set by older writers,
  // whose records are whole samples.
  kMetricsPartialSample = 1u << 7,
};

// Hardware-counter figures of one measured kernel launch (docs/gpu-counters.md). FLOPs use
// Nsight Compute's weights: fp32 = fadd + fmul + 2 ffma, fp64 = dadd + dmul + 2 dfma,
// fp16 = 2 hadd + 2 hmul + 4 hfma (half2); tensor_ops = floating-point tensor-path math ops.
struct KernelMetricsRecord {
  static constexpr RecordType kType = RecordType::kKernelMetrics;
  RecordHeader h;
  uint16_t samples;      // the sample of its signature this launch measured (1, 2, ...)
  uint16_t passes;       // replay passes the measurement took; 0 if unknown (was reserved)
  uint64_t correlation;  // the measured launch
  uint32_t signature;
  uint32_t valid;  // KernelMetricsValid bits
  double flops_fp32, flops_fp64, flops_fp16, tensor_ops;
  double dram_read_bytes, dram_write_bytes, l2_bytes;
  double gpu_duration_ns;
};
static_assert(sizeof(KernelMetricsRecord) == 88);

enum class WarningCode : uint16_t {
  kGeneric = 0,
  kBadConfig = 1,
  kOutputUnavailable = 2,
  kCuptiUnavailable = 3,
  kCountersUnavailable = 4,
  kSymbolMissing = 5,
  kInternalError = 6,
  kSignal = 7,
};

// Something went wrong or was degraded; the text was also printed once on stderr.
struct WarningRecord {
  static constexpr RecordType kType = RecordType::kWarning;
  RecordHeader h;
  uint16_t code;  // WarningCode
  uint16_t reserved;
  uint64_t time_ns;
  uint32_t message;  // StringDef id
  uint32_t reserved1;
};
static_assert(sizeof(WarningRecord) == 24);

enum class EndReason : uint8_t {
  kExit = 1,    // normal exit or exit() from any thread; status in `value`
  kSignal = 2,  // fatal signal; number in `value`
  kExec = 3,    // the process image was replaced by execve
  kDetach = 4,  // tracing was stopped on request
};

// The last record of a complete trace. Its absence means the process died mid-run.
struct TraceEndRecord {
  static constexpr RecordType kType = RecordType::kTraceEnd;
  RecordHeader h;
  uint8_t reason;  // EndReason
  uint8_t reserved[3];
  uint64_t time_ns;
  int32_t value;
  uint32_t reserved1;
  uint64_t records_written;
  uint64_t records_lost;
};
static_assert(sizeof(TraceEndRecord) == 40);

std::string_view RecordTypeName(RecordType type);
// The names the report's JSON and CSV use for these enums ("unknown" for a value not listed).
std::string_view CopyKindName(CopyKind kind);      // "HtoD", "DtoH", "peer", "default"
std::string_view MemoryKindName(MemoryKind kind);  // "pageable", "pinned", "device"
std::string_view LossSourceName(LossSource source);
std::string_view WarningCodeName(WarningCode code);
std::string_view EndReasonName(EndReason reason);
std::string_view RangeEdgeName(RangeEdge edge);              // "push", "pop", "start"...
std::string_view GraphEventName(GraphEvent event);           // "captured", "instantiated"...
std::string_view NamedResourceName(NamedResource resource);  // "category", "thread", "stream"...

}  // namespace flopspy::trace
