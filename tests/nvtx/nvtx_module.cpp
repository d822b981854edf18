// One NVTX client module, built twice (module a and module b): each shared library has its own
// NVTX loader, as libtorch_cuda, NCCL and cuDNN each do. FLOPSPY_MODULE is "a" or "b".
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCuda.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>

#define MODULE_TEXT(x) #x
#define MODULE_NAME(x) MODULE_TEXT(x)
#define RUN_NAME(x) RUN_NAME2(x)
#define RUN_NAME2(x) nvtx_module_##x##_run

namespace {

nvtxEventAttributes_t Attributes() {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

}  // namespace

// Makes every kind of NVTX event once; returns what NVTX returned, for the test to check.
__attribute__((visibility("default"))) std::string RUN_NAME(FLOPSPY_MODULE)() {
  const std::string m = MODULE_NAME(FLOPSPY_MODULE);
  std::string said;
  const auto say = [&said](const std::string& what) { said += (said.empty() ? "" : " ") + what; };

  nvtxNameOsThreadA(static_cast<uint32_t>(syscall(SYS_gettid)), ("main-" + m).c_str());
  nvtxNameCategoryA(7, ("cat-" + m).c_str());
  nvtxNameCuStreamA(reinterpret_cast<CUstream>(uintptr_t{0x1234}), ("stream-" + m).c_str());
  nvtxNameCudaDeviceA(0, ("gpu-" + m).c_str());
  const nvtxDomainHandle_t domain = nvtxDomainCreateA(("dom-" + m).c_str());
  const nvtxStringHandle_t registered =
      nvtxDomainRegisterStringA(domain, ("registered-" + m).c_str());
  nvtxDomainNameCategoryA(domain, 3, ("dcat-" + m).c_str());

  // Default domain: two nested pushes (one wide), a mark, pops, and one pop too many.
  say(std::to_string(nvtxRangePushA(("outer-" + m).c_str())));
  const std::wstring inner = L"inner-" + std::wstring(m.begin(), m.end()) + L"-\u00e9";
  say(std::to_string(nvtxRangePushW(inner.c_str())));
  nvtxMarkA(("mark-" + m).c_str());
  say(std::to_string(nvtxRangePop()));
  say(std::to_string(nvtxRangePop()));
  say(std::to_string(nvtxRangePop()));

  // The named domain: a push with a registered message, category and colour; a mark.
  nvtxEventAttributes_t a = Attributes();
  a.category = 3;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF00FF00u;
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = registered;
  say(std::to_string(nvtxDomainRangePushEx(domain, &a)));
  nvtxEventAttributes_t mark = Attributes();
  mark.messageType = NVTX_MESSAGE_TYPE_ASCII;
  const std::string mark_text = "dmark-" + m;
  mark.message.ascii = mark_text.c_str();
  nvtxDomainMarkEx(domain, &mark);
  say(std::to_string(nvtxDomainRangePop(domain)));

  // Start/end ranges: one ended here, one ended by another thread.
  const nvtxRangeId_t here = nvtxRangeStartA(("start-" + m).c_str());
  nvtxRangeEnd(here);
  nvtxEventAttributes_t wide = Attributes();
  wide.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  const std::wstring wide_text = L"dstart-" + std::wstring(m.begin(), m.end());
  wide.message.unicode = wide_text.c_str();
  const nvtxRangeId_t there = nvtxDomainRangeStartEx(domain, &wide);
  std::thread([domain, there] { nvtxDomainRangeEnd(domain, there); }).join();
  say(here != there && here != 0 && there != 0 ? "ids-unique" : "ids-clash");
  return said;
}
