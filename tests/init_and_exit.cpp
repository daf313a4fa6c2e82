// A second process for test_process_exit: initialises the device, waits the microseconds its
// argument says, and ends. The device's background work must not outlive it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <lazy/lazy.h>

int main(int argc, char** argv) {
  const bool gpu = lazy::on_gpu();
  std::this_thread::sleep_for(std::chrono::microseconds(argc > 1 ? std::atoi(argv[1]) : 0));
  std::printf("gpu=%d\n", gpu ? 1 : 0);
  return 0;
}
