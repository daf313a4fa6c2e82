// lazy::grad, value_and_grad, vjp and stop_gradient (lazy/autodiff.h).
#include <string>

#include "api/recording.h"
#include "autodiff/reverse_pass.h"
#include "autodiff/vjp_rules.h"
#include "lazy/autodiff.h"
#include "lazy/factories.h"

namespace lazy {

namespace {

Tensor alias(const Tensor& x, autodiff::AliasRole role, std::string_view op,
             std::source_location loc) {
  api::sync_if_trace_full();
  ir::Node* input = api::node_of(x, op, loc);
  ir::NodePtr node = ir::make_node(ir::Op::Alias, input->dtype, input->shape, loc);
  node->attrs.push(std::int64_t(role));
  node->inputs.push_back(input);
  return api::record(std::move(node));
}

}  // namespace

Tensor stop_gradient(const Tensor& x, std::source_location loc) {
  return alias(x, autodiff::AliasRole::stops_gradient, "stop_gradient", loc);
}

namespace {

// f's outputs at the primals and their gradients, for the cotangents `seed` gives the outputs
// once f has run. `op` is the call's name and `argument` its word for a primal, in errors. Each
// primal is an argument of its own: the same tensor passed twice gets, for each, the gradient
// with respect to that argument (as JAX's; torch.autograd.grad gives each the total).
VjpResult differentiate(const Differentiable& f, std::span<const Tensor> primals,
                        const std::function<std::vector<Tensor>(std::span<const Tensor>)>& seed,
                        std::string_view op, std::string_view argument, std::source_location loc) {
  api::DifferentiationScope differentiating(loc, op);
  std::vector<Tensor> inputs;
  std::vector<ir::Node*> input_nodes;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    const DType dtype = api::node_of(primals[i], op, loc)->dtype;
    if (!is_floating(dtype)) {
      api::fail<DTypeError>(loc, op, argument, " ", i, " is ", dtype_name(dtype),
                            "; gradients are taken with respect to floating tensors (f32, f16, "
                            "bf16): convert it, or capture it in the function as a constant");
    }
    inputs.push_back(alias(primals[i], autodiff::AliasRole::input, op, loc));
    input_nodes.push_back(inputs.back().node());
  }
  VjpResult result;
  result.outputs = f(inputs);
  const std::vector<Tensor> cotangents = seed(result.outputs);
  result.gradients = autodiff::backpropagate(result.outputs, cotangents, input_nodes, loc);
  for (std::size_t i = 0; i < primals.size(); ++i) {
    if (result.gradients[i].node() == nullptr)
      result.gradients[i] = lazy::zeros(primals[i].shape(loc), primals[i].dtype(), loc);
  }
  return result;
}

}  // namespace

VjpResult vjp(const Differentiable& f, std::span<const Tensor> primals,
              std::span<const Tensor> cotangents, std::source_location loc) {
  if (!f) api::fail<ValueError>(loc, "vjp", "needs a function to differentiate, got an empty one");
  return differentiate(
      f, primals,
      [&](std::span<const Tensor> outputs) {
        if (outputs.size() != cotangents.size()) {
          api::fail<ValueError>(loc, "vjp", "the function returned ", outputs.size(),
                                " tensor(s) but ", cotangents.size(), " cotangent(s) were given");
        }
        for (std::size_t i = 0; i < cotangents.size(); ++i) {
          const Shape& output = api::node_of(outputs[i], "vjp", loc)->shape;
          const Shape& cotangent = api::node_of(cotangents[i], "vjp", loc)->shape;
          if (output != cotangent) {
            api::fail<ShapeError>(loc, "vjp", "output ", i, " has shape ", output.to_string(),
                                  " but its cotangent has shape ", cotangent.to_string());
          }
        }
        return std::vector<Tensor>(cotangents.begin(), cotangents.end());
      },
      "vjp", "primal", loc);
}

ValueAndGradients ValueAndGrad::operator()(std::span<const Tensor> inputs,
                                           std::source_location loc) const {
  if (!f_)
    api::fail<ValueError>(loc, "grad", "needs a function to differentiate, got an empty one");
  VjpResult result = differentiate(
      [&](std::span<const Tensor> in) { return std::vector<Tensor>{f_(in)}; }, inputs,
      [&](std::span<const Tensor> outputs) {
        const ir::Node* value = api::node_of(outputs[0], "grad", loc);
        // One element of any shape is a loss, as torch.autograd.grad takes it.
        if (value->shape.numel() != 1) {
          api::fail<ShapeError>(loc, "grad", "the function returned a tensor of shape ",
                                value->shape.to_string(),
                                "; grad needs a result of one element (a loss): reduce it with "
                                "sum or mean, or use lazy::vjp with a cotangent of its shape");
        }
        if (!is_floating(value->dtype)) {
          api::fail<DTypeError>(loc, "grad", "the function returned a loss of dtype ",
                                dtype_name(value->dtype),
                                ", which passes no gradient; grad needs a floating loss (f32, "
                                "f16, bf16): compute it from floating values");
        }
        return std::vector<Tensor>{lazy::ones(value->shape, value->dtype, loc)};
      },
      "grad", "input", loc);
  return {std::move(result.outputs[0]), std::move(result.gradients)};
}

}  // namespace lazy
