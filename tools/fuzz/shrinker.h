// Shrinks a failing batch of programs to a small reproducer: fewer programs, fewer outputs,
// steps cut to data leaves, smaller sizes, while the failure persists.
#pragma once

#include <functional>
#include <vector>

#include "tools/fuzz/program.h"

namespace lazy::fuzz {

// `fails` runs a candidate and says whether it still fails the same way (false for a candidate
// that no longer records). Stops after `max_runs` candidates.
std::vector<Program> shrink(std::vector<Program> programs,
                            const std::function<bool(std::vector<Program>&)>& fails, int max_runs);

// Removes steps no held step depends on.
Program without_dead_steps(const Program& program);

}  // namespace lazy::fuzz
