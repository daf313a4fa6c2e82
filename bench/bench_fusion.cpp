// GPU time of issue 3's pointwise, issue 5's reduction and issue 14's indexing
// workloads, fused and unfused, against the device's own copy bandwidth. Each iteration is timed
// with device events from before recording to after the sync's kernels, so recording, planning
// and launch overhead count as a user would see them.
//
//   bench_fusion [--iters N] [--only WORKLOAD] [--json PATH]
//
// WORKLOAD: chain4, chain16, chain16fm, swiglu, adam, softmax, layernorm, add_rmsnorm, sum_axis0,
// sum_all, softmax_long, cat4, cat4_last, stencil, diff, embedding, cross_entropy, cumsum, topk,
// index_add, sort or sort_row.
//
// bench/peers.py measures the same workloads in PyTorch; bench/compare.py puts both side by side.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <lazy/lazy.h>

#include "bench_options.h"
#include "event_timing.h"
#include "runtime/device.h"

namespace {

using lazy::bench::BenchOptions;
using lazy::bench::BenchUsage;
using lazy::bench::json_string;
using lazy::bench::measure;
using lazy::bench::Measurement;
using lazy::bench::StepFn;

// Shapes from issue 3.
constexpr std::int64_t kChain4Rows = 16384;
constexpr std::int64_t kChain4Cols = 4096;
constexpr std::int64_t kChain16Elements = std::int64_t(1) << 26;
constexpr int kChain16Rounds = 4;
constexpr std::int64_t kSwigluRows = 8192;
constexpr std::int64_t kSwigluCols = 11008;  // Llama-7B's MLP width
constexpr std::int64_t kAdamParams = std::int64_t(1) << 26;

// Shapes from issue 5.
constexpr std::int64_t kSoftmaxRows = 8192;
constexpr std::int64_t kSoftmaxCols = 8192;
constexpr std::int64_t kNormRows = 16384;  // layernorm and add_rmsnorm
constexpr std::int64_t kNormCols = 4096;
constexpr double kLayerNormEps = 1e-5;
constexpr double kRmsNormEps = 1e-6;
constexpr std::int64_t kSumRows = 16384;  // sum_axis0 and sum_all
constexpr std::int64_t kSumCols = 4096;
// Shapes from issue 14: four tensors joined (along the rows, or the columns for cat4_last), and
// an embedding lookup of 32768 ids (8 sequences of 4096) into a 131072-row table.
constexpr std::int64_t kCatParts = 4;
constexpr std::int64_t kCatRows = 4096;
constexpr std::int64_t kCatCols = 4096;
constexpr std::int64_t kStencilSize = 4096;                    // the stencil step's grid: one side
constexpr std::int64_t kDiffElements = std::int64_t(1) << 26;  // diff: one signal's neighbours
constexpr std::int64_t kEmbeddingRows = 131072;
constexpr std::int64_t kEmbeddingDim = 4096;
constexpr std::int64_t kEmbeddingBatch = 8;
constexpr std::int64_t kEmbeddingSeq = 4096;
constexpr std::int64_t kCrossEntropyRows = 8192;   // tokens
constexpr std::int64_t kCrossEntropyCols = 32768;  // vocabulary
constexpr std::int64_t kCumsumRows = 16384;
constexpr std::int64_t kCumsumCols = 4096;
constexpr std::int64_t kTopKRows = 4096;
constexpr std::int64_t kTopKCols = 131072;  // a vocabulary
constexpr std::int64_t kTopK = 50;
constexpr std::int64_t kIndexAddRows = 65536;  // an embedding table's gradient
constexpr std::int64_t kIndexAddDim = 1024;
constexpr std::int64_t kIndexAddIds = 32768;
constexpr std::int64_t kSortRows = 2048;
constexpr std::int64_t kSortCols = 65536;
constexpr std::int64_t kSortOneRow = std::int64_t(1) << 27;  // sort_row: every element of a tensor
constexpr std::int64_t kSoftmaxLongRows = 64;
constexpr std::int64_t kSoftmaxLongCols = std::int64_t(1) << 20;

// torch.optim.Adam's defaults, except a learning rate typical of training.
constexpr float kAdamLr = 1e-3f;
constexpr float kAdamBeta1 = 0.9f;
constexpr float kAdamBeta2 = 0.999f;
constexpr float kAdamEps = 1e-8f;

struct Workload {
  std::string name;
  lazy::DType dtype;
  std::int64_t bytes;               // fewest bytes moved: each input read once, each output written
  std::function<StepFn()> prepare;  // creates and computes the inputs; the step holds them
  bool fast_math = false;           // timed with lazy::set_fast_math(true)
};

// Inputs are computed before timing so that only the workload's kernels are measured.
lazy::Tensor computed_randn(const lazy::Shape& shape, std::uint64_t seed, lazy::DType dtype) {
  lazy::Tensor t = lazy::randn(shape, seed, dtype);
  lazy::eval({t});
  return t;
}

std::int64_t bytes_of(std::int64_t elements, lazy::DType dtype) {
  return elements * lazy::itemsize(dtype);
}

Workload chain4(lazy::DType dtype) {
  const std::int64_t n = kChain4Rows * kChain4Cols;
  return {"chain4", dtype, bytes_of(2 * n + kChain4Cols, dtype) + bytes_of(n, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kChain4Rows, kChain4Cols}, 1, dtype);
            lazy::Tensor bias = computed_randn({kChain4Cols}, 2, dtype);
            lazy::Tensor residual = computed_randn({kChain4Rows, kChain4Cols}, 3, dtype);
            return StepFn([x, bias, residual] {
              return std::vector<lazy::Tensor>{lazy::gelu_tanh((x + bias) * 1.2f) + residual};
            });
          }};
}

Workload chain16(bool fast_math = false) {
  const lazy::DType dtype = lazy::DType::f32;
  return {fast_math ? "chain16fm" : "chain16", dtype, 2 * bytes_of(kChain16Elements, dtype),
          [dtype] {
            lazy::Tensor input = computed_randn({kChain16Elements}, 4, dtype);
            return StepFn([input] {
              lazy::Tensor x = input;
              for (int round = 0; round < kChain16Rounds; ++round) {
                x = lazy::sigmoid(x * 1.01f + 0.1f) - 0.25f;
                x = lazy::tanh(x) * 0.9f;
              }
              return std::vector<lazy::Tensor>{x};
            });
          },
          fast_math};
}

Workload swiglu() {
  const lazy::DType dtype = lazy::DType::bf16;
  const std::int64_t n = kSwigluRows * kSwigluCols;
  return {"swiglu", dtype, 3 * bytes_of(n, dtype), [dtype] {
            lazy::Tensor gate = computed_randn({kSwigluRows, kSwigluCols}, 5, dtype);
            lazy::Tensor up = computed_randn({kSwigluRows, kSwigluCols}, 6, dtype);
            return StepFn([gate, up] { return std::vector<lazy::Tensor>{lazy::silu(gate) * up}; });
          }};
}

// One Adam step; p, m and v are not carried over between iterations (the inputs stay fixed), but
// the step counter is, so the bias corrections change every iteration as in training.
Workload adam() {
  const lazy::DType dtype = lazy::DType::f32;
  return {"adam", dtype, 7 * bytes_of(kAdamParams, dtype), [dtype] {
            lazy::Tensor p = computed_randn({kAdamParams}, 7, dtype);
            lazy::Tensor g = computed_randn({kAdamParams}, 8, dtype);
            lazy::Tensor m = computed_randn({kAdamParams}, 9, dtype);
            // The second moment is non-negative: square a normal sample.
            lazy::Tensor v = lazy::square(computed_randn({kAdamParams}, 10, dtype));
            lazy::eval({v});
            auto step = std::make_shared<int>(0);
            return StepFn([p, g, m, v, step] {
              const int t = ++*step;
              // Scalars are graph inputs, not constants, so new values every step reuse the plan.
              const float correction1 = float(1.0 / (1.0 - std::pow(double(kAdamBeta1), t)));
              const float correction2 = float(1.0 / (1.0 - std::pow(double(kAdamBeta2), t)));
              lazy::Tensor m_next = kAdamBeta1 * m + (1.0f - kAdamBeta1) * g;
              lazy::Tensor v_next = kAdamBeta2 * v + (1.0f - kAdamBeta2) * g * g;
              lazy::Tensor p_next = p - kAdamLr * (m_next * correction1) /
                                            (lazy::sqrt(v_next * correction2) + kAdamEps);
              return std::vector<lazy::Tensor>{p_next, m_next, v_next};
            });
          }};
}

// Softmax over the last axis: softmax (issue 5's [8192, 8192]) and softmax_long (few long rows).
Workload softmax(lazy::DType dtype, bool long_rows = false) {
  const std::int64_t rows = long_rows ? kSoftmaxLongRows : kSoftmaxRows;
  const std::int64_t cols = long_rows ? kSoftmaxLongCols : kSoftmaxCols;
  return {long_rows ? "softmax_long" : "softmax", dtype, 2 * bytes_of(rows * cols, dtype),
          [dtype, rows, cols, long_rows] {
            lazy::Tensor x = computed_randn({rows, cols}, long_rows ? 12 : 11, dtype);
            return StepFn([x] { return std::vector<lazy::Tensor>{lazy::softmax(x, -1)}; });
          }};
}

Workload layernorm(lazy::DType dtype) {
  const std::int64_t n = kNormRows * kNormCols;
  return {"layernorm", dtype, bytes_of(2 * n + 2 * kNormCols, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kNormRows, kNormCols}, 13, dtype);
            lazy::Tensor weight = computed_randn({kNormCols}, 14, dtype);
            lazy::Tensor bias = computed_randn({kNormCols}, 15, dtype);
            return StepFn([x, weight, bias] {
              return std::vector<lazy::Tensor>{lazy::layer_norm(x, weight, bias, kLayerNormEps)};
            });
          }};
}

// A residual add feeding rms_norm, as in a transformer block: the sum h is kept (it is the next
// block's residual) along with the normalized y.
Workload add_rmsnorm() {
  const lazy::DType dtype = lazy::DType::f32;
  const std::int64_t n = kNormRows * kNormCols;
  return {"add_rmsnorm", dtype, bytes_of(4 * n + kNormCols, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kNormRows, kNormCols}, 16, dtype);
            lazy::Tensor residual = computed_randn({kNormRows, kNormCols}, 17, dtype);
            lazy::Tensor weight = computed_randn({kNormCols}, 18, dtype);
            return StepFn([x, residual, weight] {
              lazy::Tensor h = x + residual;
              lazy::Tensor y = lazy::rms_norm(h, weight, kRmsNormEps);
              return std::vector<lazy::Tensor>{h, y};
            });
          }};
}

Workload sum_axis0() {
  const lazy::DType dtype = lazy::DType::f32;
  return {"sum_axis0", dtype, bytes_of(kSumRows * kSumCols + kSumCols, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kSumRows, kSumCols}, 19, dtype);
            return StepFn([x] { return std::vector<lazy::Tensor>{lazy::sum(x, 0)}; });
          }};
}

Workload sum_all() {
  const lazy::DType dtype = lazy::DType::f32;
  return {"sum_all", dtype, bytes_of(kSumRows * kSumCols + 1, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kSumRows, kSumCols}, 20, dtype);
            return StepFn([x] { return std::vector<lazy::Tensor>{lazy::sum(x)}; });
          }};
}

// Four tensors, each produced by pointwise work in the same sync, joined along `axis`.
Workload cat4(int axis) {
  const lazy::DType dtype = lazy::DType::f32;
  const std::int64_t n = kCatParts * kCatRows * kCatCols;
  return {axis == 0 ? "cat4" : "cat4_last", dtype, 2 * bytes_of(n, dtype), [axis] {
            std::vector<lazy::Tensor> inputs;
            for (int k = 0; k < kCatParts; ++k)
              inputs.push_back(computed_randn({kCatRows, kCatCols}, 21 + k, lazy::DType::f32));
            return StepFn([inputs, axis] {
              std::vector<lazy::Tensor> parts;
              for (const lazy::Tensor& x : inputs) parts.push_back(x * 1.5f + 0.5f);
              return std::vector<lazy::Tensor>{lazy::cat(parts, axis)};
            });
          }};
}

// A heat-equation step on a periodic grid: four rolls of u (each a concatenation), read once and
// written once.
Workload stencil() {
  const lazy::DType dtype = lazy::DType::f32;
  return {"stencil", dtype, 2 * bytes_of(kStencilSize * kStencilSize, dtype), [dtype] {
            lazy::Tensor u = computed_randn({kStencilSize, kStencilSize}, 36, dtype);
            return StepFn([u] {
              const lazy::Tensor neighbours = lazy::roll(u, 1, 0) + lazy::roll(u, -1, 0) +
                                              lazy::roll(u, 1, 1) + lazy::roll(u, -1, 1);
              return std::vector<lazy::Tensor>{u + (neighbours - u * 4.0f) * 0.1f};
            });
          }};
}

// Differences of neighbours in a signal: x[1:] reads its groups from odd addresses, so it reads
// their elements one by one beside x[:-1]'s vectors.
Workload diff() {
  const lazy::DType dtype = lazy::DType::f32;
  return {"diff", dtype, 2 * bytes_of(kDiffElements, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kDiffElements + 1}, 37, dtype);
            return StepFn([x] {
              return std::vector<lazy::Tensor>{x.slice(0, 1, kDiffElements + 1) -
                                               x.slice(0, 0, kDiffElements)};
            });
          }};
}

// Token embeddings scaled by sqrt(dim) plus a position embedding shared by the batch: the bytes
// that must move are the rows looked up, the positions once, the ids and the result.
Workload embedding() {
  const lazy::DType dtype = lazy::DType::bf16;
  const std::int64_t tokens = kEmbeddingBatch * kEmbeddingSeq;
  const std::int64_t bytes = bytes_of(2 * tokens * kEmbeddingDim, dtype) +
                             bytes_of(kEmbeddingSeq * kEmbeddingDim, dtype) + tokens * 8;
  return {"embedding", dtype, bytes, [dtype] {
            lazy::Tensor table = computed_randn({kEmbeddingRows, kEmbeddingDim}, 25, dtype);
            lazy::Tensor positions = computed_randn({kEmbeddingSeq, kEmbeddingDim}, 26, dtype);
            lazy::Tensor uniform = lazy::rand({kEmbeddingBatch, kEmbeddingSeq}, 27);
            lazy::Tensor ids = (uniform * float(kEmbeddingRows)).to(lazy::DType::i64);
            lazy::eval({ids});
            const float scale = std::sqrt(float(kEmbeddingDim));
            return StepFn([table, positions, ids, scale] {
              return std::vector<lazy::Tensor>{lazy::embedding(table, ids) * scale + positions};
            });
          }};
}

// Cross-entropy from f32 logits and i64 labels, as a user writes it: log_softmax, the labels'
// entries, their negated mean. The bytes that must move are the logits and labels, read once.
Workload cross_entropy() {
  const lazy::DType dtype = lazy::DType::f32;
  const std::int64_t bytes =
      bytes_of(kCrossEntropyRows * kCrossEntropyCols, dtype) + kCrossEntropyRows * 8 + 4;
  return {"cross_entropy", dtype, bytes, [dtype] {
            lazy::Tensor logits = computed_randn({kCrossEntropyRows, kCrossEntropyCols}, 28, dtype);
            lazy::Tensor uniform = lazy::rand({kCrossEntropyRows, 1}, 29);
            lazy::Tensor labels = (uniform * float(kCrossEntropyCols)).to(lazy::DType::i64);
            lazy::eval({labels});
            return StepFn([logits, labels] {
              lazy::Tensor picked =
                  lazy::take_along_axis(lazy::log_softmax(logits, -1), labels, -1);
              return std::vector<lazy::Tensor>{-lazy::mean(picked)};
            });
          }};
}

// A running sum along the rows: each element read and written once.
Workload cumsum() {
  const lazy::DType dtype = lazy::DType::f32;
  return {"cumsum", dtype, 2 * bytes_of(kCumsumRows * kCumsumCols, dtype), [dtype] {
            lazy::Tensor x = computed_randn({kCumsumRows, kCumsumCols}, 30, dtype);
            return StepFn([x] { return std::vector<lazy::Tensor>{lazy::cumsum(x, -1)}; });
          }};
}

// The 50 largest logits of each row and their positions: the logits are read once.
Workload topk() {
  const lazy::DType dtype = lazy::DType::f32;
  const std::int64_t bytes = bytes_of(kTopKRows * kTopKCols, dtype) + kTopKRows * kTopK * (4 + 8);
  return {"topk", dtype, bytes, [dtype] {
            lazy::Tensor logits = computed_randn({kTopKRows, kTopKCols}, 31, dtype);
            return StepFn([logits] {
              lazy::ValuesAndIndices best = lazy::topk(logits, kTopK);
              return std::vector<lazy::Tensor>{best.values, best.indices};
            });
          }};
}

struct Row {
  std::string workload;
  std::string dtype;
  std::int64_t bytes;
  float fused_ms;
  float unfused_ms;
};

double gbps(std::int64_t bytes, float ms) {
  return double(bytes) / (double(ms) * 1e6);
}

void write_json(const std::string& path, const std::string& device_name, double copy_gbps,
                const std::vector<Row>& rows) {
  std::ostringstream json;
  json << std::setprecision(6) << "{\"device\": " << json_string(device_name)
       << ", \"copy_gbps\": " << copy_gbps << ", \"rows\": [";
  bool first = true;
  for (const Row& row : rows) {
    for (bool fused : {true, false}) {
      const float ms = fused ? row.fused_ms : row.unfused_ms;
      const double rate = gbps(row.bytes, ms);
      json << (first ? "\n  " : ",\n  ") << "{\"workload\": " << json_string(row.workload)
           << ", \"dtype\": " << json_string(row.dtype)
           << ", \"impl\": " << json_string(fused ? "lazyfuse" : "lazyfuse_unfused")
           << ", \"median_ms\": " << ms << ", \"gbps\": " << rate
           << ", \"pct_copy\": " << 100.0 * rate / copy_gbps << ", \"bytes\": " << row.bytes << "}";
      first = false;
    }
  }
  json << "\n]}\n";
  std::ofstream file(path);
  file << json.str();
  if (!file) {
    std::cerr << "bench_fusion: could not write " << path << "\n";
    std::exit(1);
  }
}

void print_table(double copy_gbps, const std::vector<Row>& rows) {
  std::printf("\ncopy bandwidth: %.0f GB/s (read + write)\n", copy_gbps);
  std::printf("%-12s %-5s %10s %11s %10s %9s %8s\n", "workload", "dtype", "fused ms", "unfused ms",
              "GB/s", "% copy", "speedup");
  for (const Row& row : rows) {
    const double rate = gbps(row.bytes, row.fused_ms);
    std::printf("%-12s %-5s %10.3f %11.3f %10.0f %8.1f%% %7.2fx\n", row.workload.c_str(),
                row.dtype.c_str(), row.fused_ms, row.unfused_ms, rate, 100.0 * rate / copy_gbps,
                row.unfused_ms / row.fused_ms);
  }
}

constexpr BenchUsage kUsage{"bench_fusion", "times issue 3's and issue 5's workloads on the GPU",
                            "chain4 chain16 chain16fm swiglu adam softmax layernorm add_rmsnorm "
                            "sum_axis0 sum_all softmax_long cat4 cat4_last stencil diff embedding "
                            "cross_entropy cumsum topk index_add "
                            "sort sort_row"};

// Rows of gradients added into a table at random ids (repeats among them): the table is read and
// written, the gradients and ids read.
Workload index_add() {
  const lazy::DType dtype = lazy::DType::f32;
  const std::int64_t bytes =
      bytes_of((2 * kIndexAddRows + kIndexAddIds) * kIndexAddDim, dtype) + kIndexAddIds * 8;
  return {"index_add", dtype, bytes, [dtype] {
            lazy::Tensor x = computed_randn({kIndexAddRows, kIndexAddDim}, 32, dtype);
            lazy::Tensor src = computed_randn({kIndexAddIds, kIndexAddDim}, 33, dtype);
            lazy::Tensor uniform = lazy::rand({kIndexAddIds}, 34);
            lazy::Tensor ids = (uniform * float(kIndexAddRows)).to(lazy::DType::i64);
            lazy::eval({ids});
            return StepFn([x, ids, src] {
              return std::vector<lazy::Tensor>{lazy::index_add(x, 0, ids, src)};
            });
          }};
}

// Each row sorted (stable) with the positions: read once, values and positions written.
Workload sort(const char* name, std::int64_t rows, std::int64_t cols) {
  const lazy::DType dtype = lazy::DType::f32;
  return {name, dtype, rows * cols * (2 * bytes_of(1, dtype) + 8), [dtype, rows, cols] {
            lazy::Tensor x = computed_randn({rows, cols}, 35, dtype);
            return StepFn([x] {
              lazy::ValuesAndIndices sorted = lazy::sort(x);
              return std::vector<lazy::Tensor>{sorted.values, sorted.indices};
            });
          }};
}

}  // namespace

int main(int argc, char** argv) {
  const BenchOptions options = lazy::bench::parse_bench_options(argc, argv, kUsage);
  // chain16fm: chain16 with LAZY_FAST_MATH's hardware approximations.
  std::vector<Workload> workloads = {chain4(lazy::DType::f32),
                                     chain4(lazy::DType::bf16),
                                     chain16(),
                                     chain16(true),
                                     swiglu(),
                                     adam(),
                                     softmax(lazy::DType::f32),
                                     softmax(lazy::DType::bf16),
                                     layernorm(lazy::DType::f32),
                                     layernorm(lazy::DType::bf16),
                                     add_rmsnorm(),
                                     sum_axis0(),
                                     sum_all(),
                                     softmax(lazy::DType::f32, true),
                                     cat4(0),
                                     cat4(1),
                                     stencil(),
                                     diff(),
                                     embedding(),
                                     cross_entropy(),
                                     cumsum(),
                                     topk(),
                                     index_add(),
                                     sort("sort", kSortRows, kSortCols),
                                     sort("sort_row", 1, kSortOneRow)};
  lazy::bench::keep_only(workloads, options, kUsage);

  const auto [device, copy_gbps] = lazy::bench::open_bench_device("bench_fusion");
  if (device == nullptr) return 0;

  std::vector<Row> rows;
  for (const Workload& workload : workloads) {
    const std::string dtype(lazy::dtype_name(workload.dtype));
    const std::string label = workload.name + " " + dtype;
    Row row{workload.name, dtype, workload.bytes, 0, 0};
    {
      StepFn step = workload.prepare();  // the inputs are freed when the step goes
      lazy::set_fast_math(workload.fast_math);
      for (bool fusion : {true, false}) {
        const std::string impl_label = label + (fusion ? " fused" : " unfused");
        Measurement m = measure(step, fusion, options.iters, *device, impl_label);
        (fusion ? row.fused_ms : row.unfused_ms) = m.median_ms;
        std::printf("%-28s %9.3f ms  %7.0f GB/s  %.0f kernel(s) per iteration\n",
                    impl_label.c_str(), m.median_ms, gbps(workload.bytes, m.median_ms),
                    m.launches_per_iter);
      }
    }
    rows.push_back(row);
  }
  lazy::set_fusion_enabled(true);
  lazy::set_fast_math(false);

  write_json(options.json_path, device->name(), copy_gbps, rows);
  std::printf("wrote %s\n", options.json_path.c_str());
  print_table(copy_gbps, rows);
  return 0;
}
