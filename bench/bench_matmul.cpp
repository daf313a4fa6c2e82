// GPU time of issue 13's workloads built on matrix products, with fusion (epilogues inside the
// cuBLASLt call, other work after a product in one generated kernel) and without, timed as
// bench_fusion times its workloads (bench/event_timing.h). Reports TFLOP/s, the memory pool's
// peak over one call, and for decode_linear the cost per call of a loop that waits for each result
// (recorded each call, and through lazy::compile).
//
//   bench_matmul [--iters N] [--only WORKLOAD] [--json PATH]
//
// WORKLOAD: gemm_gelu, swiglu_ffn, decode_linear, decode_weight_read (its floor: one read of the
// weight), decode_layers (8 decode_linear layers back to back, each with its own weight),
// decode_layers_read (its floor), attention (scaled_dot_product_attention, causal),
// transformer_block, or issue 16's training steps mlp_train and
// block_train (training_workloads.cpp).
//
// bench/peers_matmul.py measures the same workloads in PyTorch; bench/compare.py puts both side by
// side; bench/matmul_device.sh runs all three on the GPU machine.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <lazy/lazy.h>

#include "bench_options.h"
#include "event_timing.h"
#include "matmul_workloads.h"
#include "runtime/device.h"
#include "transformer_block.h"

namespace {

using lazy::bench::BenchOptions;
using lazy::bench::BenchUsage;
using lazy::bench::bf16_bytes;
using lazy::bench::block_flops;
using lazy::bench::computed_randn;
using lazy::bench::inverse_sqrt;
using lazy::bench::kDtype;
using lazy::bench::product_flops;
using lazy::bench::StepFn;
using lazy::bench::Workload;
using lazy::runtime::Device;

// Shapes from issue 13 (bench/peers_matmul.py has the same constants).
constexpr std::int64_t kGemmRows = 4096;  // gemm_gelu: [4096, 4096] x [4096, 4096]^T
constexpr std::int64_t kGemmCols = 4096;
constexpr std::int64_t kGemmInner = 4096;
constexpr std::int64_t kFfnTokens = 8192;  // swiglu_ffn: Llama-7B's MLP widths
constexpr std::int64_t kFfnDim = 4096;
constexpr std::int64_t kFfnHidden = 11008;
constexpr std::int64_t kDecodeTokens = 16;  // decode_linear: a decode step's batch of 16 tokens
constexpr std::int64_t kDecodeDim = 4096;
// Calls in decode_linear's back-to-back loop: about as long as a timed run, enough to average
// the host's jitter away.
constexpr int kDecodeLoopCalls = 1000;
// attention: q, k and v [8, 16, 1024, 128], the transformer block's heads.
constexpr std::int64_t kAttnBatch = 8, kAttnHeads = 16, kAttnSeq = 1024, kAttnHeadDim = 128;
// decode_layers: 8 weights of 32 MiB, five times H100's 50 MB L2, so each is read from HBM.
constexpr int kDecodeLayers = 8;

Workload gemm_gelu() {
  const double flops = product_flops(kGemmRows, kGemmCols, kGemmInner);
  const std::int64_t bytes = bf16_bytes(kGemmRows * kGemmInner + kGemmCols * kGemmInner +
                                        kGemmCols + kGemmRows * kGemmCols);
  return {"gemm_gelu", flops, bytes, [] {
            lazy::Tensor x = computed_randn({kGemmRows, kGemmInner}, 1);
            lazy::Tensor w = computed_randn({kGemmCols, kGemmInner}, 2, inverse_sqrt(kGemmInner));
            lazy::Tensor b = computed_randn({kGemmCols}, 3);
            return StepFn([x, w, b] {
              return std::vector<lazy::Tensor>{lazy::gelu_tanh(lazy::linear(x, w, b))};
            });
          }};
}

// down(silu(gate(x)) * up(x)) + x: three products, the residual add after the last.
Workload swiglu_ffn() {
  const double flops = 3 * product_flops(kFfnTokens, kFfnHidden, kFfnDim);
  const std::int64_t bytes = bf16_bytes(2 * kFfnTokens * kFfnDim + 3 * kFfnHidden * kFfnDim);
  return {"swiglu_ffn", flops, bytes, [] {
            lazy::Tensor x = computed_randn({kFfnTokens, kFfnDim}, 4);
            lazy::Tensor gate = computed_randn({kFfnHidden, kFfnDim}, 5, inverse_sqrt(kFfnDim));
            lazy::Tensor up = computed_randn({kFfnHidden, kFfnDim}, 6, inverse_sqrt(kFfnDim));
            lazy::Tensor down = computed_randn({kFfnDim, kFfnHidden}, 7, inverse_sqrt(kFfnHidden));
            return StepFn([x, gate, up, down] {
              lazy::Tensor hidden = lazy::silu(lazy::linear(x, gate)) * lazy::linear(x, up);
              return std::vector<lazy::Tensor>{lazy::linear(hidden, down) + x};
            });
          }};
}

// A decode step's linear layer: reading the weight dominates, so GB/s matters more than TFLOP/s.
Workload decode_linear() {
  const double flops = product_flops(kDecodeTokens, kDecodeDim, kDecodeDim);
  const std::int64_t bytes =
      bf16_bytes(2 * kDecodeTokens * kDecodeDim + kDecodeDim * kDecodeDim + kDecodeDim);
  return {"decode_linear", flops, bytes,
          [] {
            lazy::Tensor x = computed_randn({kDecodeTokens, kDecodeDim}, 8);
            lazy::Tensor w = computed_randn({kDecodeDim, kDecodeDim}, 9, inverse_sqrt(kDecodeDim));
            lazy::Tensor b = computed_randn({kDecodeDim}, 10);
            return StepFn([x, w, b] {
              return std::vector<lazy::Tensor>{lazy::gelu_tanh(lazy::linear(x, w, b))};
            });
          },
          /*per_call_loop=*/true};
}

// decode_linear's floor, timed the same way: one read of its weight (a row sum, one kernel that
// reads little else). After the flush memset, reading the weight also writes back the memset's
// dirty lines that it evicts.
Workload decode_weight_read() {
  const std::int64_t bytes = bf16_bytes(kDecodeDim * kDecodeDim + kDecodeDim);
  return {"decode_weight_read", 0.0, bytes, [] {
            lazy::Tensor w = computed_randn({kDecodeDim, kDecodeDim}, 9, inverse_sqrt(kDecodeDim));
            return StepFn([w] { return std::vector<lazy::Tensor>{lazy::sum(w, {1})}; });
          }};
}

// decode_layers' weights, the same in its floor decode_layers_read.
std::vector<lazy::Tensor> decode_layer_weights() {
  std::vector<lazy::Tensor> weights;
  for (int layer = 0; layer < kDecodeLayers; ++layer)
    weights.push_back(
        computed_randn({kDecodeDim, kDecodeDim}, 40 + layer, inverse_sqrt(kDecodeDim)));
  return weights;
}

// A decode step through a stack of decode_linear layers, each with its own weight and bias, in
// one sync: as in a model's decode step, every weight comes from HBM and the layers run back to
// back, so the time per layer is what a layer costs there, without the fixed cost of timing one
// kernel alone (the flush's dirty lines, the events).
Workload decode_layers() {
  const double flops = kDecodeLayers * product_flops(kDecodeTokens, kDecodeDim, kDecodeDim);
  const std::int64_t bytes = kDecodeLayers * bf16_bytes(2 * kDecodeTokens * kDecodeDim +
                                                        kDecodeDim * kDecodeDim + kDecodeDim);
  return {"decode_layers",
          flops,
          bytes,
          [] {
            lazy::Tensor x = computed_randn({kDecodeTokens, kDecodeDim}, 8);
            std::vector<lazy::Tensor> weights = decode_layer_weights();
            std::vector<lazy::Tensor> biases;
            for (int layer = 0; layer < kDecodeLayers; ++layer)
              biases.push_back(computed_randn({kDecodeDim}, 60 + layer));
            return StepFn([x, weights, biases] {
              lazy::Tensor h = x;
              for (int layer = 0; layer < kDecodeLayers; ++layer)
                h = lazy::gelu_tanh(lazy::linear(h, weights[layer], biases[layer]));
              return std::vector<lazy::Tensor>{h};
            });
          },
          /*per_call_loop=*/false,
          kDecodeLayers};
}

// decode_layers' floor, timed the same way: one read of each of its weights (row sums).
Workload decode_layers_read() {
  const std::int64_t bytes = kDecodeLayers * bf16_bytes(kDecodeDim * kDecodeDim + kDecodeDim);
  return {"decode_layers_read",
          0.0,
          bytes,
          [] {
            return StepFn([weights = decode_layer_weights()] {
              std::vector<lazy::Tensor> sums;
              for (const lazy::Tensor& w : weights) sums.push_back(lazy::sum(w, {1}));
              return sums;
            });
          },
          /*per_call_loop=*/false,
          kDecodeLayers};
}

// attention: scaled_dot_product_attention, causal, of the block's heads at 8 x 1024 tokens, its
// two products counted in full as a dense product computes them.
Workload attention() {
  const lazy::Shape shape{kAttnBatch, kAttnHeads, kAttnSeq, kAttnHeadDim};
  const double flops =
      2 * double(kAttnBatch * kAttnHeads) * product_flops(kAttnSeq, kAttnSeq, kAttnHeadDim);
  return {"attention", flops, bf16_bytes(4 * shape.numel()), [shape] {
            lazy::Tensor q = computed_randn(shape, 31), k = computed_randn(shape, 32);
            lazy::Tensor v = computed_randn(shape, 33);
            return StepFn([q, k, v] {
              return std::vector<lazy::Tensor>{
                  lazy::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true)};
            });
          }};
}

// The sample's block (samples/transformer_block.h), so the two cannot drift apart.
Workload transformer_block() {
  const transformer::Config config;
  const std::int64_t dim = config.dim();
  const std::int64_t activations = config.batch * config.seq * dim;
  const std::int64_t weights = 4 * dim * dim + 3 * config.ffn_hidden * dim + 2 * dim;
  return {
      "transformer_block", block_flops(config), bf16_bytes(2 * activations + weights), [config] {
        transformer::Weights w = transformer::random_weights(config, 11);
        transformer::Positions p = transformer::positions(config);
        lazy::Tensor x = lazy::randn({config.batch, config.seq, config.dim()}, 20, kDtype);
        lazy::eval(
            {x, w.attn_norm, w.qkv, w.o, w.ffn_norm, w.gate, w.up, w.down, p.cos, p.sin, p.causal});
        return StepFn([x, w, p, config] {
          return std::vector<lazy::Tensor>{transformer::block(x, w, p, config)};
        });
      }};
}

struct PeakMemory {
  std::uint64_t peak_bytes;   // lazyfuse's peak in use over the call: inputs included
  std::uint64_t extra_bytes;  // that less what was in use before it: outputs and temporaries
};

// One call after warm-up, as peers_matmul.py measures PyTorch's max_memory_allocated.
std::optional<PeakMemory> peak_memory(const StepFn& step, Device& device) {
  device.synchronize();
  const auto before = std::uint64_t(lazy::memory_stats().in_use_bytes);
  lazy::reset_peak_memory();
  std::vector<lazy::Tensor> outputs = step();
  lazy::eval(outputs);
  device.synchronize();
  const auto peak = std::uint64_t(lazy::memory_stats().peak_bytes);
  return PeakMemory{peak, peak > before ? peak - before : 0};
}

// A decode loop's cost per call: each call records, syncs and waits for its result before the
// next is recorded, so the host's recording, planning and launching add to the GPU's time
// instead of hiding behind a flush memset as they do in measure().
double loop_us_per_call(const StepFn& step, Device& device) {
  for (int i = 0; i < lazy::bench::kWarmupIters; ++i) lazy::eval(step());
  device.synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kDecodeLoopCalls; ++i) {
    std::vector<lazy::Tensor> outputs = step();
    lazy::eval(outputs);
    device.synchronize();
  }
  const std::chrono::duration<double, std::micro> elapsed =
      std::chrono::steady_clock::now() - start;
  return elapsed.count() / kDecodeLoopCalls;
}

// The same loop through lazy::compile, as a serving loop would run a step: after the first
// call, each call replays the captured plan without recording it.
double compiled_loop_us_per_call(const StepFn& step, Device& device) {
  const lazy::Function compiled =
      lazy::compile([step](std::span<const lazy::Tensor>) { return step(); });
  return loop_us_per_call([&compiled] { return compiled({}); }, device);
}

struct Result {
  lazy::bench::Measurement timed;
  std::optional<PeakMemory> memory;
  std::optional<double> loop_us;
  std::optional<double> compiled_loop_us;  // the loop through lazy::compile
};

struct Row {
  std::string workload;
  double flops;
  std::int64_t bytes;
  int layers;  // identical layers a step runs: the JSON and log also give the time per layer
  Result fused;
  Result unfused;
};

double tflops(double flops, float ms) {
  return flops / (double(ms) * 1e9);
}

double gbps(std::int64_t bytes, float ms) {
  return double(bytes) / (double(ms) * 1e6);
}

double megabytes(std::uint64_t bytes) {
  return double(bytes) / 1e6;
}

// Optional values are JSON null when absent (no pool counters; no loop for this workload).
template <class T>
std::string json_optional(const std::optional<T>& value) {
  if (!value) return "null";
  std::ostringstream text;
  text << std::setprecision(9) << *value;
  return text.str();
}

void write_json(const std::string& path, const std::string& device_name, double copy_gbps,
                const std::vector<Row>& rows) {
  using lazy::bench::json_string;
  std::ostringstream json;
  json << std::setprecision(6) << "{\"device\": " << json_string(device_name)
       << ", \"copy_gbps\": " << copy_gbps << ", \"rows\": [";
  bool first = true;
  for (const Row& row : rows) {
    for (bool fused : {true, false}) {
      const Result& r = fused ? row.fused : row.unfused;
      const float ms = r.timed.median_ms;
      const auto peak = r.memory ? std::optional(r.memory->peak_bytes) : std::nullopt;
      const auto extra = r.memory ? std::optional(r.memory->extra_bytes) : std::nullopt;
      json << (first ? "\n  " : ",\n  ") << "{\"workload\": " << json_string(row.workload)
           << ", \"dtype\": " << json_string(lazy::dtype_name(kDtype))
           << ", \"impl\": " << json_string(fused ? "lazyfuse" : "lazyfuse_unfused")
           << ", \"median_ms\": " << ms << ", \"layers\": " << row.layers
           << ", \"us_per_layer\": " << 1e3 * ms / row.layers
           << ", \"tflops\": " << tflops(row.flops, ms) << ", \"flops\": " << row.flops
           << ", \"gbps\": " << gbps(row.bytes, ms)
           << ", \"pct_copy\": " << 100.0 * gbps(row.bytes, ms) / copy_gbps
           << ", \"bytes\": " << row.bytes << ", \"peak_bytes\": " << json_optional(peak)
           << ", \"peak_extra_bytes\": " << json_optional(extra)
           << ", \"loop_us\": " << json_optional(r.loop_us)
           << ", \"compiled_loop_us\": " << json_optional(r.compiled_loop_us)
           << ", \"kernels_per_iter\": " << r.timed.launches_per_iter
           << ", \"matmuls_per_iter\": " << r.timed.matmul_calls_per_iter << "}";
      first = false;
    }
  }
  json << "\n]}\n";
  std::ofstream file(path);
  file << json.str();
  if (!file) {
    std::cerr << "bench_matmul: could not write " << path << "\n";
    std::exit(1);
  }
}

void print_table(const std::vector<Row>& rows) {
  std::printf("\n%-18s %10s %11s %9s %8s %10s %13s\n", "workload", "fused ms", "unfused ms",
              "TFLOP/s", "speedup", "peak MB", "loop us/call");
  for (const Row& row : rows) {
    const float ms = row.fused.timed.median_ms;
    const std::string peak =
        row.fused.memory ? std::to_string(std::lround(megabytes(row.fused.memory->peak_bytes)))
                         : "-";
    const std::string loop =
        row.fused.loop_us ? std::to_string(std::lround(*row.fused.loop_us)) : "-";
    std::printf("%-18s %10.3f %11.3f %9.1f %7.2fx %10s %13s\n", row.workload.c_str(), ms,
                row.unfused.timed.median_ms, tflops(row.flops, ms),
                row.unfused.timed.median_ms / ms, peak.c_str(), loop.c_str());
  }
}

void print_result(const std::string& label, const Row& row, const Result& r) {
  const float ms = r.timed.median_ms;
  std::printf(
      "%-32s %9.3f ms  %7.1f TFLOP/s  %6.0f GB/s  %.0f kernel(s) and %.0f product(s) "
      "per iteration",
      label.c_str(), ms, tflops(row.flops, ms), gbps(row.bytes, ms), r.timed.launches_per_iter,
      r.timed.matmul_calls_per_iter);
  if (r.memory) {
    std::printf(", peak %.0f MB (%.0f MB over the inputs)", megabytes(r.memory->peak_bytes),
                megabytes(r.memory->extra_bytes));
  }
  std::printf("\n");
  if (row.layers > 1) {
    std::printf("%-32s %9.1f us per layer\n", (label + " layer").c_str(), 1e3 * ms / row.layers);
  }
  if (r.loop_us) {
    std::printf("%-32s %9.1f us per call waiting for each result (GPU time %.1f us)\n",
                (label + " loop").c_str(), *r.loop_us, 1e3 * ms);
  }
  if (r.compiled_loop_us) {
    std::printf("%-32s %9.1f us per call through lazy::compile\n",
                (label + " compiled loop").c_str(), *r.compiled_loop_us);
  }
}

constexpr BenchUsage kUsage{
    "bench_matmul", "times issue 13's matrix-product workloads on the GPU",
    "gemm_gelu swiglu_ffn decode_linear decode_weight_read decode_layers decode_layers_read "
    "attention transformer_block mlp_train block_train"};

}  // namespace

int main(int argc, char** argv) {
  const BenchOptions options = lazy::bench::parse_bench_options(argc, argv, kUsage);
  std::vector<Workload> workloads = {gemm_gelu(),
                                     swiglu_ffn(),
                                     decode_linear(),
                                     decode_weight_read(),
                                     decode_layers(),
                                     decode_layers_read(),
                                     attention(),
                                     transformer_block(),
                                     lazy::bench::mlp_train(),
                                     lazy::bench::block_train()};
  lazy::bench::keep_only(workloads, options, kUsage);

  const auto [device, copy_gbps] = lazy::bench::open_bench_device("bench_matmul");
  if (device == nullptr) return 0;

  std::vector<Row> rows;
  for (const Workload& workload : workloads) {
    Row row{workload.name, workload.flops, workload.bytes, workload.layers, {}, {}};
    {
      StepFn step = workload.prepare();  // the inputs are freed when the step goes
      for (bool fusion : {true, false}) {
        const std::string label = workload.name + (fusion ? " fused" : " unfused");
        Result& result = fusion ? row.fused : row.unfused;
        result.timed = lazy::bench::measure(step, fusion, options.iters, *device, label);
        result.memory = peak_memory(step, *device);
        if (workload.per_call_loop) {
          result.loop_us = loop_us_per_call(step, *device);
          result.compiled_loop_us = compiled_loop_us_per_call(step, *device);
        }
        print_result(label, row, result);
      }
    }
    rows.push_back(row);
  }
  lazy::set_fusion_enabled(true);

  write_json(options.json_path, device->name(), copy_gbps, rows);
  std::printf("wrote %s\n", options.json_path.c_str());
  print_table(rows);
  return 0;
}
