#include "ref/pointwise.h"

#include <cmath>
#include <numbers>

#include "ir/dtype_codec.h"
#include "ir/pointwise_dtypes.h"
#include "lazy/error.h"
#include "nvrtc_templates/philox.cuh"

namespace lazy::ref {

namespace {

using ir::Op;

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
      throw RuntimeError("lazyfuse internal error: " + std::string(ir::op_name(node.op)) +
                             " is not a generator; please report it",
                         node.loc);
  }
  return {std::move(out), ir::Layout::contiguous(node.shape)};
}

[[noreturn]] void fail_no_host_function(const ir::Node& node, bool floating) {
  throw RuntimeError("lazyfuse internal error: " + std::string(ir::op_name(node.op)) +
                         " has no reference function for " + (floating ? "floating" : "integer") +
                         " operands; please report it",
                     node.loc);
}

}  // namespace

// Each operand is read as its row's operand rule says; the op computes in double when any operand
// is floating (integers and truth values then enter as numbers) and in exact int64 otherwise. The
// result is rounded or wrapped to the node's dtype, as a store into it does.
Value evaluate_pointwise(const ir::Node& node, std::span<const Value> inputs) {
  if (ir::op_kind(node.op) == ir::OpKind::generator) {
    return generate(node, inputs, std::make_shared<Buffer>(node.dtype, node.shape.numel()));
  }
  const ir::OpInfo& info = ir::op_info(node.op);
  const Shape& shape = node.shape;
  const std::size_t n = std::size_t(shape.numel());
  const std::size_t arity = node.inputs.size();
  std::array<DType, 3> read_as{};
  bool floating = false;
  for (std::size_t k = 0; k < arity; ++k) {
    read_as[k] = ir::operand_dtype(node, int(k));
    floating = floating || is_floating(read_as[k]);
  }
  if (floating ? !info.host_float : !info.host_int) fail_no_host_function(node, floating);

  auto out = std::make_shared<Buffer>(node.dtype, shape.numel());
  const bool floating_result = is_floating(node.dtype);
  if (floating) {
    std::array<std::vector<double>, 3> x;
    for (std::size_t k = 0; k < arity; ++k) {
      if (is_floating(read_as[k])) {
        x[k] = gather_floats(inputs[k], shape, read_as[k]);
      } else {
        std::vector<std::int64_t> ints = gather_ints(inputs[k], shape, read_as[k]);
        x[k].assign(ints.begin(), ints.end());
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double v =
          info.host_float(x[0][i], arity > 1 ? x[1][i] : 0.0, arity > 2 ? x[2][i] : 0.0);
      if (floating_result) {
        out->floats[i] = ir::round_to_dtype(v, node.dtype);
      } else {
        out->ints[i] = ir::float_to_integer_dtype(v, node.dtype);
      }
    }
  } else {
    std::array<std::vector<std::int64_t>, 3> x;
    for (std::size_t k = 0; k < arity; ++k) x[k] = gather_ints(inputs[k], shape, read_as[k]);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t v =
          info.host_int(x[0][i], arity > 1 ? x[1][i] : 0, arity > 2 ? x[2][i] : 0);
      if (floating_result) {
        out->floats[i] = ir::integer_to_float_dtype(v, node.dtype);
      } else {
        out->ints[i] = ir::wrap_to_dtype(v, node.dtype);
      }
    }
  }
  return {std::move(out), ir::Layout::contiguous(shape)};
}

}  // namespace lazy::ref
