// A fixed sequence of kernel launches and fills on one device, queued by a single call (a CUDA
// graph). Built once, instantiated once; a launch's arguments can then be changed in place, so a
// replay that only moves buffers costs one graph launch plus one update per moved launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/device.h"

struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;

namespace lazy::runtime {

class DeviceGraph {
 public:
  explicit DeviceGraph(Device& device);
  DeviceGraph(const DeviceGraph&) = delete;
  DeviceGraph& operator=(const DeviceGraph&) = delete;
  ~DeviceGraph();

  // Appends a 1-d launch that runs after everything added before; returns its number for
  // set_launch_args. Only before instantiate().
  std::size_t add_launch(CUfunction function, unsigned grid_x, unsigned block_x,
                         std::span<const std::byte> packed_args);
  // Appends a byte fill that runs after everything added before. Only before instantiate().
  void add_fill(CUdeviceptr dst, std::uint8_t value, std::size_t bytes);

  void instantiate();

  // Gives launch `launch` new arguments (same layout) for the launches queued after this call.
  void set_launch_args(std::size_t launch, std::span<const std::byte> packed_args);

  // Queues the whole sequence on the device's stream (waits for it with LAZY_SYNC_LAUNCHES).
  void launch();

 private:
  struct Launch {
    CUfunction function;
    unsigned grid_x;
    unsigned block_x;
    CUgraphNode_st* node;
  };

  Device& device_;
  CUgraph_st* graph_ = nullptr;
  CUgraphExec_st* exec_ = nullptr;
  CUgraphNode_st* last_ = nullptr;
  std::vector<Launch> launches_;
};

}  // namespace lazy::runtime
