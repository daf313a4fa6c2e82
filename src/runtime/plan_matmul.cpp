#include "runtime/plan_matmul.h"

#include "ir/matmul.h"
#include "runtime/matmul_call.h"

namespace lazy::runtime {

PlannedKernel plan_matmul(const fuse::Region& region, const fuse::Graph& graph,
                          const PlanIndices& index, Device* device) {
  const std::uint32_t at = region.matmul->node;
  const ir::Node& node = *graph.nodes[at];
  const ir::MatmulEpilogue epilogue = ir::matmul_epilogue(node);
  const ir::MatmulProblem& problem = region.matmul->problem;
  PlannedKernel planned;
  planned.grid = planned.block = 0;
  planned.bytes_moved = 0;
  planned.numel = node.shape.numel();
  planned.outputs.push_back({index(at),
                             false,
                             node.dtype,
                             planned.numel,
                             index.added(at) ? detached_copy(node) : nullptr,
                             std::nullopt,
                             {}});
  std::vector<codegen::ArgSource> args;
  for (const std::int32_t input : region.matmul->input_terms) {
    const fuse::Term& load = region.terms[input];
    args.push_back(codegen::load_pointer(load));
    const ir::Node& source =
        load.external ? *graph.externals[load.source] : *graph.nodes[load.source];
    planned.bytes_moved += load.layout.shape.numel() * itemsize(source.dtype);
  }
  planned.bytes_moved += planned.numel * itemsize(node.dtype);
  planned.args = plan_args(args, graph, index);
  MatmulSpec spec;
  spec.dtype = node.dtype;
  spec.tf32 = epilogue.tf32;
  spec.problem = problem;
  spec.activation = epilogue.activation;
  spec.bias = epilogue.bias;
  if (const int bias = ir::matmul_bias_input(epilogue); bias >= 0)
    spec.bias_offset = region.terms[region.matmul->input_terms[bias]].layout.offset;
  planned.matmul = PlannedMatmul{nullptr, epilogue};
  planned.name = "cuBLASLt matmul";
  if (device != nullptr) {
    planned.matmul->call = std::make_shared<MatmulCall>(*device, spec);
    planned.name = planned.matmul->call->describe();
  }
  return planned;
}

}  // namespace lazy::runtime
