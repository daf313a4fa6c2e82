#include "runtime/autotune.h"

#include <limits>

namespace lazy::runtime {

CandidateTimes time_candidates(Device& device, std::size_t count,
                               const std::function<bool(std::size_t)>& queue) {
  CandidateTimes times;
  times.milliseconds.assign(count, std::numeric_limits<float>::infinity());
  DeviceTimer timer(device);
  for (std::size_t i = 0; i < count; ++i) {
    if (!queue(i)) continue;
    bool queued = true;
    timer.start();
    for (int run = 0; run < kAutotuneTimedRuns && queued; ++run) queued = queue(i);
    timer.stop();
    const float elapsed = timer.elapsed_ms();
    if (!queued) continue;
    times.milliseconds[i] = elapsed / float(kAutotuneTimedRuns);
    if (!times.fastest || times.milliseconds[i] < times.milliseconds[*times.fastest]) {
      times.fastest = i;
    }
  }
  return times;
}

}  // namespace lazy::runtime
