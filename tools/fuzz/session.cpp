#include "tools/fuzz/session.h"

#include <chrono>
#include <fstream>

#include <lazy/lazy.h>

#include "tools/fuzz/generator.h"
#include "tools/fuzz/gradient_check.h"
#include "tools/fuzz/printer.h"
#include "tools/fuzz/runner.h"
#include "tools/fuzz/shrinker.h"

namespace lazy::fuzz {

namespace {

// Whether the device still computes: after a sticky error every later sync fails.
bool device_usable() {
  try {
    return (lazy::ones({4}) + 1).to_vector<float>()[3] == 2;
  } catch (const std::exception&) {
    return false;
  }
}

bool same_failure(const RunReport& report, const Failure& first) {
  if (report.invalid) return false;
  for (const Failure& f : report.failures)
    if (f.kind == first.kind && f.mode == first.mode) return true;
  return false;
}

void write_reproducer(std::vector<Program>& programs, const std::string& preface,
                      const SessionOptions& options, std::ostream& log) {
  const std::string source = preface + print_program(programs);
  log << source << std::flush;
  if (!options.out_dir.empty()) {
    const Program& head = programs.front();
    std::ofstream(options.out_dir + "/fail_" + std::to_string(head.seed) + "_" +
                  std::to_string(head.index) + ".cpp")
        << source;
  }
}

// What a rerun of a failure needs besides its seed and program: the products' precision.
const char* settings_note() {
  return matmul_precision() == "tf32" ? " [LAZY_MATMUL_TF32=1]" : "";
}

void report_failures(std::vector<Program>& programs, const RunReport& report,
                     const SessionOptions& options, std::ostream& log) {
  const Program& head = programs.front();
  for (const Failure& f : report.failures)
    log << "FAIL seed " << head.seed << " program " << programs[std::size_t(f.program)].index
        << settings_note() << ": " << kind_name(f.kind) << " (" << mode_name(f.mode)
        << "): " << f.detail << "\n";
  std::vector<Program> small = programs;
  if (options.shrink && !report.failures.empty()) {
    const Failure first = report.failures.front();
    int runs = 0;
    small = shrink(
        programs,
        [&](std::vector<Program>& candidate) {
          ++runs;
          return same_failure(run_programs(candidate), first);
        },
        options.max_shrink_runs);
    log << "shrunk in " << runs << " runs to:\n";
  }
  write_reproducer(small, "", options, log);
}

// Checks one program's gradients; a failure is shrunk while it still fails the check.
void check_program_gradients(const Program& program, const SessionOptions& options,
                             SessionSummary& summary, std::ostream& log) {
  const GradientOutcome outcome = check_gradients(program);
  switch (outcome.kind) {
    case GradientOutcome::Kind::checked:
      ++summary.gradients_checked;
      return;
    case GradientOutcome::Kind::skipped:
      ++summary.gradient_skips[outcome.detail];
      return;
    case GradientOutcome::Kind::failed:
      break;
  }
  ++summary.failures;
  log << "FAIL seed " << program.seed << " program " << program.index << settings_note()
      << ": gradient: " << outcome.detail << "\n";
  std::vector<Program> small = {program};
  if (options.shrink) {
    int runs = 0;
    small = shrink(
        small,
        [&](std::vector<Program>& candidate) {
          ++runs;
          return candidate.size() == 1 &&
                 check_gradients(candidate[0]).kind == GradientOutcome::Kind::failed;
        },
        options.max_shrink_runs);
    log << "shrunk in " << runs << " runs to: " << check_gradients(small[0]).detail << "\n";
  }
  write_reproducer(small, "// lazyfuse-fuzz --gradients: " + outcome.detail + "\n", options, log);
}

}  // namespace

GenerateOptions generate_options_of(const SessionOptions& options,
                                    std::map<std::string, std::int64_t>* refusals) {
  return {options.max_steps, options.max_elements, refusals, options.products_only,
          options.generation};
}

SessionSummary run_session(const SessionOptions& options, std::ostream& log) {
  const auto begin = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  SessionSummary summary;
  const GenerateOptions generate_options = generate_options_of(options, &summary.refusals);
  std::int64_t index = options.start;
  const std::int64_t end = options.start + options.count;
  while (options.gradients && index < end && elapsed() < options.seconds) {
    log << "gradients of seed " << options.seed << " program " << index << std::endl;
    check_program_gradients(generate(options.seed, index, generate_options), options, summary, log);
    ++summary.programs;
    ++index;
  }
  while (index < end && elapsed() < options.seconds) {
    int batch = 1 + int(mix(options.seed, std::uint64_t(index)) % std::uint64_t(options.max_batch));
    batch = int(std::min<std::int64_t>(batch, end - index));
    std::vector<Program> programs;
    for (int k = 0; k < batch; ++k)
      programs.push_back(generate(options.seed, index + k, generate_options));
    // Printed first, so that a crash still names its programs.
    log << "batch seed " << options.seed << " programs " << index << ".." << index + batch - 1
        << std::endl;
    RunReport report = run_programs(programs);
    summary.programs += batch;
    summary.batches += 1;
    summary.outputs += report.outputs;
    summary.compared += report.compared;
    summary.unchecked += report.unchecked;
    if (report.invalid) {
      log << "FAIL seed " << options.seed << " programs " << index
          << ": a generated program does not record again (a fuzzer bug): " << *report.invalid
          << "\n";
      summary.failures += 1;
    }
    if (!report.failures.empty()) {
      summary.failures += std::int64_t(report.failures.size());
      if (lazy::on_gpu() && !device_usable()) {
        summary.context_lost = true;
        log << "the GPU context is lost: stopping; reproducer of this batch:\n"
            << print_program(programs);
        break;
      }
      report_failures(programs, report, options, log);
    }
    index += batch;
  }
  summary.seconds = elapsed();
  return summary;
}

}  // namespace lazy::fuzz
