// A second process for test_stub_driver_failures, run under the stub CUDA driver. `imports`: told
// to fail cuStreamWaitEvent, memory taken in (from_dlpack, from_blob) cannot be ordered after its
// producer; each import must throw and leave the memory the caller's: the DLPack deleter runs
// once (from_dlpack's own cleanup of what it took), from_blob's deleter never. `computes`: one
// small sync, whose error (under LAZY_MEMORY_LIMIT, say) is printed; the process must end well.
#include <dlpack/dlpack.h>

#include <cstdio>
#include <cstring>

#include <lazy/lazy.h>

namespace {

int dlpack_deletes = 0;

}  // namespace

int imports() {
  alignas(256) static float memory[4] = {};
  std::int64_t shape[] = {4};
  DLManagedTensor managed{};
  managed.dl_tensor.data = memory;
  managed.dl_tensor.device = {kDLCUDA, 0};
  managed.dl_tensor.ndim = 1;
  managed.dl_tensor.dtype = {kDLFloat, 32, 1};
  managed.dl_tensor.shape = shape;
  managed.deleter = [](DLManagedTensor*) { ++dlpack_deletes; };
  try {
    lazy::from_dlpack(&managed);
    std::printf("from_dlpack did not throw\n");
  } catch (const lazy::Error& error) {
    std::printf("from_dlpack: %s\n", error.what());
  }
  int blob_deletes = 0;
  try {
    lazy::from_blob(memory, {4}, {}, lazy::f32, lazy::MemoryKind::cuda,
                    [&](void*) { ++blob_deletes; });
    std::printf("from_blob did not throw\n");
  } catch (const lazy::Error& error) {
    std::printf("from_blob: %s\n", error.what());
  }
  std::printf("gpu=%d dlpack_deletes=%d blob_deletes=%d\n", lazy::on_gpu() ? 1 : 0, dlpack_deletes,
              blob_deletes);
  return 0;
}

int computes() {
  try {
    const float total = lazy::sum(lazy::full({4}, 1.0f) * 2.0f).item<float>();
    std::printf("computed %g\n", total);
  } catch (const lazy::Error& error) {
    std::printf("refused: %s\n", error.what());
  }
  std::printf("gpu=%d\n", lazy::on_gpu() ? 1 : 0);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "computes") == 0) return computes();
  return imports();
}
