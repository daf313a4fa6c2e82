// Failure paths of the driver a GPU does not produce on demand, run in a second process under
// the stub CUDA driver (tools/stub_driver) told to fail one call. Without a GPU it runs in CI.
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "jit/nvrtc.h"
#include "tests/helper_programs.h"

namespace {

namespace fs = std::filesystem;

// Runs stub_driver_program in `mode` with the stub driver first on the loader's path and
// `environment` set; its output.
std::string run_under_stub(const std::string& mode, const std::string& environment) {
  const std::string command =
      "LD_LIBRARY_PATH='" + std::string(LAZY_STUB_DRIVER_DIR) + "' " + environment + " " +
      lazy_test::helper_program(LAZY_STUB_DRIVER_PROGRAM) + " " + mode + " 2>&1";
  std::string output;
  if (std::FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << output;
  }
  return output;
}

bool stub_built() {
  return fs::exists(fs::path(LAZY_STUB_DRIVER_DIR) / "libcuda.so.1");
}
constexpr const char* kNoStub = "the stub CUDA driver was not built (ninja lazyfuse-stub-driver)";

// Found in review: a producer wait that failed destroyed the adopted buffer, whose give-back ran
// the caller's deleter; from_dlpack's cleanup then ran it again (a double free).
TEST(StubDriverFailures, AnImportWhoseProducerWaitFailsLeavesTheMemoryToTheCaller) {
  if (!stub_built()) GTEST_SKIP() << kNoStub;
  const std::string output = run_under_stub("imports", "LAZY_STUB_FAIL_STREAM_WAIT=1");
  EXPECT_NE(output.find("gpu=1 dlpack_deletes=1 blob_deletes=0"), std::string::npos) << output;
  EXPECT_EQ(output.find("did not throw"), std::string::npos) << output;
}

// Found in review: a memory limit under 256 bytes refused the device's warm-up allocation, which
// threw out of its constructor with the thread's stream pointing at it: a crash at exit.
TEST(StubDriverFailures, ATinyMemoryLimitRefusesTheFirstSyncAndTheProgramEndsWell) {
  if (!stub_built()) GTEST_SKIP() << kNoStub;
  const std::string output = run_under_stub("computes", "LAZY_MEMORY_LIMIT=200");
  EXPECT_NE(output.find("refused: "), std::string::npos) << output;
  EXPECT_NE(output.find("memory limit"), std::string::npos) << output;
  EXPECT_NE(output.find("gpu=1"), std::string::npos) << output;
}

// Found in review: LAZY_DEVICE=cuda on a machine without a GPU computed on the host, in double
// precision, without a word; it asked for a GPU, as torch's device("cuda") does.
TEST(StubDriverFailures, AGpuNamedByLazyDeviceButAbsentIsAnErrorAtTheSync) {
  if (!stub_built()) GTEST_SKIP() << kNoStub;
  for (const char* device : {"cuda", "cuda:0"}) {
    const std::string output =
        run_under_stub("computes", std::string("LAZY_STUB_NO_GPU=1 LAZY_DEVICE=") + device);
    EXPECT_NE(output.find(std::string("refused: LAZY_DEVICE='") + device +
                          "' asks for a GPU, but there is none usable: the CUDA driver reports "
                          "no GPU. Set LAZY_DEVICE=cpu"),
              std::string::npos)
        << output;
    EXPECT_NE(output.find("gpu=0"), std::string::npos) << output;
  }
  // Unset, it takes the host.
  const std::string output = run_under_stub("computes", "LAZY_STUB_NO_GPU=1");
  EXPECT_NE(output.find("computed 8"), std::string::npos) << output;
  EXPECT_NE(output.find("gpu=0"), std::string::npos) << output;
}

// Found in review: a LAZY_ARCH NVRTC does not know failed every sync, on the host too, with a
// CompileError that blamed the generated kernels.
TEST(StubDriverFailures, AnArchNvrtcDoesNotKnowIsRefusedNamingLazyArch) {
  if (!stub_built()) GTEST_SKIP() << kNoStub;
  if (std::string why; !lazy::jit::nvrtc_available(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  const std::string output = run_under_stub("computes", "LAZY_DEVICE=cpu LAZY_ARCH=sm_12");
  EXPECT_NE(output.find("refused: lazyfuse: LAZY_ARCH=sm_12 is not an architecture this NVRTC "
                        "compiles for; it takes sm_"),
            std::string::npos)
      << output;
  EXPECT_NE(run_under_stub("computes", "LAZY_DEVICE=cpu LAZY_ARCH=' sm_90 '").find("computed 8"),
            std::string::npos);
}

}  // namespace
