// The cublasLtMatmul hook. Its decoder reads the descriptor and layouts back through the getters
// of the libcublasLt copy the call went to (hooks_cublaslt_decode.h): descriptors are opaque
// objects of that copy, which another copy (another major) may lay out differently.
#include "hooks_cublaslt_decode.h"

namespace flopspy::interpose::cublas {

// A getter that cannot be found makes every record kLibDescriptorIncomplete (no report: the
// hook's own real function comes from the same library, so this does not happen in practice).
template <class I, class T1, class T2, class T3>
void DecodeLtMatmul(RawLibraryCall& raw, LibraryCopy* lib,
                    FLOPSPY_CUBLAS_PARAMS_LtMatmul(I, T1, T2, T3)) {
  LtGetters get;
  if (lib != nullptr) {
    get.desc = reinterpret_cast<LtGetters::DescGet>(
        lib->Beside(kSlotLtMatmulDescGet, "cublasLtMatmulDescGetAttribute"));
    get.layout = reinterpret_cast<LtGetters::LayoutGet>(
        lib->Beside(kSlotLtMatrixLayoutGet, "cublasLtMatrixLayoutGetAttribute"));
  }
  DecodeLtCall(get, raw, FLOPSPY_CUBLAS_ARGS_LtMatmul);
}

}  // namespace flopspy::interpose::cublas

FLOPSPY_CUBLAS_LT(FLOPSPY_CUBLAS_DEFINE_HOOK)
