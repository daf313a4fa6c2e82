// lazyfuse and LibTorch on one GPU, through DLPack (issue 17): CUDA tensors cross both ways with
// no copy (the same data pointer), in every dtype both share and any strides, a computation on
// each side agrees with the other, the producer's memory outlives its at::Tensor while a lazy
// tensor reads it, a producer on PyTorch's default stream is waited for with no stream bound, and
// with lazy::set_stream on PyTorch's current stream a torch producer, a
// lazyfuse sync and a torch consumer run in order without a host wait.
// Built only where LibTorch is found (tests/CMakeLists.txt), or on the GPU machine by
// .ci/libtorch-test against the device bundle.
#include <ATen/DLConvertor.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <lazy/lazy.h>

namespace {

class LibTorchInterop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  }
  void TearDown() override { lazy::set_stream(nullptr); }
};

const torch::TensorOptions kCuda = torch::TensorOptions().device(torch::kCUDA);

lazy::Tensor to_lazy(const at::Tensor& t) {
  return lazy::from_dlpack(at::toDLPack(t));
}

at::Tensor to_torch(const lazy::Tensor& t) {
  return at::fromDLPack(lazy::to_dlpack(t));
}

TEST_F(LibTorchInterop, ACudaTensorCrossesBothWaysWithoutACopy) {
  at::Tensor a = torch::randn({256, 128}, kCuda);
  lazy::Tensor x = to_lazy(a);
  EXPECT_EQ(x.data_ptr(), a.data_ptr()) << "copied on the way in";
  lazy::Tensor y = lazy::tanh(x) * 2.0f + 1.0f;
  at::Tensor b = to_torch(y);
  EXPECT_EQ(b.data_ptr(), y.data_ptr()) << "copied on the way out";
  EXPECT_EQ(b.device(), a.device());
  EXPECT_TRUE(torch::allclose(b, torch::tanh(a) * 2 + 1, 1e-5, 1e-6));
}

// Repeats replay as a CUDA graph from the fourth on: each must read its own new tensor.
TEST_F(LibTorchInterop, ARepeatedCallReadsEachCallsTensor) {
  for (int call = 0; call < 8; ++call) {
    at::Tensor a = torch::randn({1024, 256}, kCuda);
    at::Tensor b = to_torch(lazy::sigmoid(to_lazy(a)) * 3.0f);
    EXPECT_TRUE(torch::allclose(b, torch::sigmoid(a) * 3, 1e-5, 1e-6)) << "call " << call;
  }
}

// With no stream bound, lazyfuse's work on a tensor taken in waits for what PyTorch queued on its
// default stream before: a slow producer's last write must be seen, call after call (kernels
// cached, so a read could start long before it). Each call's value differs, so that memory the
// caching allocator hands out again does not hold the right value from the call before.
TEST_F(LibTorchInterop, AProducerOnTorchsDefaultStreamIsWaitedForWithNoStreamBound) {
  for (int call = 0; call < 6; ++call) {
    at::Tensor big = torch::zeros({1 << 22}, kCuda);
    for (int k = 0; k < 400; ++k) big.add_(1);             // milliseconds of GPU work
    at::Tensor a = (big.slice(0, 0, 1 << 16) + call) * 2;  // written after the 400 passes
    at::Tensor b = to_torch(to_lazy(a) + 1.0f);
    const float expected = 2.0f * float(400 + call) + 1.0f;
    EXPECT_EQ(b.min().item<float>(), expected) << "call " << call;
    EXPECT_EQ(b.max().item<float>(), expected) << "call " << call;
  }
}

TEST_F(LibTorchInterop, StridedTensorsAndEveryDtypeRoundTrip) {
  const std::vector<torch::Dtype> dtypes = {torch::kFloat32, torch::kFloat16, torch::kBFloat16,
                                            torch::kInt32,   torch::kInt64,   torch::kBool};
  for (const torch::Dtype dtype : dtypes) {
    at::Tensor a = (torch::randn({48, 40}, kCuda) * 10).to(dtype).t();  // strides {1, 40}
    lazy::Tensor x = to_lazy(a);
    EXPECT_EQ(x.data_ptr(), a.data_ptr()) << dtype;
    EXPECT_EQ(x.strides(), (std::vector<std::int64_t>{1, 40})) << dtype;
    at::Tensor back = to_torch(x + x);
    EXPECT_TRUE(torch::equal(back, a + a)) << dtype;
  }
}

TEST_F(LibTorchInterop, TheProducersMemoryOutlivesItsTensorWhileLazyfuseReadsIt) {
  at::Tensor a = torch::arange(1 << 20, kCuda).to(torch::kFloat32);
  const at::Tensor expected = a * 3;
  lazy::Tensor x = to_lazy(a);
  a.reset();                                 // the DLPack tensor lazyfuse holds keeps the storage
  torch::empty({1 << 22}, kCuda).fill_(-1);  // would reuse freed memory
  EXPECT_TRUE(torch::equal(to_torch(x * 3.0f), expected));
}

TEST_F(LibTorchInterop, ProducerLazyfuseAndConsumerRunInOrderOnTorchsStream) {
  c10::cuda::CUDAStream stream = c10::cuda::getStreamFromPool();
  c10::cuda::CUDAStreamGuard torch_guard(stream);
  lazy::StreamGuard lazy_guard(stream.stream());
  at::Tensor a = torch::zeros({1 << 22}, kCuda);
  // A slow producer: many passes over 16 MiB, queued on the stream.
  for (int k = 0; k < 50; ++k) a.add_(1);
  lazy::Tensor y = to_lazy(a) * 2.0f;
  at::Tensor b = to_torch(y);  // computed and ordered on the stream, no host wait
  at::Tensor c = b + 1;        // the consumer, queued after it
  EXPECT_EQ(c.min().item<float>(), 101.0f);
  EXPECT_EQ(c.max().item<float>(), 101.0f);
}

}  // namespace
