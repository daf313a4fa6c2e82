#include "runtime/device_graph.h"

#include <string>

#include "runtime/cuda_driver.h"
#include "runtime/device_failures.h"
#include "runtime/packed_args.h"

namespace lazy::runtime {

namespace {

// The kernel node parameters of a launch whose arguments are one packed buffer; `extra` must
// outlive the driver call that reads them (the driver copies the arguments).
CUDA_KERNEL_NODE_PARAMS kernel_params(CUfunction function, unsigned grid_x, unsigned block_x,
                                      void** extra) {
  CUDA_KERNEL_NODE_PARAMS params{};
  params.func = function;
  params.gridDimX = grid_x;
  params.gridDimY = params.gridDimZ = 1;
  params.blockDimX = block_x;
  params.blockDimY = params.blockDimZ = 1;
  params.extra = extra;
  return params;
}

}  // namespace

DeviceGraph::DeviceGraph(Device& device) : device_(device) {
  device_.make_current();
  if (const CUresult result = device_.driver_.cuGraphCreate(&graph_, 0); result != CUDA_SUCCESS)
    device_.failures_->fail(result, "cuGraphCreate");
}

DeviceGraph::~DeviceGraph() {
  if (!device_.current_for_teardown()) return;
  if (exec_ != nullptr) device_.driver_.cuGraphExecDestroy(exec_);
  device_.driver_.cuGraphDestroy(graph_);
}

std::size_t DeviceGraph::add_launch(CUfunction function, unsigned grid_x, unsigned block_x,
                                    std::span<const std::byte> packed_args) {
  PackedArgs args(packed_args);
  const CUDA_KERNEL_NODE_PARAMS params = kernel_params(function, grid_x, block_x, args.extra());
  device_.make_current();
  CUgraphNode node = nullptr;
  if (const CUresult result = device_.driver_.cuGraphAddKernelNode(
          &node, graph_, last_ == nullptr ? nullptr : &last_, last_ == nullptr ? 0 : 1, &params);
      result != CUDA_SUCCESS) {
    device_.failures_->fail(
        result, "cuGraphAddKernelNode of " + device_.failures_->launches().label_of(function).text);
  }
  last_ = node;
  launches_.push_back({function, grid_x, block_x, node});
  return launches_.size() - 1;
}

void DeviceGraph::add_fill(CUdeviceptr dst, std::uint8_t value, std::size_t bytes) {
  if (bytes == 0) return;
  CUDA_MEMSET_NODE_PARAMS params{};
  params.dst = dst;
  params.value = value;
  params.elementSize = 1;
  params.width = bytes;
  params.height = 1;
  device_.make_current();
  CUgraphNode node = nullptr;
  if (const CUresult result =
          device_.driver_.cuGraphAddMemsetNode(&node, graph_, last_ == nullptr ? nullptr : &last_,
                                               last_ == nullptr ? 0 : 1, &params, device_.context_);
      result != CUDA_SUCCESS) {
    device_.failures_->fail(result, "cuGraphAddMemsetNode");
  }
  last_ = node;
}

void DeviceGraph::instantiate() {
  device_.make_current();
  if (const CUresult result = device_.driver_.cuGraphInstantiate(&exec_, graph_, 0);
      result != CUDA_SUCCESS) {
    device_.failures_->fail(
        result, "cuGraphInstantiate of " + std::to_string(launches_.size()) + " kernel launches");
  }
}

void DeviceGraph::set_launch_args(std::size_t launch, std::span<const std::byte> packed_args) {
  const Launch& at = launches_[launch];
  PackedArgs args(packed_args);
  const CUDA_KERNEL_NODE_PARAMS params =
      kernel_params(at.function, at.grid_x, at.block_x, args.extra());
  device_.make_current();
  if (const CUresult result =
          device_.driver_.cuGraphExecKernelNodeSetParams(exec_, at.node, &params);
      result != CUDA_SUCCESS) {
    device_.failures_->fail(result, "cuGraphExecKernelNodeSetParams of " +
                                        device_.failures_->launches().label_of(at.function).text);
  }
}

void DeviceGraph::launch() {
  device_.make_current();
  if (const CUresult result = device_.driver_.cuGraphLaunch(exec_, device_.stream());
      result != CUDA_SUCCESS) {
    device_.failures_->fail(
        result, "cuGraphLaunch of " + std::to_string(launches_.size()) + " kernel launches");
  }
  for (const Launch& at : launches_) device_.failures_->launches().record(at.function);
  if (device_.sync_launches_) device_.synchronize();
}

}  // namespace lazy::runtime
