// A LibTorch model's activation handed to lazyfuse for a fused epilogue and back, per call
// (issue 17): a = x @ w^T in LibTorch, then out = rms_norm(a + residual) * weight computed by
//   torch     LibTorch alone, op by op (eager);
//   lazyfuse  at::toDLPack -> lazy::from_dlpack -> the epilogue, fused -> lazy::to_dlpack ->
//             at::fromDLPack, with lazy::set_stream on PyTorch's stream (no host wait).
// Each is a loop of calls timed with CUDA events (host and GPU together, as a server sees it),
// the epilogue alone and with the product; bf16, [rows, 4096]. Checks the two agree first.
// Built and run on the GPU machine by bench/libtorch_device.sh.
#include <ATen/DLConvertor.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include <lazy/lazy.h>

namespace {

constexpr std::int64_t kWidth = 4096;
constexpr float kEps = 1e-6f;
constexpr int kWarmup = 10, kCalls = 50, kRepeats = 7;

// The median over repeats of the time per call of `calls` back-to-back calls.
double us_per_call(const std::function<at::Tensor()>& call) {
  for (int i = 0; i < kWarmup; ++i) call();
  torch::cuda::synchronize();
  std::vector<double> samples;
  for (int r = 0; r < kRepeats; ++r) {
    auto start = at::cuda::CUDAEvent(cudaEventDefault);
    auto stop = at::cuda::CUDAEvent(cudaEventDefault);
    start.record();
    for (int i = 0; i < kCalls; ++i) call();
    stop.record();
    stop.synchronize();
    samples.push_back(double(start.elapsed_time(stop)) * 1000.0 / kCalls);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::printf("no CUDA device for LibTorch: nothing to time\n");
    return 0;
  }
  const auto options = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kBFloat16);
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard torch_guard(stream);
  lazy::StreamGuard lazy_guard(stream.stream());
  std::printf("device: %s, torch %s\n", at::cuda::getCurrentDeviceProperties()->name,
              TORCH_VERSION);
  std::printf("%-8s %-22s %12s %12s %8s\n", "rows", "what", "torch us", "lazyfuse us", "ratio");
  for (const std::int64_t rows : {std::int64_t(16), std::int64_t(8192)}) {
    const at::Tensor x = torch::randn({rows, kWidth}, options);
    const at::Tensor w = torch::randn({kWidth, kWidth}, options) * 0.02;
    const at::Tensor residual = torch::randn({rows, kWidth}, options);
    const at::Tensor weight = torch::rand({kWidth}, options) + 0.5;
    const lazy::Tensor lazy_residual = lazy::from_dlpack(at::toDLPack(residual));
    const lazy::Tensor lazy_weight = lazy::from_dlpack(at::toDLPack(weight));

    const auto torch_epilogue = [&](const at::Tensor& a) {
      const at::Tensor h = (a + residual).to(torch::kFloat32);
      const at::Tensor normed = h * torch::rsqrt(h.pow(2).mean(-1, true) + kEps);
      return (normed.to(torch::kBFloat16) * weight);
    };
    const auto lazy_epilogue = [&](const at::Tensor& a) {
      const lazy::Tensor h = lazy::from_dlpack(at::toDLPack(a)) + lazy_residual;
      const lazy::Tensor hf = h.to(lazy::DType::f32);
      const lazy::Tensor normed = hf * lazy::rsqrt(lazy::mean(hf * hf, -1, true) + kEps);
      return at::fromDLPack(lazy::to_dlpack(normed.to(lazy::DType::bf16) * lazy_weight));
    };

    const at::Tensor a = torch::matmul(x, w.t());
    const at::Tensor want = torch_epilogue(a), got = lazy_epilogue(a);
    const double error =
        (want.to(torch::kFloat32) - got.to(torch::kFloat32)).abs().max().item<double>();
    if (error > 0.07) {
      std::printf("lazyfuse and LibTorch disagree by %g at %lld rows\n", error,
                  static_cast<long long>(rows));
      return 1;
    }
    const double torch_alone = us_per_call([&] { return torch_epilogue(a); });
    const double lazy_alone = us_per_call([&] { return lazy_epilogue(a); });
    const double torch_layer = us_per_call([&] { return torch_epilogue(torch::matmul(x, w.t())); });
    const double lazy_layer = us_per_call([&] { return lazy_epilogue(torch::matmul(x, w.t())); });
    std::printf("%-8lld %-22s %12.1f %12.1f %7.2fx\n", static_cast<long long>(rows), "epilogue",
                torch_alone, lazy_alone, torch_alone / lazy_alone);
    std::printf("%-8lld %-22s %12.1f %12.1f %7.2fx\n", static_cast<long long>(rows),
                "product + epilogue", torch_layer, lazy_layer, torch_layer / lazy_layer);
  }
  return 0;
}
