// lazyfuse-fuzz: the project's differential fuzzer (tools/fuzz/session.h).
//   lazyfuse-fuzz [--seed S] [--start I] [--count N] [--seconds T] [--batch B] [--steps K]
//                 [--max-elements E] [--out DIR] [--no-shrink] [--shrink-runs R] [--print]
//                 [--only-products] [--gradients] [--export DIR] [--generation G]
// Without --seed the seed is fresh (from the clock) and printed. --print writes program
// (seed, start) as a standalone C++ program and exits. --only-products (or --only-matmul) makes
// matrix products most of every program's steps, each program holding at least one. --gradients
// checks each program's gradients against central differences instead (gradient_check.h), one
// program at a time. --export writes programs (seed, start) to (seed, start + count - 1) with
// their values for tools/fuzz/torch_check.py (export.h) instead, with each step's gradient when
// --gradients is given too. --generation picks the op set of
// an earlier generator (generator.h), to reproduce a program it numbered. Exit status: 0
// when every program agreed with the reference, 1 on any failure, 2 on bad arguments. A crash
// prints its call stack (crash_report.h).
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "tools/fuzz/crash_report.h"
#include "tools/fuzz/export.h"
#include "tools/fuzz/generator.h"
#include "tools/fuzz/printer.h"
#include "tools/fuzz/session.h"

namespace {

int usage() {
  std::cerr
      << "usage: lazyfuse-fuzz [--seed S] [--start I] [--count N] [--seconds T] [--batch B]"
         " [--steps K] [--max-elements E] [--out DIR] [--no-shrink] [--shrink-runs R] [--print]"
         " [--only-products] [--gradients] [--export DIR] [--generation G]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  lazy::fuzz::install_crash_report();
  lazy::fuzz::SessionOptions options;
  options.seed =
      std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000007;
  bool print_only = false;
  std::string export_dir;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      static const std::string none;
      return i + 1 < args.size() ? args[++i] : none;
    };
    try {
      if (a == "--seed")
        options.seed = std::stoull(value());
      else if (a == "--start")
        options.start = std::stoll(value());
      else if (a == "--count")
        options.count = std::stoll(value());
      else if (a == "--seconds")
        options.seconds = std::stod(value());
      else if (a == "--batch")
        options.max_batch = std::max(1, std::stoi(value()));
      else if (a == "--steps")
        options.max_steps = std::max(2, std::stoi(value()));
      else if (a == "--max-elements")
        options.max_elements = std::stoll(value());
      else if (a == "--out")
        options.out_dir = value();
      else if (a == "--no-shrink")
        options.shrink = false;
      else if (a == "--shrink-runs")
        options.max_shrink_runs = std::stoi(value());
      else if (a == "--only-products" || a == "--only-matmul")
        options.products_only = true;
      else if (a == "--generation")
        options.generation = std::stoi(value());
      else if (a == "--gradients")
        options.gradients = true;
      else if (a == "--export")
        export_dir = value();
      else if (a == "--print")
        print_only = true;
      else
        return usage();
    } catch (const std::exception&) {
      return usage();
    }
  }
  if (print_only) {
    std::vector<lazy::fuzz::Program> programs = {lazy::fuzz::generate(
        options.seed, options.start, lazy::fuzz::generate_options_of(options))};
    std::cout << lazy::fuzz::print_program(programs);
    return 0;
  }
  if (!export_dir.empty()) {
    const lazy::fuzz::ExportSummary s = lazy::fuzz::export_programs(options, export_dir, std::cout);
    std::cout << "lazyfuse-fuzz: seed " << options.seed << ": " << s.programs
              << " programs exported to " << export_dir << ", " << s.failed
              << " whose sync failed, on " << lazy::device_description() << std::endl;
    return s.programs > 0 ? 0 : 1;
  }
  std::cout << "lazyfuse-fuzz: seed " << options.seed << " on " << lazy::device_description()
            << std::endl;
  lazy::fuzz::SessionSummary s = lazy::fuzz::run_session(options, std::cout);
  std::cout << "lazyfuse-fuzz: seed " << options.seed << ": " << s.programs << " programs ("
            << options.start << ".." << options.start + s.programs - 1 << ") in " << s.batches
            << " syncs, " << s.outputs << " outputs, " << s.compared << " elements compared ("
            << s.unchecked << " more only for NaN), " << lazy::stats().in_place_updates
            << " outputs written over their inputs, " << s.failures << " failures, " << s.seconds
            << " s" << (lazy::matmul_precision() == "tf32" ? ", f32 products on TF32" : "")
            << (s.context_lost ? ", stopped: GPU context lost" : "") << std::endl;
  if (options.gradients) {
    std::cout << "gradients: " << s.gradients_checked << " programs checked; skipped:";
    for (const auto& [why, n] : s.gradient_skips) std::cout << " " << why << " " << n << ";";
    std::cout << std::endl;
  }
  std::cout << "steps the API refused while generating, by op:";
  for (const auto& [op, n] : s.refusals) std::cout << " " << op << " " << n;
  std::cout << std::endl;
  return s.failures == 0 ? 0 : 1;
}
