// The fake libcudnn.so.9's backend (graph) API: every descriptor is a generic attribute store
// (id -> type, element count, the elements' bytes), whatever its type. A descriptor-typed
// attribute holds references to the descriptors set, which stay alive while referenced even once
// the client destroys them, so a plan can be walked back to its graph's operations as long as it
// lives. Reading one copies the referenced descriptor's whole store into a descriptor the caller
// made, as cuDNN does. Heuristics answer with engine configs built from their operation graph.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "fake_cudnn.h"

using namespace flopspy_fake_cudnn;

namespace {

struct Node;
using NodeRef = std::shared_ptr<Node>;

struct Attribute {
  cudnnBackendAttributeType_t type = CUDNN_TYPE_INT64;
  int64_t count = 0;
  std::vector<unsigned char> bytes;  // count elements of the type's size
  std::vector<NodeRef> refs;         // CUDNN_TYPE_BACKEND_DESCRIPTOR: the descriptors instead
};

struct Node {
  const void* owner = &kThisCopy;
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  std::map<int, Attribute> attributes;

  explicit Node(cudnnBackendDescriptorType_t t) : type(t) {}
  const Attribute* Find(int name) const {
    auto it = attributes.find(name);
    return it != attributes.end() ? &it->second : nullptr;
  }
};

// Engine configs a finalized heuristics descriptor offers for any graph.
constexpr int64_t kHeuristicResults = 2;

// The descriptors the client holds, by address: a pointer not in it (another copy's, a destroyed
// one, garbage) is refused without being read.
std::mutex g_mutex;
std::unordered_map<const void*, NodeRef>& Live() {
  static auto* live = new std::unordered_map<const void*, NodeRef>;  // outlives static dtors
  return *live;
}

NodeRef Lookup(const void* desc) {
  auto it = Live().find(desc);
  return it != Live().end() && it->second->owner == &kThisCopy ? it->second : nullptr;
}

// Element size of each attribute type (cudnn_graph.h), 0 for a type cuDNN does not have.
size_t ElementSize(const cudnnBackendAttributeType_t& type) {
  switch (Raw(type)) {
    case CUDNN_TYPE_BOOLEAN:
      return sizeof(bool);
    case CUDNN_TYPE_CHAR:
      return sizeof(char);
    case CUDNN_TYPE_INT64:
    case CUDNN_TYPE_DOUBLE:
      return 8;
    case CUDNN_TYPE_FLOAT:
    case CUDNN_TYPE_INT32:
      return 4;
    case CUDNN_TYPE_HANDLE:
    case CUDNN_TYPE_VOID_PTR:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR:
      return sizeof(void*);
    case CUDNN_TYPE_FRACTION:
      return sizeof(cudnnFraction_t);
    default:  // the enum-valued types: DATA_TYPE, CONVOLUTION_MODE, ..., MOE_GROUPED_MATMUL_MODE
      return Raw(type) > CUDNN_TYPE_HANDLE && Raw(type) <= CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE ? 4
                                                                                              : 0;
  }
}

Attribute Descriptors(std::vector<NodeRef> refs) {
  Attribute a;
  a.type = CUDNN_TYPE_BACKEND_DESCRIPTOR;
  a.count = static_cast<int64_t>(refs.size());
  a.refs = std::move(refs);
  return a;
}

Attribute Int64(int64_t value) {
  Attribute a;
  a.type = CUDNN_TYPE_INT64;
  a.count = 1;
  a.bytes.resize(sizeof(value));
  std::memcpy(a.bytes.data(), &value, sizeof(value));
  return a;
}

// The first descriptor of a descriptor-typed attribute, or null.
NodeRef First(const Node& node, int name) {
  const Attribute* a = node.Find(name);
  return a != nullptr && a->type == CUDNN_TYPE_BACKEND_DESCRIPTOR && a->count > 0 ? a->refs[0]
                                                                                  : nullptr;
}

bool Has(const Node& node, int name, cudnnBackendAttributeType_t type) {
  const Attribute* a = node.Find(name);
  return a != nullptr && a->type == type && a->count > 0;
}

// What Finalize requires of each type; any other type finalizes as it is.
bool Complete(const Node& n) {
  switch (n.type) {
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
      return Has(n, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE) &&
             Has(n, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
      return Has(n, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE) &&
             Has(n, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR);
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
      return Has(n, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR) &&
             Has(n, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE);
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
      return Has(n, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR) &&
             Has(n, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64);
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
      return Has(n, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR);
    default:
      return true;
  }
}

// The descriptors a caller passed to receive copies: all this copy's, of the type expected.
bool Receivers(void* array, int64_t n, cudnnBackendDescriptorType_t type, NodeRef* out) {
  auto* descs = static_cast<cudnnBackendDescriptor_t*>(array);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = Lookup(descs[i]);
    if (out[i] == nullptr || out[i]->type != type) return false;
  }
  return true;
}

// CUDNN_ATTR_ENGINEHEUR_RESULTS: engine configs, each with its own finalized engine on the
// heuristics' graph (global index = rank).
cudnnStatus_t HeuristicResults(const Node& heur, int64_t requested, int64_t* count, void* array) {
  NodeRef graph = First(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
  if (count != nullptr) *count = kHeuristicResults;
  const int64_t n = std::min(requested, kHeuristicResults);
  NodeRef cfgs[kHeuristicResults];
  if (graph == nullptr || !Receivers(array, n, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, cfgs)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  for (int64_t i = 0; i < n; ++i) {
    auto engine = std::make_shared<Node>(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    engine->attributes[CUDNN_ATTR_ENGINE_OPERATION_GRAPH] = Descriptors({graph});
    engine->attributes[CUDNN_ATTR_ENGINE_GLOBAL_INDEX] = Int64(i);
    engine->finalized = true;
    cfgs[i]->attributes.clear();
    cfgs[i]->attributes[CUDNN_ATTR_ENGINECFG_ENGINE] = Descriptors({engine});
    cfgs[i]->attributes[CUDNN_ATTR_ENGINECFG_KNOB_CHOICES] = Descriptors({});
    cfgs[i]->attributes[CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE] = Int64(0);
    cfgs[i]->finalized = true;
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

FAKE_EXPORT cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type,
                                                       cudnnBackendDescriptor_t* desc) {
  if (desc == nullptr || Raw(type) < CUDNN_BACKEND_POINTWISE_DESCRIPTOR ||
      Raw(type) > CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  auto node = std::make_shared<Node>(type);
  std::lock_guard<std::mutex> lock(g_mutex);
  Live()[node.get()] = node;
  *desc = node.get();
  return Count(k_cudnnBackendCreateDescriptor, CUDNN_STATUS_SUCCESS);
}

// The node lives on while another descriptor refers to it.
FAKE_EXPORT cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t desc) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (Lookup(desc) == nullptr) return CUDNN_STATUS_BAD_PARAM;
  Live().erase(desc);
  return Count(k_cudnnBackendDestroyDescriptor, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t desc,
                                                   cudnnBackendAttributeName_t name,
                                                   cudnnBackendAttributeType_t type, int64_t count,
                                                   const void* array) {
  std::lock_guard<std::mutex> lock(g_mutex);
  NodeRef node = Lookup(desc);
  const size_t size = ElementSize(type);
  if (node == nullptr || size == 0 || Raw(name) < 0 || count < 0 ||
      (count > 0 && array == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  // A finalized descriptor is frozen: cuDNN 9.19 answers BAD_PARAM (probed on the real library).
  if (node->finalized) return CUDNN_STATUS_BAD_PARAM;
  Attribute a;
  a.type = type;
  a.count = count;
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    const auto* descs = static_cast<const cudnnBackendDescriptor_t*>(array);
    for (int64_t i = 0; i < count; ++i) {
      NodeRef ref = Lookup(descs[i]);
      if (ref == nullptr || ref == node) return CUDNN_STATUS_BAD_PARAM;  // a loop would leak
      a.refs.push_back(std::move(ref));
    }
  } else {
    if (type == CUDNN_TYPE_HANDLE) {
      const auto* handles = static_cast<const cudnnHandle_t*>(array);
      for (int64_t i = 0; i < count; ++i) {
        if (!IsMyHandle(handles[i])) return CUDNN_STATUS_BAD_PARAM;
      }
    }
    const auto* bytes = static_cast<const unsigned char*>(array);
    a.bytes.assign(bytes, bytes + count * size);
  }
  node->attributes[Raw(name)] = std::move(a);
  return Count(k_cudnnBackendSetAttribute, CUDNN_STATUS_SUCCESS);
}

// *count is the attribute's own element count; min(requested, count) elements are written.
// requested 0 with a null array asks for the count only.
FAKE_EXPORT cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const desc,
                                                   cudnnBackendAttributeName_t name,
                                                   cudnnBackendAttributeType_t type,
                                                   int64_t requested, int64_t* count, void* array) {
  std::lock_guard<std::mutex> lock(g_mutex);
  NodeRef node = Lookup(desc);
  if (node == nullptr || requested < 0 || (requested > 0 && array == nullptr) ||
      (array == nullptr && count == nullptr)) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  if (!node->finalized) return CUDNN_STATUS_NOT_INITIALIZED;  // what cuDNN 9 says
  if (node->type == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR &&
      Raw(name) == CUDNN_ATTR_ENGINEHEUR_RESULTS) {
    if (Raw(type) != CUDNN_TYPE_BACKEND_DESCRIPTOR) return CUDNN_STATUS_BAD_PARAM;
    return Count(k_cudnnBackendGetAttribute, HeuristicResults(*node, requested, count, array));
  }
  const Attribute* a = node->Find(Raw(name));
  if (a == nullptr || a->type != Raw(type)) return CUDNN_STATUS_BAD_PARAM;
  const int64_t stored = a->count;  // `a` dies if the caller receives into this very descriptor
  const int64_t n = std::min(requested, stored);
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    std::vector<NodeRef> into(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (!Receivers(static_cast<cudnnBackendDescriptor_t*>(array) + i, 1, a->refs[i]->type,
                     &into[i])) {
        return CUDNN_STATUS_BAD_PARAM;
      }
    }
    // Copies of the descriptors, not the descriptors: as cuDNN hands them out.
    const std::vector<NodeRef> from(a->refs.begin(), a->refs.begin() + n);
    for (int64_t i = 0; i < n; ++i) {
      if (into[i] != from[i]) into[i]->attributes = from[i]->attributes;
      into[i]->finalized = from[i]->finalized;
    }
  } else if (n > 0) {
    std::memcpy(array, a->bytes.data(), static_cast<size_t>(n) * ElementSize(type));
  }
  if (count != nullptr) *count = stored;
  return Count(k_cudnnBackendGetAttribute, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t desc) {
  std::lock_guard<std::mutex> lock(g_mutex);
  NodeRef node = Lookup(desc);
  if (node == nullptr || node->finalized || !Complete(*node)) return CUDNN_STATUS_BAD_PARAM;
  if (node->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR &&
      node->Find(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE) == nullptr) {
    node->attributes[CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE] = Int64(0);  // it needs none
  }
  node->finalized = true;
  return Count(k_cudnnBackendFinalize, CUDNN_STATUS_SUCCESS);
}

FAKE_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                                              cudnnBackendDescriptor_t variant_pack) {
  std::lock_guard<std::mutex> lock(g_mutex);
  NodeRef p = Lookup(plan);
  NodeRef pack = Lookup(variant_pack);
  if (!IsMyHandle(handle) || p == nullptr || p->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
      !p->finalized || pack == nullptr || pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  return Count(k_cudnnBackendExecute, ChosenStatus(), true);
}
