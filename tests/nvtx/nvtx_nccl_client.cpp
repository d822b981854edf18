// A fake NCCL for the payload extension (docs/nvtx.md, "Payloads"): it registers a reduction enum
// and an all-reduce schema in its own domain, as NCCL does, and pushes ranges that carry them.
// Also a payload whose schema was never registered and one too short for its schema, which
// flopspy must skip. Prints each push's return value for nvtx_test.cpp.
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace {

// Our own layout, like NCCL's: communicator, message size, reduction (an enum of 4 bytes).
struct AllReduceParams {
  uint64_t comm;
  size_t bytes;
  int32_t op;
};

constexpr uint64_t kAllReduceSchema = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 7;
constexpr uint64_t kRedOpEnum = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 8;
constexpr uint64_t kNeverRegistered = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 99;

void Register(nvtxDomainHandle_t domain) {
  static const nvtxPayloadEnum_t ops[] = {{"Sum", 0, 0}, {"Prod", 1, 0}, {"Max", 2, 0}};
  nvtxPayloadEnumAttr_t e{};
  e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
  e.entries = ops;
  e.numEntries = 3;
  e.sizeOfEnum = sizeof(int32_t);
  e.schemaId = kRedOpEnum;
  std::printf("enum: %s\n", nvtxPayloadEnumRegister(domain, &e) == kRedOpEnum ? "ok" : "bad");

  static const nvtxPayloadSchemaEntry_t entries[] = {
      {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "NCCL communicator ID", nullptr, 0,
       offsetof(AllReduceParams, comm), nullptr, nullptr},
      {0, NVTX_PAYLOAD_ENTRY_TYPE_SIZE, "Message size [bytes]", nullptr, 0,
       offsetof(AllReduceParams, bytes), nullptr, nullptr},
      {0, kRedOpEnum, "Reduction operation", nullptr, 0, offsetof(AllReduceParams, op), nullptr,
       nullptr},
  };
  nvtxPayloadSchemaAttr_t s{};
  s.fieldMask =
      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
      NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
  s.name = "NcclLikeAllReduce";
  s.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
  s.entries = entries;
  s.numEntries = 3;
  s.payloadStaticSize = sizeof(AllReduceParams);
  s.schemaId = kAllReduceSchema;
  std::printf("schema: %s\n",
              nvtxPayloadSchemaRegister(domain, &s) == kAllReduceSchema ? "ok" : "bad");
}

// Pushes and pops `name` in `domain` with one payload of `schema`, `size` bytes at `params`.
int PushWithPayload(nvtxDomainHandle_t domain, const char* name, uint64_t schema,
                    const AllReduceParams& params, size_t size) {
  nvtxPayloadData_t data{schema, size, &params};
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = name;
  NVTX_PAYLOAD_EVTATTR_SET_DATA(a, &data, schema, &params, size)
  const int level = nvtxDomainRangePushEx(domain, &a);
  nvtxDomainRangePop(domain);
  return level;
}

}  // namespace

int main() {
  const nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
  Register(nccl);
  const AllReduceParams first{0xC0FFEEu, 4096, 0};
  const AllReduceParams second{0xC0FFEEu, 1u << 20, 2};
  // One push after another (arguments of one call have no order).
  const int l1 = PushWithPayload(nccl, "ncclAllReduce", kAllReduceSchema, first, sizeof(first));
  const int l2 = PushWithPayload(nccl, "ncclAllReduce", kAllReduceSchema, second, sizeof(second));
  const int l3 = PushWithPayload(nccl, "unknownSchema", kNeverRegistered, first, sizeof(first));
  // Cut after the communicator: the size and op lie beyond it and are not read.
  const int l4 = PushWithPayload(nccl, "tooShort", kAllReduceSchema, second, sizeof(uint64_t));
  std::printf("pushes: %d %d %d %d\n", l1, l2, l3, l4);
  // Without the payload: the range name alone.
  nvtxEventAttributes_t plain{};
  plain.version = NVTX_VERSION;
  plain.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  plain.messageType = NVTX_MESSAGE_TYPE_ASCII;
  plain.message.ascii = "ncclBroadcast";
  nvtxDomainRangePushEx(nccl, &plain);
  nvtxDomainRangePop(nccl);
  return 0;
}
