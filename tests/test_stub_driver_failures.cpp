// Failure paths of the driver a GPU does not produce on demand, run in a second process under
// the stub CUDA driver (tools/stub_driver) told to fail one call. Without a GPU it runs in CI.
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/helper_programs.h"

namespace {

namespace fs = std::filesystem;

// Runs `program` with the stub driver first on the loader's path and `environment` set; its
// output.
std::string run_under_stub(const char* program, const std::string& environment) {
  const std::string command = "LD_LIBRARY_PATH='" + std::string(LAZY_STUB_DRIVER_DIR) + "' " +
                              environment + " " + lazy_test::helper_program(program) + " 2>&1";
  std::string output;
  if (std::FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
    EXPECT_EQ(::pclose(pipe), 0) << output;
  }
  return output;
}

// Found in review: a producer wait that failed destroyed the adopted buffer, whose give-back ran
// the caller's deleter; from_dlpack's cleanup then ran it again (a double free).
TEST(StubDriverFailures, AnImportWhoseProducerWaitFailsLeavesTheMemoryToTheCaller) {
  if (!fs::exists(fs::path(LAZY_STUB_DRIVER_DIR) / "libcuda.so.1"))
    GTEST_SKIP() << "the stub CUDA driver was not built (ninja lazyfuse-stub-driver)";
  const std::string output =
      run_under_stub(LAZY_ADOPT_AFTER_FAILURE, "LAZY_STUB_FAIL_STREAM_WAIT=1");
  EXPECT_NE(output.find("gpu=1 dlpack_deletes=1 blob_deletes=0"), std::string::npos) << output;
  EXPECT_EQ(output.find("did not throw"), std::string::npos) << output;
}

}  // namespace
