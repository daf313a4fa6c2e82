#include "ref/pointwise.h"

#include <cmath>
#include <numbers>

#include "ir/dtype_codec.h"
#include "nvrtc_templates/philox.cuh"

namespace lazy::ref {

namespace {

using ir::Op;

double float_unary(Op op, double x) {
  switch (op) {
    case Op::Neg:
      return -x;
    case Op::Abs:
      return std::fabs(x);
    case Op::Sign:
      return double((0 < x) - (x < 0));  // NaN gives 0, as on the GPU
    case Op::Square:
      return x * x;
    case Op::Relu:
      return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    case Op::Floor:
      return std::floor(x);
    case Op::Ceil:
      return std::ceil(x);
    case Op::Round:
      return std::nearbyint(x);  // half to even
    case Op::Exp:
      return std::exp(x);
    case Op::Exp2:
      return std::exp2(x);
    case Op::Log:
      return std::log(x);
    case Op::Log2:
      return std::log2(x);
    case Op::Log1p:
      return std::log1p(x);
    case Op::Expm1:
      return std::expm1(x);
    case Op::Sqrt:
      return std::sqrt(x);
    case Op::Rsqrt:
      return 1.0 / std::sqrt(x);
    case Op::Sin:
      return std::sin(x);
    case Op::Cos:
      return std::cos(x);
    case Op::Tanh:
      return std::tanh(x);
    case Op::Erf:
      return std::erf(x);
    case Op::Sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Op::Reciprocal:
      return 1.0 / x;
    case Op::Cast:
      return x;
    default:
      break;
  }
  std::abort();
}

double float_binary(Op op, double a, double b) {
  switch (op) {
    case Op::Add:
      return a + b;
    case Op::Sub:
      return a - b;
    case Op::Mul:
      return a * b;
    case Op::Div:
      return a / b;
    case Op::Pow:
      return std::pow(a, b);
    case Op::Maximum:
      return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b);
    case Op::Minimum:
      return (std::isnan(a) || std::isnan(b)) ? NAN : std::min(a, b);
    default:
      break;
  }
  std::abort();
}

bool compare(Op op, auto a, auto b) {
  switch (op) {
    case Op::Eq:
      return a == b;
    case Op::Ne:
      return a != b;
    case Op::Lt:
      return a < b;
    case Op::Le:
      return a <= b;
    case Op::Gt:
      return a > b;
    case Op::Ge:
      return a >= b;
    default:
      break;
  }
  std::abort();
}

// Integer exponentiation by squaring, wrapping like the hardware; a negative exponent gives
// the truncated reciprocal (0 unless the base is 1 or -1), as PyTorch's GPU kernels do.
std::int64_t int_pow(std::int64_t base, std::int64_t exponent) {
  if (exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exponent % 2 == 0) ? 1 : -1;
    return 0;
  }
  std::uint64_t result = 1;
  auto b = std::uint64_t(base);
  while (exponent > 0) {
    if (exponent & 1) result *= b;
    b *= b;
    exponent >>= 1;
  }
  return std::int64_t(result);
}

std::int64_t int_unary(Op op, std::int64_t x) {
  auto ux = std::uint64_t(x);
  switch (op) {
    case Op::Neg:
      return std::int64_t(0 - ux);
    case Op::Abs:
      return x < 0 ? std::int64_t(0 - ux) : x;
    case Op::Sign:
      return (0 < x) - (x < 0);
    case Op::Square:
      return std::int64_t(ux * ux);
    case Op::Relu:
      return x > 0 ? x : 0;
    case Op::Cast:
      return x;
    default:
      break;
  }
  std::abort();
}

std::int64_t int_binary(Op op, std::int64_t a, std::int64_t b) {
  auto ua = std::uint64_t(a);
  auto ub = std::uint64_t(b);
  switch (op) {
    case Op::Add:
      return std::int64_t(ua + ub);
    case Op::Sub:
      return std::int64_t(ua - ub);
    case Op::Mul:
      return std::int64_t(ua * ub);
    case Op::Pow:
      return int_pow(a, b);
    case Op::Maximum:
      return std::max(a, b);
    case Op::Minimum:
      return std::min(a, b);
    default:
      break;
  }
  std::abort();
}

bool is_comparison(Op op) {
  return op >= Op::Eq && op <= Op::Ge;
}

// Truth values of an input in its own dtype (non-zero, NaN included, is true).
std::vector<std::int64_t> truth_of(const Value& v, const Shape& shape) {
  return gather_ints(v, shape, DType::bool_);
}

// Numbers keep the dtype they were recorded with (the op's compute precision for arithmetic,
// the compared dtype for comparisons); tensors are converted to the op's common dtype first, as
// PyTorch's TensorIterator does.
DType read_as(const ir::Node& node, const ir::Node& input) {
  return input.is_number() ? input.dtype : node.compute_dtype;
}

Value generate(const ir::Node& node, std::span<const Value> inputs, std::shared_ptr<Buffer> out) {
  std::int64_t n = node.shape.numel();
  auto scalar_int = [&](int i) { return inputs[i].buffer->ints.at(inputs[i].layout.offset); };
  auto scalar_float = [&](int i) {
    const Buffer& b = *inputs[i].buffer;
    return is_floating(b.dtype) ? b.floats.at(inputs[i].layout.offset)
                                : double(b.ints.at(inputs[i].layout.offset));
  };
  switch (node.op) {
    case Op::Arange:
      for (std::int64_t i = 0; i < n; ++i) {
        if (is_floating(node.dtype)) {
          out->floats[i] =
              ir::round_to_dtype(scalar_float(0) + double(i) * scalar_float(1), node.dtype);
        } else {
          out->ints[i] = ir::wrap_to_dtype(scalar_int(0) + i * scalar_int(1), node.dtype);
        }
      }
      break;
    case Op::RandUniform: {
      auto seed = std::uint64_t(scalar_int(0));
      int bits = node.dtype == DType::f32 ? 24 : node.dtype == DType::f16 ? 11 : 8;
      for (std::int64_t i = 0; i < n; ++i)
        out->floats[i] = lz_uniform_from_word(lz_philox_word(seed, std::uint64_t(i)), bits);
      break;
    }
    case Op::RandNormal: {
      auto seed = std::uint64_t(scalar_int(0));
      for (std::int64_t i = 0; i < n; ++i) {
        lz_normal_inputs u = lz_normal_uniforms(seed, std::uint64_t(i));
        double radius = std::sqrt(-2.0 * std::log(double(u.radius_uniform)));
        double angle = 2.0 * std::numbers::pi * double(u.angle_uniform);
        double z = radius * (u.use_sine ? std::sin(angle) : std::cos(angle));
        out->floats[i] = ir::round_to_dtype(z, node.dtype);
      }
      break;
    }
    default:
      std::abort();
  }
  return {std::move(out), ir::Layout::contiguous(node.shape)};
}

}  // namespace

Value evaluate_pointwise(const ir::Node& node, std::span<const Value> inputs) {
  const Shape& shape = node.shape;
  const std::size_t n = std::size_t(shape.numel());
  auto out = std::make_shared<Buffer>(node.dtype, shape.numel());
  Op op = node.op;
  DType compute = node.compute_dtype;
  auto input_dtype = [&](int i) { return read_as(node, *node.inputs[i]); };

  if (op == Op::Arange || op == Op::RandUniform || op == Op::RandNormal) {
    return generate(node, inputs, std::move(out));
  }
  if (op == Op::LogicalNot || op == Op::LogicalAnd || op == Op::LogicalOr) {
    std::vector<std::int64_t> a = truth_of(inputs[0], shape);
    std::vector<std::int64_t> b = op == Op::LogicalNot ? a : truth_of(inputs[1], shape);
    for (std::size_t i = 0; i < n; ++i) {
      out->ints[i] = op == Op::LogicalNot   ? !a[i]
                     : op == Op::LogicalAnd ? (a[i] && b[i])
                                            : (a[i] || b[i]);
    }
  } else if (op == Op::IsNan || op == Op::IsInf) {
    DType in = node.inputs[0]->dtype;
    std::vector<double> a =
        is_floating(in) ? gather_floats(inputs[0], shape, in) : std::vector<double>(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      out->ints[i] = op == Op::IsNan ? std::isnan(a[i]) : std::isinf(a[i]);
  } else if (op == Op::Where) {
    std::vector<std::int64_t> cond = truth_of(inputs[0], shape);
    if (is_floating(compute)) {
      std::vector<double> a = gather_floats(inputs[1], shape, input_dtype(1));
      std::vector<double> b = gather_floats(inputs[2], shape, input_dtype(2));
      for (std::size_t i = 0; i < n; ++i) out->floats[i] = cond[i] ? a[i] : b[i];
    } else {
      std::vector<std::int64_t> a = gather_ints(inputs[1], shape, input_dtype(1));
      std::vector<std::int64_t> b = gather_ints(inputs[2], shape, input_dtype(2));
      for (std::size_t i = 0; i < n; ++i) out->ints[i] = cond[i] ? a[i] : b[i];
    }
  } else if (op == Op::Cast) {
    DType in = node.inputs[0]->dtype;
    if (is_floating(in)) {
      std::vector<double> a = gather_floats(inputs[0], shape, in);
      if (is_floating(node.dtype)) {
        out->floats = std::move(a);
      } else {
        for (std::size_t i = 0; i < n; ++i)
          out->ints[i] = ir::float_to_integer_dtype(a[i], node.dtype);
      }
    } else {
      std::vector<std::int64_t> a = gather_ints(inputs[0], shape, in);
      if (is_floating(node.dtype)) {
        for (std::size_t i = 0; i < n; ++i)
          out->floats[i] = ir::integer_to_float_dtype(a[i], node.dtype);
      } else {
        for (std::size_t i = 0; i < n; ++i) out->ints[i] = a[i];
      }
    }
  } else if (is_floating(compute)) {
    std::vector<double> a = gather_floats(inputs[0], shape, input_dtype(0));
    if (node.inputs.size() == 1) {
      for (std::size_t i = 0; i < n; ++i) out->floats[i] = float_unary(op, a[i]);
    } else {
      std::vector<double> b = gather_floats(inputs[1], shape, input_dtype(1));
      if (is_comparison(op)) {
        for (std::size_t i = 0; i < n; ++i) out->ints[i] = compare(op, a[i], b[i]);
      } else {
        for (std::size_t i = 0; i < n; ++i) out->floats[i] = float_binary(op, a[i], b[i]);
      }
    }
  } else {
    std::vector<std::int64_t> a = gather_ints(inputs[0], shape, input_dtype(0));
    if (node.inputs.size() == 1) {
      for (std::size_t i = 0; i < n; ++i) out->ints[i] = int_unary(op, a[i]);
    } else {
      std::vector<std::int64_t> b = gather_ints(inputs[1], shape, input_dtype(1));
      if (is_comparison(op)) {
        for (std::size_t i = 0; i < n; ++i) out->ints[i] = compare(op, a[i], b[i]);
      } else {
        for (std::size_t i = 0; i < n; ++i) out->ints[i] = int_binary(op, a[i], b[i]);
      }
    }
  }

  // Round to the stored dtype, as a store into it does.
  if (is_floating(node.dtype)) {
    for (double& v : out->floats) v = ir::round_to_dtype(v, node.dtype);
  } else {
    for (std::int64_t& v : out->ints) v = ir::wrap_to_dtype(v, node.dtype);
  }
  return {std::move(out), ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref
