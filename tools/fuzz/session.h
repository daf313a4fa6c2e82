// A fuzzing session: programs (seed, start), (seed, start + 1), ... in batches recorded together,
// each batch run and compared, failures shrunk and printed as standalone reproducers.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <string>

#include "tools/fuzz/generator.h"

namespace lazy::fuzz {

struct SessionOptions {
  std::uint64_t seed = 1;
  std::int64_t start = 0;
  std::int64_t count = 100;
  int max_batch = 8;  // programs recorded before one sync: 1 to this many
  double seconds = std::numeric_limits<double>::infinity();
  int max_steps = 16;
  std::int64_t max_elements = std::int64_t(1) << 20;
  bool products_only = false;          // GenerateOptions::products_only
  int generation = kLatestGeneration;  // GenerateOptions::generation
  // Checks each program's gradients (gradient_check.h) instead of running it fused and unfused.
  bool gradients = false;
  bool shrink = true;
  int max_shrink_runs = 300;
  std::string out_dir;  // reproducers are written here as fail_<seed>_<index>.cpp
};

struct SessionSummary {
  std::int64_t programs = 0, batches = 0, outputs = 0, compared = 0, unchecked = 0, failures = 0;
  double seconds = 0;
  std::int64_t gradients_checked = 0;
  std::map<std::string, std::int64_t> gradient_skips;  // programs not checked, by reason
  bool context_lost = false;  // the GPU became unusable; the session stopped
  // Generated steps the API refused, by op: a check that refuses valid input would show here.
  std::map<std::string, std::int64_t> refusals;
};

SessionSummary run_session(const SessionOptions& options, std::ostream& log);

// How the session's programs are generated; refused steps are counted in `refusals` if given.
GenerateOptions generate_options_of(const SessionOptions& options,
                                    std::map<std::string, std::int64_t>* refusals = nullptr);

}  // namespace lazy::fuzz
