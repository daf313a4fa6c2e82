#include "runtime/graph_replay.h"

#include <cstdio>

#include <absl/container/inlined_vector.h>

#include "codegen/kernel_builder.h"
#include "ir/debug.h"
#include "runtime/in_place_update.h"
#include "runtime/kernel_arguments.h"
#include "runtime/output_memory.h"
#include "runtime/replay.h"
#include "runtime/stats.h"

namespace lazy::runtime {

namespace {

using codegen::ArgSource;

std::int64_t bytes_of(const PlannedOutput& out) {
  return out.numel * itemsize(out.dtype);
}

}  // namespace

std::unique_ptr<GraphReplay> GraphReplay::for_plan(const Plan& plan, Numbers numbers,
                                                   std::int64_t max_owned_bytes) {
  int launches = 0;
  for (const PlannedKernel& kernel : plan.kernels) {
    if (kernel.matmul) return nullptr;
    if (kernel.numel > 0) launches += kernel.launches;
  }
  if (launches == 0) return nullptr;

  auto replay = std::unique_ptr<GraphReplay>(new GraphReplay(plan, numbers));
  std::int64_t owned_bytes = 0;
  for (const PlannedKernel& kernel : plan.kernels) {
    for (const PlannedOutput& out : kernel.outputs) {
      if (out.external_copy) {
        owned_bytes += bytes_of(out);
      } else if (out.reuses) {
        replay->group_of_root_[out.node] = replay->group_of_root_.at(*out.reuses);
      } else {
        replay->group_of_root_[out.node] = std::uint32_t(replay->group_first_.size());
        replay->group_first_.push_back(&out);
      }
    }
    for (const ArgSource& arg : kernel.args)
      if (arg.kind == ArgSource::Kind::scratch) owned_bytes += std::int64_t(arg.value);
  }
  std::vector<bool> held(replay->group_first_.size());
  for (std::uint32_t root : plan.live_roots) held[replay->group_of_root_.at(root)] = true;
  for (const PlannedView& view : plan.live_views)
    if (view.base_kind == PlannedView::Base::root)
      held[replay->group_of_root_.at(view.base)] = true;
  for (std::size_t group = 0; group < held.size(); ++group) {
    const PlannedOutput& first = *replay->group_first_[group];
    if (!held[group]) {
      replay->call_buffer_of_group_.push_back(-1);
      owned_bytes += bytes_of(first);
      continue;
    }
    replay->call_buffer_of_group_.push_back(std::int32_t(replay->call_buffer_outputs_.size()));
    replay->call_buffer_outputs_.push_back(&first);
  }
  if (owned_bytes > max_owned_bytes) return nullptr;
  return replay;
}

GraphReplay::~GraphReplay() {
  if (graph_ == nullptr) return;
  Device* device = Device::get();
  if (device == nullptr || !device->current_for_teardown()) return;
  try {
    device->synchronize_all();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());  // a destructor cannot throw
  }
}

void GraphReplay::build(std::span<const ir::NodePtr> pending,
                        std::span<const ir::NodePtr> externals,
                        std::span<const std::shared_ptr<ir::Storage>> call_buffers,
                        Device& device) {
  check_plan_fits(plan_, pending, externals, device.total_memory(), device.description());
  auto graph = std::make_unique<DeviceGraph>(device);
  const bool poison = poisoning_outputs();
  owned_.assign(group_first_.size(), nullptr);
  owned_copies_.clear();
  owned_scratch_.clear();
  launch_words_.clear();
  product_launches_ = 0;
  products_ = 0;
  moving_.clear();

  std::vector<std::uint64_t> packed;
  std::vector<std::size_t> launch_index_at;
  std::vector<MovingArgument> moving_here;  // with the kernel's first launch
  for (const PlannedKernel& kernel : plan_.kernels) {
    for (const PlannedOutput& out : kernel.outputs) {
      std::shared_ptr<ir::Storage> storage;
      if (out.external_copy) {
        storage = owned_copies_[out.node] = allocate_output(device, out, pending, externals);
      } else if (const std::uint32_t group = group_of_root_.at(out.node);
                 !out.reuses && call_buffer_of_group_[group] < 0) {
        storage = owned_[group] = allocate_output(device, out, pending, externals);
      }
      if (storage && poison)
        graph->add_fill(storage->device_address, kPoisonByte, storage->bytes());
    }
    if (kernel.numel == 0) continue;
    moving_here.clear();
    const auto memory = [&](const ArgSource& arg, std::size_t word) -> CUdeviceptr {
      const auto moving = [&](MovingArgument::Source source, std::uint32_t from) {
        moving_here.push_back({0, std::uint32_t(word), source, from});
      };
      switch (arg.kind) {
        case ArgSource::Kind::external_pointer:
          moving(MovingArgument::Source::external, std::uint32_t(arg.value));
          return input_address(device, *externals[arg.value]);
        case ArgSource::Kind::root_pointer: {
          const std::uint32_t group = group_of_root_.at(std::uint32_t(arg.value));
          const std::int32_t call_buffer = call_buffer_of_group_[group];
          if (call_buffer < 0) return owned_[group]->device_address;
          moving(MovingArgument::Source::call_buffer, std::uint32_t(call_buffer));
          return call_buffers[std::size_t(call_buffer)]->device_address;
        }
        case ArgSource::Kind::copy_pointer:
          return owned_copies_.at(std::uint32_t(arg.value))->device_address;
        default:  // scratch
          owned_scratch_.push_back(device.allocate(arg.value));
          return owned_scratch_.back()->ptr();
      }
    };
    pack_arguments(kernel, pending, device, memory, packed, launch_index_at);
    if (numbers_ == Numbers::per_call) {
      for (std::size_t word = 0; word < kernel.args.size(); ++word) {  // one word per argument
        const ArgSource& arg = kernel.args[word];
        if (arg.kind == ArgSource::Kind::scalar_float || arg.kind == ArgSource::Kind::scalar_int) {
          moving_here.push_back(
              {0, std::uint32_t(word), MovingArgument::Source::scalar, std::uint32_t(arg.value)});
        }
      }
    }
    if (kernel.computes_product) {
      product_launches_ += kernel.launches;
      ++products_;
    }
    for (int launch = 0; launch < kernel.launches; ++launch) {
      for (const std::size_t at : launch_index_at) packed[at] = std::uint64_t(launch);
      const std::size_t number = graph->add_launch(kernel.function, kernel.grid, kernel.block,
                                                   std::as_bytes(std::span(packed)));
      launch_words_.push_back(packed);
      for (MovingArgument argument : moving_here) {
        argument.launch = std::uint32_t(number);
        moving_.push_back(argument);
      }
    }
  }
  graph->instantiate();
  graph_ = std::move(graph);
}

bool GraphReplay::run(std::span<const ir::NodePtr> pending, std::span<const ir::NodePtr> externals,
                      Device& device, absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held) {
  if (ir::debug_level() >= 3) return false;
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return false;

  std::vector<std::shared_ptr<ir::Storage>> call_buffers;
  call_buffers.reserve(call_buffer_outputs_.size());
  for (const PlannedOutput* out : call_buffer_outputs_) {
    call_buffers.push_back(allocate_output(device, *out, pending, externals));
    if (poisoning_outputs()) {
      device.fill_bytes(call_buffers.back()->device_address, kPoisonByte,
                        call_buffers.back()->bytes());
    }
  }
  if (graph_ == nullptr) {
    build(pending, externals, call_buffers, device);
  } else {
    // moving_ is in launch order: a launch's new words go to the graph once all are written.
    constexpr std::uint32_t kNoLaunch = ~std::uint32_t(0);
    std::uint32_t changed = kNoLaunch;
    const auto flush = [&] {
      if (changed != kNoLaunch)
        graph_->set_launch_args(changed, std::as_bytes(std::span(launch_words_[changed])));
      changed = kNoLaunch;
    };
    // Every value first: one that throws (an input's upload) must leave the words as the graph
    // holds them, or a retry would skip them as unchanged.
    absl::InlinedVector<std::uint64_t, 16> values;
    for (const MovingArgument& argument : moving_) {
      switch (argument.source) {
        case MovingArgument::Source::external:
          values.push_back(input_address(device, *externals[argument.from]));
          break;
        case MovingArgument::Source::call_buffer:
          values.push_back(call_buffers[argument.from]->device_address);
          break;
        case MovingArgument::Source::scalar:
          values.push_back(codegen::scalar_argument(*pending[argument.from]));
          break;
      }
    }
    for (std::size_t i = 0; i < moving_.size(); ++i) {
      const MovingArgument& argument = moving_[i];
      if (argument.launch != changed) flush();
      std::uint64_t& word = launch_words_[argument.launch][argument.word];
      if (word == values[i]) continue;
      word = values[i];
      changed = argument.launch;
    }
    flush();
  }
  graph_->launch();
  counters().kernel_launches += std::int64_t(launch_words_.size()) - product_launches_;
  counters().matmul_calls += products_;
  counters().matmul_kernels += products_;
  counters().graph_launches++;
  hand_over_results(
      plan_, pending, externals,
      [&](std::uint32_t root) {
        return call_buffers[std::size_t(call_buffer_of_group_[group_of_root_.at(root)])];
      },
      held);
  return true;
}

bool replay_plan(const Plan& plan, GraphReplay* graph, std::span<const ir::NodePtr> pending,
                 std::span<const ir::NodePtr> externals, Device& device,
                 absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held) {
  const auto writable = [&](const ir::Storage& storage) {
    return device.writable_here(storage.device_owner);
  };
  device.wait_for_caller();
  const bool as_graph = graph != nullptr && !updates_in_place(plan, externals, writable) &&
                        graph->run(pending, externals, device, held);
  if (!as_graph) replay(plan, pending, externals, device, held);
  device.make_caller_wait();
  return as_graph;
}

}  // namespace lazy::runtime
