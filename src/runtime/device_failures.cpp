#include "runtime/device_failures.h"

#include "lazy/error.h"
#include "runtime/cuda_driver.h"

namespace lazy::runtime {

namespace {

constexpr std::string_view kWhatToDo =
    "To find the faulting kernel and access, run the program again with LAZY_SYNC_LAUNCHES=1 (a "
    "synchronization after every launch names the failing kernel exactly), with LAZY_DEBUG=1 "
    "(prints each kernel's generated CUDA source), or under compute-sanitizer "
    "(compute-sanitizer --tool memcheck ./program). A generated kernel that faults is a lazyfuse "
    "bug: please report it with that output.";

// Where the fault happened as far as lazyfuse can tell, in a paragraph.
std::string culprit_paragraph(const LaunchLog::Suspects& suspects) {
  if (suspects.count == 0) {
    return "No kernel was launched since the last successful synchronization: the GPU or its "
           "driver failed (see nvidia-smi and the system log).";
  }
  if (suspects.count == 1) return "The kernel that failed: " + suspects.latest.back().text + ".";
  std::string text =
      "Kernels run asynchronously and report a fault at a later call, so the culprit is one of "
      "the " +
      std::to_string(suspects.count) + " kernels launched since the last successful " +
      "synchronization";
  if (suspects.count > suspects.latest.size()) {
    text += " (the last " + std::to_string(suspects.latest.size()) + ", oldest first)";
  }
  text += ":";
  for (const KernelLabel& label : suspects.latest) text += "\n  " + label.text;
  return text;
}

// The same, in a clause for the short error.
std::string culprit_clause(const LaunchLog::Suspects& suspects) {
  if (suspects.count == 0) return "with no kernel running";
  if (suspects.count == 1) return "in kernel " + suspects.latest.back().text;
  return "in one of " + std::to_string(suspects.count) + " kernels, the last " +
         suspects.latest.back().text;
}

}  // namespace

void DeviceFailures::fail(CUresult result, std::string_view what) {
  if (!is_sticky_cuda_error(result)) {
    throw RuntimeError("lazyfuse: " + describe_cuda_error(result, what),
                       std::source_location::current());
  }
  std::lock_guard lock(mutex_);
  if (lost()) throw_lost();  // another thread reported it first
  const LaunchLog::Suspects suspects = launches_.suspects();
  lost_summary_ = cuda_error_name(result) + " " + culprit_clause(suspects);
  lost_where_ =
      suspects.latest.empty() ? std::source_location::current() : suspects.latest.back().where;
  lost_.store(true, std::memory_order_release);
  throw RuntimeError(
      "lazyfuse: the CUDA context of " + device_ + " is lost: " + cuda_error_text(result) +
          ", returned by " + std::string(what) + ", which only reports it.\n" +
          culprit_paragraph(suspects) +
          "\nNothing more can run on this GPU in this process: every later sync "
          "throws. " +
          std::string(kWhatToDo) +
          (suspects.latest.empty() ? "\nReported" : "\nThe last suspect's first op was recorded"),
      lost_where_);
}

void DeviceFailures::throw_lost() const {
  throw RuntimeError("lazyfuse: the CUDA context of " + device_ + " was lost earlier (" +
                         lost_summary_ +
                         "), so nothing more can run on it in this process; restart the "
                         "program. The first error said what to do",
                     lost_where_);
}

}  // namespace lazy::runtime
