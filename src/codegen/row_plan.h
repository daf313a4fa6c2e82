// What a row kernel (row_kernel_emitter.h) holds in registers and where it computes each term:
// each term's level (uniform, per row, per element), the phase (reduction) that first needs it,
// which loads and costly values are held for later phases or for every row, the vector width and
// the launch. Planned before any source is written; the emitter only reads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "codegen/row_launch.h"
#include "fuse/partition.h"
#include "fuse/row_walk.h"

namespace lazy::codegen {

// Where a term's value varies: the same everywhere, once per row, or per element.
enum class Level : std::uint8_t { uniform, per_row, element };

// A load's or generator's walk over the region's rows and their elements.
using RowAccess = fuse::RowWalk;

class RowPlan {
 public:
  // `length_at_run_time`: the kernel takes the row's length and threads per row as arguments
  // (its groups looped over), so nothing in it depends on the length but the vector width.
  RowPlan(const fuse::Region& region, std::span<const ir::NodePtr> pending,
          std::span<const ir::NodePtr> externals, bool length_at_run_time);

  // Which loads and values are held in registers, for writing the text; a run-time-length plan
  // leaves it until asked (before that, only levels, accesses and the launch are known).
  void plan_holds();

  Level level(std::size_t t) const { return level_[t]; }
  // Reductions that must have folded before term t can be computed.
  int ready_after(std::size_t t) const { return phase_[t]; }
  const RowAccess& access(std::size_t t) const { return access_[t]; }
  int vector_width() const { return vector_width_; }
  const RowLaunch& launch() const { return launch_; }
  bool length_at_run_time() const { return length_at_run_time_; }

  bool is_access(const fuse::Term& t) const {
    return t.kind == fuse::Term::Kind::load || t.kind == fuse::Term::Kind::generator;
  }
  // The position of reduction `node` (a pending index) in the order the row folds them.
  int reduction_position(std::uint32_t node) const;
  bool element_load(std::size_t t) const {
    return region_.terms[t].kind == fuse::Term::Kind::load && level_[t] == Level::element;
  }
  bool contiguous_load(std::size_t t) const {
    return element_load(t) && access_[t].extent_stride == 1;
  }
  // Loads that several phases read are held in registers with the row: memory is read once.
  // Loads that every row reads alike (a norm's weight) are held too: read before the reductions,
  // their latency hides behind the row's. Measured on H100: layer_norm f32 0.8% faster, add +
  // rms_norm 0.3%. Other loads are read where they are used.
  bool held_load(std::size_t t) const {
    return element_load(t) && launch_.items > 0 && !block_held_load(t) &&
           (phases_using_[t] > 1 || row_invariant_load(t));
  }
  // Row-invariant loads read once before the loop over rows, where registers allow: with
  // several rows, and only loads the reductions do not fold (a norm's weight). A reduction's own
  // input held there beside an epilogue's load (one row makes every load row-invariant) folded
  // only lane 0's elements on H100 with CUDA 13.0's compiler, though the source is right
  // (lazyfuse-fuzz seed 203; tests/test_fuzz_regressions.cpp).
  bool block_held_load(std::size_t t) const {
    return invariants_held_for_block_ && row_invariant_load(t) && row_.rows > 1 &&
           first_phase_[t] == int(row_.reductions.size());
  }
  // Element values one phase computes and a later one needs again (softmax's exp(x - max)).
  bool reused(std::size_t t) const { return reused_[t]; }
  bool held_from_earlier(std::size_t t, int phase) const {
    return !reused_.empty() && reused_[t] && first_phase_[t] < phase;
  }
  // Divisions of each element by a value of its row (softmax's sum) or of every row: the
  // divisor's reciprocal is taken once (KernelBuilder::division_statement). On H100 the masked
  // softmax over [128 * 1024, 1024] bf16 took 0.317 ms dividing each element, 0.198 ms so.
  bool divides_by_row_value(std::size_t t) const;
  // Groups a thread loads before computing with them, in a phase that loops over the row and
  // needs the element terms `needed` (1 where the row is held in registers): several loads in
  // flight a thread, or memory's latency bounds the loop.
  int loads_in_flight(std::span<const std::uint8_t> needed) const;
  // The element terms phase `phase` needs for `targets`, in order; values held from an earlier
  // phase end the walk.
  std::vector<std::uint8_t> element_cone(std::span<const std::int32_t> targets, int phase) const;

 private:
  DType term_dtype(std::size_t t) const;
  DType output_dtype(std::size_t r) const { return pending_[region_.roots[r].node]->dtype; }
  void classify_terms();
  RowAccess row_access(const ir::Layout& layout) const;
  bool row_invariant_load(std::size_t t) const {
    return element_load(t) && access_[t].row_stride == 0 && access_[t].outer_stride == 0 &&
           phases_using_[t] > 0;
  }
  int block_held_words() const;
  int narrowest_itemsize() const;
  int choose_vector_width() const;
  int held_words_per_group() const;
  int read_again_words_per_group() const;
  std::vector<std::int32_t> phase_targets(std::size_t phase) const;
  void plan_phases();
  bool costly(std::size_t t) const;

  const fuse::Region& region_;
  const fuse::RowInfo& row_;
  std::span<const ir::NodePtr> pending_;
  std::span<const ir::NodePtr> externals_;
  std::vector<Level> level_;
  std::vector<int> phase_;
  std::vector<RowAccess> access_;
  std::vector<int> first_phase_;  // the first phase that computes each element term
  std::vector<int> phases_using_;
  // Element values held for later phases. Bytes, not vector<bool>: the plan reads and writes
  // them per term and phase, and bit access was a tenth of a row kernel's plan.
  std::vector<std::uint8_t> reused_;
  bool invariants_held_for_block_ = false;
  bool holds_planned_ = false;
  bool length_at_run_time_;
  int vector_width_ = 1;
  RowLaunch launch_{};
};

}  // namespace lazy::codegen
