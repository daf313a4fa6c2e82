// A program may end at any moment after the device initialises, while the library's own
// background work (NVRTC's warm-up compile) would still run: it must exit cleanly. The stub CUDA
// driver (tools/stub_driver) makes initialisation take microseconds, so without a GPU the
// program ends during the warm-up of every run; on a GPU the real driver is tried as well.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include <lazy/lazy.h>

#include "jit/nvrtc.h"
#include "tests/helper_programs.h"

namespace {

namespace fs = std::filesystem;

// How long the program lives after init, in µs: the stub driver's warm-up compile takes tens of
// milliseconds, and before the fix ending anywhere in it crashed inside NVRTC.
constexpr int kLifetimesUs[] = {0, 1000, 5000, 10000, 20000, 40000};
constexpr int kRunsPerLifetime = 3;

struct ProgramEnd {
  int status = 0;
  std::string output;
};

// Runs init_and_exit with `library_path` first on the loader's path (empty: the system's).
ProgramEnd run_init_and_exit(const std::string& library_path, const std::string& argument) {
  // One file per test process: CTest may run this file's tests at once.
  const std::string out =
      testing::TempDir() + "/init_and_exit." + std::to_string(::getpid()) + ".out";
  std::string command;
  if (!library_path.empty()) command = "LD_LIBRARY_PATH='" + library_path + "' ";
  command += lazy_test::helper_program(LAZY_INIT_AND_EXIT) + " " + argument + " >" + out + " 2>&1";
  ProgramEnd end;
  end.status = std::system(command.c_str());
  std::FILE* file = std::fopen(out.c_str(), "r");
  if (file != nullptr) {
    char buffer[4096];
    end.output.assign(buffer, std::fread(buffer, 1, sizeof(buffer), file));
    std::fclose(file);
  }
  return end;
}

void expect_clean_exits(const std::string& library_path, const std::string& expected_output) {
  for (int lifetime_us : kLifetimesUs) {
    for (int run = 0; run < kRunsPerLifetime; ++run) {
      const ProgramEnd end = run_init_and_exit(library_path, std::to_string(lifetime_us));
      ASSERT_TRUE(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0)
          << "ending " << lifetime_us << " us after init: "
          << (WIFSIGNALED(end.status) ? "killed by signal " + std::to_string(WTERMSIG(end.status))
                                      : "exit status " + std::to_string(WEXITSTATUS(end.status)))
          << "\n"
          << end.output;
      EXPECT_NE(end.output.find(expected_output), std::string::npos) << end.output;
    }
  }
}

TEST(ProcessExit, EndingDuringTheNvrtcWarmUpIsCleanWithTheStubDriver) {
  std::string why;
  if (!lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC, so no warm-up: " << why;
  if (!fs::exists(fs::path(LAZY_STUB_DRIVER_DIR) / "libcuda.so.1"))
    GTEST_SKIP() << "the stub CUDA driver was not built (ninja lazyfuse-stub-driver)";
  expect_clean_exits(LAZY_STUB_DRIVER_DIR, "gpu=1");
}

TEST(ProcessExit, EndingRightAfterInitIsCleanOnTheGpu) {
  if (!lazy::on_gpu()) GTEST_SKIP() << "no GPU: " << lazy::device_description();
  expect_clean_exits("", "gpu=1");
}

// Found in review: a static or thread_local object whose destructor recorded an op, after the
// thread's trace was destroyed, wrote into freed memory (a crash every time in a worker thread).
TEST(ProcessExit, AnOpRecordedAfterTheThreadsStateIsGoneIsRefusedCleanly) {
  const ProgramEnd end = run_init_and_exit("", "destructors");
  ASSERT_TRUE(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0) << end.output;
  EXPECT_NE(end.output.find("thread computed 12"), std::string::npos) << end.output;
  EXPECT_NE(end.output.find("main computed 8"), std::string::npos) << end.output;
  for (const char* who : {"thread_local", "static"}) {
    EXPECT_NE(end.output.find(std::string(who) +
                              ": refused: lazyfuse: an op was recorded after this thread's "
                              "lazyfuse state was destroyed"),
              std::string::npos)
        << end.output;
  }
}

}  // namespace
