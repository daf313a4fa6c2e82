// The command line the GPU benches share: [--iters N] [--only WORKLOAD] [--json PATH].
#pragma once

#include <string>
#include <string_view>

namespace lazy::bench {

// Timed iterations after warm-up, unless --iters says otherwise.
inline constexpr int kDefaultTimedIters = 50;

// What a bench's usage message says.
struct BenchUsage {
  std::string_view program;    // "bench_fusion"
  std::string_view purpose;    // printed for --help
  std::string_view workloads;  // the names --only takes, space-separated
};

struct BenchOptions {
  int iters = kDefaultTimedIters;
  std::string only;       // empty: every workload
  std::string json_path;  // <program>.json unless --json says otherwise
};

// Prints the message and the usage on stderr and exits with status 2.
[[noreturn]] void usage_error(const BenchUsage& usage, const std::string& message);
BenchOptions parse_bench_options(int argc, char** argv, const BenchUsage& usage);

}  // namespace lazy::bench
