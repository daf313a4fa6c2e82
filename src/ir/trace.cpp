#include "ir/trace.h"

#include <algorithm>

#include "ir/settings.h"
#include "lazy/error.h"

namespace lazy::ir {

namespace {

constexpr std::uint64_t kExternalMarker = std::uint64_t(1) << 63;

}  // namespace

std::int64_t max_pending_ops() {
  static const std::int64_t value = integer_setting(Setting::max_pending_ops);
  return value;
}

constinit thread_local Trace* Trace::current_ = nullptr;

namespace {

// Set when the thread's own trace is destroyed: its other thread-locals (plans, streams) are
// going too, so nothing may be recorded or computed on it any more.
constinit thread_local bool trace_ended = false;

}  // namespace

Trace& Trace::make_current() {
  if (trace_ended) {
    throw RuntimeError(
        "lazyfuse: an op was recorded after this thread's lazyfuse state was destroyed (the "
        "destructor of a static or thread_local object, run as the thread or the program ends); "
        "compute what it needs before main returns or the thread ends",
        std::source_location::current());
  }
  static thread_local Trace trace;
  current_ = &trace;
  return trace;
}

Trace::~Trace() {
  clear();
  if (current_ == this) {
    current_ = nullptr;
    trace_ended = true;
  }
}

std::uint64_t Trace::external_ref(Node* node) {
  auto [it, inserted] = external_slots_.try_emplace(node, std::uint32_t(externals_.size()));
  if (inserted) {
    externals_.emplace_back(node);
    external_words_.push_back(std::uint64_t(node->dtype) | std::uint64_t(node->shape.rank()) << 8);
    for (std::int64_t dim : node->shape) external_words_.push_back(std::uint64_t(dim));
  }
  return kExternalMarker | it->second;
}

void Trace::append(NodePtr node) {
  // What the node is (op, dtypes, shape, attrs), then where each input comes from (a pending
  // index or an external slot): that tells apart graphs whose nodes are alike but wired
  // differently, or that bind scalars differently.
  const int rank = node->shape.rank(), count = node->attrs.count;
  program_.push_back(std::uint64_t(node->op) | std::uint64_t(node->dtype) << 8 |
                     std::uint64_t(node->compute_dtype) << 16 | std::uint64_t(rank) << 24 |
                     std::uint64_t(count) << 32 | std::uint64_t(node->inputs.size()) << 40);
  for (int d = 0; d < rank; ++d) program_.push_back(std::uint64_t(node->shape[d]));
  for (int i = 0; i < count; ++i) program_.push_back(std::uint64_t(node->attrs[i]));
  for (Node* input : node->inputs)
    program_.push_back(input->trace == this ? input->trace_index : external_ref(input));
  // A plan bakes in where each index check was called (the line a bad index names), so a
  // gather or scatter recorded on another line makes another plan.
  if (const OpKind kind = op_kind(node->op); kind == OpKind::gather || kind == OpKind::scatter) {
    const std::string_view file = node->loc.file_name();  // hashed: the same in every run
    program_.push_back(hash_bytes(file.data(), file.size()).lo);
    program_.push_back(std::uint64_t(node->loc.line()) | std::uint64_t(node->loc.column()) << 32);
  }
  node->trace = this;
  node->trace_index = std::uint32_t(nodes_.size());
  nodes_.push_back(std::move(node));
}

std::vector<bool> LiveBits::to_vector() const {
  std::vector<bool> held(count);
  for (std::size_t i = 0; i < count; ++i) held[i] = (*this)[i];
  return held;
}

LiveBits Trace::live_bits() const {
  LiveBits live{std::vector<std::uint64_t>((nodes_.size() + 63) / 64), nodes_.size()};
  // A word at a time in a register: a sync reads every pending node's owner count.
  for (std::size_t first = 0; first < nodes_.size(); first += 64) {
    const std::size_t end = std::min(first + 64, nodes_.size());
    std::uint64_t bits = 0;
    for (std::size_t i = first; i < end; ++i)
      bits |= std::uint64_t(nodes_[i].use_count() > 1) << (i - first);
    live.words[first / 64] = bits;
  }
  return live;
}

Hash128 Trace::sync_key() const {
  return sync_key(live_bits());
}

Hash128 Trace::sync_key(const LiveBits& live) const {
  // After the program, hashed with it in place: the externals' dtypes and shapes, which nodes a
  // handle holds, then the two counts that make the words read back one way only.
  std::vector<std::uint64_t> words;
  words.reserve(external_words_.size() + live.words.size() + 2);
  words.insert(words.end(), external_words_.begin(), external_words_.end());
  words.insert(words.end(), live.words.begin(), live.words.end());
  words.push_back(nodes_.size());
  words.push_back(external_words_.size());
  return hash_words(program_, words);
}

void Trace::clear() {
  for (const NodePtr& node : nodes_) {
    node->trace = nullptr;
    if (node.use_count() > 1) node->inputs.clear();
  }
  nodes_.clear();
  externals_.clear();
  external_slots_.clear();
  program_.clear();
  external_words_.clear();
}

}  // namespace lazy::ir
