// The command line the GPU benches share: [--iters N] [--only WORKLOAD] [--json PATH].
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

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

// Keeps the workload --only names (every one without it); a name no workload has is a usage error.
template <class Workload>
void keep_only(std::vector<Workload>& workloads, const BenchOptions& options,
               const BenchUsage& usage) {
  if (options.only.empty()) return;
  std::erase_if(workloads, [&](const Workload& w) { return w.name != options.only; });
  if (workloads.empty()) usage_error(usage, "no workload named " + options.only);
}

}  // namespace lazy::bench
