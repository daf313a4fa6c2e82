#include "tools/fuzz/shrinker.h"

#include <algorithm>
#include <cmath>

#include "tools/fuzz/builder.h"
#include "tools/fuzz/generator.h"

namespace lazy::fuzz {

namespace {

struct StepInfo {
  DType dtype;
  std::vector<Dim> shape;
  Bounds bounds;
};

// Each step's dtype, symbolic shape and bounds, from recording the program (then dropped).
std::vector<StepInfo> describe(Program& program) {
  std::vector<StepInfo> info;
  {
    Builder builder(program);
    try {
      builder.apply_all();
    } catch (const std::exception&) {
    }
    for (int i = 0; i < builder.size(); ++i)
      info.push_back({builder.tensor(i).dtype(), builder.shape(i), builder.bounds(i)});
  }
  discard_recording();
  return info;
}

// A data leaf standing where step `i` was, with values like the step's.
Step leaf_like(const Program& program, int i, const StepInfo& info) {
  Step leaf;
  leaf.op = Op::data;
  leaf.dtype = info.dtype;
  leaf.shape = info.shape;
  leaf.held = program.steps[i].held;
  leaf.data.key = mix(program.seed, std::uint64_t(i) * 7919 + program.steps.size());
  const Bounds& b = info.bounds;
  leaf.data.lo = std::isfinite(b.lo) ? b.lo : -1;
  leaf.data.hi = std::isfinite(b.hi) ? b.hi : 1;
  if (!is_floating(info.dtype)) {
    leaf.data.lo = std::ceil(leaf.data.lo), leaf.data.hi = std::floor(leaf.data.hi);
    if (leaf.data.hi < leaf.data.lo) leaf.data.hi = leaf.data.lo;
  }
  leaf.data.quantum = b.quantum != kNoQuantum && b.quantum <= 24 ? std::max(b.quantum, 0) : -1;
  leaf.data.special = b.special ? 6 : 0;
  return leaf;
}

// Whether a slice or a cat still defines size `v`: once that step is cut to a leaf, the size is
// the leaf's own and may be lowered like a free one (a product's operand is often a slice).
bool defined_by_a_step(const Program& program, int v) {
  return std::any_of(program.steps.begin(), program.steps.end(),
                     [&](const Step& s) { return s.derived_size == v; });
}

class Shrinker {
 public:
  Shrinker(const std::function<bool(std::vector<Program>&)>& fails, int max_runs)
      : fails_(fails), runs_left_(max_runs) {}

  std::vector<Program> run(std::vector<Program> programs) {
    best_ = std::move(programs);
    keep_one_program();
    for (bool progress = true; progress && runs_left_ > 0;) {
      progress = false;
      for (std::size_t p = 0; p < best_.size(); ++p) {
        progress |= drop_outputs(p);
        progress |= cut_steps(p);
        progress |= shrink_sizes(p);
        progress |= plain_data(p);
      }
    }
    for (Program& p : best_) p = without_dead_steps(p);
    return best_;
  }

 private:
  bool accept(std::vector<Program> candidate) {
    if (runs_left_ <= 0) return false;
    --runs_left_;
    for (Program& p : candidate) p = without_dead_steps(p);
    if (!fails_(candidate)) return false;
    best_ = std::move(candidate);
    return true;
  }

  bool try_program(std::size_t p, const Program& program) {
    std::vector<Program> candidate = best_;
    candidate[p] = program;
    return accept(std::move(candidate));
  }

  void keep_one_program() {
    if (best_.size() <= 1) return;
    for (const Program& p : best_)
      if (accept({p})) return;
    for (std::size_t p = 0; p < best_.size() && best_.size() > 1;) {
      std::vector<Program> candidate = best_;
      candidate.erase(candidate.begin() + std::ptrdiff_t(p));
      if (!accept(std::move(candidate))) ++p;
    }
  }

  bool drop_outputs(std::size_t p) {
    bool progress = false;
    for (int i = 0; i < int(best_[p].steps.size()); ++i) {
      const Program& program = best_[p];
      int held = int(std::count_if(program.steps.begin(), program.steps.end(),
                                   [](const Step& s) { return s.held; }));
      if (!program.steps[i].held || held <= 1) continue;
      Program candidate = program;
      candidate.steps[i].held = false;
      progress |= try_program(p, candidate);
    }
    return progress;
  }

  bool cut_steps(std::size_t p) {
    bool progress = false;
    for (int i = int(best_[p].steps.size()) - 1; i >= 0; --i) {
      if (i >= int(best_[p].steps.size()) || best_[p].steps[i].op == Op::data) continue;
      std::vector<StepInfo> info = describe(best_[p]);
      if (i >= int(info.size())) continue;
      Program candidate = best_[p];
      candidate.steps[i] = leaf_like(candidate, i, info[i]);
      progress |= try_program(p, candidate);
    }
    return progress;
  }

  bool shrink_sizes(std::size_t p) {
    bool progress = false;
    for (std::size_t v = 0; v < best_[p].sizes.size(); ++v) {
      if (best_[p].sizes[v].derived && defined_by_a_step(best_[p], int(v))) continue;
      std::int64_t value = best_[p].sizes[v].value;
      for (std::int64_t smaller : {std::int64_t(1), std::int64_t(2), value / 2, value - 1}) {
        if (smaller < 1 || smaller >= value) continue;
        Program candidate = best_[p];
        candidate.sizes[v].value = smaller;
        if (try_program(p, candidate)) {
          progress = true;
          break;
        }
      }
    }
    return progress;
  }

  // Data leaves without special values, and in memory of lazyfuse's own.
  bool plain_data(std::size_t p) {
    bool progress = false;
    for (std::size_t i = 0; i < best_[p].steps.size(); ++i) {
      for (int DataSpec::*field : {&DataSpec::special, &DataSpec::external}) {
        if (best_[p].steps[i].op != Op::data || best_[p].steps[i].data.*field == 0) continue;
        Program candidate = best_[p];
        candidate.steps[i].data.*field = 0;
        progress |= try_program(p, candidate);
      }
    }
    return progress;
  }

  const std::function<bool(std::vector<Program>&)>& fails_;
  int runs_left_;
  std::vector<Program> best_;
};

}  // namespace

Program without_dead_steps(const Program& program) {
  int n = int(program.steps.size());
  std::vector<bool> needed(std::size_t(n), false);
  for (int i = n - 1; i >= 0; --i) {
    if (program.steps[i].held) needed[i] = true;
    if (!needed[i]) continue;
    for (const Arg& a : program.steps[i].args)
      if (a.is_tensor()) needed[a.step] = true;
  }
  Program out = program;
  out.steps.clear();
  std::vector<int> renumbered(std::size_t(n), -1);
  for (int i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    Step s = program.steps[i];
    for (Arg& a : s.args)
      if (a.is_tensor()) a.step = renumbered[a.step];
    renumbered[i] = int(out.steps.size());
    out.steps.push_back(std::move(s));
  }
  return out;
}

std::vector<Program> shrink(std::vector<Program> programs,
                            const std::function<bool(std::vector<Program>&)>& fails, int max_runs) {
  return Shrinker(fails, max_runs).run(std::move(programs));
}

}  // namespace lazy::fuzz
