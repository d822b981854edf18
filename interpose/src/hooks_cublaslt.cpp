// The cublasLtMatmul hook. Its decoder reads the descriptor and layouts back through the real
// libcublasLt's getters (hooks_cublaslt_decode.h).
#include "hooks_cublaslt_decode.h"
#include "library_resolver.h"

namespace flopspy::interpose::cublas {
namespace {

std::atomic<void*> g_desc_get{nullptr};
std::atomic<void*> g_layout_get{nullptr};

void* Getter(std::atomic<void*>& slot, const char* name) {
  void* f = slot.load(std::memory_order_acquire);
  if (__builtin_expect(f == nullptr, 0)) {
    f = ResolveReal(CudaLibrary::kBlasLt, name);
    if (f != nullptr) slot.store(f, std::memory_order_release);
  }
  return f;
}

}  // namespace

// A getter that cannot be found makes every record kLibDescriptorIncomplete (no report: the
// hook's own real function comes from the same library, so this does not happen in practice).
template <class I, class T1, class T2, class T3>
void DecodeLtMatmul(RawLibraryCall& raw, FLOPSPY_CUBLAS_PARAMS_LtMatmul(I, T1, T2, T3)) {
  LtGetters get;
  get.desc =
      reinterpret_cast<LtGetters::DescGet>(Getter(g_desc_get, "cublasLtMatmulDescGetAttribute"));
  get.layout = reinterpret_cast<LtGetters::LayoutGet>(
      Getter(g_layout_get, "cublasLtMatrixLayoutGetAttribute"));
  DecodeLtCall(get, raw, FLOPSPY_CUBLAS_ARGS_LtMatmul);
}

}  // namespace flopspy::interpose::cublas

FLOPSPY_CUBLAS_LT(FLOPSPY_CUBLAS_DEFINE_HOOK)
