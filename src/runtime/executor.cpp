#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <sstream>

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>

#include "ir/debug.h"
#include "ir/settings.h"
#include "jit/nvrtc.h"
#include "lazy/config.h"
#include "lazy/error.h"
#include "ref/evaluator.h"
#include "runtime/graph_replay.h"
#include "runtime/plan_builder.h"
#include "runtime/plan_cache.h"
#include "runtime/replay.h"
#include "runtime/stats.h"
#include "runtime/storage_mirror.h"

namespace lazy::runtime {

namespace {

// The arch kernels are compiled for when no GPU says which: LAZY_ARCH ("sm_90" or "90"), else
// sm_90 (H100 and H200).
constexpr int kDefaultHostArch = 90;

thread_local bool reference_execution = false;

int host_arch() {
  static const int arch = [] {
    const std::optional<std::string> env = ir::text_setting(ir::Setting::arch);
    if (!env) return kDefaultHostArch;
    const absl::string_view stripped = absl::StripAsciiWhitespace(*env);  // as other settings
    std::string_view text(stripped.data(), stripped.size());
    if (text.starts_with("sm_")) text.remove_prefix(3);
    int parsed = 0;
    if (!absl::SimpleAtoi(std::string(text), &parsed) || parsed <= 0) {
      throw RuntimeError(
          "lazyfuse: LAZY_ARCH=" + *env + " is not an architecture; use a value like sm_90",
          std::source_location::current());
    }
    // One NVRTC does not know would fail every compile, blaming the kernels.
    if (jit::nvrtc_available()) {
      const std::vector<int> archs = jit::nvrtc_supported_archs();
      if (std::find(archs.begin(), archs.end(), parsed) == archs.end()) {
        throw RuntimeError("lazyfuse: LAZY_ARCH=" + *env +
                               " is not an architecture this NVRTC compiles for; it takes sm_" +
                               absl::StrJoin(archs, ", sm_"),
                           std::source_location::current());
      }
    }
    return parsed;
  }();
  return arch;
}

// Says once per process that there is no GPU, and what happens instead.
void note_host_execution() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::string why_no_nvrtc;
    bool nvrtc = jit::nvrtc_available(&why_no_nvrtc);
    const std::string why_host = Device::why_host();
    std::ostringstream text;
    text << "lazyfuse: computing on the host with the reference evaluator; ";
    if (nvrtc) {
      text << "kernels are still generated and compiled for sm_" << host_arch() << ". ";
    } else {
      text << "kernels are generated but not compiled (" << why_no_nvrtc << "). ";
    }
    text << "No GPU because " << why_host;
    ir::debug_print(text.str());
  });
}

}  // namespace

HeldResults execute(const ir::Trace& trace, const ir::LiveBits& live,
                    std::shared_ptr<const Plan>* plan_run) {
  const auto start = ir::debug_level() >= 1 ? std::chrono::steady_clock::now()
                                            : std::chrono::steady_clock::time_point();
  Device* device = Device::get();
  if (device == nullptr) {
    if (std::optional<std::string> why = Device::gpu_asked_for_in_vain())
      throw RuntimeError(*why, std::source_location::current());
    note_host_execution();
  }
  if (std::string why; device != nullptr && !jit::nvrtc_available(&why)) {
    throw RuntimeError("lazyfuse: a GPU is in use but kernels cannot be compiled: " + why +
                           " (or set LAZY_DEVICE=cpu to compute on the host)",
                       std::source_location::current());
  }
  const bool fusion = fusion_enabled();
  const bool fast = fast_math();
  const int arch = device != nullptr ? device->sm_arch() : host_arch();
  const ir::Hash128 key = plan_key(trace, trace.sync_key(live), fusion, fast, arch);
  Counters& stats = counters();
  stats.syncs++;

  std::shared_ptr<const Plan> plan = find_plan(key);
  const bool hit = plan != nullptr;
  const std::int64_t compiles_before = stats.nvrtc_compiles.load();
  if (hit) {
    stats.plan_hits++;
  } else {
    stats.plan_misses++;
    plan = build_plan(trace, live.to_vector(), fusion, fast, device, arch);
    remember_plan(key, plan);
  }
  if (ir::debug_level() >= 2) {
    ir::debug_print("lazyfuse: graph\n" + ir::describe_graph(trace.pending(), live.to_vector()));
    if (!plan->partition_text.empty())
      ir::debug_print("lazyfuse: partition\n" + plan->partition_text);
  }

  HeldResults results;
  bool as_graph = false;
  if (device != nullptr && !reference_execution) {
    // A Function capture (plan_run) keeps the plan and makes its own graph.
    GraphReplay* graph =
        plan_run == nullptr && hit ? eager_graph(*plan, device->current_stream()) : nullptr;
    as_graph = replay_plan(*plan, graph, trace.pending(), trace.externals(), *device,
                           [&](std::uint32_t node, ir::TensorData data) {
                             results.emplace_back(node, std::move(data));
                           });
    if (plan_run != nullptr) *plan_run = plan;
  } else {
    for (const ir::NodePtr& external : trace.externals()) host_bytes(*external->data->storage);
    std::vector<std::optional<ir::TensorData>> computed =
        ref::evaluate(trace.pending(), live.to_vector());
    for (std::uint32_t node = 0; node < computed.size(); ++node)
      if (computed[node]) results.emplace_back(node, std::move(*computed[node]));
  }

  if (ir::debug_level() >= 1) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream line;
    line << "lazyfuse: sync " << stats.syncs.load() << ": " << trace.size() << " ops, "
         << plan->kernels.size() << " kernel(s), plan " << (hit ? "hit" : "miss") << ", "
         << stats.nvrtc_compiles.load() - compiles_before << " compiled"
         << (hit ? "" : " (" + plan->kernel_origins + ")")
         << (as_graph ? ", as one CUDA graph" : "") << ", " << ms << " ms"
         << (device == nullptr ? " (host)" : "");
    ir::debug_print(line.str());
  }
  return results;
}

void set_reference_execution(bool enabled) {
  reference_execution = enabled;
}

}  // namespace lazy::runtime
