#include "codegen/kernel_sources.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include <absl/container/flat_hash_map.h>

#include "fuse/internal_error.h"
#include "ir/hash.h"

namespace lazy::codegen {

namespace {

std::atomic<bool> checks{false};

class Texts {
 public:
  std::optional<KernelText> find(const ir::Hash128& key) {
    std::lock_guard lock(mutex_);
    auto it = texts_.find(key);
    if (it == texts_.end()) return std::nullopt;
    return it->second;
  }
  void remember(const ir::Hash128& key, KernelText text) {
    std::lock_guard lock(mutex_);
    texts_.try_emplace(key, std::move(text));
  }

 private:
  // Only plan misses come here.
  std::mutex mutex_;
  absl::flat_hash_map<ir::Hash128, KernelText> texts_;
};

Texts& texts() {
  static Texts* instance = new Texts();  // used by plan misses until exit
  return *instance;
}

// The hash of a source_location's file name. Nearly every node of a graph comes from the same
// few files, whose names sit at fixed addresses, so the last one is kept (per thread).
std::uint64_t file_name_hash(const char* file_name) {
  thread_local const char* last_name = nullptr;
  thread_local std::uint64_t last_hash = 0;
  if (file_name != last_name) {
    last_hash = ir::hash_bytes(file_name, std::strlen(file_name)).lo;
    last_name = file_name;
  }
  return last_hash;
}

void add_node(std::vector<std::uint64_t>& words, const ir::Node& node) {
  words.push_back(std::uint64_t(node.op) | std::uint64_t(node.dtype) << 16 |
                  std::uint64_t(node.compute_dtype) << 24 | std::uint64_t(node.shape.rank()) << 32 |
                  std::uint64_t(node.attrs.count) << 40);
  for (int i = 0; i < node.attrs.count; ++i) words.push_back(std::uint64_t(node.attrs[i]));
  // The op's comment names the user's file and line.
  words.push_back(std::uint64_t(node.loc.line()));
  words.push_back(file_name_hash(node.loc.file_name()));
}

// Room for a key's words, about what a term, root or reduction adds: growing the vector was a
// dozen allocations a plan miss.
void reserve_words(std::vector<std::uint64_t>& words, const fuse::Region& region) {
  const std::size_t reductions = region.row ? region.row->reductions.size() : 1;
  words.reserve(16 + 12 * region.terms.size() + 8 * (region.roots.size() + reductions));
}

// A key's first word: which emitter's text it names.
constexpr std::uint64_t kRowText = 1;
constexpr std::uint64_t kPointwiseText = 2;

// A term's kind, operands and what it reads or computes.
void add_term(std::vector<std::uint64_t>& words, const fuse::Term& term,
              std::span<const ir::NodePtr> pending, std::span<const ir::NodePtr> externals) {
  words.push_back(std::uint64_t(term.kind) | std::uint64_t(term.external) << 8 |
                  std::uint64_t(term.from_copy) << 9 | std::uint64_t(term.n_operands) << 16);
  words.push_back(term.source);
  for (int i = 0; i < term.n_operands; ++i) words.push_back(std::uint64_t(term.operands[i]));
  if (term.kind == fuse::Term::Kind::load && term.external) {
    words.push_back(std::uint64_t(externals[term.source]->dtype));
  } else {
    add_node(words, *pending[term.source]);
  }
}

// The parts of an access's plan a text reads: its mode and, walked with strides, the rank and
// whether the innermost stride is 0, 1 or another.
void add_access(std::vector<std::uint64_t>& words, const AccessPlan& access) {
  const std::uint64_t inner = access.strides.empty()       ? 3
                              : access.strides.back() == 0 ? 0
                              : access.strides.back() == 1 ? 1
                                                           : 2;
  words.push_back(std::uint64_t(access.mode) | std::uint64_t(access.strides.size()) << 8 |
                  inner << 16 | std::uint64_t(access.unaligned) << 24);
}

// A cached text's kernel against one generated afresh (kernel_text_checks).
bool same_kernel(const GeneratedKernel& a, const GeneratedKernel& b) {
  auto same_arg = [](const ArgSource& x, const ArgSource& y) {
    return x.kind == y.kind && x.value == y.value;
  };
  const bool hashes_its_source =
      !a.source_hash || *a.source_hash == ir::hash_bytes(a.source.data(), a.source.size());
  return a.name == b.name && a.source == b.source && a.nvrtc_options == b.nvrtc_options &&
         hashes_its_source &&
         std::equal(a.args.begin(), a.args.end(), b.args.begin(), b.args.end(), same_arg);
}

}  // namespace

std::optional<RowTextKeys> row_text_keys(const fuse::Region& region,
                                         std::span<const ir::NodePtr> pending,
                                         std::span<const ir::NodePtr> externals,
                                         const RowPlan& plan, const CodegenOptions& options) {
  std::vector<std::uint64_t> words = {kRowText, std::uint64_t(options.fast_math),
                                      std::uint64_t(options.sizes_at_run_time), region.terms.size(),
                                      region.roots.size()};
  reserve_words(words, region);
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    const fuse::Term& term = region.terms[t];
    if (term.gather || term.concat) return std::nullopt;
    add_term(words, term, pending, externals);
    words.push_back(std::uint64_t(plan.level(t)) | std::uint64_t(plan.ready_after(t)) << 32);
    if (plan.is_access(term)) {
      const RowAccess& access = plan.access(t);
      // Whether rows differ in it too: a load every row reads alike is held before the row loop.
      const bool rows_alike = access.row_stride == 0 && access.outer_stride == 0;
      words.push_back(std::uint64_t(access.inner_rows > 0) |
                      std::uint64_t(plan.contiguous_load(t)) << 1 | std::uint64_t(rows_alike) << 2);
    }
  }
  for (std::size_t r = 0; r < region.roots.size(); ++r) {
    const fuse::Root& root = region.roots[r];
    if (root.external_copy) return std::nullopt;
    words.push_back(std::uint64_t(root.node) | std::uint64_t(root.per_row) << 32);
    words.push_back(std::uint64_t(region.root_terms[r]));
    add_node(words, *pending[root.node]);
  }
  for (std::size_t j = 0; j < region.row->reductions.size(); ++j) {
    words.push_back(region.row->reductions[j]);
    words.push_back(std::uint64_t(region.row->reduction_terms[j]));
    add_node(words, *pending[region.row->reductions[j]]);
  }
  // What of the sizes the text holds: a kernel compiled for its length holds the length, its
  // launch and what its plan read of the rows (whether there are any, several), but not how
  // many; a run-time kernel only the vector width and the groups a thread holds.
  std::vector<std::uint64_t> sizes = {std::uint64_t(plan.vector_width()),
                                      std::uint64_t(plan.launch().items)};
  if (!plan.length_at_run_time()) {
    const fuse::RowInfo& row = *region.row;
    const RowLaunch& launch = plan.launch();
    sizes.insert(sizes.end(), {std::uint64_t(row.extent), std::uint64_t(row.rows == 0),
                               std::uint64_t(row.rows > 1), std::uint64_t(launch.row_threads),
                               std::uint64_t(launch.block), std::uint64_t(launch.items)});
  }
  // The words are hashed once: the text's key is the structure's with the sizes.
  const ir::Hash128 structure = ir::hash_words(words);
  const std::uint64_t structure_words[] = {structure.lo, structure.hi};
  return RowTextKeys{.text = ir::hash_words(structure_words, sizes), .structure = structure};
}

ir::Hash128 pointwise_text_key(const fuse::Region& region, std::span<const ir::NodePtr> pending,
                               std::span<const ir::NodePtr> externals, const IterationSpace& space,
                               std::span<const int> access_of_term, bool column,
                               const CodegenOptions& options) {
  std::vector<std::uint64_t> words = {
      kPointwiseText,
      std::uint64_t(options.fast_math),
      std::uint64_t(region.shape.rank()),
      region.terms.size(),
      region.roots.size(),
      std::uint64_t(column) | std::uint64_t(region.reduction.has_value()) << 1,
      space.dims.size(),
      std::uint64_t(space.vector_width) | std::uint64_t(space.index_32bit) << 32,
      space.accesses.size()};
  reserve_words(words, region);
  for (const AccessPlan& access : space.accesses) add_access(words, access);
  for (std::size_t t = 0; t < region.terms.size(); ++t) {
    add_term(words, region.terms[t], pending, externals);
    words.push_back(std::uint64_t(std::int64_t(access_of_term[t])));
  }
  for (std::size_t r = 0; r < region.roots.size(); ++r) {
    words.push_back(std::uint64_t(region.roots[r].node) | std::uint64_t(region.root_terms[r])
                                                              << 32);
    add_node(words, *pending[region.roots[r].node]);
  }
  if (region.reduction) {
    words.push_back(region.reduction->node);
    add_node(words, *pending[region.reduction->node]);
  }
  return ir::hash_words(words);
}

GeneratedKernel kernel_from_text_cache(const std::optional<ir::Hash128>& key,
                                       absl::FunctionRef<GeneratedKernel(KernelText)> with_text,
                                       absl::FunctionRef<GeneratedKernel()> generate,
                                       absl::FunctionRef<GeneratedKernel()> generate_afresh,
                                       const ir::Node* origin) {
  if (!key) return generate();
  if (std::optional<KernelText> text = texts().find(*key)) {
    GeneratedKernel kernel = with_text(std::move(*text));
    if (kernel_text_checks() && !same_kernel(kernel, generate_afresh()))
      fuse::internal_error(*origin, "a kernel's cached text differs from the one generated");
    return kernel;
  }
  GeneratedKernel kernel = generate();
  texts().remember(*key, {kernel.name, kernel.source, kernel.nvrtc_options,
                          ir::hash_bytes(kernel.source.data(), kernel.source.size())});
  return kernel;
}

void set_kernel_text_checks(bool enabled) {
  checks.store(enabled, std::memory_order_relaxed);
}

bool kernel_text_checks() {
  return checks.load(std::memory_order_relaxed);
}

}  // namespace lazy::codegen
