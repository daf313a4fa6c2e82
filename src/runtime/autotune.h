// Choosing the fastest of several ways to run the same work by timing each on the device's
// stream (LAZY_AUTOTUNE).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "runtime/device.h"

namespace lazy::runtime {

// Timed runs per candidate, averaged, after one untimed run that pays first-launch costs: enough
// that the events' resolution (about 0.5 us) is small against work worth tuning.
inline constexpr int kAutotuneTimedRuns = 5;

struct CandidateTimes {
  std::vector<float> milliseconds;     // per run; infinity for a candidate that failed to queue
  std::optional<std::size_t> fastest;  // nullopt when every candidate failed
};

// queue(i) queues one run of candidate i on device.stream() and says whether it was queued.
// Waits for the timings. The work must give the same result however often it runs.
CandidateTimes time_candidates(Device& device, std::size_t count,
                               const std::function<bool(std::size_t)>& queue);

}  // namespace lazy::runtime
