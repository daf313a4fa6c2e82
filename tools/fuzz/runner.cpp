#include "tools/fuzz/runner.h"

#include <cmath>
#include <optional>
#include <span>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "codegen/kernel_sources.h"
#include "ir/trace.h"
#include "runtime/eager_graphs.h"
#include "runtime/executor.h"
#include "runtime/plan_cache.h"
#include "runtime/replay.h"
#include "runtime/size_variants.h"
#include "runtime/storage_mirror.h"
#include "tools/fuzz/bounds.h"
#include "tools/fuzz/builder.h"
#include "tools/fuzz/data_leaf.h"

namespace lazy::fuzz {

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::reference:
      return "reference";
    case Mode::fused:
      return "fused";
    case Mode::unfused:
      return "unfused";
    case Mode::replayed:
      return "replayed";
    case Mode::run_time_sizes:
      return "sizes at run time";
    case Mode::compiled:
      return "compiled";
    case Mode::threaded:
      return "threaded";
  }
  return "?";
}

const char* kind_name(Failure::Kind kind) {
  switch (kind) {
    case Failure::Kind::mismatch:
      return "mismatch";
    case Failure::Kind::error:
      return "error";
    case Failure::Kind::out_of_bounds:
      return "out of bounds";
  }
  return "?";
}

namespace {

struct Held {
  int program;
  int step;
  Bounds bounds;
  DType dtype;
  Shape shape;
};

struct ModeResult {
  std::vector<Held> held;
  std::vector<std::vector<double>> values;
  std::optional<std::string> error;
  bool invalid = false;
};

std::vector<double> read_values(const Tensor& t) {
  if (is_floating(t.dtype())) return t.to_vector<double>();
  std::vector<double> out;
  for (std::int64_t v : t.to_vector<std::int64_t>()) out.push_back(double(v));
  return out;
}

// Applies the mode's settings for the scope of one run.
class ModeScope {
 public:
  explicit ModeScope(Mode mode)
      : fusion_(fusion_enabled()),
        run_time_sizes_(mode == Mode::run_time_sizes),
        replayed_(mode == Mode::replayed) {
    runtime::set_reference_execution(mode == Mode::reference);
    runtime::set_poison_outputs(mode != Mode::reference);
    set_fusion_enabled(mode != Mode::unfused);
    if (run_time_sizes_) set_run_time_sizes(true);
    // Its first sync plans the batch again (run_mode): row kernel texts found are checked.
    if (replayed_) codegen::set_kernel_text_checks(true);
  }
  ~ModeScope() {
    runtime::set_reference_execution(false);
    runtime::set_poison_outputs(false);
    set_fusion_enabled(fusion_);
    if (run_time_sizes_) set_run_time_sizes(false);
    if (replayed_) codegen::set_kernel_text_checks(false);
  }

 private:
  // The plans of either kind of kernel (sizes compiled in or not) must not serve the other. Each
  // cached kernel text is checked against the one generated afresh.
  static void set_run_time_sizes(bool enabled) {
    runtime::set_all_sizes_at_run_time(enabled);
    codegen::set_kernel_text_checks(enabled);
    runtime::clear_plan_cache();
  }

  bool fusion_;
  bool run_time_sizes_;
  bool replayed_;
};

// The fused mode puts the batch's inputs on the device before its sync, with no handle left on
// them (release_intermediates): an output may then be written over an input its kernel reads
// last (runtime/in_place_update.h). The other modes upload them when a kernel first reads them.
void upload_inputs() {
  runtime::Device* device = runtime::Device::get();
  if (device == nullptr) return;
  for (const ir::NodePtr& input : ir::Trace::current().externals())
    runtime::device_address(*input->data->storage, *device);
}

// (program, step) of each data leaf a compiled call takes as an input, in order.
using LeafSteps = std::vector<std::pair<int, int>>;

// Records the batch, each leaf of `leaf_steps` replaced by the tensor at its place in `leaves`,
// and returns the held tensors in program and step order; `held` gets what each is. Nothing but
// the held tensors keeps a handle.
std::vector<Tensor> record_batch(std::vector<Program>& programs, std::vector<Held>& held,
                                 const LeafSteps& leaf_steps = {},
                                 std::span<const Tensor> leaves = {}) {
  std::vector<Tensor> outputs;
  std::size_t next = 0;
  for (int p = 0; p < int(programs.size()); ++p) {
    Builder b(programs[p]);
    for (; next < leaf_steps.size() && leaf_steps[next].first == p; ++next)
      b.substitute(leaf_steps[next].second, leaves[next]);
    b.apply_all();
    b.release_intermediates();
    for (int i = 0; i < b.size(); ++i) {
      if (!programs[p].steps[i].held) continue;
      held.push_back(Held{p, i, b.bounds(i), b.tensor(i).dtype(), b.tensor(i).shape()});
      outputs.push_back(b.tensor(i));
    }
  }
  return outputs;
}

ModeResult record_and_sync(std::vector<Program>& programs, Mode mode) {
  ModeScope scope(mode);
  ModeResult result;
  std::vector<Tensor> outputs;
  try {
    outputs = record_batch(programs, result.held);
  } catch (const std::exception& e) {
    // Programs are valid by construction; one that no longer records is a shrinker candidate
    // gone wrong, reported as an error of the reference mode.
    result.error = std::string("recording failed: ") + e.what();
    result.invalid = true;
    return result;
  }
  try {
    if (mode == Mode::fused) upload_inputs();
    lazy::eval(outputs);
    for (const Tensor& t : outputs) result.values.push_back(read_values(t));
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

// A tensor with `t`'s values in memory of its own (host data, uploaded when a kernel reads it),
// taken in as the leaf was (`external`), so that a compiled call sees the same input layout.
Tensor copy_of(const Tensor& t, int external) {
  if (t.dtype() == DType::i64)
    return leaf_of(t.to_vector<std::int64_t>(), t.shape(), t.dtype(), external);
  return leaf_of(t.to_vector<double>(), t.shape(), t.dtype(), external);
}

// The compiled mode. A replay does not run the body: it launches the captured plan (as one CUDA
// graph where it can) on the new inputs' memory, with new outputs and the captured numbers, so
// it checks what the eager modes never reach: lazy::Function's graph and the arguments it moves.
ModeResult compiled_run(std::vector<Program>& programs) {
  ModeScope scope(Mode::compiled);
  ModeResult result;
  LeafSteps leaf_steps;
  std::vector<Tensor> leaves;
  try {
    for (int p = 0; p < int(programs.size()); ++p) {
      Builder b(programs[p]);
      b.apply_all();
      for (int i = 0; i < b.size(); ++i) {
        if (programs[p].steps[i].op != Op::data) continue;
        leaf_steps.emplace_back(p, i);
        leaves.push_back(b.tensor(i));
      }
    }
  } catch (const std::exception& e) {
    result.error = std::string("recording failed: ") + e.what();
    result.invalid = true;
    return result;
  }
  discard_recording();  // the leaves are host data; the rest is recorded again in the body
  const Function function([&](std::span<const Tensor> in) {
    return record_batch(programs, result.held, leaf_steps, in);
  });
  try {
    (void)function(std::span<const Tensor>(leaves));
    std::vector<Tensor> copies;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      const auto [p, i] = leaf_steps[k];
      copies.push_back(
          copy_of(leaves[k], programs[std::size_t(p)].steps[std::size_t(i)].data.external));
    }
    const std::vector<Tensor> outputs = function(std::span<const Tensor>(copies));
    if (function.captures() != 1) {
      result.error = "the second call captured again: its inputs' signature should have matched";
      return result;
    }
    for (const Tensor& t : outputs) result.values.push_back(read_values(t));
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

// The threaded mode: each thread records its own copy of the batch (recording an indexing step
// writes its bound into the program) into its own trace and syncs it twice, so plans, kernels
// and eager graphs are shared or looked up concurrently and launched on each thread's stream.
std::vector<ModeResult> threaded_run(const std::vector<Program>& programs) {
  ModeScope scope(Mode::fused);
  std::vector<ModeResult> results(kFuzzThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kFuzzThreads; ++t) {
    threads.emplace_back([&programs, &result = results[std::size_t(t)]] {
      std::vector<Program> own = programs;
      for (int sync = 0; sync < 2 && !result.error; ++sync) {
        result = ModeResult{};
        try {
          const std::vector<Tensor> outputs = record_batch(own, result.held);
          lazy::eval(outputs);
          for (const Tensor& t : outputs) result.values.push_back(read_values(t));
        } catch (const std::exception& e) {
          result.error = e.what();
          discard_recording();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return results;
}

ModeResult run_mode(std::vector<Program>& programs, Mode mode) {
  if (mode == Mode::compiled) {
    ModeResult result = compiled_run(programs);
    if (result.error) discard_recording();
    return result;
  }
  // Replayed: the same batch synced until its plan replays as a CUDA graph (new inputs, the
  // graph's own intermediates); the last sync's values are compared.
  // Sizes at run time: synced twice, each a plan miss, so the second finds every row kernel's
  // text cached (kernel_sources.h), checked against a fresh one.
  const int syncs = mode == Mode::replayed         ? runtime::kEagerHitsBeforeGraph + 2
                    : mode == Mode::run_time_sizes ? 2
                                                   : 1;
  // The replayed mode's first sync plans anew what the fused mode planned, so every row kernel's
  // text comes from the cache (kernel_sources.h) and is checked against a fresh one.
  if (mode == Mode::replayed) runtime::clear_plan_cache();
  ModeResult result;
  for (int sync = 0; sync < syncs && !result.error; ++sync)
    result = record_and_sync(programs, mode);
  // A failed sync leaves the trace as it was; the next mode must start from an empty one.
  if (result.error) discard_recording();
  return result;
}

std::string describe(const Held& h, std::int64_t element, double want, double got, double tol) {
  std::ostringstream s;
  s.precision(9);
  s << "step t" << h.step << " " << dtype_name(h.dtype) << " " << h.shape.to_string() << " element "
    << element << ": reference " << want << ", got " << got << " (tolerance " << tol << ")";
  return s.str();
}

// The first element of `got` that the bounds say cannot be right.
std::optional<std::string> compare(const Held& h, const std::vector<double>& want,
                                   const std::vector<double>& got) {
  if (want.size() != got.size()) return "different element counts";
  if (h.bounds.unchecked) {
    // Not predictable value by value, but never NaN without NaN in the data: a NaN is an element
    // the kernel did not write (outputs are poisoned with NaN bytes).
    for (std::size_t k = 0; k < got.size(); ++k)
      if (!h.bounds.special && std::isnan(got[k]))
        return describe(h, std::int64_t(k), want[k], got[k], 0) + ": NaN in an unchecked value";
    return {};
  }
  for (std::size_t k = 0; k < want.size(); ++k) {
    double r = want[k], g = got[k];
    if (h.bounds.special && h.bounds.err > 0 && !std::isfinite(r) && !std::isfinite(g)) {
      continue;  // inf * (a value near 0 one side rounds to 0) is NaN on one side, inf on the other
    }
    if (h.bounds.specials_may_differ && (!std::isfinite(r) || !std::isfinite(g))) continue;
    if (std::isnan(r) || std::isnan(g)) {
      if (std::isnan(r) != std::isnan(g)) return describe(h, std::int64_t(k), r, g, 0);
      continue;
    }
    double tol = h.bounds.err == 0 ? 0 : 2 * h.bounds.err + ulp(h.dtype, std::abs(r));
    if (std::isinf(r) || std::isinf(g) ? r != g : !(std::abs(g - r) <= tol))
      return describe(h, std::int64_t(k), r, g, tol);
  }
  return {};
}

// The reference's values lie where the fuzzer's bounds say: a check of the reference evaluator
// and of the bounds themselves.
std::optional<std::string> check_bounds(const Held& h, const std::vector<double>& want) {
  if (h.bounds.unchecked) return {};
  double slack = h.bounds.err + ulp(h.dtype, h.bounds.magnitude()) + 1e-300;
  if (!(slack >= 0)) return describe(h, 0, NAN, NAN, slack) + ": bounds are NaN";
  for (std::size_t k = 0; k < want.size(); ++k) {
    double r = want[k];
    if (!std::isfinite(r)) {
      if (!h.bounds.special) return describe(h, std::int64_t(k), r, r, 0) + ": not finite";
      continue;
    }
    if (!h.bounds.special && !(r >= h.bounds.lo - slack && r <= h.bounds.hi + slack)) {
      std::ostringstream s;
      s << describe(h, std::int64_t(k), r, r, slack) << ": outside [" << h.bounds.lo << ", "
        << h.bounds.hi << "]";
      return s.str();
    }
  }
  return {};
}

}  // namespace

RunReport run_programs(std::vector<Program>& programs) {
  RunReport report;
  ModeResult reference = run_mode(programs, Mode::reference);
  if (reference.invalid) {
    report.invalid = *reference.error;
    return report;
  }
  if (reference.error) {
    report.failures.push_back({Failure::Kind::error, Mode::reference, 0, -1, *reference.error});
    return report;
  }
  report.outputs = std::int64_t(reference.held.size());
  for (std::size_t i = 0; i < reference.held.size(); ++i) {
    const Held& h = reference.held[i];
    if (auto bad = check_bounds(h, reference.values[i]))
      report.failures.push_back(
          {Failure::Kind::out_of_bounds, Mode::reference, h.program, h.step, *bad});
  }
  const auto compare_run = [&](const ModeResult& run, Mode mode) {
    if (run.error) {
      report.failures.push_back({Failure::Kind::error, mode, 0, -1, *run.error});
      return;
    }
    for (std::size_t i = 0; i < reference.held.size(); ++i) {
      const Held& h = reference.held[i];
      (h.bounds.unchecked ? report.unchecked : report.compared) +=
          std::int64_t(reference.values[i].size());
      if (auto bad = compare(h, reference.values[i], run.values[i]))
        report.failures.push_back({Failure::Kind::mismatch, mode, h.program, h.step, *bad});
    }
  };
  for (Mode mode :
       {Mode::fused, Mode::unfused, Mode::replayed, Mode::run_time_sizes, Mode::compiled})
    compare_run(run_mode(programs, mode), mode);
  for (const ModeResult& run : threaded_run(programs)) compare_run(run, Mode::threaded);
  return report;
}

}  // namespace lazy::fuzz
