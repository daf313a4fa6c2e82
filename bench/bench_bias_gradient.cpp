// Whether cuBLASLt's bias-gradient epilogues pay for a linear layer's backward (issue 16), which
// decides that lazyfuse computes a bias gradient with a generated column sum instead:
//   dW = g^T x          [out, in] over K = batch, plain and with BGRADB (the sum of g over K)
//   dx = g W * gelu'(h) [batch, in], DGELU and DGELU_BGRAD (the sum of dx over the batch)
//   sum(g, 0)           lazyfuse's generated column sum, the work either epilogue would absorb
// bf16 operands, batch 8192, in = out = 4096 (the training bench's MLP). Each product is timed
// with the heuristic's first algorithm and with the fastest of its first 8, median of --iters
// runs; an epilogue pays when its time over the plain product is below the column sum's.
//   bench_bias_gradient [--iters N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <lazy/lazy.h>

#include "bench_options.h"
#include "event_timing.h"
#include "runtime/cublaslt.h"
#include "runtime/cublaslt_context.h"
#include "runtime/device.h"

namespace {

using lazy::runtime::Device;
using lazy::runtime::DeviceBuffer;

constexpr std::int64_t kBatch = 8192, kIn = 4096, kOut = 4096;
constexpr int kCandidates = 8;

// Random bf16 values in [-1, 1) on the device (bf16 is the top half of an f32).
std::shared_ptr<DeviceBuffer> random_bf16(Device& device, std::int64_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<std::uint16_t> host(static_cast<std::size_t>(count));
  for (std::uint16_t& value : host) {
    const float f = uniform(generator);
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    value = std::uint16_t(bits >> 16);
  }
  auto buffer = device.allocate(host.size() * 2);
  device.copy_to_device(buffer->ptr(), host.data(), host.size() * 2);
  return buffer;
}

// One column-major product D (m x n) = op(A) op(B) with an epilogue, as cuBLASLt takes it.
struct Product {
  std::int64_t m, n, k;
  CUdeviceptr a;
  std::int64_t lda;
  bool transa;
  CUdeviceptr b;
  std::int64_t ldb;
  bool transb;
  CUdeviceptr d;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  CUdeviceptr bias = 0;  // the bias gradient, for the BGRAD epilogues
  cudaDataType_t bias_type = CUDA_R_16BF;
  CUdeviceptr aux = 0;  // gelu's input, for the DGELU epilogues (laid out as D)
};

struct Timing {
  float first_ms;  // the heuristic's first algorithm
  float best_ms;   // the fastest of its first kCandidates
};

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": " + lazy::runtime::cublas_status_text(status));
  }
}

// Median times of the product, or nothing when cuBLASLt has no algorithm for it.
std::optional<Timing> time_product(Device& device, const Product& p, int iters) {
  const auto& lt = lazy::runtime::cublaslt();
  const cublasLtHandle_t handle = lazy::runtime::cublaslt_context(device).handle;
  const CUdeviceptr workspace = lazy::runtime::cublaslt_workspace(device);
  const std::size_t workspace_bytes = lazy::runtime::kCublasLtWorkspaceBytes;
  cublasLtMatmulDesc_t desc;
  check(lt.cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
  const auto set = [&](cublasLtMatmulDescAttributes_t attribute, const auto& value) {
    check(lt.cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value), "attribute");
  };
  set(CUBLASLT_MATMUL_DESC_TRANSA, std::int32_t(p.transa ? CUBLAS_OP_T : CUBLAS_OP_N));
  set(CUBLASLT_MATMUL_DESC_TRANSB, std::int32_t(p.transb ? CUBLAS_OP_T : CUBLAS_OP_N));
  set(CUBLASLT_MATMUL_DESC_EPILOGUE, std::uint32_t(p.epilogue));
  if (p.bias != 0) {
    set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, reinterpret_cast<const void*>(p.bias));
    set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, std::int32_t(p.bias_type));
  }
  if (p.aux != 0) {
    set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, reinterpret_cast<const void*>(p.aux));
    set(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, p.m);
  }
  cublasLtMatrixLayout_t la, lb, ld;
  check(lt.cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, p.transa ? p.k : p.m, p.transa ? p.m : p.k,
                                      p.lda),
        "layout A");
  check(lt.cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, p.transb ? p.n : p.k, p.transb ? p.k : p.n,
                                      p.ldb),
        "layout B");
  check(lt.cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, p.m, p.n, p.m), "layout D");
  cublasLtMatmulPreference_t preference;
  check(lt.cublasLtMatmulPreferenceCreate(&preference), "preference");
  check(
      lt.cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                              &workspace_bytes, sizeof workspace_bytes),
      "workspace");
  cublasLtMatmulHeuristicResult_t results[kCandidates];
  int returned = 0;
  const cublasStatus_t status = lt.cublasLtMatmulAlgoGetHeuristic(
      handle, desc, la, lb, ld, ld, preference, kCandidates, results, &returned);
  std::optional<Timing> timing;
  if (status == CUBLAS_STATUS_SUCCESS && returned > 0) {
    const float alpha = 1, beta = 0;
    const auto ptr = [](CUdeviceptr x) { return reinterpret_cast<void*>(x); };
    lazy::runtime::DeviceTimer timer(device);
    Timing t{0, 1e30f};
    for (int c = 0; c < returned; ++c) {
      std::vector<float> samples;
      for (int i = 0; i < iters + lazy::bench::kWarmupIters; ++i) {
        timer.start();
        check(lt.cublasLtMatmul(handle, desc, &alpha, ptr(p.a), la, ptr(p.b), lb, &beta, ptr(p.d),
                                ld, ptr(p.d), ld, &results[c].algo, ptr(workspace), workspace_bytes,
                                device.stream()),
              "cublasLtMatmul");
        timer.stop();
        const float ms = timer.elapsed_ms();
        if (i >= lazy::bench::kWarmupIters) samples.push_back(ms);
      }
      const float ms = lazy::bench::median(samples);
      if (c == 0) t.first_ms = ms;
      t.best_ms = std::min(t.best_ms, ms);
    }
    timing = t;
  }
  lt.cublasLtMatmulPreferenceDestroy(preference);
  lt.cublasLtMatrixLayoutDestroy(la);
  lt.cublasLtMatrixLayoutDestroy(lb);
  lt.cublasLtMatrixLayoutDestroy(ld);
  lt.cublasLtMatmulDescDestroy(desc);
  return timing;
}

void print_row(const char* what, const std::optional<Timing>& t,
               const std::optional<Timing>& plain) {
  if (!t) {
    std::printf("%-34s %12s\n", what, "no algorithm");
    return;
  }
  std::printf("%-34s %9.4f ms %9.4f ms", what, t->first_ms, t->best_ms);
  if (plain) std::printf(" %+9.4f ms", t->best_ms - plain->best_ms);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  const lazy::bench::BenchUsage usage{
      "bench_bias_gradient", "cuBLASLt's bias-gradient epilogues against a column sum", ""};
  const lazy::bench::BenchOptions options = lazy::bench::parse_bench_options(argc, argv, usage);
  const auto [device, copy_gbps] = lazy::bench::open_bench_device("bench_bias_gradient");
  if (device == nullptr) return 0;

  const auto g = random_bf16(*device, kBatch * kOut, 1);
  const auto x = random_bf16(*device, kBatch * kIn, 2);
  const auto w = random_bf16(*device, kOut * kIn, 3);
  const auto h = random_bf16(*device, kBatch * kIn, 4);
  const auto dw = device->allocate(std::size_t(kOut * kIn) * 2);
  const auto dx = device->allocate(std::size_t(kBatch * kIn) * 2);
  const auto bias_grad = device->allocate(std::size_t(std::max(kIn, kOut)) * 4);

  // Row-major dW [out, in] = g^T x is column-major dW^T = x^T g: A = x (in x batch), B = g
  // (out x batch) transposed; BGRADB sums B over K = batch, one value per out.
  Product weight_grad{kIn, kOut, kBatch, x->ptr(), kIn, false, g->ptr(), kOut, true, dw->ptr()};
  // Row-major dx [batch, in] = g W is column-major dx^T = W^T g^T: A = W (in x out), B = g
  // (out x batch); DGELU_BGRAD sums D over its columns, one value per in.
  Product input_grad{kIn, kBatch, kOut, w->ptr(), kIn, false, g->ptr(), kOut, false, dx->ptr()};

  std::printf("%-34s %12s %12s %12s\n", "bf16 product", "heuristic", "best of 8", "over plain");
  const auto dw_plain = time_product(*device, weight_grad, options.iters);
  print_row("dW = g^T x", dw_plain, std::nullopt);
  for (const cudaDataType_t type : {CUDA_R_16BF, CUDA_R_32F}) {
    Product p = weight_grad;
    p.epilogue = CUBLASLT_EPILOGUE_BGRADB;
    p.bias = bias_grad->ptr();
    p.bias_type = type;
    print_row(
        type == CUDA_R_16BF ? "dW, BGRADB (bf16 bias gradient)" : "dW, BGRADB (f32 bias gradient)",
        time_product(*device, p, options.iters), dw_plain);
  }
  const auto dx_plain = time_product(*device, input_grad, options.iters);
  print_row("dx = g W", dx_plain, std::nullopt);
  Product dgelu = input_grad;
  dgelu.epilogue = CUBLASLT_EPILOGUE_DGELU;
  dgelu.aux = h->ptr();
  const auto dx_dgelu = time_product(*device, dgelu, options.iters);
  print_row("dx, DGELU", dx_dgelu, dx_plain);
  for (const cudaDataType_t type : {CUDA_R_16BF, CUDA_R_32F}) {
    Product p = dgelu;
    p.epilogue = CUBLASLT_EPILOGUE_DGELU_BGRAD;
    p.bias = bias_grad->ptr();
    p.bias_type = type;
    print_row(type == CUDA_R_16BF ? "dx, DGELU_BGRAD (bf16 bias grad.)"
                                  : "dx, DGELU_BGRAD (f32 bias grad.)",
              time_product(*device, p, options.iters), dx_dgelu);
  }

  const lazy::Tensor cotangent = lazy::randn({kBatch, kOut}, 5, lazy::DType::bf16);
  lazy::eval({cotangent});
  const lazy::bench::StepFn column_sum = [&] {
    return std::vector<lazy::Tensor>{lazy::sum(cotangent, 0).to(lazy::DType::f32)};
  };
  const lazy::bench::Measurement m =
      lazy::bench::measure(column_sum, true, options.iters, *device, "column sum");
  std::printf("%-34s %9.4f ms (%.0f kernel(s), L2 flushed)\n", "lazyfuse sum(g, 0) to f32",
              m.median_ms, m.launches_per_iter);
  return 0;
}
