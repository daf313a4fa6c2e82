// The harness of tests/libtorch/test_libtorch_semantics.cpp: inputs holding the values where
// semantics part ways, each case's results reduced to what lazyfuse and LibTorch must agree on,
// and the comparison. Header-only, for that test alone.
#pragma once

#include <ATen/DLConvertor.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <lazy/lazy.h>

namespace lazy_torch_oracle {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// The inputs, as LibTorch CUDA tensors or as lazyfuse tensors reading the same memory.
template <class T>
struct Inputs {
  T fa;               // halves, +-0, +-inf, NaN
  T fb;               // a second operand with zeros, a tiny value and infinities
  T fc;               // finite values, some past the thresholds of softplus, exp and tanh
  T ia, ib, ic;       // i32 with the extremes; ic non-negative exponents
  T la;               // i64 past 2^53
  T ba, bb;           // bool
  T ha, hb, hc, bfc;  // fa, fb and fc in f16; fc in bf16
  T r;                // [3, 4] f32 with a NaN
  T s;                // [3, 4] f32, distinct finite values
  T ni;               // [3, 4] f32 rows of -inf
  T si;               // [3, 4] i32
  T sb;               // [3, 4] bool
  T w4, b4;           // [4] weight and bias
  T idx, idx2;        // i64 indices along s's axis 1: [5] and [3, 4]
  T e;                // [0, 3] f32
};

inline const torch::TensorOptions kCuda = torch::TensorOptions().device(torch::kCUDA);

template <class V>
at::Tensor cuda_tensor(std::vector<V> values, torch::Dtype dtype, std::vector<std::int64_t> shape) {
  return torch::tensor(values).to(dtype).reshape(shape).to(torch::kCUDA);
}

inline Inputs<at::Tensor> torch_inputs() {
  const std::vector<std::int64_t> v12{12}, m34{3, 4};
  Inputs<at::Tensor> in;
  in.fa = cuda_tensor(std::vector<float>{-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -0.0f, 0.0f, kInf,
                                         -kInf, kNan, 3.7f},
                      torch::kFloat32, v12);
  in.fb = cuda_tensor(std::vector<float>{2, -3, 0, -0.0f, 1e-30f, 7.5f, -1, 0, kInf, 2, 1, -kInf},
                      torch::kFloat32, v12);
  in.fc = cuda_tensor(std::vector<float>{0.3f, -1.2f, 2.5f, -3.5f, 0.0f, 10.0f, -20.0f, 25.0f,
                                         -0.7f, 1e-3f, 88.0f, -88.0f},
                      torch::kFloat32, v12);
  in.ia = cuda_tensor(
      std::vector<std::int64_t>{-7, 7, -1, 0, 5, -5, 2147483647, -2147483648LL, 3, -3, 100, 1},
      torch::kInt32, v12);
  in.ib = cuda_tensor(std::vector<std::int64_t>{2, -2, 3, 1, -3, 3, 1, 1, 7, 2, -7, 0},
                      torch::kInt32, v12);
  in.ic = cuda_tensor(std::vector<std::int64_t>{2, 0, 3, 1, 4, 3, 1, 1, 7, 2, 5, 0}, torch::kInt32,
                      v12);
  in.la = cuda_tensor(
      std::vector<std::int64_t>{-7, 7, -1, 0, 5, -5, 9007199254740993LL, -4, 3, -3, 100, 1},
      torch::kInt64, v12);
  in.ba =
      cuda_tensor(std::vector<std::int64_t>{1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0}, torch::kBool, v12);
  in.bb =
      cuda_tensor(std::vector<std::int64_t>{1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0}, torch::kBool, v12);
  in.ha = in.fa.to(torch::kFloat16);
  in.hb = in.fb.to(torch::kFloat16);
  in.hc = in.fc.to(torch::kFloat16);
  in.bfc = in.fc.to(torch::kBFloat16);
  in.r = cuda_tensor(std::vector<float>{1, 5, -2, 3, 4, 4.5f, 0, -1, kNan, 2, 1, 0},
                     torch::kFloat32, m34);
  in.s = cuda_tensor(std::vector<float>{1, 5, -2, 3, 4, 4.5f, 0, -1, 0.5f, 2, 1.5f, -0.25f},
                     torch::kFloat32, m34);
  in.ni =
      cuda_tensor(std::vector<float>{-kInf, -kInf, -kInf, -kInf, 0, -kInf, 1, -kInf, 1, 2, 3, 4},
                  torch::kFloat32, m34);
  in.si = cuda_tensor(std::vector<std::int64_t>{3, -1, 4, 1, -5, 9, 2, 6, 5, 3, -6, 8},
                      torch::kInt32, m34);
  in.sb =
      cuda_tensor(std::vector<std::int64_t>{1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1}, torch::kBool, m34);
  in.w4 = cuda_tensor(std::vector<float>{0.5f, -1, 2, 0.25f}, torch::kFloat32, {4});
  in.b4 = cuda_tensor(std::vector<float>{0.1f, 0.2f, -0.3f, 0.4f}, torch::kFloat32, {4});
  in.idx = cuda_tensor(std::vector<std::int64_t>{2, 0, 2, 1, 3}, torch::kInt64, {5});
  in.idx2 = cuda_tensor(std::vector<std::int64_t>{3, 0, 1, 1, 2, 0, 0, 0, 1, 3, 3, 2},
                        torch::kInt64, m34);
  in.e = at::zeros({0, 3}, kCuda);
  return in;
}

inline lazy::Tensor to_lazy(const at::Tensor& t) {
  return lazy::from_dlpack(at::toDLPack(t));
}

inline Inputs<lazy::Tensor> lazy_inputs(const Inputs<at::Tensor>& t) {
  return {to_lazy(t.fa),  to_lazy(t.fb),   to_lazy(t.fc),  to_lazy(t.ia), to_lazy(t.ib),
          to_lazy(t.ic),  to_lazy(t.la),   to_lazy(t.ba),  to_lazy(t.bb), to_lazy(t.ha),
          to_lazy(t.hb),  to_lazy(t.hc),   to_lazy(t.bfc), to_lazy(t.r),  to_lazy(t.s),
          to_lazy(t.ni),  to_lazy(t.si),   to_lazy(t.sb),  to_lazy(t.w4), to_lazy(t.b4),
          to_lazy(t.idx), to_lazy(t.idx2), to_lazy(t.e)};
}

// A result reduced to what the two libraries must agree on.
struct Outcome {
  bool threw = false;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

inline std::string dtype_of(torch::Dtype dtype) {
  switch (dtype) {
    case torch::kFloat32:
      return "f32";
    case torch::kFloat16:
      return "f16";
    case torch::kBFloat16:
      return "bf16";
    case torch::kInt32:
      return "i32";
    case torch::kInt64:
      return "i64";
    case torch::kBool:
      return "bool";
    default:
      return "other";
  }
}

inline Outcome outcome_of(const at::Tensor& t) {
  Outcome o{false, dtype_of(t.scalar_type()), t.sizes().vec(), {}};
  const at::Tensor flat = t.to(torch::kCPU).to(torch::kFloat64).contiguous().flatten();
  o.values.assign(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel());
  return o;
}

inline Outcome outcome_of(const lazy::Tensor& t) {
  Outcome o{
      false, std::string(lazy::dtype_name(t.dtype())), {t.shape().begin(), t.shape().end()}, {}};
  if (t.dtype() == lazy::DType::bool_) {
    for (bool b : t.to_vector<bool>()) o.values.push_back(b ? 1 : 0);
  } else if (lazy::is_floating(t.dtype())) {
    o.values = t.to_vector<double>();
  } else {
    for (std::int64_t v : t.to_vector<std::int64_t>()) o.values.push_back(double(v));
  }
  return o;
}

// The outcomes of the tensors `results()` returns, or one that threw.
template <class F>
std::vector<Outcome> outcomes_of(const F& results) {
  try {
    std::vector<Outcome> outs;
    for (const auto& t : results()) outs.push_back(outcome_of(t));
    return outs;
  } catch (const std::exception&) {
    return {Outcome{true}};
  }
}

// A few ulps of the dtype, relative; integers and bools exactly.
inline double tolerance(const std::string& dtype) {
  if (dtype == "f32") return 1e-5;
  if (dtype == "f16") return 2e-3;
  if (dtype == "bf16") return 1.6e-2;
  return 0;
}

// How two results are compared: values within `relative` of each other, or within `relative`
// of the largest |value| of PyTorch's result when `scaled` (gradients, whose sums cancel); the
// sign of a zero only where `zero_sign` (a gradient's zeros may come as -0 from -g * 0).
struct Agreement {
  double relative = 0;
  bool scaled = false;
  bool zero_sign = true;
};

// Empty when the two agree, else what differs.
inline std::string difference(const Outcome& lazy_out, const Outcome& torch_out,
                              Agreement agreement) {
  std::ostringstream why;
  if (lazy_out.threw || torch_out.threw) {
    if (lazy_out.threw != torch_out.threw)
      why << (lazy_out.threw ? "lazyfuse threw, PyTorch did not"
                             : "PyTorch threw, lazyfuse did not");
    return why.str();
  }
  if (lazy_out.dtype != torch_out.dtype)
    return "dtype " + lazy_out.dtype + " against " + torch_out.dtype;
  if (lazy_out.shape != torch_out.shape) return "a different shape";
  const double tol = agreement.relative;
  double floor = tol * 1e-3;
  if (agreement.scaled)
    for (double b : torch_out.values)
      if (std::isfinite(b)) floor = std::max(floor, tol * std::abs(b));
  for (std::size_t i = 0; i < lazy_out.values.size(); ++i) {
    const double a = lazy_out.values[i], b = torch_out.values[i];
    const bool same = std::isnan(a) || std::isnan(b)   ? std::isnan(a) && std::isnan(b)
                      : std::isinf(a) || std::isinf(b) ? a == b
                      : a == 0 && b == 0 && agreement.zero_sign
                          ? std::signbit(a) == std::signbit(b)
                          : std::abs(a - b) <= tol * std::max(std::abs(a), std::abs(b)) + floor;
    if (!same) {
      why.precision(9);
      why << "element " << i << ": " << a << " against PyTorch's " << b;
      return why.str();
    }
  }
  return "";
}

inline std::vector<lazy::Tensor> to_list(lazy::Tensor t) {
  return {std::move(t)};
}
inline std::vector<lazy::Tensor> to_list(lazy::ValuesAndIndices vi) {
  return {std::move(vi.values), std::move(vi.indices)};
}
inline std::vector<lazy::Tensor> to_list(std::vector<lazy::Tensor> list) {
  return list;
}
inline std::vector<at::Tensor> to_list(at::Tensor t) {
  return {std::move(t)};
}
inline std::vector<at::Tensor> to_list(std::tuple<at::Tensor, at::Tensor> pair) {
  return {std::get<0>(pair), std::get<1>(pair)};
}
inline std::vector<at::Tensor> to_list(std::vector<at::Tensor> list) {
  return list;
}

// A gradient case: f of one to three f32 arguments, differentiated through sum(f * w) with w
// a fixed ramp of f's shape, against PyTorch's autograd.
struct GradientCase {
  const char* name;
  std::function<lazy::Tensor(std::span<const lazy::Tensor>)> lazy_f;
  std::function<at::Tensor(const std::vector<at::Tensor>&)> torch_f;
  std::vector<at::Tensor> args;
};

// The cotangent's values: 0.5, 0.75, ..., 1.5, again and again (no two neighbours alike).
inline std::vector<float> ramp(std::int64_t n) {
  std::vector<float> values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(0.5f + 0.25f * float(i % 5));
  return values;
}

inline std::vector<Outcome> lazy_gradients(const GradientCase& c) {
  std::vector<lazy::Tensor> primals;
  for (const at::Tensor& arg : c.args) primals.push_back(to_lazy(arg));
  const auto loss = [&](std::span<const lazy::Tensor> in) {
    const lazy::Tensor y = c.lazy_f(in);
    return lazy::sum(y * lazy::from_data(ramp(y.numel()), y.shape()));
  };
  return outcomes_of([&] { return lazy::grad(loss)(primals); });
}

inline std::vector<Outcome> torch_gradients(const GradientCase& c) {
  std::vector<at::Tensor> leaves;
  for (const at::Tensor& arg : c.args) leaves.push_back(arg.detach().clone().requires_grad_(true));
  return outcomes_of([&] {
    const at::Tensor y = c.torch_f(leaves);
    const at::Tensor w = torch::tensor(ramp(y.numel())).reshape(y.sizes()).to(torch::kCUDA);
    const at::Tensor loss = (y * w).sum();
    std::vector<at::Tensor> grads = torch::autograd::grad({loss}, leaves, {}, false, false,
                                                          /*allow_unused=*/true);
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) grads[i] = at::zeros_like(leaves[i]);
    return grads;
  });
}

// a, b and c are a gradient case's first three arguments (the first where there are fewer).
#define LZ_BIND_ARGS(in)                                      \
  [[maybe_unused]] const auto& a = in[0];                     \
  [[maybe_unused]] const auto& b = in[in.size() > 1 ? 1 : 0]; \
  [[maybe_unused]] const auto& c = in[in.size() > 2 ? 2 : 0];

#define GRAD(name, lazy_expr, torch_expr, ...)  \
  GradientCase {                                \
    name,                                       \
        [](std::span<const lazy::Tensor> in) {  \
          LZ_BIND_ARGS(in)                      \
          return lazy::Tensor(lazy_expr);       \
        },                                      \
        [](const std::vector<at::Tensor>& in) { \
          LZ_BIND_ARGS(in)                      \
          return at::Tensor(torch_expr);        \
        },                                      \
    {                                           \
      __VA_ARGS__                               \
    }                                           \
  }
#define SAME_GRAD(name, expr, ...) GRAD(name, expr, expr, __VA_ARGS__)

struct Case {
  const char* name;
  std::function<std::vector<lazy::Tensor>(const Inputs<lazy::Tensor>&)> lazy_side;
  std::function<std::vector<at::Tensor>(const Inputs<at::Tensor>&)> torch_side;
};

// The inputs by their names, in a case's expression.
#define LZ_BIND(in)                                                                            \
  [[maybe_unused]] const auto &fa = in.fa, &fb = in.fb, &fc = in.fc, &ia = in.ia, &ib = in.ib, \
                              &ic = in.ic, &la = in.la, &ba = in.ba, &bb = in.bb, &ha = in.ha, \
                              &hb = in.hb, &hc = in.hc, &bfc = in.bfc, &r = in.r, &s = in.s,   \
                              &ni = in.ni, &si = in.si, &sb = in.sb, &w4 = in.w4, &b4 = in.b4, \
                              &idx = in.idx, &idx2 = in.idx2, &e = in.e;

// A case written once per library, and one both spell alike (operators, and functions found by
// argument lookup: exp(x) is lazy::exp or at::exp).
#define TWO(name, lazy_expr, torch_expr)     \
  Case {                                     \
    name,                                    \
        [](const Inputs<lazy::Tensor>& in) { \
          LZ_BIND(in)                        \
          return to_list(lazy_expr);         \
        },                                   \
        [](const Inputs<at::Tensor>& in) {   \
          LZ_BIND(in)                        \
          return to_list(torch_expr);        \
        }                                    \
  }
#define SAME(name, expr) TWO(name, expr, expr)

inline const torch::Dtype kF16 = torch::kFloat16, kBF16 = torch::kBFloat16, kF32 = torch::kFloat32,
                          kI32 = torch::kInt32, kI64 = torch::kInt64, kBool = torch::kBool;

// The fixture of the oracle's tests: each case's results (or gradients) from lazyfuse and from
// LibTorch on the same CUDA inputs, compared.
class LibTorchSemantics : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device for LibTorch";
  }
  void expect_agreement(const std::vector<Case>& cases) {
    const Inputs<at::Tensor> torch_in = torch_inputs();
    const Inputs<lazy::Tensor> lazy_in = lazy_inputs(torch_in);
    for (const Case& c : cases) {
      const std::vector<Outcome> ours = outcomes_of([&] { return c.lazy_side(lazy_in); });
      const std::vector<Outcome> theirs = outcomes_of([&] { return c.torch_side(torch_in); });
      if (ours.size() != theirs.size()) {
        ADD_FAILURE() << c.name << ": " << ours.size() << " results against " << theirs.size();
        continue;
      }
      for (std::size_t k = 0; k < ours.size(); ++k)
        EXPECT_EQ(difference(ours[k], theirs[k], {tolerance(theirs[k].dtype)}), "")
            << c.name << ", result " << k;
    }
  }

  void expect_gradients_agree(const std::vector<GradientCase>& cases) {
    for (const GradientCase& c : cases) {
      const std::vector<Outcome> ours = lazy_gradients(c), theirs = torch_gradients(c);
      // Every case is a valid program: agreeing by both throwing would check nothing.
      EXPECT_FALSE(ours[0].threw) << c.name << ": lazyfuse threw";
      if (ours.size() != theirs.size()) {
        ADD_FAILURE() << c.name << ": " << ours.size() << " gradients against " << theirs.size();
        continue;
      }
      for (std::size_t k = 0; k < ours.size(); ++k)
        EXPECT_EQ(difference(ours[k], theirs[k], {1e-4, true, false}), "")
            << c.name << ", gradient " << k;
    }
  }
};

}  // namespace lazy_torch_oracle
