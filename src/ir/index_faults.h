// Indices outside the axis they pick along, found while computing (by a kernel or the reference
// evaluator) and thrown as lazy::IndexError once the sync that found them has kept its results:
// the bad elements read as 0, everything else the sync computed is intact.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <utility>

namespace lazy::ir {

// Where an index is checked: the op the user called, the valid range [0, bound), their line.
struct IndexSite {
  std::string op;
  std::int64_t bound;
  std::source_location loc;
  // A scatter drops the elements a bad index names; a gather reads 0 for them.
  bool scatters = false;
};

// A process-wide number for `site`, which kernels report instead of the site itself (their
// arguments are numbers); the same site text and place get the same number.
std::uint32_t register_index_site(const IndexSite& site);
IndexSite index_site(std::uint32_t id);

// Keeps the first bad index found since the last throw; later ones are dropped.
void report_index_fault(const IndexSite& site, std::int64_t value);

// While one lives, the faults its thread reports are held by it: commit() reports the first,
// once the computation that found it has succeeded; destroyed uncommitted, it drops them (the
// computation failed and kept nothing, and a retry finds them again).
class HeldIndexFaults {
 public:
  HeldIndexFaults();
  HeldIndexFaults(const HeldIndexFaults&) = delete;
  HeldIndexFaults& operator=(const HeldIndexFaults&) = delete;
  ~HeldIndexFaults();
  void commit();

 private:
  friend void report_index_fault(const IndexSite& site, std::int64_t value);
  HeldIndexFaults* outer_;
  std::optional<std::pair<IndexSite, std::int64_t>> first_;
};
// Throws IndexError for the kept fault, if any, and forgets it.
void throw_index_fault_if_any();

}  // namespace lazy::ir
