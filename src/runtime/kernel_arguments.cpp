#include "runtime/kernel_arguments.h"

#include <string>

#include <absl/container/flat_hash_map.h>

#include "codegen/kernel_builder.h"
#include "ir/dtype_codec.h"
#include "lazy/error.h"
#include "runtime/index_faults.h"

namespace lazy::runtime {

namespace {

using codegen::ArgSource;

std::shared_ptr<ir::Storage> scalar_storage(const ir::Node& node) {
  // A plan that names another node here would read an empty optional: undefined, not an error.
  if (node.op != ir::Op::Scalar || !node.scalar) {
    throw RuntimeError("lazyfuse internal error: the plan holds " +
                           std::string(ir::op_name(node.op)) + " as a scalar; please report it",
                       node.loc);
  }
  auto storage = std::make_shared<ir::Storage>(node.dtype, 1);
  if (is_floating(node.dtype)) {
    ir::store_double(storage->host.data(), node.dtype, 0,
                     ir::scalar_as_float(*node.scalar, node.dtype));
  } else {
    ir::store_int(storage->host.data(), node.dtype, 0, ir::scalar_as_int(*node.scalar, node.dtype));
  }
  return storage;
}

}  // namespace

void pack_arguments(const PlannedKernel& kernel, std::span<const ir::NodePtr> pending,
                    Device& device,
                    absl::FunctionRef<CUdeviceptr(const ArgSource&, std::size_t)> memory,
                    std::vector<std::uint64_t>& packed, std::vector<std::size_t>& launch_index_at) {
  packed.clear();
  launch_index_at.clear();
  for (const ArgSource& arg : kernel.args) {
    switch (arg.kind) {
      case ArgSource::Kind::constant:
      case ArgSource::Kind::index_site:  // plan_args made it a constant
        packed.push_back(arg.value);
        break;
      case ArgSource::Kind::external_pointer:
      case ArgSource::Kind::root_pointer:
      case ArgSource::Kind::copy_pointer:
      case ArgSource::Kind::scratch:
        packed.push_back(memory(arg, packed.size()));
        break;
      case ArgSource::Kind::scalar_float:
      case ArgSource::Kind::scalar_int:
        packed.push_back(codegen::scalar_argument(*pending[arg.value]));
        break;
      case ArgSource::Kind::index_faults:
        packed.push_back(index_fault_record(device));
        break;
      case ArgSource::Kind::launch_index:
        launch_index_at.push_back(packed.size());
        packed.push_back(0);
        break;
    }
  }
}

void hand_over_results(const Plan& plan, std::span<const ir::NodePtr> pending,
                       std::span<const ir::NodePtr> externals,
                       absl::FunctionRef<std::shared_ptr<ir::Storage>(std::uint32_t)> root_storage,
                       absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held) {
  for (std::uint32_t index : plan.live_roots)
    held(index, ir::TensorData{root_storage(index), ir::Layout::contiguous(pending[index]->shape)});
  absl::flat_hash_map<std::uint32_t, std::shared_ptr<ir::Storage>> scalars;
  for (std::uint32_t index : plan.live_scalars) {
    scalars[index] = scalar_storage(*pending[index]);
    held(index, ir::TensorData{scalars[index], ir::Layout::contiguous(Shape{})});
  }
  for (const PlannedView& view : plan.live_views) {
    std::shared_ptr<const ir::Storage> base;
    switch (view.base_kind) {
      case PlannedView::Base::root:
        base = root_storage(view.base);
        break;
      case PlannedView::Base::external:
        base = externals[view.base]->data->storage;
        break;
      case PlannedView::Base::scalar:
        base = scalars.at(view.base);
        break;
    }
    held(view.node, ir::TensorData{std::move(base), view.layout});
  }
}

}  // namespace lazy::runtime
