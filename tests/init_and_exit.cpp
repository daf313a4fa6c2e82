// A second process for test_process_exit: initialises the device, waits the microseconds its
// argument says, and ends. The device's background work must not outlive it. With the argument
// `destructors`, a static and a thread_local object record an op in their destructors, after
// their thread's lazyfuse state is gone: each must be refused cleanly.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <lazy/lazy.h>

namespace {

struct RecordsWhenDestroyed {
  const char* who;  // nullptr: nothing to do (other runs)
  ~RecordsWhenDestroyed() {
    if (who == nullptr) return;
    try {
      (void)(lazy::ones({3}) * 2.0f);
      std::printf("%s: recorded\n", who);
    } catch (const lazy::RuntimeError& error) {
      std::printf("%s: refused: %s\n", who, error.what());
    }
    std::fflush(stdout);
  }
};

RecordsWhenDestroyed at_exit{nullptr};
thread_local RecordsWhenDestroyed at_thread_exit{"thread_local"};

int destructors() {
  at_exit.who = "static";
  std::thread([] {
    (void)at_thread_exit.who;  // made before the thread's first op, so destroyed after its state
    std::printf("thread computed %g\n", lazy::sum(lazy::ones({4}) * 3.0f).item<float>());
  }).join();
  std::printf("main computed %g\n", lazy::sum(lazy::ones({4}) * 2.0f).item<float>());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "destructors") == 0) return destructors();
  const bool gpu = lazy::on_gpu();
  std::this_thread::sleep_for(std::chrono::microseconds(argc > 1 ? std::atoi(argv[1]) : 0));
  std::printf("gpu=%d\n", gpu ? 1 : 0);
  return 0;
}
