// Programs a random-program tester found wrong or crashing (issue 11, seed 7), as it recorded
// them: each returns the tensors it held. Inputs come from the tester's own deterministic
// generators, so every call builds the same program over the same values.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <lazy/lazy.h>

namespace lazy_test::fuzz {

inline std::uint64_t fz_mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// n values in [lo, hi), quantized to multiples of 2^-q when q >= 0; `special` of 128 draws are
// NaN, infinities, zeros, huge or subnormal values.
inline std::vector<double> fz_floats(std::uint64_t key, std::int64_t n, double lo, double hi, int q,
                                     int special) {
  static const double specials[8] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e30, -3e9, 1e-40};
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t r = fz_mix(key + static_cast<std::uint64_t>(i));
    double x = lo + (hi - lo) * static_cast<double>(r >> 11) * 0x1p-53;
    if (q >= 0) x = std::nearbyint(std::ldexp(x, q)) * std::ldexp(1.0, -q);
    if (static_cast<int>(r & 127) < special) x = specials[(r >> 7) & 7];
    v[static_cast<std::size_t>(i)] = x;
  }
  return v;
}

inline std::vector<std::int64_t> fz_ints(std::uint64_t key, std::int64_t n, std::int64_t lo,
                                         std::int64_t hi) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    v[static_cast<std::size_t>(i)] =
        lo + static_cast<std::int64_t>(fz_mix(key + static_cast<std::uint64_t>(i)) %
                                       static_cast<std::uint64_t>(hi - lo + 1));
  }
  return v;
}

inline std::vector<bool> fz_bools(std::uint64_t key, std::int64_t n, int percent) {
  std::vector<bool> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] =
        static_cast<int>(fz_mix(key + static_cast<std::uint64_t>(i)) % 100) < percent;
  return v;
}

// Rank-0 tensors: full, sum(x, {}, true), max(x, {}, false), where, expm1. Crashed the host
// (codegen of a rank-0 reduction).
inline std::vector<lazy::Tensor> program_p559() {
  lazy::Tensor p559_out0, p559_out1, p559_out2, p559_out3;
  {
    lazy::Tensor p559_t0 = lazy::full({}, 3.0, lazy::i64);
    lazy::Tensor p559_t1 = lazy::isnan(p559_t0);
    lazy::Tensor p559_t2 = lazy::clamp(p559_t0, 0, 3);
    lazy::Tensor p559_t3 =
        lazy::from_data(fz_ints(0x9dbbf67aab7d2317ull, 1, -100, 100), {}, lazy::i64);
    lazy::Tensor p559_t4 = lazy::maximum(p559_t2, p559_t3);
    lazy::Tensor p559_t5 = lazy::ne(p559_t2, p559_t3);
    lazy::Tensor p559_t6 = lazy::from_data(fz_bools(0x9308b33da39034c8ull, 1, 10), {});
    lazy::Tensor p559_t7 = lazy::add(p559_t5, p559_t6);
    lazy::Tensor p559_t8 = lazy::sin(p559_t2);
    lazy::Tensor p559_t9 = lazy::sum(p559_t8, {}, true);
    lazy::Tensor p559_t10 = lazy::where(p559_t1, 0.25, p559_t9);
    lazy::Tensor p559_t11 = lazy::where(p559_t5, p559_t10, p559_t8);
    lazy::Tensor p559_t12 = p559_t11.unsqueeze(0);
    lazy::Tensor p559_t13 =
        lazy::from_data(fz_ints(0xbf786139b25443deull, 1, -5, 5), {1}, lazy::i64);
    lazy::Tensor p559_t14 = p559_t13.reshape({});
    lazy::Tensor p559_t15 = lazy::pow(p559_t14, 2);
    lazy::Tensor p559_t16 = lazy::sub(p559_t14, -2.0);
    lazy::Tensor p559_t17 = lazy::mean(p559_t16, {}, false);
    lazy::Tensor p559_t18 = lazy::abs(p559_t9);
    lazy::Tensor p559_t19 = lazy::add(p559_t18, 0.25);
    lazy::Tensor p559_t20 = lazy::rsqrt(p559_t19);
    lazy::Tensor p559_t21 = lazy::sin(p559_t20);
    lazy::Tensor p559_t22 = lazy::expm1(p559_t21);
    lazy::Tensor p559_t23 = lazy::max(p559_t22, {}, false);
    p559_out0 = p559_t0;
    p559_out1 = p559_t10;
    p559_out2 = p559_t12;
    p559_out3 = p559_t23;
  }
  return {p559_out0, p559_out1, p559_out2, p559_out3};
}

// gelu(minimum(0.125, full bool)) came back 0 on the GPU (a filled bool read as false).
inline std::vector<lazy::Tensor> program_p242() {
  lazy::Tensor p242_out0, p242_out1, p242_out2, p242_out3;
  {
    lazy::Tensor p242_t0 = lazy::full({4999, 2}, 3.0, lazy::bool_);
    lazy::Tensor p242_t1 = lazy::minimum(0.125, p242_t0);
    lazy::Tensor p242_t2 = lazy::gelu(p242_t1);
    lazy::Tensor p242_t3 = lazy::cast(p242_t0, lazy::f32);
    lazy::Tensor p242_t4 = lazy::maximum(-0.75, p242_t3);
    lazy::Tensor p242_t5 = lazy::maximum(p242_t4, 3.0);
    lazy::Tensor p242_t6 = lazy::gt(p242_t4, 3.0);
    lazy::Tensor p242_t7 =
        lazy::from_data(fz_floats(0xff25fb75c157f143ull, 2, -8.0, 8.0, -1, 0), {2}, lazy::f32);
    lazy::Tensor p242_t8 =
        lazy::from_data(fz_floats(0x668c76c860bc2653ull, 2, 0.25, 2.0, 2, 0), {2}, lazy::f32);
    lazy::Tensor p242_t9 = lazy::layer_norm(p242_t2, p242_t7, p242_t8, 1.0000000000000001e-05);
    lazy::Tensor p242_t10 = lazy::tanh(p242_t9);
    lazy::Tensor p242_t11 = p242_t8.unsqueeze(-1);
    lazy::Tensor p242_t12 = p242_t11.slice(1, 0, 2, 2);
    lazy::Tensor p242_t13 = lazy::minimum(p242_t7, p242_t12);
    lazy::Tensor p242_t14 =
        lazy::from_data(fz_floats(0x3bfb2cf3035bf9fdull, 4, -8.0, 8.0, -1, 0), {4}, lazy::f32);
    lazy::Tensor p242_t15 = p242_t14.slice(0, -2, std::nullopt, -2);
    lazy::Tensor p242_t16 = lazy::rms_norm(p242_t13, p242_t15, 0.10000000000000001);
    lazy::Tensor p242_t17 = lazy::softplus(p242_t16);
    lazy::Tensor p242_t18 = p242_t17.slice(-2, std::nullopt, 3, -2);
    lazy::Tensor p242_t19 = lazy::sigmoid(p242_t18);
    lazy::Tensor p242_t20 = lazy::mean(p242_t19, {}, true);
    lazy::Tensor p242_t21 = lazy::sub(p242_t19, p242_t20);
    lazy::Tensor p242_t22 = lazy::minimum(0.125, p242_t20);
    lazy::Tensor p242_t23 = lazy::abs(p242_t9);
    lazy::Tensor p242_t24 = lazy::sum(p242_t23, {}, true);
    lazy::Tensor p242_t25 = lazy::add(p242_t24, 1.0);
    lazy::Tensor p242_t26 = lazy::div(p242_t9, p242_t25);
    lazy::Tensor p242_t27 = lazy::sum(p242_t23, -2, false);
    lazy::Tensor p242_t28 = lazy::clamp(p242_t24, -7.5, 7.5);
    lazy::Tensor p242_t29 = lazy::softplus(p242_t28);
    lazy::Tensor p242_t30 = p242_t25.permute({0, 1});
    lazy::Tensor p242_t31 = lazy::max(p242_t30, {}, false);
    lazy::Tensor p242_t32 = lazy::clamp(p242_t31, -5.0, 5.0);
    lazy::Tensor p242_t33 = lazy::cos(p242_t32);
    lazy::Tensor p242_t34 = lazy::maximum(p242_t7, p242_t18);
    lazy::Tensor p242_t35 = lazy::abs(p242_t15);
    lazy::Tensor p242_t36 = lazy::add(p242_t35, 1.0);
    lazy::Tensor p242_t37 = lazy::log1p(p242_t36);
    lazy::Tensor p242_t38 =
        lazy::from_data(fz_floats(0x2311e285f5c2fbbull, 2, -2.0, 2.0, 6, 0), {2}, lazy::bf16);
    lazy::Tensor p242_t39 =
        lazy::from_data(fz_floats(0x18cec7e9a5c963a4ull, 2, -2.0, 2.0, -1, 0), {2}, lazy::bf16);
    lazy::Tensor p242_t40 = lazy::layer_norm(p242_t7, p242_t38, p242_t39, 0.001);
    p242_out0 = p242_t2;
    p242_out1 = p242_t9;
    p242_out2 = p242_t10;
    p242_out3 = p242_t40;
  }
  return {p242_out0, p242_out1, p242_out2, p242_out3};
}

// where(cond, full({}, -0.125, bool_), f16) must be exactly 1 where cond holds; the GPU gave 0.
inline std::vector<lazy::Tensor> program_p153() {
  lazy::Tensor p153_out0, p153_out1;
  {
    lazy::Tensor p153_t0 =
        lazy::from_data(fz_floats(0xfcd616fd972c70dull, 16, -2.0, 2.0, 4, 0), {1, 16}, lazy::f16);
    lazy::Tensor p153_t1 = p153_t0.permute({1, 0});
    lazy::Tensor p153_t2 = lazy::square(p153_t1);
    lazy::Tensor p153_t3 = lazy::add(p153_t2, 1.25);
    lazy::Tensor p153_t4 = lazy::rsqrt(p153_t3);
    lazy::Tensor p153_t5 = lazy::clamp(p153_t4, -0.5, 1.25);
    lazy::Tensor p153_t6 =
        lazy::from_data(fz_floats(0xf7701b4b96e674a3ull, 16, -2.0, 2.0, 2, 0), {16}, lazy::f16);
    lazy::Tensor p153_t7 =
        lazy::from_data(fz_floats(0x73524fdfd3174e21ull, 16, 0.25, 2.0, 8, 0), {16}, lazy::f16);
    lazy::Tensor p153_t8 = lazy::layer_norm(p153_t0, p153_t6, p153_t7, 0.10000000000000001);
    lazy::Tensor p153_t9 = lazy::mul(p153_t8, 0.25);
    lazy::Tensor p153_t10 = lazy::exp2(p153_t9);
    lazy::Tensor p153_t11 =
        lazy::from_data(fz_floats(0x86e9bd8432a7fa0cull, 16, -2.0, 2.0, 2, 0), {1, 16}, lazy::f16);
    lazy::Tensor p153_t12 = p153_t11.permute({0, 1});
    lazy::Tensor p153_t13 = lazy::mul(p153_t9, p153_t12);
    lazy::Tensor p153_t14 =
        lazy::from_data(fz_floats(0x1b7860c11fa4efa4ull, 16, 0.25, 2.0, 4, 0), {1, 16}, lazy::f32);
    lazy::Tensor p153_t15 = lazy::sin(p153_t14);
    lazy::Tensor p153_t16 = lazy::add(p153_t12, p153_t15);
    lazy::Tensor p153_t17 =
        lazy::from_data(fz_floats(0xbf9ae710f6785e8eull, 16, -2.0, 2.0, 8, 0), {1, 16}, lazy::f32);
    lazy::Tensor p153_t18 = lazy::square(p153_t17);
    lazy::Tensor p153_t19 = lazy::add(p153_t18, 0.5);
    lazy::Tensor p153_t20 = lazy::div(p153_t16, p153_t19);
    lazy::Tensor p153_t21 = lazy::maximum(p153_t19, 2.71828);
    lazy::Tensor p153_t22 = lazy::ne(p153_t19, 2.71828);
    lazy::Tensor p153_t23 = lazy::full({}, -0.125, lazy::bool_);
    lazy::Tensor p153_t24 = lazy::where(p153_t22, p153_t23, p153_t12);
    p153_out0 = p153_t20;
    p153_out1 = p153_t24;
  }
  return {p153_out0, p153_out1};
}

// maximum(full bool, 0.75) must be 1; the GPU gave 0.75.
inline std::vector<lazy::Tensor> program_p304() {
  lazy::Tensor p304_out0, p304_out1;
  {
    lazy::Tensor p304_t0 = lazy::full({1, 3, 3, 7}, 2.5, lazy::bool_);
    lazy::Tensor p304_t1 = lazy::from_data(fz_floats(0xd37818a7ca2a2ab7ull, 63, -2.0, 2.0, 6, 0),
                                           {1, 3, 3, 7}, lazy::f32);
    lazy::Tensor p304_t2 = lazy::from_data(fz_floats(0xecdab243fbca933bull, 21, 0.25, 2.0, 2, 0),
                                           {1, 3, 7}, lazy::bf16);
    lazy::Tensor p304_t3 = lazy::add(-3.0, p304_t2);
    lazy::Tensor p304_t4 = lazy::round(p304_t3);
    lazy::Tensor p304_t5 = lazy::exp(p304_t2);
    lazy::Tensor p304_t6 = lazy::maximum(p304_t0, 0.75);
    p304_out0 = p304_t0;
    p304_out1 = p304_t6;
  }
  return {p304_out0, p304_out1};
}

// all(full({...}, 1.5, i32), 2) must be true; the GPU gave false.
inline std::vector<lazy::Tensor> program_p441() {
  lazy::Tensor p441_out0, p441_out1, p441_out2, p441_out3;
  {
    lazy::Tensor p441_t0 = lazy::from_data(
        fz_floats(0x5090202648107c78ull, 43008, -8.0, 8.0, -1, 0), {1, 8, 256, 21}, lazy::f32);
    lazy::Tensor p441_t1 = lazy::from_data(fz_ints(0xf8ac6d3348b3929eull, 768, -1048576, 1048576),
                                           {1, 1, 256, 3}, lazy::i32);
    lazy::Tensor p441_t2 = p441_t1.slice(3, -3, std::nullopt, -1);
    lazy::Tensor p441_t3 = lazy::full({1, 8, 256, 21}, 1.5, lazy::i32);
    lazy::Tensor p441_t4 = lazy::sub(p441_t3, -0.69999999999999996);
    lazy::Tensor p441_t5 = p441_t4.slice(0, -1, std::nullopt, 1);
    lazy::Tensor p441_t6 = lazy::all(p441_t3, 2, true);
    lazy::Tensor p441_t7 =
        lazy::from_data(fz_floats(0x57ecab3122c85a6eull, 21, -2.0, 2.0, -1, 0), {21}, lazy::f16);
    lazy::Tensor p441_t8 = lazy::rms_norm(p441_t0, p441_t7, 0.001);
    lazy::Tensor p441_t9 = p441_t3.slice(1, std::nullopt, -8, 2);
    lazy::Tensor p441_t10 = lazy::argmax(p441_t3, 2, false);
    lazy::Tensor p441_t11 = lazy::maximum(p441_t6, -0.5);
    lazy::Tensor p441_t12 = lazy::le(p441_t6, -0.5);
    lazy::Tensor p441_t13 = lazy::logical_not(p441_t10);
    p441_out0 = p441_t6;
    p441_out1 = p441_t10;
    p441_out2 = p441_t12;
    p441_out3 = p441_t13;
  }
  return {p441_out0, p441_out1, p441_out2, p441_out3};
}

// Eleven programs synced once. Unfused on the GPU a reduction over an empty tensor read address
// 0 (a load hoisted out of its loop over no elements); fused, wrong values.
inline std::vector<lazy::Tensor> program_p34_to_44() {
  lazy::Tensor p34_out0, p34_out1, p34_out2, p34_out3;
  {
    lazy::Tensor p34_t0 = lazy::from_data(fz_floats(0x8c4ce2a65814caedull, 56, 0.25, 2.0, 4, 0),
                                          {4, 7, 2}, lazy::f32);
    lazy::Tensor p34_t1 = p34_t0.permute({0, 1, 2});
    lazy::Tensor p34_t2 = lazy::sum(p34_t0, -3, true);
    lazy::Tensor p34_t3 = lazy::log_softmax(p34_t1, -1);
    lazy::Tensor p34_t4 = lazy::maximum(p34_t1, 6);
    lazy::Tensor p34_t5 = lazy::lt(p34_t1, 6);
    lazy::Tensor p34_t6 = lazy::where(p34_t5, p34_t5, 3);
    lazy::Tensor p34_t7 = p34_t2.reshape({1, 14});
    lazy::Tensor p34_t8 = lazy::ones({1, 14}, lazy::bf16);
    lazy::Tensor p34_t9 = p34_t8.slice(0, std::nullopt, std::nullopt, 3);
    lazy::Tensor p34_t10 = lazy::min(p34_t9, {-1, 0}, true);
    lazy::Tensor p34_t11 = p34_t10.permute({0, 1});
    lazy::Tensor p34_t12 = lazy::minimum(p34_t9, 1.1000000000000001);
    lazy::Tensor p34_t13 = p34_t5.slice(0, std::nullopt, std::nullopt, 2);
    lazy::Tensor p34_t14 = lazy::prod(p34_t13, -3, false);
    lazy::Tensor p34_t15 = lazy::mul(2.5, p34_t9);
    lazy::Tensor p34_t16 = lazy::max(p34_t15, 0, true);
    lazy::Tensor p34_t17 = lazy::sub(p34_t15, p34_t16);
    lazy::Tensor p34_t18 = lazy::div(p34_t16, p34_t15);
    lazy::Tensor p34_t19 = lazy::sub(p34_t2, 0.75);
    p34_out0 = p34_t2;
    p34_out1 = p34_t11;
    p34_out2 = p34_t14;
    p34_out3 = p34_t19;
  }
  lazy::Tensor p35_out0, p35_out1, p35_out2;
  {
    lazy::Tensor p35_t0 =
        lazy::from_data(fz_ints(0xb7dcb88f8b6537aull, 1, -1048576, 1048576), {1}, lazy::i64);
    lazy::Tensor p35_t1 =
        lazy::from_data(fz_floats(0x1b2f5d4ad70e8eb6ull, 1, 0.25, 2.0, -1, 0), {1}, lazy::f16);
    lazy::Tensor p35_t2 =
        lazy::from_data(fz_floats(0x10fea958429fd318ull, 1, 0.25, 2.0, 2, 0), {1}, lazy::f32);
    lazy::Tensor p35_t3 =
        lazy::from_data(fz_floats(0x5dfd57175cf0f94eull, 1, -2.0, 2.0, 6, 0), {1}, lazy::f32);
    lazy::Tensor p35_t4 = lazy::maximum(p35_t2, p35_t3);
    lazy::Tensor p35_t5 = lazy::minimum(p35_t4, p35_t3);
    lazy::Tensor p35_t6 = p35_t5.reshape({1, 1});
    lazy::Tensor p35_t7 = lazy::all(p35_t6, 0, false);
    lazy::Tensor p35_t8 = p35_t7.contiguous();
    lazy::Tensor p35_t9 = lazy::sub(p35_t1, p35_t8);
    lazy::Tensor p35_t10 = p35_t5.flatten(0, 0);
    lazy::Tensor p35_t11 = p35_t10.expand({2, 1});
    lazy::Tensor p35_t12 = lazy::logical_or(p35_t11, p35_t3);
    lazy::Tensor p35_t13 = p35_t10.reshape({1, 1, 1, 1, 1});
    lazy::Tensor p35_t14 = lazy::maximum(p35_t13, -1.5);
    lazy::Tensor p35_t15 = lazy::ne(p35_t13, -1.5);
    p35_out0 = p35_t4;
    p35_out1 = p35_t9;
    p35_out2 = p35_t15;
  }
  lazy::Tensor p36_out0, p36_out1, p36_out2, p36_out3, p36_out4, p36_out5;
  {
    lazy::Tensor p36_t0 =
        lazy::from_data(fz_floats(0x1fb47b0313ce9449ull, 5, 0.25, 2.0, -1, 0), {1, 5}, lazy::f16);
    lazy::Tensor p36_t1 =
        lazy::from_data(fz_floats(0x183ce845c8e0329eull, 15, -0.5, 0.5, 6, 0), {3, 5}, lazy::f16);
    lazy::Tensor p36_t2 = p36_t1.slice(0, 0, std::nullopt, -1);
    lazy::Tensor p36_t3 =
        lazy::from_data(fz_floats(0xae36433374dc654bull, 1, -0.5, 0.5, 10, 0), {1, 1}, lazy::f32);
    lazy::Tensor p36_t4 = p36_t3.permute({1, 0});
    lazy::Tensor p36_t5 =
        lazy::from_data(fz_floats(0x47fed4a517722bull, 2, 0.25, 2.0, 6, 0), {2, 1}, lazy::f16);
    lazy::Tensor p36_t6 = p36_t5.slice(0, -2, std::nullopt, -1);
    lazy::Tensor p36_t7 = lazy::div(p36_t3, p36_t6);
    lazy::Tensor p36_t8 = lazy::pow(p36_t7, p36_t1);
    lazy::Tensor p36_t9 = p36_t8.reshape({1, 3, 5});
    lazy::Tensor p36_t10 =
        lazy::from_data(fz_floats(0xe624f6e3de7f7abull, 6, -0.5, 0.5, 2, 0), {3, 1, 2}, lazy::f32);
    lazy::Tensor p36_t11 = p36_t10.slice(2, 0, 2, 2);
    lazy::Tensor p36_t12 = lazy::div(p36_t11, p36_t7);
    lazy::Tensor p36_t13 = p36_t12.slice(2, 0, -1, 1);
    lazy::Tensor p36_t14 = lazy::softmax(p36_t13, -3);
    lazy::Tensor p36_t15 = lazy::sub(p36_t14, 0);
    lazy::Tensor p36_t16 = lazy::sub(-2.0, p36_t13);
    lazy::Tensor p36_t17 = lazy::add(p36_t16, p36_t12);
    lazy::Tensor p36_t18 = lazy::maximum(p36_t11, p36_t4);
    lazy::Tensor p36_t19 = lazy::ge(p36_t11, p36_t4);
    lazy::Tensor p36_t20 = lazy::max(p36_t5, {}, true);
    lazy::Tensor p36_t21 = lazy::floor(p36_t20);
    lazy::Tensor p36_t22 = lazy::square(p36_t17);
    lazy::Tensor p36_t23 = lazy::add(p36_t22, 1.25);
    lazy::Tensor p36_t24 = lazy::log(p36_t23);
    lazy::Tensor p36_t25 =
        lazy::from_data(fz_floats(0xf2e1ef0a975dd1d6ull, 1, -2.0, 2.0, 8, 0), {1, 1}, lazy::f16);
    lazy::Tensor p36_t26 = lazy::minimum(p36_t20, p36_t25);
    lazy::Tensor p36_t27 =
        lazy::from_data(fz_ints(0x1923df5a949e6f3aull, 1, -5, 5), {1, 1}, lazy::i64);
    lazy::Tensor p36_t28 = lazy::abs(p36_t27);
    lazy::Tensor p36_t29 = lazy::add(p36_t28, 0.5);
    lazy::Tensor p36_t30 = lazy::pow(p36_t29, -1.0);
    lazy::Tensor p36_t31 = p36_t25.slice(1, 2, 1, -2);
    lazy::Tensor p36_t32 =
        lazy::from_data(fz_floats(0x8b0cad056d6b30dfull, 1, -8.0, 8.0, 6, 0), {1, 1}, lazy::f16);
    lazy::Tensor p36_t33 = lazy::add(p36_t32, p36_t31);
    lazy::Tensor p36_t34 = lazy::square(p36_t33);
    lazy::Tensor p36_t35 = lazy::add(p36_t34, 0.25);
    lazy::Tensor p36_t36 = lazy::sqrt(p36_t35);
    lazy::Tensor p36_t37 = lazy::sum(p36_t36, 0, true);
    lazy::Tensor p36_t38 = lazy::add(p36_t35, p36_t32);
    lazy::Tensor p36_t39 = lazy::std(p36_t38, {}, 1.0, false);
    lazy::Tensor p36_t40 = lazy::logsumexp(p36_t39, {}, false);
    lazy::Tensor p36_t41 = p36_t36.broadcast_to({2, 4, 0});
    lazy::Tensor p36_t42 =
        lazy::from_data(fz_floats(0x1f82631df6740d65ull, 0, -2.0, 2.0, 8, 0), {1, 0}, lazy::f16);
    lazy::Tensor p36_t43 = lazy::add(p36_t37, p36_t42);
    lazy::Tensor p36_t44 = lazy::clamp(p36_t34, -1.0, 1.0);
    lazy::Tensor p36_t45 = lazy::pow(p36_t43, p36_t44);
    lazy::Tensor p36_t46 = p36_t45.flatten(0, 0);
    lazy::Tensor p36_t47 = p36_t42.permute({0, 1});
    lazy::Tensor p36_t48 = lazy::all(p36_t47, {}, false);
    lazy::Tensor p36_t49 = p36_t46.slice(1, std::nullopt, std::nullopt, 2);
    lazy::Tensor p36_t50 = lazy::mul(p36_t49, -0.75);
    lazy::Tensor p36_t51 = lazy::sigmoid(p36_t50);
    lazy::Tensor p36_t52 = lazy::mul(p36_t50, 0.25);
    lazy::Tensor p36_t53 = lazy::pow(p36_t44, p36_t52);
    lazy::Tensor p36_t54 = lazy::square(p36_t52);
    lazy::Tensor p36_t55 = lazy::add(p36_t54, 1.25);
    lazy::Tensor p36_t56 = lazy::sqrt(p36_t55);
    lazy::Tensor p36_t57 = lazy::neg(p36_t53);
    p36_out0 = p36_t9;
    p36_out1 = p36_t15;
    p36_out2 = p36_t40;
    p36_out3 = p36_t52;
    p36_out4 = p36_t56;
    p36_out5 = p36_t57;
  }
  lazy::Tensor p37_out0, p37_out1, p37_out2, p37_out3, p37_out4, p37_out5, p37_out6, p37_out7,
      p37_out8;
  {
    lazy::Tensor p37_t0 = lazy::from_data(fz_floats(0xde5717b6abb5f238ull, 60, -2.0, 2.0, -1, 0),
                                          {5, 3, 4}, lazy::f16);
    lazy::Tensor p37_t1 = lazy::neg(p37_t0);
    lazy::Tensor p37_t2 = lazy::mul(p37_t1, p37_t0);
    lazy::Tensor p37_t3 = lazy::sum(p37_t1, 2, false);
    lazy::Tensor p37_t4 = p37_t3.unsqueeze(2);
    lazy::Tensor p37_t5 = lazy::sub(p37_t1, p37_t4);
    lazy::Tensor p37_t6 = lazy::from_data(fz_bools(0xe697fc4b29049649ull, 45, 10), {3, 5, 3});
    lazy::Tensor p37_t7 = lazy::add(p37_t6, p37_t3);
    lazy::Tensor p37_t8 = lazy::from_data(fz_bools(0x942de1542ee1fef7ull, 5, 90), {1, 5, 1});
    lazy::Tensor p37_t9 = lazy::logical_and(p37_t6, p37_t8);
    lazy::Tensor p37_t10 = lazy::relu(p37_t7);
    lazy::Tensor p37_t11 = lazy::sign(p37_t8);
    lazy::Tensor p37_t12 = lazy::clamp(p37_t5, -1.0, -0.5);
    lazy::Tensor p37_t13 = lazy::from_data(fz_floats(0xfdd8789c2d7d110bull, 12, -2.0, 2.0, -1, 0),
                                           {1, 3, 4}, lazy::f16);
    lazy::Tensor p37_t14 = lazy::mul(p37_t12, p37_t13);
    lazy::Tensor p37_t15 = lazy::add(0.25, p37_t9);
    lazy::Tensor p37_t16 = lazy::maximum(p37_t15, -0.125);
    lazy::Tensor p37_t17 = lazy::maximum(p37_t16, -3);
    lazy::Tensor p37_t18 = lazy::gt(p37_t16, -3);
    lazy::Tensor p37_t19 = lazy::div(p37_t10, -2);
    lazy::Tensor p37_t20 = lazy::clamp(p37_t19, -2.0, -0.25);
    lazy::Tensor p37_t21 = lazy::mean(p37_t15, -2, true);
    lazy::Tensor p37_t22 = lazy::sub(p37_t15, p37_t21);
    lazy::Tensor p37_t23 = lazy::arange(4, -41, -1, lazy::i64).reshape({3, 5, 3});
    lazy::Tensor p37_t24 = lazy::mul(p37_t23, p37_t22);
    lazy::Tensor p37_t25 = p37_t13.expand({2, -1, 3, 4});
    lazy::Tensor p37_t26 = lazy::mul(p37_t25, p37_t1);
    lazy::Tensor p37_t27 = lazy::abs(p37_t26);
    lazy::Tensor p37_t28 = lazy::any(p37_t6, 0, true);
    lazy::Tensor p37_t29 = lazy::log1p(p37_t27);
    lazy::Tensor p37_t30 = lazy::mul(p37_t7, p37_t28);
    lazy::Tensor p37_t31 = lazy::from_data(fz_floats(0x68435c35fff14500ull, 6, -8.0, 8.0, -1, 0),
                                           {2, 1, 3}, lazy::f16);
    lazy::Tensor p37_t32 = p37_t31.slice(0, 0, 2, 2);
    lazy::Tensor p37_t33 = lazy::mul(p37_t30, p37_t32);
    lazy::Tensor p37_t34 = lazy::cast(p37_t15, lazy::f16);
    lazy::Tensor p37_t35 = lazy::clamp(p37_t34, p37_t8, 0.0);
    lazy::Tensor p37_t36 = p37_t34.to(lazy::bool_);
    lazy::Tensor p37_t37 = lazy::mul(2.0, p37_t36);
    lazy::Tensor p37_t38 = p37_t37.broadcast_to({-1, -1, -1});
    lazy::Tensor p37_t39 = lazy::var(p37_t35, {}, 0.0, true);
    lazy::Tensor p37_t40 = lazy::add(p37_t39, p37_t1);
    lazy::Tensor p37_t41 = lazy::from_data(fz_bools(0x95edcf2e7860f2f4ull, 15, 10), {3, 5, 1});
    lazy::Tensor p37_t42 = lazy::minimum(p37_t9, p37_t41);
    lazy::Tensor p37_t43 = lazy::add(p37_t39, -2);
    lazy::Tensor p37_t44 = lazy::minimum(p37_t42, p37_t43);
    lazy::Tensor p37_t45 = lazy::sigmoid(p37_t5);
    lazy::Tensor p37_t46 = lazy::pow(p37_t45, 3);
    lazy::Tensor p37_t47 = lazy::max(p37_t44, {}, true);
    lazy::Tensor p37_t48 = lazy::sub(p37_t44, p37_t47);
    lazy::Tensor p37_t49 = lazy::min(p37_t47, 1, false);
    lazy::Tensor p37_t50 =
        lazy::from_data(fz_floats(0x38b4e7c560e636c9ull, 15, -8.0, 8.0, 4, 0), {3, 5}, lazy::f32);
    lazy::Tensor p37_t51 = p37_t50.permute({1, 0});
    lazy::Tensor p37_t52 = lazy::sub(p37_t16, p37_t51);
    p37_out0 = p37_t2;
    p37_out1 = p37_t4;
    p37_out2 = p37_t9;
    p37_out3 = p37_t10;
    p37_out4 = p37_t19;
    p37_out5 = p37_t20;
    p37_out6 = p37_t36;
    p37_out7 = p37_t43;
    p37_out8 = p37_t52;
  }
  lazy::Tensor p38_out0, p38_out1, p38_out2, p38_out3;
  {
    lazy::Tensor p38_t0 = lazy::from_data(fz_ints(0x76c188f041d98615ull, 1, -5, 5), {}, lazy::i64);
    lazy::Tensor p38_t1 =
        lazy::from_data(fz_floats(0x62e651bef9801217ull, 1, -2.0, 2.0, -1, 0), {}, lazy::f32);
    lazy::Tensor p38_t2 =
        lazy::from_data(fz_floats(0xc206304a4d1855c6ull, 1, -2.0, 2.0, 10, 38), {}, lazy::bf16);
    lazy::Tensor p38_t3 = p38_t1.reshape({1});
    lazy::Tensor p38_t4 = lazy::maximum(p38_t0, -4.0);
    lazy::Tensor p38_t5 = lazy::cast(p38_t2, lazy::f32);
    lazy::Tensor p38_t6 = lazy::cos(p38_t1);
    lazy::Tensor p38_t7 = lazy::add(p38_t6, p38_t4);
    lazy::Tensor p38_t8 = lazy::maximum(p38_t0, -1);
    lazy::Tensor p38_t9 = lazy::ge(p38_t0, -1);
    lazy::Tensor p38_t10 = p38_t9.unsqueeze(-1);
    lazy::Tensor p38_t11 = p38_t7.to(lazy::bf16);
    p38_out0 = p38_t2;
    p38_out1 = p38_t6;
    p38_out2 = p38_t7;
    p38_out3 = p38_t11;
  }
  lazy::Tensor p39_out0, p39_out1, p39_out2, p39_out3;
  {
    lazy::Tensor p39_t0 = lazy::from_data(fz_floats(0x4e2dfc1f7bb4d296ull, 54018, -2.0, 2.0, 4, 0),
                                          {6, 3, 3001}, lazy::bf16);
    lazy::Tensor p39_t1 = lazy::logical_not(p39_t0);
    lazy::Tensor p39_t2 = lazy::floor(p39_t0);
    lazy::Tensor p39_t3 = lazy::mean(p39_t2, 1, true);
    lazy::Tensor p39_t4 = lazy::sub(p39_t2, p39_t3);
    lazy::Tensor p39_t5 = p39_t2.to(lazy::f32);
    lazy::Tensor p39_t6 = lazy::abs(p39_t0);
    lazy::Tensor p39_t7 = lazy::add(p39_t6, 0.5);
    lazy::Tensor p39_t8 = lazy::log(p39_t7);
    lazy::Tensor p39_t9 = lazy::mul(p39_t5, p39_t6);
    lazy::Tensor p39_t10 = lazy::expm1(p39_t4);
    lazy::Tensor p39_t11 = lazy::abs(p39_t9);
    lazy::Tensor p39_t12 = lazy::add(p39_t11, 0.5);
    lazy::Tensor p39_t13 = lazy::mul(p39_t7, 0.25);
    lazy::Tensor p39_t14 = lazy::pow(p39_t12, p39_t13);
    lazy::Tensor p39_t15 = lazy::clamp(p39_t14, 0.0, 1.75);
    lazy::Tensor p39_t16 = lazy::cast(p39_t1, lazy::f32);
    p39_out0 = p39_t9;
    p39_out1 = p39_t11;
    p39_out2 = p39_t12;
    p39_out3 = p39_t13;
  }
  lazy::Tensor p40_out0;
  {
    lazy::Tensor p40_t0 = lazy::from_data(fz_bools(0x472bbb81c154bb66ull, 4096, 90), {4096, 1});
    lazy::Tensor p40_t1 = lazy::sum(p40_t0, 0, false);
    lazy::Tensor p40_t2 = lazy::maximum(p40_t1, 3.0);
    lazy::Tensor p40_t3 = lazy::lt(p40_t1, 3.0);
    lazy::Tensor p40_t4 = lazy::where(p40_t3, p40_t0, p40_t3);
    lazy::Tensor p40_t5 = lazy::sub(p40_t1, p40_t4);
    lazy::Tensor p40_t6 = lazy::mul(p40_t5, p40_t4);
    lazy::Tensor p40_t7 = lazy::abs(p40_t6);
    lazy::Tensor p40_t8 = lazy::add(p40_t7, 0.5);
    lazy::Tensor p40_t9 = lazy::div(p40_t5, p40_t8);
    lazy::Tensor p40_t10 = lazy::log_softmax(p40_t8, -1);
    lazy::Tensor p40_t11 = lazy::maximum(1.5, p40_t7);
    lazy::Tensor p40_t12 = lazy::le(1.5, p40_t7);
    lazy::Tensor p40_t13 = lazy::min(p40_t8, {}, true);
    lazy::Tensor p40_t14 =
        lazy::from_data(fz_floats(0x54aa37d64a9b94bbull, 1, -2.0, 2.0, 8, 0), {1, 1}, lazy::f16);
    lazy::Tensor p40_t15 = lazy::ceil(p40_t14);
    p40_out0 = p40_t7;
  }
  lazy::Tensor p41_out0, p41_out1, p41_out2, p41_out3, p41_out4;
  {
    lazy::Tensor p41_t0 =
        lazy::from_data(fz_floats(0xd4ef78d78f1b1a27ull, 1, -2.0, 2.0, -1, 0), {}, lazy::bf16);
    lazy::Tensor p41_t1 = lazy::maximum(p41_t0, -4);
    lazy::Tensor p41_t2 = lazy::sub(p41_t0, p41_t1);
    lazy::Tensor p41_t3 = lazy::add(p41_t2, -1.25);
    lazy::Tensor p41_t4 = p41_t3.to(lazy::f32);
    lazy::Tensor p41_t5 = lazy::maximum(p41_t1, p41_t0);
    lazy::Tensor p41_t6 = lazy::gt(p41_t1, p41_t0);
    lazy::Tensor p41_t7 = p41_t6.unsqueeze(0);
    lazy::Tensor p41_t8 =
        lazy::from_data(fz_floats(0x7b7219d42f030f12ull, 1, -2.0, 2.0, 2, 0), {}, lazy::bf16);
    lazy::Tensor p41_t9 = lazy::minimum(p41_t0, p41_t8);
    lazy::Tensor p41_t10 = lazy::minimum(p41_t0, 6);
    lazy::Tensor p41_t11 =
        lazy::from_data(fz_floats(0xfb50a8a1da73426cull, 1, -2.0, 2.0, 2, 0), {}, lazy::f32);
    lazy::Tensor p41_t12 = lazy::abs(p41_t10);
    lazy::Tensor p41_t13 = lazy::add(p41_t12, 0.25);
    lazy::Tensor p41_t14 = lazy::pow(p41_t13, p41_t11);
    lazy::Tensor p41_t15 = lazy::max(p41_t14, {}, false);
    lazy::Tensor p41_t16 = lazy::max(p41_t15, {}, false);
    lazy::Tensor p41_t17 = lazy::maximum(p41_t11, 3);
    lazy::Tensor p41_t18 = lazy::gt(p41_t11, 3);
    lazy::Tensor p41_t19 = lazy::silu(p41_t13);
    lazy::Tensor p41_t20 = lazy::add(p41_t19, p41_t18);
    lazy::Tensor p41_t21 = lazy::add(p41_t14, 4.0);
    lazy::Tensor p41_t22 = lazy::div(p41_t21, p41_t8);
    lazy::Tensor p41_t23 = lazy::sub(p41_t22, 3.0);
    lazy::Tensor p41_t24 = lazy::square(p41_t23);
    lazy::Tensor p41_t25 = lazy::maximum(p41_t7, p41_t11);
    lazy::Tensor p41_t26 = lazy::le(p41_t7, p41_t11);
    lazy::Tensor p41_t27 = p41_t3.unsqueeze(-1);
    lazy::Tensor p41_t28 = lazy::square(p41_t24);
    lazy::Tensor p41_t29 = lazy::ceil(p41_t8);
    lazy::Tensor p41_t30 = p41_t19.unsqueeze(-1);
    lazy::Tensor p41_t31 = p41_t30.reshape({1, 1, 1, 1, 1});
    lazy::Tensor p41_t32 = lazy::var(p41_t31, -4, 0.0, true);
    lazy::Tensor p41_t33 = lazy::logical_not(p41_t8);
    lazy::Tensor p41_t34 = lazy::std(p41_t28, {}, 0.0, false);
    lazy::Tensor p41_t35 = lazy::sum(p41_t1, {}, false);
    lazy::Tensor p41_t36 = lazy::maximum(p41_t35, 2.5);
    lazy::Tensor p41_t37 =
        lazy::from_data(fz_floats(0x6d6fcb43d257bd6bull, 1, -2.0, 2.0, -1, 0), {}, lazy::f16);
    lazy::Tensor p41_t38 = lazy::where(p41_t7, -4, p41_t31);
    lazy::Tensor p41_t39 = lazy::cos(p41_t38);
    lazy::Tensor p41_t40 = p41_t37.broadcast_to({});
    lazy::Tensor p41_t41 = lazy::add(p41_t40, 0.25);
    lazy::Tensor p41_t42 = lazy::argmax(p41_t26, 0, false);
    lazy::Tensor p41_t43 = lazy::div(p41_t42, p41_t20);
    p41_out0 = p41_t6;
    p41_out1 = p41_t10;
    p41_out2 = p41_t15;
    p41_out3 = p41_t34;
    p41_out4 = p41_t43;
  }
  lazy::Tensor p42_out0, p42_out1, p42_out2, p42_out3, p42_out4;
  {
    lazy::Tensor p42_t0 = lazy::from_data(fz_floats(0xb072192703980affull, 33924, -2.0, 2.0, 8, 0),
                                          {11, 12, 257, 1}, lazy::f16);
    lazy::Tensor p42_t1 = lazy::from_data(fz_bools(0xcb763cceda8e50e6ull, 132, 90), {11, 12, 1, 1});
    lazy::Tensor p42_t2 = lazy::maximum(p42_t0, p42_t1);
    lazy::Tensor p42_t3 = lazy::ge(p42_t0, p42_t1);
    lazy::Tensor p42_t4 = lazy::sub(p42_t0, p42_t3);
    lazy::Tensor p42_t5 = lazy::abs(p42_t4);
    lazy::Tensor p42_t6 =
        lazy::from_data(fz_floats(0xbe80cce9150a8420ull, 1, 0.25, 2.0, 8, 0), {}, lazy::f32);
    lazy::Tensor p42_t7 = lazy::mul(p42_t6, p42_t5);
    lazy::Tensor p42_t8 = lazy::clamp(p42_t7, p42_t6, 3.0);
    lazy::Tensor p42_t9 = lazy::softplus(p42_t5);
    lazy::Tensor p42_t10 = p42_t9.permute({0, 1, 2, 3});
    lazy::Tensor p42_t11 = lazy::square(p42_t0);
    lazy::Tensor p42_t12 = lazy::add(p42_t11, 0.25);
    lazy::Tensor p42_t13 = lazy::div(p42_t10, p42_t12);
    lazy::Tensor p42_t14 = lazy::from_data(fz_floats(0x1dc62c402f213206ull, 3084, 0.25, 2.0, 10, 0),
                                           {1, 257, 12}, lazy::f16);
    lazy::Tensor p42_t15 = p42_t14.permute({2, 1, 0});
    lazy::Tensor p42_t16 = lazy::mul(p42_t11, p42_t15);
    lazy::Tensor p42_t17 = p42_t13.slice(1, std::nullopt, -11, 3);
    lazy::Tensor p42_t18 = lazy::prod(p42_t17, 3, false);
    lazy::Tensor p42_t19 = lazy::add(p42_t18, 0);
    lazy::Tensor p42_t20 = lazy::logical_and(p42_t15, false);
    lazy::Tensor p42_t21 = lazy::relu(p42_t9);
    lazy::Tensor p42_t22 = lazy::relu(p42_t21);
    lazy::Tensor p42_t23 = lazy::sum(p42_t18, 0, true);
    lazy::Tensor p42_t24 = lazy::mul(p42_t18, p42_t23);
    lazy::Tensor p42_t25 = lazy::sigmoid(p42_t22);
    lazy::Tensor p42_t26 = lazy::add(p42_t25, 4.0);
    lazy::Tensor p42_t27 = lazy::mul(p42_t21, p42_t8);
    lazy::Tensor p42_t28 = p42_t26.transpose(1, -2);
    lazy::Tensor p42_t29 = lazy::sub(p42_t28, p42_t6);
    lazy::Tensor p42_t30 = lazy::sum(p42_t29, 2, true);
    lazy::Tensor p42_t31 = lazy::mul(p42_t29, p42_t30);
    lazy::Tensor p42_t32 = lazy::log_softmax(p42_t29, -1);
    lazy::Tensor p42_t33 = lazy::sign(p42_t20);
    lazy::Tensor p42_t34 = p42_t33.slice(1, 170, 7, 1);
    lazy::Tensor p42_t35 = p42_t34.transpose(2, 1);
    lazy::Tensor p42_t36 = lazy::sum(p42_t35, 1, true);
    lazy::Tensor p42_t37 = lazy::square(p42_t36);
    lazy::Tensor p42_t38 = lazy::add(p42_t37, 0.25);
    lazy::Tensor p42_t39 = lazy::div(p42_t15, p42_t38);
    lazy::Tensor p42_t40 = lazy::min(p42_t34, -3, false);
    lazy::Tensor p42_t41 = p42_t11.reshape({-1, 33924});
    lazy::Tensor p42_t42 =
        lazy::from_data(fz_floats(0xb4ffe60b2a095589ull, 12, -2.0, 2.0, -1, 0), {12}, lazy::bf16);
    lazy::Tensor p42_t43 = p42_t42.slice(0, 11, std::nullopt, -1);
    lazy::Tensor p42_t44 =
        lazy::from_data(fz_floats(0xa6ed77a916405a8bull, 12, -2.0, 2.0, 8, 0), {12}, lazy::bf16);
    lazy::Tensor p42_t45 = lazy::layer_norm(p42_t14, p42_t43, p42_t44, 0.001);
    lazy::Tensor p42_t46 = lazy::isnan(p42_t14);
    lazy::Tensor p42_t47 = p42_t46.squeeze();
    lazy::Tensor p42_t48 = lazy::mul(p42_t47, p42_t46);
    lazy::Tensor p42_t49 = p42_t44.expand({2, -1});
    lazy::Tensor p42_t50 = p42_t37.transpose(-3, -2);
    lazy::Tensor p42_t51 = lazy::maximum(p42_t44, p42_t49);
    lazy::Tensor p42_t52 = lazy::ne(p42_t44, p42_t49);
    lazy::Tensor p42_t53 = lazy::sum(p42_t9, {}, true);
    lazy::Tensor p42_t54 = lazy::cos(p42_t36);
    lazy::Tensor p42_t55 = lazy::from_data(fz_bools(0x4110abd671c13140ull, 0, 50), {12, 1, 0});
    lazy::Tensor p42_t56 = lazy::minimum(p42_t55, 2.5);
    lazy::Tensor p42_t57 = p42_t56.slice(1, 0, 2, -1);
    lazy::Tensor p42_t58 = lazy::mean(p42_t56, {-2, 0}, false);
    lazy::Tensor p42_t59 = lazy::mul(p42_t58, 2.0);
    lazy::Tensor p42_t60 = lazy::maximum(p42_t1, p42_t38);
    lazy::Tensor p42_t61 = lazy::le(p42_t1, p42_t38);
    p42_out0 = p42_t8;
    p42_out1 = p42_t17;
    p42_out2 = p42_t23;
    p42_out3 = p42_t38;
    p42_out4 = p42_t61;
  }
  lazy::Tensor p43_out0;
  {
    lazy::Tensor p43_t0 =
        lazy::from_data(fz_ints(0xddb07b060320be4eull, 48, -5, 5), {3, 4, 2, 2}, lazy::i32);
    lazy::Tensor p43_t1 =
        lazy::from_data(fz_ints(0x37c8be740117bf2bull, 16, -5, 5), {1, 4, 2, 2}, lazy::i32);
    lazy::Tensor p43_t2 =
        lazy::from_data(fz_ints(0xf601005c69e4b2d4ull, 2, 0, 3), {1, 2}, lazy::i64);
    lazy::Tensor p43_t3 = lazy::clamp(p43_t1, 1, p43_t2);
    lazy::Tensor p43_t4 = lazy::clamp(p43_t2, 1, -1);
    p43_out0 = p43_t4;
  }
  lazy::Tensor p44_out0;
  {
    lazy::Tensor p44_t0 =
        lazy::from_data(fz_ints(0x9d3c7385bc8269feull, 138, -100, 100), {23, 6}, lazy::i32);
    lazy::Tensor p44_t1 = lazy::square(p44_t0);
    lazy::Tensor p44_t2 = lazy::add(p44_t1, 0.25);
    lazy::Tensor p44_t3 = lazy::log(p44_t2);
    lazy::Tensor p44_t4 = lazy::min(p44_t3, 0, false);
    lazy::Tensor p44_t5 = p44_t4.unsqueeze(0);
    lazy::Tensor p44_t6 = lazy::mul(p44_t3, p44_t5);
    lazy::Tensor p44_t7 = p44_t5.broadcast_to({3, 6});
    lazy::Tensor p44_t8 = lazy::div(p44_t7, 1.5);
    p44_out0 = p44_t8;
  }
  return {p34_out0, p34_out1, p34_out2, p34_out3, p35_out0, p35_out1, p35_out2, p36_out0, p36_out1,
          p36_out2, p36_out3, p36_out4, p36_out5, p37_out0, p37_out1, p37_out2, p37_out3, p37_out4,
          p37_out5, p37_out6, p37_out7, p37_out8, p38_out0, p38_out1, p38_out2, p38_out3, p39_out0,
          p39_out1, p39_out2, p39_out3, p40_out0, p41_out0, p41_out1, p41_out2, p41_out3, p41_out4,
          p42_out0, p42_out1, p42_out2, p42_out3, p42_out4, p43_out0, p44_out0};
}

}  // namespace lazy_test::fuzz
