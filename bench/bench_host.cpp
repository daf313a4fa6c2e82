// Host cost of a step (issue 15), in wall-clock time on the host:
//   step64      64 pointwise ops on [4096] f32, recorded and synced each step (one kernel)
//   block       a multi-kernel step on [16, 64] f32: rounds of softmax and a column mean
//   record      recording one op of the 64-op chain, dropped unsynced (ns per op)
//   sync        the sync of the recorded 64-op chain alone, a plan hit with one kernel: host time
//               from the call to its return, the launch queued (host_us)
//   threads     T threads (1, 2, 4, 8) each running its own loop on [2048] f32 that reads a value
//               every step, against one thread running the T loops one after another. Each
//               thread needs a CPU of its own: under `taskset` with fewer CPUs than threads the
//               row measures the pin (4 CPUs held 8 threads to 2.4-2.7x on the H100 machine,
//               where 8 CPUs give 4.1-4.2x), so the row says how many CPUs it had.
//   lengths     softmax then layer_norm on [64, L] f32, L random from 1 to 4096 each step
//               (varying) or 2048 (fixed): median step, its work waited for, and the compiles;
//               the note splits it into the sync (a new length's plan miss) and the wait
//   miss        the block step, 8 rounds (16 kernels), with the plan cache emptied first: a plan
//               miss whose kernels are all in memory (host_us)
// step64 and block run through the eager path and through lazy::compile, each timed two ways:
//   us_per_step  median over repeats of (wall time of kSteps steps, then a wait for the GPU) /
//                kSteps: the throughput of a loop, bound by the host or by the GPU;
//   host_us      median wall time of one step's call alone, the GPU drained every few steps so
//                launches never wait for room in its queue: the host's cost.
// Host times vary by up to 2x with the vCPU the process runs on and the moment (the GPU machine's
// vCPUs are fast or slow in phases of minutes; docs/architecture.md, "Cost of recording"):
// compare runs made back to back, pinned to one vCPU with `taskset -c`.
//   bench_host [--iters REPEATS] [--only WORKLOAD] [--json PATH]
#include <sched.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <lazy/lazy.h>

#include "bench_options.h"
#include "event_timing.h"
#include "ir/trace.h"
#include "runtime/plan_cache.h"

namespace {

using Clock = std::chrono::steady_clock;
using lazy::Tensor;
using lazy::bench::json_string;

constexpr int kSteps = 200;        // steps per timed repeat
constexpr int kHostBatch = 8;      // steps timed one by one between waits for the GPU
constexpr int kThreadSteps = 400;  // steps of each thread's loop
constexpr int kThreadRounds = 7;
constexpr int kChainOps = 64;
constexpr int kLengthSteps = 200;
constexpr int kLengthRows = 64;
constexpr int kMaxLength = 4096;

const lazy::bench::BenchUsage kUsage = {
    "bench_host", "host time per step of small recorded programs, eager and compiled",
    "step64 block record sync threads lengths miss"};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

Tensor computed(Tensor t) {
  lazy::eval({t});
  return t;
}

// 8 rounds of x = exp(tanh(sigmoid(x * 1.01 + 0.1) - 0.25) * 0.9 + x): 64 ops.
Tensor chain64(const Tensor& input) {
  Tensor x = input;
  for (int round = 0; round < kChainOps / 8; ++round) {
    Tensor s = lazy::sigmoid(x * 1.01f + 0.1f) - 0.25f;
    x = lazy::tanh(s) * 0.9f + x;
    x = lazy::exp(x) * 0.5f;
  }
  return x;
}

// Rounds of a row softmax and the column mean taken out of it: two kernels a round.
constexpr int kBlockRounds = 6;
Tensor block(const Tensor& input, int rounds = kBlockRounds) {
  Tensor x = input;
  for (int round = 0; round < rounds; ++round) {
    Tensor s = lazy::softmax(x * 1.5f, -1);
    x = s - lazy::mean(s, 0, true) + x * 0.5f;
  }
  return x;
}

struct Row {
  std::string workload;
  std::string impl;
  std::string unit;
  double value;
  std::string note;
};

struct StepTimes {
  double per_step;  // seconds, a loop's throughput
  double host;      // seconds, one call alone
};

StepTimes time_steps(const std::function<Tensor()>& step, int repeats) {
  for (int i = 0; i < 20; ++i) step();  // capture, compile, warm the caches
  (void)step().to_vector<float>();
  std::vector<double> per_step, host;
  for (int r = 0; r < repeats; ++r) {
    Tensor last;
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < kSteps; ++i) last = step();
    (void)lazy::sum(last).item<float>();
    per_step.push_back(seconds_since(start) / kSteps);
  }
  for (int r = 0; r < repeats * kSteps / kHostBatch; ++r) {
    Tensor last;
    for (int i = 0; i < kHostBatch; ++i) {
      const Clock::time_point start = Clock::now();
      last = step();
      host.push_back(seconds_since(start));
    }
    (void)lazy::sum(last).item<float>();
  }
  return {median(per_step), median(host)};
}

std::int64_t launches_per_step(const std::function<Tensor()>& step) {
  const std::int64_t before = lazy::stats().kernel_launches + lazy::stats().matmul_calls;
  step();
  return lazy::stats().kernel_launches + lazy::stats().matmul_calls - before;
}

void step_rows(const std::string& name, const Tensor& input, Tensor (*body)(const Tensor&),
               int repeats, std::vector<Row>& rows) {
  const std::function<Tensor()> eager = [&] { return computed(body(input)); };
  lazy::Function compiled =
      lazy::compile([body](std::span<const Tensor> in) { return body(in[0]); });
  const std::function<Tensor()> replay = [&] { return compiled({input})[0]; };
  for (const auto& [impl, step] : {std::pair{"eager", eager}, std::pair{"compiled", replay}}) {
    const StepTimes times = time_steps(step, repeats);
    const std::string launches = std::to_string(launches_per_step(step)) + " launches";
    rows.push_back({name, impl, "us_per_step", times.per_step * 1e6, launches});
    rows.push_back({name, impl, "host_us", times.host * 1e6, launches});
  }
}

void record_row(int repeats, std::vector<Row>& rows) {
  const Tensor input = computed(lazy::randn({4096}, 1));
  std::vector<double> per_op;
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < kSteps; ++i) {
      Tensor y = chain64(input);
      lazy::ir::Trace::current().clear();  // dropped unsynced: only recording is timed
    }
    per_op.push_back(seconds_since(start) / (kSteps * kChainOps));
  }
  rows.push_back({"record", "eager", "ns_per_op", median(per_op) * 1e9, ""});
}

void sync_row(int repeats, std::vector<Row>& rows) {
  const Tensor input = computed(lazy::randn({4096}, 1));
  for (int i = 0; i < 20; ++i) computed(chain64(input));
  std::vector<double> host;
  for (int r = 0; r < repeats * kSteps / kHostBatch; ++r) {
    Tensor last;
    for (int i = 0; i < kHostBatch; ++i) {
      last = chain64(input);
      const Clock::time_point start = Clock::now();
      lazy::eval({last});
      host.push_back(seconds_since(start));
    }
    (void)lazy::sum(last).item<float>();
  }
  rows.push_back({"sync", "eager", "host_us", median(host) * 1e6, "plan hit, 1 kernel"});
}

// One loop of the threads workload: a few ops and a value read back every step.
void read_loop(std::uint64_t seed) {
  Tensor x = computed(lazy::randn({2048}, seed));
  float total = 0;
  for (int i = 0; i < kThreadSteps; ++i) {
    x = lazy::tanh(x * 1.01f + 0.1f) * 0.5f + x * 0.5f;
    total += lazy::sum(x).item<float>();
  }
  if (total == 12345.0f) std::puts("");  // keeps the loop's result used
}

// The CPUs this process may run on (taskset narrows them).
int usable_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return int(std::thread::hardware_concurrency());
  return CPU_COUNT(&set);
}

void thread_rows(std::vector<Row>& rows) {
  const int cpus = usable_cpus();
  if (cpus < 8) {
    std::fprintf(stderr,
                 "bench_host: %d CPUs for up to 8 threads: the threads rows measure the pin, not "
                 "lazyfuse\n",
                 cpus);
  }
  read_loop(99);  // compiles the loop's kernels
  for (int threads : {1, 2, 4, 8}) {
    // Medians of several rounds: one round of threads varies by 2x from run to run.
    std::vector<double> serial, parallel;
    for (int round = 0; round < kThreadRounds; ++round) {
      Clock::time_point start = Clock::now();
      for (int t = 0; t < threads; ++t) read_loop(std::uint64_t(t + 1));
      serial.push_back(seconds_since(start));
      start = Clock::now();
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) pool.emplace_back(read_loop, std::uint64_t(t + 1));
      for (std::thread& thread : pool) thread.join();
      parallel.push_back(seconds_since(start));
    }
    const double serial_s = median(serial), parallel_s = median(parallel);
    rows.push_back({"threads" + std::to_string(threads), "eager", "x_one_thread",
                    serial_s / parallel_s,
                    std::to_string(int(threads * kThreadSteps / parallel_s)) + " steps/s, " +
                        std::to_string(cpus) + " CPUs"});
  }
}

// Softmax then layer_norm over rows whose length changes every step (or stays at half the
// longest): the median step, its GPU work waited for, and the kernels it compiled.
void length_rows(std::vector<Row>& rows) {
  std::uint64_t state = 12345;
  auto random_length = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return std::int64_t(1 + (state >> 33) % kMaxLength);
  };
  for (const bool varying : {true, false}) {
    std::vector<std::array<Tensor, 3>> inputs;
    for (int i = 0; i < kLengthSteps; ++i) {
      const std::int64_t length = varying ? random_length() : kMaxLength / 2;
      inputs.push_back({computed(lazy::randn({kLengthRows, length}, std::uint64_t(i))),
                        computed(lazy::randn({length}, 7)), computed(lazy::randn({length}, 8))});
    }
    lazy::wait();
    const std::int64_t compiles_before = lazy::stats().nvrtc_compiles;
    std::vector<double> steps, syncs, waits;
    for (const auto& [x, w, b] : inputs) {
      const Clock::time_point start = Clock::now();
      Tensor y = lazy::layer_norm(lazy::softmax(x * 1.5f), w, b);
      const Clock::time_point recorded = Clock::now();
      lazy::eval({y});
      const Clock::time_point synced = Clock::now();
      lazy::wait();
      steps.push_back(seconds_since(start));
      syncs.push_back(std::chrono::duration<double>(synced - recorded).count());
      waits.push_back(seconds_since(synced));
    }
    const std::int64_t compiles = lazy::stats().nvrtc_compiles - compiles_before;
    // Where the step goes: a new length's plan miss is in the sync, the GPU's work in the wait.
    std::ostringstream note;
    note << compiles << " compiles, sync " << std::fixed << std::setprecision(1)
         << median(syncs) * 1e6 << " us, wait " << median(waits) * 1e6 << " us (medians)";
    rows.push_back(
        {"lengths", varying ? "varying" : "fixed", "us_per_step", median(steps) * 1e6, note.str()});
  }
}

// The block step with 8 rounds (16 kernels, as many as the transformer-style step has and
// one more) planned again each time from kernels already in memory.
constexpr int kMissRounds = 8;
void miss_row(int repeats, std::vector<Row>& rows) {
  const Tensor input = computed(lazy::randn({16, 64}, 2));
  computed(block(input, kMissRounds));
  std::vector<double> host;
  for (int r = 0; r < repeats * 10; ++r) {
    lazy::runtime::clear_plan_cache();
    const Clock::time_point start = Clock::now();
    computed(block(input, kMissRounds));
    host.push_back(seconds_since(start));
    lazy::wait();
  }
  rows.push_back({"miss", "eager", "host_us", median(host) * 1e6,
                  std::to_string(kMissRounds * 2) + " kernels"});
}

void write_json(const std::string& path, const std::string& device, const std::vector<Row>& rows) {
  std::ostringstream json;
  json << std::setprecision(6) << "{\"device\": " << json_string(device) << ", \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    json << (i ? ",\n  " : "\n  ") << "{\"workload\": " << json_string(rows[i].workload)
         << ", \"impl\": " << json_string(rows[i].impl)
         << ", \"unit\": " << json_string(rows[i].unit) << ", \"value\": " << rows[i].value
         << ", \"note\": " << json_string(rows[i].note) << "}";
  }
  json << "\n]}\n";
  std::ofstream(path) << json.str();
}

}  // namespace

int main(int argc, char** argv) {
  lazy::bench::BenchOptions options = lazy::bench::parse_bench_options(argc, argv, kUsage);
  const int repeats = std::max(3, options.iters / 5);
  const auto wanted = [&](const std::string& name) {
    return options.only.empty() || options.only == name;
  };
  std::vector<Row> rows;
  if (wanted("step64"))
    step_rows("step64", computed(lazy::randn({4096}, 1)), chain64, repeats, rows);
  if (wanted("block")) {
    step_rows(
        "block", computed(lazy::randn({16, 64}, 2)), [](const Tensor& x) { return block(x); },
        repeats, rows);
  }
  if (wanted("record")) record_row(repeats, rows);
  if (wanted("sync")) sync_row(repeats, rows);
  if (wanted("threads")) thread_rows(rows);
  if (wanted("lengths")) length_rows(rows);
  if (wanted("miss")) miss_row(repeats, rows);

  std::printf("%s\n%-10s %-9s %12s  %s\n", lazy::device_description().c_str(), "workload", "impl",
              "value", "unit");
  for (const Row& row : rows) {
    std::printf("%-10s %-9s %12.3f  %s %s\n", row.workload.c_str(), row.impl.c_str(), row.value,
                row.unit.c_str(), row.note.c_str());
  }
  write_json(options.json_path, lazy::device_description(), rows);
  std::printf("wrote %s\n", options.json_path.c_str());
}
