/* Run-time loader of the CUDA driver for the link-time shim built by ferroconv/build.rs.
 *
 * The host binary is linked against a static `libferroconv_cuda_shim.a`: one trampoline per driver
 * entry point (generated from symbols.txt), each jumping through `conv_cuda_table`. Until
 * `conv_cuda_load` succeeds every slot points at `conv_cuda_missing`, which returns
 * CUDA_ERROR_STUB_LIBRARY, so the binary starts and runs its CPU paths on machines without a
 * driver, and uses the real `libcuda.so.1` where there is one.
 */
#include <dlfcn.h>
#include <stddef.h>

extern void *conv_cuda_table[];
extern const char *const conv_cuda_names[];
extern const size_t conv_cuda_count;

/* Every driver entry point returns a CUresult; 34 is CUDA_ERROR_STUB_LIBRARY. */
int conv_cuda_missing(void) { return 34; }

/* Loads libcuda.so.1 and fills the table. Returns NULL on success, else the loader's message.
 * Not thread-safe: the Rust side calls it once, under a OnceLock. */
const char *conv_cuda_load(void) {
    static void *handle;
    if (handle != NULL) {
        return NULL;
    }
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        return why != NULL ? why : "dlopen(libcuda.so.1) failed";
    }
    for (size_t i = 0; i < conv_cuda_count; i++) {
        void *p = dlsym(h, conv_cuda_names[i]);
        if (p != NULL) {
            conv_cuda_table[i] = p;
        }
    }
    handle = h;
    return NULL;
}
