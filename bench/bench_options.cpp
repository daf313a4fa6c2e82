#include "bench_options.h"

#include <cstdlib>
#include <iostream>

namespace lazy::bench {

void usage_error(const BenchUsage& usage, const std::string& message) {
  std::cerr << usage.program << ": " << message << "\n"
            << "usage: " << usage.program << " [--iters N] [--only WORKLOAD] [--json PATH]\n"
            << "workloads: " << usage.workloads << "\n";
  std::exit(2);
}

BenchOptions parse_bench_options(int argc, char** argv, const BenchUsage& usage) {
  BenchOptions options;
  options.json_path = std::string(usage.program) + ".json";
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") usage_error(usage, std::string(usage.purpose));
    if (i + 1 >= argc) usage_error(usage, "missing value after " + std::string(flag));
    const std::string value = argv[++i];
    if (flag == "--iters") {
      options.iters = std::atoi(value.c_str());
      if (options.iters < 1) usage_error(usage, "--iters needs a positive count");
    } else if (flag == "--only") {
      options.only = value;
    } else if (flag == "--json") {
      options.json_path = value;
    } else {
      usage_error(usage, "unknown option " + std::string(flag));
    }
  }
  return options;
}

}  // namespace lazy::bench
