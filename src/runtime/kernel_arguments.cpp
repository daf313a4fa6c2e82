#include "runtime/kernel_arguments.h"

#include "codegen/kernel_builder.h"
#include "runtime/index_faults.h"

namespace lazy::runtime {

using codegen::ArgSource;

void pack_arguments(const PlannedKernel& kernel, std::span<const ir::NodePtr> pending,
                    Device& device,
                    absl::FunctionRef<CUdeviceptr(const ArgSource&, std::size_t)> memory,
                    std::vector<std::uint64_t>& packed, std::vector<std::size_t>& launch_index_at) {
  packed.clear();
  packed.reserve(kernel.args.size());  // one word each
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

}  // namespace lazy::runtime
