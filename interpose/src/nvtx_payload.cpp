// The payload extension's half of the NVTX receiver. Registration is cold (a lock, allocation,
// a new copy of the registry published atomically); reading a payload is on the program's thread,
// so it takes no lock: it reads the current copy and copies a few integers.
// Nothing here trusts a payload: every field is bounds-checked against the size it came with.
#define NVTX_NO_IMPL
#include "nvtx_payload.h"

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "recorder.h"

namespace flopspy::interpose {
static_assert(kNvtxPayloadTypeExt == NVTX_PAYLOAD_TYPE_EXT);
namespace {

enum class Role : uint8_t { kNone, kBytes, kOp, kComm };

struct Field {
  Role role = Role::kNone;
  uint64_t offset = 0;
  uint32_t size = 0;     // bytes of the integer
  uint64_t enum_id = 0;  // the registered enum the value names, or 0
};

struct Enum {
  uint32_t size = 0;
  std::vector<std::pair<uint64_t, std::string>> values;
};

using Key = std::pair<uintptr_t, uint64_t>;  // (domain handle, schema id)

// What the readers see: never changed once published, never freed (a reader may still hold an
// older one, and op names recorded point into it).
struct Snapshot {
  std::map<Key, std::vector<Field>> schemas;  // only the fields flopspy reads
  std::map<Key, Enum> enums;
};

// Each registration copies the registry, so a program that registered without end would cost
// memory without end: past this many, further schemas and enums are not read.
constexpr size_t kMaxRegistrations = 1024;

struct Registry {
  std::mutex mutex;  // registrations only
  std::atomic<const Snapshot*> current{new Snapshot};
  size_t registrations = 0;
  uint64_t next_dynamic_id = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;
};

// Under the registry's lock: a copy of the current snapshot to change, or null past the bound.
std::unique_ptr<Snapshot> NextSnapshot(Registry& r) {
  if (r.registrations >= kMaxRegistrations) return nullptr;
  ++r.registrations;
  return std::make_unique<Snapshot>(*r.current.load(std::memory_order_relaxed));
}

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: callbacks may run at exit
  return *registry;
}

std::string Lower(const char* text) {
  std::string s = text == nullptr ? "" : text;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What an entry is, by its name: NCCL says "Message size [bytes]", "Reduction operation" and
// "NCCL communicator ID"; shorter spellings ("bytes", "op", "comm") count too.
Role RoleOf(const char* name) {
  const std::string n = Lower(name);
  const auto has = [&n](const char* part) { return n.find(part) != std::string::npos; };
  if (has("bytes") || has("message size")) return Role::kBytes;
  if (has("reduction") || n == "op" || n == "redop") return Role::kOp;
  if (has("communicator") || n == "comm") return Role::kComm;
  return Role::kNone;
}

// The size of a predefined integer entry type; 0 for anything else.
uint32_t IntegerSize(uint64_t type) {
  switch (type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_UCHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT8:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT8:
      return 1;
    case NVTX_PAYLOAD_ENTRY_TYPE_SHORT:
    case NVTX_PAYLOAD_ENTRY_TYPE_USHORT:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT16:
      return 2;
    case NVTX_PAYLOAD_ENTRY_TYPE_INT:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT32:
      return sizeof(int32_t);
    case NVTX_PAYLOAD_ENTRY_TYPE_LONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONG:
      return sizeof(long);
    case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT64:
      return 8;
    case NVTX_PAYLOAD_ENTRY_TYPE_SIZE:
    case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS:
      return sizeof(size_t);
    default:
      return 0;
  }
}

uint64_t SchemaRegister(nvtxDomainHandle_t domain, const nvtxPayloadSchemaAttr_t* attr) {
  if (attr == nullptr) return 0;
  const uint64_t mask = attr->fieldMask;
  const bool has_entries = (mask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES) != 0 &&
                           (mask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES) != 0 &&
                           attr->entries != nullptr;
  Registry& r = TheRegistry();
  try {
    std::lock_guard lock(r.mutex);
    const uint64_t id = (mask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) != 0
                            ? attr->schemaId
                            : r.next_dynamic_id++;
    std::unique_ptr<Snapshot> next = NextSnapshot(r);
    if (next == nullptr) return id;
    std::vector<Field> fields;
    uint64_t end = 0;  // where the previous entry ended, for entries without an offset
    bool offsets_known = true;
    // NCCL's schemas have a handful of entries; a bound keeps a bad count from running on.
    for (size_t i = 0; has_entries && i < std::min<size_t>(attr->numEntries, 256); ++i) {
      const nvtxPayloadSchemaEntry_t& e = attr->entries[i];
      Field f;
      f.role = RoleOf(e.name);
      const auto en = next->enums.find({reinterpret_cast<uintptr_t>(domain), e.type});
      f.size = en != next->enums.end() ? en->second.size : IntegerSize(e.type);
      if (en != next->enums.end()) f.enum_id = e.type;
      // Pointers and arrays are never followed: only plain integers are read.
      const bool plain =
          (e.flags & (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY)) == 0;
      if (e.offset != 0 || i == 0) {
        f.offset = e.offset;
      } else if (offsets_known && f.size != 0) {
        f.offset = (end + f.size - 1) / f.size * f.size;  // natural alignment
      } else {
        offsets_known = false;
      }
      if (f.size == 0 || !plain) offsets_known = false;
      end = f.offset + f.size;
      if (f.role != Role::kNone && f.size != 0 && plain && (offsets_known || e.offset != 0)) {
        fields.push_back(f);
      }
    }
    next->schemas.emplace(Key{reinterpret_cast<uintptr_t>(domain), id}, std::move(fields));
    r.current.store(next.release(), std::memory_order_release);
    return id;
  } catch (...) {  // bad_alloc: payloads of this schema are not read
    return 0;
  }
}

uint64_t EnumRegister(nvtxDomainHandle_t domain, const nvtxPayloadEnumAttr_t* attr) {
  if (attr == nullptr) return 0;
  const uint64_t mask = attr->fieldMask;
  Registry& r = TheRegistry();
  try {
    std::lock_guard lock(r.mutex);
    const uint64_t id =
        (mask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) != 0 ? attr->schemaId : r.next_dynamic_id++;
    std::unique_ptr<Snapshot> next = NextSnapshot(r);
    if (next == nullptr) return id;
    Enum e;
    e.size = (mask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE) != 0 && attr->sizeOfEnum <= sizeof(uint64_t)
                 ? static_cast<uint32_t>(attr->sizeOfEnum)
                 : 0;
    if ((mask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES) != 0 &&
        (mask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES) != 0 && attr->entries != nullptr) {
      for (size_t i = 0; i < attr->numEntries; ++i) {
        const nvtxPayloadEnum_t& v = attr->entries[i];
        e.values.emplace_back(v.value, v.name == nullptr ? "" : v.name);
      }
    }
    // The first registration of an id stays.
    next->enums.emplace(Key{reinterpret_cast<uintptr_t>(domain), id}, std::move(e));
    r.current.store(next.release(), std::memory_order_release);
    return id;
  } catch (...) {
    return 0;
  }
}

uint64_t ReadInteger(const uint8_t* at, uint32_t size) {
  uint64_t v = 0;
  std::memcpy(&v, at, std::min<uint32_t>(size, sizeof(v)));  // little-endian
  return v;
}

}  // namespace

bool ReadNvtxPayload(const void* domain, const void* data, size_t count,
                     NvtxPayloadFigures& out) noexcept {
  if (data == nullptr || count == 0) return false;
  const auto* payloads = static_cast<const nvtxPayloadData_t*>(data);
  const Snapshot& r = *TheRegistry().current.load(std::memory_order_acquire);
  for (size_t p = 0; p < count && p < 16; ++p) {
    const nvtxPayloadData_t& d = payloads[p];
    const auto schema = r.schemas.find({reinterpret_cast<uintptr_t>(domain), d.schemaId});
    if (schema == r.schemas.end() || d.payload == nullptr) continue;  // unknown: ignored
    const auto* bytes = static_cast<const uint8_t*>(d.payload);
    for (const Field& f : schema->second) {
      if (f.offset > d.size || d.size - f.offset < f.size) continue;  // out of bounds
      const uint64_t value = ReadInteger(bytes + f.offset, f.size);
      switch (f.role) {
        case Role::kBytes:
          out.bytes = value;
          out.flags |= trace::kPayloadBytes;
          break;
        case Role::kComm:
          out.comm = value;
          out.flags |= trace::kPayloadComm;
          break;
        case Role::kOp: {
          const auto en = r.enums.find({reinterpret_cast<uintptr_t>(domain), f.enum_id});
          if (en == r.enums.end()) break;
          for (const auto& [v, name] : en->second.values) {
            if (v == value && !name.empty()) {
              out.op = name.c_str();
              out.flags |= trace::kPayloadOp;
            }
          }
          break;
        }
        case Role::kNone:
          break;
      }
    }
  }
  return out.flags != 0;
}

int AttachNvtxExtension(void* module_info) noexcept {
  auto* info = static_cast<nvtxExtModuleInfo_t*>(module_info);
  if (info == nullptr || info->structSize < sizeof(nvtxExtModuleInfo_t)) return 0;
  if (const Recorder* rec = Recorder::Get(); rec != nullptr && !rec->config().nvtx) return 0;
  if (info->moduleId != NVTX_EXT_PAYLOAD_MODULEID || info->segmentsCount < 1 ||
      info->segments == nullptr || info->segments[0].functionSlots == nullptr) {
    return 1;  // another extension (memory, counters): its calls stay no-ops
  }
  nvtxExtModuleSegment_t& segment = info->segments[0];
  if (segment.slotCount > NVTX3EXT_CBID_nvtxPayloadSchemaRegister) {
    segment.functionSlots[NVTX3EXT_CBID_nvtxPayloadSchemaRegister] =
        reinterpret_cast<intptr_t>(&SchemaRegister);
  }
  if (segment.slotCount > NVTX3EXT_CBID_nvtxPayloadEnumRegister) {
    segment.functionSlots[NVTX3EXT_CBID_nvtxPayloadEnumRegister] =
        reinterpret_cast<intptr_t>(&EnumRegister);
  }
  return 1;
}

}  // namespace flopspy::interpose
