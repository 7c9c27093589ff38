// Tiny C ABI around one HPTT float32 plan, loaded from bench/_hptt.py via ctypes.
//
// HPTT (Springer, Su, Bientinesi; github.com/springer13/hptt) exposes plans only
// through a C++ std::shared_ptr, and its own C entry point (sTensorTranspose)
// re-plans on every call. This wrapper builds ONE plan up front and lets the
// caller execute it repeatedly, so a benchmark times execute() alone.
//
// Semantics (row-major, i.e. numpy C order):  B = A.transpose(perm)
//   perm[i] = j  means A's axis j becomes B's axis i (numpy convention).
// alpha = 1, beta = 0 (B is overwritten, never read), no outer sizes (dense).
// Selection method is hptt::ESTIMATE (heuristic, no autotuning; what HPTT's
// Python API uses). Input validation is the caller's job: HPTT calls exit()
// on invalid sizes/permutations.
//
// Build (done by _hptt.py):
//   g++ -O2 -std=c++11 -shared -fPIC -I$HPTT_DIR/include hptt_plan.cpp \
//       -L$HPTT_DIR/lib -lhptt '-Wl,-rpath,$ORIGIN' \
//       -o $HPTT_DIR/lib/libhptt_plan.so

#include <hptt.h>

#include <memory>

namespace {
struct Holder {
    std::shared_ptr<hptt::Transpose<float> > plan;
};
}  // namespace

extern "C" {

// Returns an opaque handle, or nullptr if plan creation threw.
void* hptt_plan_f32(const int* perm, int dim, const float* A, const int* sizeA,
                    float* B, int threads) {
    try {
        Holder* h = new Holder;
        h->plan = hptt::create_plan(perm, dim,
                                    1.0f, A, sizeA, /*outerSizeA=*/nullptr,
                                    0.0f, B, /*outerSizeB=*/nullptr,
                                    hptt::ESTIMATE, threads,
                                    /*threadIds=*/nullptr, /*useRowMajor=*/true);
        if (!h->plan) {
            delete h;
            return nullptr;
        }
        return h;
    } catch (...) {
        return nullptr;
    }
}

void hptt_execute(void* handle) {
    static_cast<Holder*>(handle)->plan->execute();
}

void hptt_free(void* handle) {
    delete static_cast<Holder*>(handle);
}

}  // extern "C"
