// Indices outside the axis they pick along, found while computing (by a kernel or the reference
// evaluator) and thrown as lazy::IndexError once the sync that found them has kept its results:
// the bad elements read as 0, everything else the sync computed is intact.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <string>

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
// Throws IndexError for the kept fault, if any, and forgets it.
void throw_index_fault_if_any();

}  // namespace lazy::ir
