#include "ir/index_faults.h"

#include <atomic>
#include <mutex>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>

#include "lazy/error.h"

namespace lazy::ir {

namespace {

struct Faults {
  std::mutex mutex;
  std::vector<IndexSite> sites;
  absl::flat_hash_map<std::string, std::uint32_t> id_of;  // op, bound and place as text
  std::optional<std::pair<IndexSite, std::int64_t>> first;
  std::atomic<bool> pending{false};  // `first` is set: read by every sync without the mutex
};

Faults& faults() {
  static Faults* f = new Faults;  // never destroyed: kernels may report during exit
  return *f;
}

constinit thread_local HeldIndexFaults* held_here = nullptr;

}  // namespace

HeldIndexFaults::HeldIndexFaults() : outer_(held_here) {
  held_here = this;
}

HeldIndexFaults::~HeldIndexFaults() {
  held_here = outer_;
}

void HeldIndexFaults::commit() {
  held_here = outer_;
  if (first_) report_index_fault(first_->first, first_->second);
  first_.reset();
  held_here = this;
}

std::uint32_t register_index_site(const IndexSite& site) {
  Faults& f = faults();
  const std::string key = absl::StrCat(site.op, "\n", site.bound, "\n", site.loc.file_name(), ":",
                                       site.loc.line(), ":", site.loc.column());
  std::lock_guard lock(f.mutex);
  auto [it, added] = f.id_of.try_emplace(key, std::uint32_t(f.sites.size()));
  if (added) f.sites.push_back(site);
  return it->second;
}

IndexSite index_site(std::uint32_t id) {
  Faults& f = faults();
  std::lock_guard lock(f.mutex);
  return f.sites.at(id);
}

void report_index_fault(const IndexSite& site, std::int64_t value) {
  if (HeldIndexFaults* held = held_here) {
    if (!held->first_) held->first_.emplace(site, value);
    return;
  }
  Faults& f = faults();
  std::lock_guard lock(f.mutex);
  if (f.first) return;
  f.first.emplace(site, value);
  f.pending.store(true, std::memory_order_release);
}

void throw_index_fault_if_any() {
  Faults& f = faults();
  if (!f.pending.load(std::memory_order_acquire)) return;
  std::unique_lock lock(f.mutex);
  if (!f.first) return;
  const auto [site, value] = *f.first;
  f.first.reset();
  f.pending.store(false, std::memory_order_relaxed);
  lock.unlock();
  throw IndexError(absl::StrCat("lazy::", site.op, ": index ", value, " is out of range [0, ",
                                site.bound, ") for the axis it picks along; ",
                                site.scatters ? "the elements it names are not scattered"
                                              : "the bad elements read as 0",
                                ", everything else this sync computed is kept"),
                   site.loc);
}

}  // namespace lazy::ir
