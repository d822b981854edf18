// (b), (c), (d): programs that find the driver themselves, without linking it.
//   driver_app procaddress  what cudart does: dlopen + dlsym(cuGetProcAddress_v2), the
//                           cuGetProcAddress self-lookup, lookups with flags 0 and 2, launches
//                           through the returned pointers (program (b))
//   driver_app triton       Triton: dlsym(dlopen("libcuda.so.1"), "cuLaunchKernelEx") with a
//                           CUlaunchConfig carrying a cluster dimension (program (c))
//   driver_app streams      the default-stream handles through cuLaunchKernel and _ptsz (d)
//   driver_app copies       every copy and set of the array, unaligned 2D, 3D peer, 2D 16-bit
//                           and batch families, each through a cuGetProcAddress pointer of each
//                           form (flags 0 and 2; the batch copies' CUDA 12.8 and 13.0 ABIs), with
//                           byte counts that tell the calls apart (launch_test.cpp lists them)
//   driver_app graphs       CUDA graphs: an eager launch, a stream capture of two kernels
//                           instantiated and launched 3 times, a graph built with
//                           cuGraphAddKernelNode launched twice, its node changed in the
//                           executable graph and launched once, the first executable updated
//                           from a second capture and launched once, then everything destroyed
//   driver_app catalog      an ATen double-mean reduce_kernel launched, then again after a
//                           pause: flopspy keeps more of its parameter bytes once its flusher
//                           has classified the kernel (the catalog's model reads 28 bytes)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "app_util.h"
#include "attention_params.h"
#include "fake_cuda.h"

namespace {

using launchtest::Print;

template <class F>
F Sym(void* h, const char* name) {
  return reinterpret_cast<F>(dlsym(h, name));
}

const char* YesNo(bool b) {
  return b ? "yes" : "no";
}

struct AtenParams {
  explicit AtenParams(int count) : n(count) {}
  AtenParams(const AtenParams&) = delete;
  AtenParams& operator=(const AtenParams&) = delete;
  int n;
  float functor[2] = {2.5f, 0.0f};
  char* data[2] = {nullptr, nullptr};
  void* params[3] = {&n, functor, data};
};

int RunProcAddress() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) return 10;
  const auto first = Sym<PFN_cuGetProcAddress_v12000>(h, "cuGetProcAddress_v2");
  if (first == nullptr) return 11;
  void* p = nullptr;
  CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
  Print("probe", first("", &p, 0, 0, &st));
  Print("probe status", st);
  Print("lookup cuInit", first("cuInit", &p, 2000, 0, &st));
  Print("cuInit", reinterpret_cast<PFN_cuInit_v2000>(p)(0));
  Print("lookup cuGetProcAddress 12000", first("cuGetProcAddress", &p, 12000, 0, &st));
  const auto gp = reinterpret_cast<PFN_cuGetProcAddress_v12000>(p);
  std::printf("self lookup returns the function asked: %s\n",
              YesNo(reinterpret_cast<void*>(first) == p));
  Print("lookup cuGetProcAddress 11030", gp("cuGetProcAddress", &p, 11030, 0, &st));
  const auto gp1 = reinterpret_cast<PFN_cuGetProcAddress_v11030>(p);

  void* legacy = nullptr;
  void* per_thread = nullptr;
  void* legacy_again = nullptr;
  void* per_thread_v1 = nullptr;
  Print("lookup cuLaunchKernel 4000/0", gp("cuLaunchKernel", &legacy, 4000, 0, &st));
  Print("lookup cuLaunchKernel 7000/2", gp("cuLaunchKernel", &per_thread, 7000, 2, &st));
  Print("lookup cuLaunchKernel 12000/0", gp("cuLaunchKernel", &legacy_again, 12000, 0, &st));
  Print("lookup v1 cuLaunchKernel 7000/2", gp1("cuLaunchKernel", &per_thread_v1, 7000, 2));
  std::printf("legacy and per-thread pointers distinct: %s\n", YesNo(legacy != per_thread));
  std::printf("legacy pointer stable: %s\n", YesNo(legacy == legacy_again));
  std::printf("per-thread pointer same through v1: %s\n", YesNo(per_thread == per_thread_v1));
  // The same with and without flopspy: its wrappers for both, or the driver's own pointers.
  std::printf("cuGetProcAddress returns the exported cuLaunchKernel: %s\n",
              YesNo(legacy == dlsym(h, "cuLaunchKernel")));

  CUmodule module = nullptr;
  CUfunction aten = nullptr, sync = nullptr;
  CUkernel add_kernel = nullptr;
  void* q = nullptr;
  gp("cuModuleLoadData", &q, 2000, 0, &st);
  Print("cuModuleLoadData", reinterpret_cast<PFN_cuModuleLoadData_v2000>(q)(&module, "cubin"));
  gp("cuModuleGetFunction", &q, 2000, 0, &st);
  const auto get_function = reinterpret_cast<PFN_cuModuleGetFunction_v2000>(q);
  Print("cuModuleGetFunction", get_function(&aten, module, fakecuda::kAtenMul));
  Print("cuModuleGetFunction", get_function(&sync, module, fakecuda::kGridSync));
  gp("cuLibraryGetKernel", &q, 12000, 0, &st);
  Print("cuLibraryGetKernel", reinterpret_cast<PFN_cuLibraryGetKernel_v12000>(q)(
                                  &add_kernel, nullptr, fakecuda::kAddKernel));

  const auto launch = reinterpret_cast<PFN_cuLaunchKernel_v4000>(legacy);
  const auto launch_ptsz = reinterpret_cast<PFN_cuLaunchKernel_v7000_ptsz>(per_thread);
  const auto launch_ptsz_v1 = reinterpret_cast<PFN_cuLaunchKernel_v7000_ptsz>(per_thread_v1);
  AtenParams a(12345), b(54321), c(4242);
  Print("cuLaunchKernel", launch(aten, 10, 2, 1, 256, 1, 1, 0, nullptr, a.params, nullptr));
  Print("cuLaunchKernel_ptsz",
        launch_ptsz(aten, 5, 1, 1, 128, 1, 1, 64, nullptr, b.params, nullptr));
  Print("cuLaunchKernel_ptsz via v1",
        launch_ptsz_v1(aten, 6, 1, 1, 128, 1, 1, 0, nullptr, c.params, nullptr));

  // Parameters in one buffer (CU_LAUNCH_PARAM_BUFFER_POINTER), laid out as the kernel's layout.
  unsigned char buffer[32] = {};
  const int n_extra = 777;
  std::memcpy(buffer, &n_extra, 4);
  size_t size = sizeof(buffer);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  Print("cuLaunchKernel extra", launch(aten, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra));

  // A CUkernel passed where a CUfunction is expected (cuLaunchKernel accepts it since 12.0).
  int n_add = 21;
  float* out = nullptr;
  const float* in = nullptr;
  void* add_params[] = {&n_add, &out, &in};
  Print("cuLaunchKernel CUkernel", launch(reinterpret_cast<CUfunction>(add_kernel), 7, 1, 1, 32, 1,
                                          1, 0, nullptr, add_params, nullptr));
  // An invalid handle: the driver's error must reach the program unchanged.
  AtenParams bad(999);
  Print("cuLaunchKernel bad handle", launch(reinterpret_cast<CUfunction>(0x1234), 1, 1, 1, 1, 1, 1,
                                            0, nullptr, bad.params, nullptr));

  void* ex = nullptr;
  void* ex_ptsz = nullptr;
  gp("cuLaunchKernelEx", &ex, 11060, 0, &st);
  gp("cuLaunchKernelEx", &ex_ptsz, 11060, 2, &st);
  CUlaunchConfig config{};
  config.gridDimX = 3, config.gridDimY = 1, config.gridDimZ = 1;
  config.blockDimX = 64, config.blockDimY = 1, config.blockDimZ = 1;
  AtenParams d(31), e(32);
  Print("cuLaunchKernelEx",
        reinterpret_cast<PFN_cuLaunchKernelEx_v11060>(ex)(&config, aten, d.params, nullptr));
  config.hStream = CU_STREAM_PER_THREAD;
  Print("cuLaunchKernelEx_ptsz",
        reinterpret_cast<PFN_cuLaunchKernelEx_v11060>(ex_ptsz)(&config, aten, e.params, nullptr));

  void* coop = nullptr;
  void* coop_ptsz = nullptr;
  gp("cuLaunchCooperativeKernel", &coop, 9000, 0, &st);
  gp("cuLaunchCooperativeKernel", &coop_ptsz, 9000, 2, &st);
  int* flags = nullptr;
  int n3 = 3, n4 = 4;
  void* sync3[] = {&flags, &n3};
  void* sync4[] = {&flags, &n4};
  Print("cuLaunchCooperativeKernel", reinterpret_cast<PFN_cuLaunchCooperativeKernel_v9000>(coop)(
                                         sync, 4, 1, 1, 32, 1, 1, 0, nullptr, sync3));
  Print("cuLaunchCooperativeKernel_ptsz",
        reinterpret_cast<PFN_cuLaunchCooperativeKernel_v9000>(coop_ptsz)(sync, 2, 1, 1, 32, 1, 1, 0,
                                                                         nullptr, sync4));

  static int graph_object = 0;
  gp("cuGraphLaunch", &q, 10000, 0, &st);
  Print("cuGraphLaunch", reinterpret_cast<PFN_cuGraphLaunch_v10000>(q)(
                             reinterpret_cast<CUgraphExec>(&graph_object), nullptr));
  gp("cuStreamSynchronize", &q, 2000, 0, &st);
  Print("cuStreamSynchronize", reinterpret_cast<PFN_cuStreamSynchronize_v2000>(q)(nullptr));
  gp("cuStreamSynchronize", &q, 7000, 2, &st);
  Print("cuStreamSynchronize_ptsz", reinterpret_cast<PFN_cuStreamSynchronize_v2000>(q)(nullptr));
  gp("cuCtxSynchronize", &q, 2000, 0, &st);
  Print("cuCtxSynchronize", reinterpret_cast<PFN_cuCtxSynchronize_v2000>(q)());
  gp("cuCtxSynchronize", &q, 13000, 0, &st);
  Print("cuCtxSynchronize_v2", reinterpret_cast<PFN_cuCtxSynchronize_v13000>(q)(nullptr));
  static char host[128];
  gp("cuMemcpyHtoD", &q, 3020, 0, &st);
  Print("cuMemcpyHtoD_v2", reinterpret_cast<PFN_cuMemcpyHtoD_v3020>(q)(0x1000, host, 128));
  gp("cuMemcpyHtoD", &q, 7000, 2, &st);
  Print("cuMemcpyHtoD_v2_ptds", reinterpret_cast<PFN_cuMemcpyHtoD_v3020>(q)(0x1000, host, 64));
  gp("cuMemsetD32Async", &q, 3020, 2, &st);
  Print("cuMemsetD32Async_ptsz",
        reinterpret_cast<PFN_cuMemsetD32Async_v3020>(q)(0x1000, 7u, 16, nullptr));

  // Lookups that fail must fail the same way through a wrapper.
  q = reinterpret_cast<void*>(0x1);
  Print("lookup cuLaunchKernelEx 11000", gp("cuLaunchKernelEx", &q, 11000, 0, &st));
  Print("lookup status", st);
  std::printf("pointer cleared: %s\n", YesNo(q == nullptr));
  Print("lookup cuNoSuchFunction", gp("cuNoSuchFunction", &q, 13000, 0, &st));
  Print("lookup status", st);
  return 0;
}

int RunTriton() {
  void* h = dlopen("libcuda.so.1", RTLD_LAZY);
  if (h == nullptr) return 10;
  const auto launch = Sym<PFN_cuLaunchKernelEx_v11060>(h, "cuLaunchKernelEx");
  const auto launch_ptsz = Sym<PFN_cuLaunchKernelEx_v11060_ptsz>(h, "cuLaunchKernelEx_ptsz");
  const auto init = Sym<PFN_cuInit_v2000>(h, "cuInit");
  const auto load = Sym<PFN_cuModuleLoadData_v2000>(h, "cuModuleLoadData");
  const auto get_function = Sym<PFN_cuModuleGetFunction_v2000>(h, "cuModuleGetFunction");
  const auto create_stream = Sym<PFN_cuStreamCreate_v2000>(h, "cuStreamCreate");
  if (!launch || !launch_ptsz || !init || !load || !get_function || !create_stream) return 11;
  Print("cuInit", init(0));
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  CUstream stream = nullptr;
  Print("cuModuleLoadData", load(&module, "triton cubin"));
  Print("cuModuleGetFunction", get_function(&f, module, fakecuda::kTritonAdd));
  Print("cuStreamCreate", create_stream(&stream, 0));

  // As triton's driver.c builds it.
  CUlaunchAttribute attrs[4] = {};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attrs[0].value.programmaticStreamSerializationAllowed = 0;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attrs[1].value.cooperative = 0;
  attrs[2].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attrs[2].value.clusterDim.x = 2, attrs[2].value.clusterDim.y = 1;
  attrs[2].value.clusterDim.z = 1;
  attrs[3].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
  attrs[3].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  CUlaunchConfig config{};
  config.gridDimX = 64, config.gridDimY = 1, config.gridDimZ = 1;
  config.blockDimX = 128, config.blockDimY = 1, config.blockDimZ = 1;
  config.sharedMemBytes = 1024;
  config.hStream = stream;
  config.attrs = attrs;
  config.numAttrs = 4;

  void* in0 = nullptr;
  void* in1 = nullptr;
  void* out = nullptr;
  for (int xnumel : {8192, 4096, 100}) {
    void* params[] = {&in0, &in1, &out, &xnumel};
    Print("cuLaunchKernelEx", launch(&config, f, params, nullptr));
  }
  unsigned char buffer[28] = {};
  const int xnumel = 2048;
  std::memcpy(buffer + 24, &xnumel, 4);
  size_t size = sizeof(buffer);
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  Print("cuLaunchKernelEx extra", launch(&config, f, nullptr, extra));

  // A cluster that does not divide the grid: the driver refuses it.
  attrs[2].value.clusterDim.x = 3;
  int bad = 5;
  void* bad_params[] = {&in0, &in1, &out, &bad};
  Print("cuLaunchKernelEx bad cluster", launch(&config, f, bad_params, nullptr));

  CUlaunchConfig simple{};
  simple.gridDimX = 1, simple.gridDimY = 1, simple.gridDimZ = 1;
  simple.blockDimX = 32, simple.blockDimY = 1, simple.blockDimZ = 1;
  int small = 64;
  void* small_params[] = {&in0, &in1, &out, &small};
  Print("cuLaunchKernelEx_ptsz", launch_ptsz(&simple, f, small_params, nullptr));
  return 0;
}

int RunStreams() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) return 10;
  const auto launch = Sym<PFN_cuLaunchKernel_v4000>(h, "cuLaunchKernel");
  const auto launch_ptsz = Sym<PFN_cuLaunchKernel_v7000_ptsz>(h, "cuLaunchKernel_ptsz");
  const auto init = Sym<PFN_cuInit_v2000>(h, "cuInit");
  const auto load = Sym<PFN_cuModuleLoadData_v2000>(h, "cuModuleLoadData");
  const auto get_function = Sym<PFN_cuModuleGetFunction_v2000>(h, "cuModuleGetFunction");
  const auto create_stream = Sym<PFN_cuStreamCreate_v2000>(h, "cuStreamCreate");
  if (!launch || !launch_ptsz || !init || !load || !get_function || !create_stream) return 11;
  Print("cuInit", init(0));
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  CUstream stream = nullptr;
  Print("cuModuleLoadData", load(&module, "cubin"));
  Print("cuModuleGetFunction", get_function(&f, module, fakecuda::kAddKernel));
  Print("cuStreamCreate", create_stream(&stream, 0));
  float* out = nullptr;
  const float* in = nullptr;
  auto run = [&](const char* what, bool per_thread, CUstream s, int n) {
    void* params[] = {&n, &out, &in};
    Print(what, per_thread ? launch_ptsz(f, 1, 1, 1, 32, 1, 1, 0, s, params, nullptr)
                           : launch(f, 1, 1, 1, 32, 1, 1, 0, s, params, nullptr));
  };
  run("cuLaunchKernel stream 0", false, nullptr, 1);
  run("cuLaunchKernel CU_STREAM_LEGACY", false, CU_STREAM_LEGACY, 2);
  run("cuLaunchKernel CU_STREAM_PER_THREAD", false, CU_STREAM_PER_THREAD, 3);
  run("cuLaunchKernel_ptsz stream 0", true, nullptr, 4);
  run("cuLaunchKernel_ptsz created stream", true, stream, 5);
  run("cuLaunchKernel created stream", false, stream, 6);
  run("cuLaunchKernel_ptsz CU_STREAM_LEGACY", true, CU_STREAM_LEGACY, 7);
  return 0;
}

int RunCopies() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) return 10;
  const auto gp = Sym<PFN_cuGetProcAddress_v12000>(h, "cuGetProcAddress_v2");
  if (gp == nullptr) return 11;
  // The pointer for `name` at `version`, legacy (flags 0) or per-thread (flags 2).
  const auto get = [&](const char* name, int version, bool per_thread) -> void* {
    void* p = nullptr;
    const CUresult r = gp(name, &p, version, per_thread ? 2 : 0, nullptr);
    return r == CUDA_SUCCESS ? p : nullptr;
  };
  Print("cuInit", reinterpret_cast<PFN_cuInit_v2000>(get("cuInit", 2000, false))(0));
  CUstream stream = nullptr;
  Print("cuStreamCreate",
        reinterpret_cast<PFN_cuStreamCreate_v2000>(get("cuStreamCreate", 2000, false))(&stream, 0));
  static char host[1 << 16];
  const auto device = reinterpret_cast<CUdeviceptr>(host);
  const auto array = reinterpret_cast<CUarray>(host + 64);  // the fake does not look inside

  for (int pt = 0; pt < 2; ++pt) {
    const bool per_thread = pt == 1;
    const int v7 = per_thread ? 7000 : 3020;  // the per-thread forms came with CUDA 7.0
    const size_t b = per_thread ? 100 : 0;    // per-thread calls move 100 more bytes
    // 16-bit 2D sets: width x height elements of 2 bytes.
    Print("cuMemsetD2D16", reinterpret_cast<PFN_cuMemsetD2D16_v3020>(
                               get("cuMemsetD2D16", v7, per_thread))(device, 4096, 7, 1001 + b, 1));
    Print("cuMemsetD2D16Async",
          reinterpret_cast<PFN_cuMemsetD2D16Async_v3020>(get("cuMemsetD2D16Async", v7, per_thread))(
              device, 4096, 7, 1002 + b, 1, stream));
    CUDA_MEMCPY2D copy2d{};
    copy2d.srcMemoryType = CU_MEMORYTYPE_HOST, copy2d.srcHost = host;
    copy2d.dstMemoryType = CU_MEMORYTYPE_ARRAY, copy2d.dstArray = array;
    copy2d.WidthInBytes = 1003 + b, copy2d.Height = 1;
    Print("cuMemcpy2DUnaligned", reinterpret_cast<PFN_cuMemcpy2DUnaligned_v3020>(
                                     get("cuMemcpy2DUnaligned", v7, per_thread))(&copy2d));
    CUDA_MEMCPY3D_PEER peer{};
    peer.srcMemoryType = CU_MEMORYTYPE_DEVICE, peer.srcDevice = device;
    peer.dstMemoryType = CU_MEMORYTYPE_DEVICE, peer.dstDevice = device;
    peer.WidthInBytes = 1004 + b, peer.Height = 1, peer.Depth = 1;
    const int v40 = per_thread ? 7000 : 4000;
    Print("cuMemcpy3DPeer", reinterpret_cast<PFN_cuMemcpy3DPeer_v4000>(
                                get("cuMemcpy3DPeer", v40, per_thread))(&peer));
    peer.WidthInBytes = 1005 + b;
    Print("cuMemcpy3DPeerAsync", reinterpret_cast<PFN_cuMemcpy3DPeerAsync_v4000>(
                                     get("cuMemcpy3DPeerAsync", v40, per_thread))(&peer, stream));
    // Arrays.
    Print("cuMemcpyDtoA", reinterpret_cast<PFN_cuMemcpyDtoA_v3020>(
                              get("cuMemcpyDtoA", v7, per_thread))(array, 16, device, 1006 + b));
    Print("cuMemcpyAtoD", reinterpret_cast<PFN_cuMemcpyAtoD_v3020>(
                              get("cuMemcpyAtoD", v7, per_thread))(device, array, 16, 1007 + b));
    Print("cuMemcpyHtoA", reinterpret_cast<PFN_cuMemcpyHtoA_v3020>(
                              get("cuMemcpyHtoA", v7, per_thread))(array, 16, host, 1008 + b));
    Print("cuMemcpyAtoH", reinterpret_cast<PFN_cuMemcpyAtoH_v3020>(
                              get("cuMemcpyAtoH", v7, per_thread))(host, array, 16, 1009 + b));
    Print("cuMemcpyAtoA", reinterpret_cast<PFN_cuMemcpyAtoA_v3020>(
                              get("cuMemcpyAtoA", v7, per_thread))(array, 0, array, 16, 1010 + b));
    Print("cuMemcpyHtoAAsync",
          reinterpret_cast<PFN_cuMemcpyHtoAAsync_v3020>(get("cuMemcpyHtoAAsync", v7, per_thread))(
              array, 16, host, 1011 + b, stream));
    Print("cuMemcpyAtoHAsync",
          reinterpret_cast<PFN_cuMemcpyAtoHAsync_v3020>(get("cuMemcpyAtoHAsync", v7, per_thread))(
              host, array, 16, 1012 + b, stream));
    // Batches: two copies of (1013 + b) and 7 bytes; two 3D operations of (1014 + b) x 1 x 1 and
    // 3 x 2 x 4 elements. Each in the CUDA 12.8 ABI (failIdx) and the 13.0 ABI.
    CUdeviceptr dsts[2] = {device, device + 4096};
    CUdeviceptr srcs[2] = {device + 8192, device + 12288};
    size_t sizes[2] = {1013 + b, 7};
    CUmemcpyAttributes attrs{};
    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    size_t attr_index = 0, fail = 0;
    Print("cuMemcpyBatchAsync 12080",
          reinterpret_cast<PFN_cuMemcpyBatchAsync_v12080>(
              get("cuMemcpyBatchAsync", 12080, per_thread))(dsts, srcs, sizes, 2, &attrs,
                                                            &attr_index, 1, &fail, stream));
    sizes[0] = 1015 + b;
    Print("cuMemcpyBatchAsync 13000", reinterpret_cast<PFN_cuMemcpyBatchAsync_v13000>(
                                          get("cuMemcpyBatchAsync", 13000, per_thread))(
                                          dsts, srcs, sizes, 2, &attrs, &attr_index, 1, stream));
    CUDA_MEMCPY3D_BATCH_OP ops[2] = {};
    for (CUDA_MEMCPY3D_BATCH_OP& op : ops) {
      op.src.type = op.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
      op.src.op.ptr.ptr = device, op.dst.op.ptr.ptr = device + 8192;
      op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    }
    ops[0].extent = {1014 + b, 1, 1};
    ops[1].extent = {3, 2, 4};
    Print("cuMemcpy3DBatchAsync 12080",
          reinterpret_cast<PFN_cuMemcpy3DBatchAsync_v12080>(
              get("cuMemcpy3DBatchAsync", 12080, per_thread))(2, ops, &fail, 0, stream));
    ops[0].extent = {1016 + b, 1, 1};
    Print("cuMemcpy3DBatchAsync 13000",
          reinterpret_cast<PFN_cuMemcpy3DBatchAsync_v13000>(
              get("cuMemcpy3DBatchAsync", 13000, per_thread))(2, ops, 0, stream));
  }
  return 0;
}

// Loads `kernel` through the driver's symbols and launches it twice with one by-value parameter,
// printing "cuLaunchKernel <what> first|later". The pause between lets the flusher (every 10 ms
// in the tests) define the kernel, so that the later launch keeps the bytes the catalog asks for.
int LaunchTwiceAfterItsDefinition(const char* kernel, void* param, const char* what, unsigned gx,
                                  unsigned gy, unsigned gz, unsigned bx) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) return 10;
  const auto launch = Sym<PFN_cuLaunchKernel_v4000>(h, "cuLaunchKernel");
  const auto init = Sym<PFN_cuInit_v2000>(h, "cuInit");
  const auto load = Sym<PFN_cuModuleLoadData_v2000>(h, "cuModuleLoadData");
  const auto get_function = Sym<PFN_cuModuleGetFunction_v2000>(h, "cuModuleGetFunction");
  if (!launch || !init || !load || !get_function) return 11;
  Print("cuInit", init(0));
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  Print("cuModuleLoadData", load(&module, "cubin"));
  Print("cuModuleGetFunction", get_function(&f, module, kernel));
  void* params[] = {param};
  const std::string label = std::string("cuLaunchKernel ") + what;
  Print((label + " first").c_str(), launch(f, gx, gy, gz, bx, 1, 1, 0, nullptr, params, nullptr));
  usleep(500 * 1000);
  Print((label + " later").c_str(), launch(f, gx, gy, gz, bx, 1, 1, 0, nullptr, params, nullptr));
  return 0;
}

int RunCatalog() {
  // ReduceOp<double, MeanOps<double...>>: factor, ident, then ReduceConfig's
  // element_size_bytes = sizeof(double), num_inputs (per output), num_outputs.
  unsigned char op[fakecuda::kReduceOpBytes] = {};
  const double factor = 1.0 / 4096, ident = 0.0;
  const int config[3] = {8, 4096, 16};
  std::memcpy(op, &factor, 8);
  std::memcpy(op + 8, &ident, 8);
  std::memcpy(op + 16, config, sizeof(config));
  return LaunchTwiceAfterItsDefinition(fakecuda::kAtenMeanDouble, op, "reduce", 16, 1, 1, 512);
}

// FlashAttention 2's forward kernel with its parameter struct by value: b 2, h 16 (h_k 4: GQA),
// s 1024, d 128.
int RunAttention() {
  const auto shape = flopspy::analyzers::attention_test::AttnFa2Of({2, 16, 4, 1024, 1024, 128});
  unsigned char bytes[fakecuda::kFlashParamsBytes] = {};
  static_assert(sizeof(shape) <= sizeof(bytes));
  std::memcpy(bytes, &shape, sizeof(shape));
  return LaunchTwiceAfterItsDefinition(fakecuda::kFlashAttnFwd, bytes, "attention", 8, 32, 2, 128);
}

// The element counts tell the graphs' kernels apart (launch_test.cpp, "CUDA graphs").
int RunGraphs() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW);
  if (h == nullptr) return 10;
  const auto init = Sym<PFN_cuInit_v2000>(h, "cuInit");
  const auto load = Sym<PFN_cuModuleLoadData_v2000>(h, "cuModuleLoadData");
  const auto get_function = Sym<PFN_cuModuleGetFunction_v2000>(h, "cuModuleGetFunction");
  const auto stream_create = Sym<PFN_cuStreamCreate_v2000>(h, "cuStreamCreate");
  const auto launch = Sym<PFN_cuLaunchKernel_v4000>(h, "cuLaunchKernel");
  const auto begin = Sym<PFN_cuStreamBeginCapture_v10010>(h, "cuStreamBeginCapture_v2");
  const auto end = Sym<PFN_cuStreamEndCapture_v10000>(h, "cuStreamEndCapture");
  const auto instantiate =
      Sym<PFN_cuGraphInstantiateWithFlags_v11040>(h, "cuGraphInstantiateWithFlags");
  const auto graph_launch = Sym<PFN_cuGraphLaunch_v10000>(h, "cuGraphLaunch");
  const auto create = Sym<PFN_cuGraphCreate_v10000>(h, "cuGraphCreate");
  const auto add_node = Sym<PFN_cuGraphAddKernelNode_v12000>(h, "cuGraphAddKernelNode_v2");
  const auto exec_set =
      Sym<PFN_cuGraphExecKernelNodeSetParams_v12000>(h, "cuGraphExecKernelNodeSetParams_v2");
  const auto update = Sym<PFN_cuGraphExecUpdate_v12000>(h, "cuGraphExecUpdate_v2");
  const auto exec_destroy = Sym<PFN_cuGraphExecDestroy_v10000>(h, "cuGraphExecDestroy");
  const auto destroy = Sym<PFN_cuGraphDestroy_v10000>(h, "cuGraphDestroy");
  if (!init || !load || !get_function || !stream_create || !launch || !begin || !end ||
      !instantiate || !graph_launch || !create || !add_node || !exec_set || !update ||
      !exec_destroy || !destroy) {
    return 11;
  }
  Print("cuInit", init(0));
  CUmodule module = nullptr;
  CUfunction mul = nullptr, add = nullptr;
  Print("cuModuleLoadData", load(&module, "cubin"));
  Print("cuModuleGetFunction mul", get_function(&mul, module, fakecuda::kAtenMul));
  Print("cuModuleGetFunction add", get_function(&add, module, fakecuda::kAddKernel));
  CUstream s = nullptr;
  Print("cuStreamCreate", stream_create(&s, 0));
  // ATen's multiply takes (int N, functor, Array<char*, 2>); add_kernel (int N, float*, float*).
  const auto mul_on = [&](int n, CUstream stream) {
    AtenParams p(n);
    return launch(mul, (n + 511) / 512, 1, 1, 128, 1, 1, 0, stream, p.params, nullptr);
  };
  const auto add_on = [&](int n, CUstream stream) {
    float* x = nullptr;
    const float* y = nullptr;
    void* params[] = {&n, &x, &y};
    return launch(add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, params, nullptr);
  };
  const auto capture = [&](int mul_n, int add_n, CUgraph* graph) {
    Print("cuStreamBeginCapture", begin(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    Print("captured mul", mul_on(mul_n, s));
    Print("captured add", add_on(add_n, s));
    Print("cuStreamEndCapture", end(s, graph));
  };
  Print("eager mul", mul_on(111, s));
  CUgraph captured = nullptr, again = nullptr, built = nullptr;
  CUgraphExec exec = nullptr, built_exec = nullptr;
  capture(1000, 2000, &captured);
  Print("cuGraphInstantiateWithFlags", instantiate(&exec, captured, 0));
  for (int i = 0; i < 3; ++i) Print("cuGraphLaunch captured", graph_launch(exec, s));

  Print("cuGraphCreate", create(&built, 0));
  AtenParams p(3000);
  CUDA_KERNEL_NODE_PARAMS node_params{};
  node_params.func = mul;
  node_params.gridDimX = 6, node_params.gridDimY = 1, node_params.gridDimZ = 1;
  node_params.blockDimX = 128, node_params.blockDimY = 1, node_params.blockDimZ = 1;
  node_params.kernelParams = p.params;
  CUgraphNode node = nullptr;
  Print("cuGraphAddKernelNode", add_node(&node, built, nullptr, 0, &node_params));
  Print("cuGraphInstantiateWithFlags built", instantiate(&built_exec, built, 0));
  for (int i = 0; i < 2; ++i) Print("cuGraphLaunch built", graph_launch(built_exec, s));
  p.n = 4000;
  node_params.gridDimX = 8;
  Print("cuGraphExecKernelNodeSetParams", exec_set(built_exec, node, &node_params));
  Print("cuGraphLaunch built changed", graph_launch(built_exec, s));

  capture(5000, 6000, &again);
  CUgraphExecUpdateResultInfo info{};
  Print("cuGraphExecUpdate", update(exec, again, &info));
  Print("cuGraphLaunch updated", graph_launch(exec, s));

  Print("cuGraphExecDestroy", exec_destroy(exec));
  Print("cuGraphExecDestroy built", exec_destroy(built_exec));
  Print("cuGraphDestroy", destroy(captured));
  Print("cuGraphDestroy again", destroy(again));
  Print("cuGraphDestroy built", destroy(built));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  int status = 2;
  if (mode == "procaddress") status = RunProcAddress();
  if (mode == "triton") status = RunTriton();
  if (mode == "streams") status = RunStreams();
  if (mode == "catalog") status = RunCatalog();
  if (mode == "attention") status = RunAttention();
  if (mode == "copies") status = RunCopies();
  if (mode == "graphs") status = RunGraphs();
  launchtest::PrintFakeReports();
  return status;
}
