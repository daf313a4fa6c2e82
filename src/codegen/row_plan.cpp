#include "codegen/row_plan.h"

#include <algorithm>

#include "codegen/kernel_builder.h"
#include "codegen/op_expressions.h"
#include "ir/integer_math.h"

namespace lazy::codegen {

namespace {

using fuse::Term;

// Registers a thread may hold in all (the row's loads and values, and the row-invariant loads,
// a norm's weight and bias) for row-invariant loads to be held across rows: the compiler keeps
// them converted to f32 across the row loop, and past this budget the occupancy lost costs more
// than the early load gains. On H100, layer_norm [16384, 4096] f32 (24 words with the row's x)
// held them: 0.8% faster; bf16 (40 words) 4% slower, so it loads them with each row instead.
constexpr int kMaxBlockHeldWords = 32;

}  // namespace

RowPlan::RowPlan(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals, bool length_at_run_time)
    : region_(region),
      row_(*region.row),
      pending_(pending),
      externals_(externals),
      length_at_run_time_(length_at_run_time) {
  classify_terms();
  vector_width_ = choose_vector_width();
  if (!length_at_run_time) {
    plan_holds();
    return;
  }
  // What is held in registers shapes only the text, which a run-time kernel often finds cached:
  // the launch of a row too long to hold needs none of it.
  const std::int64_t groups = ir::ceil_div(row_.extent, vector_width_);
  if (run_time_row_may_hold(groups))
    plan_holds();
  else
    launch_ = choose_run_time_row_launch(row_.rows, groups, vector_width_, 0);
}

void RowPlan::plan_holds() {
  if (holds_planned_) return;
  holds_planned_ = true;
  plan_phases();
  const std::int64_t groups = ir::ceil_div(row_.extent, vector_width_);
  launch_ = length_at_run_time_ ? choose_run_time_row_launch(row_.rows, groups, vector_width_,
                                                             read_again_words_per_group())
                                : choose_row_launch(groups, vector_width_, held_words_per_group());
  if (launch_.items == 0) reused_.assign(reused_.size(), false);
  // Which rows a run-time kernel serves is not in its text: none hold invariants for the block.
  invariants_held_for_block_ =
      launch_.items > 0 && !length_at_run_time_ && block_held_words() <= kMaxBlockHeldWords;
}

DType RowPlan::term_dtype(std::size_t t) const {
  return codegen::term_dtype(region_.terms[t], pending_, externals_);
}

// Each term's level, and how many reductions must have folded before it can be computed.
void RowPlan::classify_terms() {
  const std::size_t n = region_.terms.size();
  level_.assign(n, Level::uniform);
  phase_.assign(n, 0);
  access_.assign(n, RowAccess{});
  for (std::size_t t = 0; t < n; ++t) {
    const Term& term = region_.terms[t];
    if (is_access(term)) {
      access_[t] = row_access(term.layout);
      const RowAccess& a = access_[t];
      level_[t] = a.extent_stride != 0                       ? Level::element
                  : a.row_stride != 0 || a.outer_stride != 0 ? Level::per_row
                                                             : Level::uniform;
    }
    if (term.kind == Term::Kind::reduced) {
      level_[t] = Level::per_row;
      phase_[t] = reduction_position(term.source) + 1;
    }
    for (int i = 0; i < term.n_operands; ++i) {
      level_[t] = std::max(level_[t], level_[term.operands[i]]);
      phase_[t] = std::max(phase_[t], phase_[term.operands[i]]);
    }
  }
}

RowAccess RowPlan::row_access(const ir::Layout& layout) const {
  RowAccess access;
  access.offset = layout.offset;
  if (layout.shape.rank() == 0 || row_.rows * row_.extent == 0) return access;
  // The partitioner checked that every access walks the rows (fuse::row_walk).
  return *fuse::row_walk(layout, row_.folded_axes);
}

int RowPlan::reduction_position(std::uint32_t node) const {
  auto it = std::find(row_.reductions.begin(), row_.reductions.end(), node);
  return int(it - row_.reductions.begin());
}

// Registers a thread holds when row-invariant loads are kept across rows, those at 4 bytes an
// element at least.
int RowPlan::block_held_words() const {
  int words = held_words_per_group();
  for (std::size_t t = 0; t < region_.terms.size(); ++t) {
    if (!row_invariant_load(t)) continue;
    const int size = itemsize(term_dtype(t));
    words += vector_width_ * (std::max(4, size) - size) / 4;
  }
  return words * launch_.items;
}

// Bytes of the narrowest element the row loads or stores (0 for none).
int RowPlan::narrowest_itemsize() const {
  int narrowest = 0;
  auto take = [&](DType dtype) {
    const int size = itemsize(dtype);
    narrowest = narrowest == 0 ? size : std::min(narrowest, size);
  };
  for (std::size_t t = 0; t < region_.terms.size(); ++t)
    if (element_load(t)) take(term_dtype(t));
  for (std::size_t r = 0; r < region_.roots.size(); ++r)
    if (!region_.roots[r].per_row) take(output_dtype(r));
  return narrowest;
}

// 16 bytes of the narrowest element access per thread step, halved until every contiguous
// access and the stores stay aligned and rows hold whole groups.
int RowPlan::choose_vector_width() const {
  const int narrowest = narrowest_itemsize();
  if (narrowest == 0) return 1;
  int width = 16 / narrowest;
  auto aligned = [&](int w) {
    if (row_.extent % w != 0) return false;
    for (std::size_t t = 0; t < region_.terms.size(); ++t) {
      if (!contiguous_load(t)) continue;
      const RowAccess& a = access_[t];
      if (a.offset % w != 0 || a.row_stride % w != 0 || a.outer_stride % w != 0) return false;
    }
    return true;
  };
  while (width > 1 && !aligned(width)) width /= 2;
  return width;
}

int RowPlan::loads_in_flight(std::span<const std::uint8_t> needed) const {
  if (launch_.items > 0) return 1;
  int bytes = 0;
  for (std::size_t t = 0; t < needed.size(); ++t)
    if (needed[t] && element_load(t)) bytes += vector_width_ * itemsize(term_dtype(t));
  return looped_loads_in_flight(bytes);
}

// Registers a thread holds per group with the row held, where a phase reads again what another
// read or computed; 0 where holding the row saves nothing.
int RowPlan::read_again_words_per_group() const {
  for (std::size_t t = 0; t < region_.terms.size(); ++t)
    if ((element_load(t) && phases_using_[t] > 1) || reused_[t]) return held_words_per_group();
  return 0;
}

// Registers a thread holds per group: the row's loads, and values kept for later phases.
int RowPlan::held_words_per_group() const {
  int bytes = 0;
  for (std::size_t t = 0; t < region_.terms.size(); ++t) {
    if (element_load(t) && (phases_using_[t] > 1 || row_invariant_load(t)))
      bytes += vector_width_ * itemsize(term_dtype(t));
    if (reused_[t]) bytes += vector_width_ * std::max(4, itemsize(term_dtype(t)));
  }
  return int(ir::ceil_div(bytes, 4));
}

// What each phase computes: phase j folds reduction j, the last one writes the element roots.
std::vector<std::int32_t> RowPlan::phase_targets(std::size_t phase) const {
  if (phase < row_.reductions.size()) return {row_.reduction_terms[phase]};
  std::vector<std::int32_t> roots;
  for (std::size_t r = 0; r < region_.roots.size(); ++r)
    if (!region_.roots[r].per_row) roots.push_back(region_.root_terms[r]);
  return roots;
}

// Element values one phase computes and a later one needs again (softmax's exp(x - max)):
// held in registers with the row, they are computed once.
void RowPlan::plan_phases() {
  const std::size_t n = region_.terms.size();
  first_phase_.assign(n, -1);
  phases_using_.assign(n, 0);
  reused_.assign(n, false);
  std::vector<std::uint8_t> read_later(n, false);
  for (std::size_t p = 0; p <= row_.reductions.size(); ++p) {
    // Costly values an earlier phase computed count as held while this phase's needs are
    // found; cheap ones (casts, arithmetic) are computed again from the held loads.
    for (std::size_t t = 0; t < n; ++t) reused_[t] = first_phase_[t] >= 0 && costly(t);
    const std::vector<std::uint8_t> needed = element_cone(phase_targets(p), int(p));
    for (std::size_t t = 0; t < n; ++t) {
      if (!needed[t]) continue;
      if (first_phase_[t] < 0) first_phase_[t] = int(p);
      if (held_from_earlier(t, int(p))) read_later[t] = true;
      phases_using_[t]++;
    }
  }
  reused_ = read_later;
}

std::vector<std::uint8_t> RowPlan::element_cone(std::span<const std::int32_t> targets,
                                                int phase) const {
  std::vector<std::uint8_t> needed(region_.terms.size(), false);
  for (std::int32_t target : targets) needed[target] = true;
  for (std::size_t t = region_.terms.size(); t-- > 0;) {
    if (!needed[t] || level_[t] != Level::element || held_from_earlier(t, phase)) continue;
    const Term& term = region_.terms[t];
    for (int i = 0; i < term.n_operands; ++i) needed[term.operands[i]] = true;
  }
  for (std::size_t t = 0; t < needed.size(); ++t)
    needed[t] = needed[t] && level_[t] == Level::element;
  return needed;
}

bool RowPlan::divides_by_row_value(std::size_t t) const {
  const Term& term = region_.terms[t];
  return term.kind == Term::Kind::op && pending_[term.source]->op == ir::Op::Div &&
         level_[t] == Level::element && level_[term.operands[1]] != Level::element;
}

bool RowPlan::costly(std::size_t t) const {
  const Term& term = region_.terms[t];
  if (term.kind != Term::Kind::op && term.kind != Term::Kind::generator) return false;
  return ir::op_info(pending_[term.source]->op).cost != ir::Cost::simple;
}

}  // namespace lazy::codegen
