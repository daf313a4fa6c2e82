#include "runtime/replay.h"

#include <atomic>
#include <cstdint>
#include <sstream>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_cat.h>
#include <absl/strings/strip.h>

#include "ir/debug.h"
#include "ir/dtype_codec.h"
#include "ir/matmul.h"
#include "ir/settings.h"
#include "lazy/error.h"
#include "runtime/in_place_update.h"
#include "runtime/kernel_arguments.h"
#include "runtime/matmul_call.h"
#include "runtime/output_memory.h"
#include "runtime/stats.h"

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

std::atomic<bool> poison_outputs{ir::on_off_setting(ir::Setting::poison_outputs)};

// How LAZY_DEBUG=3 names a step: a kernel with its launch, a cuBLASLt call by its problem.
std::string step_label(const PlannedKernel& step) {
  if (step.matmul) return step.name;
  return step.name + " (grid " + std::to_string(step.grid) + ", block " +
         std::to_string(step.block) + ")";
}

// Runs `queue` (one step's work on the stream); at LAZY_DEBUG=3 times it and prints the step's
// device time and bandwidth.
template <class Queue>
void run_step(Device& device, const PlannedKernel& step, Queue queue) {
  if (ir::debug_level() < 3) return queue();
  DeviceTimer timer(device);
  timer.start();
  queue();
  timer.stop();
  const float ms = timer.elapsed_ms();
  std::ostringstream line;
  line << "lazyfuse:   " << step_label(step) << ": " << ms << " ms, "
       << double(step.bytes_moved) / (double(ms) * 1e6) << " GB/s";
  ir::debug_print(line.str());
}

// The pointers of a plan's cuBLASLt call from its arguments (a, b, then bias, residual, aux).
MatmulPointers matmul_pointers(const PlannedKernel& step, std::span<const std::uint64_t> inputs,
                               CUdeviceptr result) {
  const auto input = [&](int i) -> CUdeviceptr { return i < 0 ? 0 : CUdeviceptr(inputs[i]); };
  const ir::MatmulEpilogue& epilogue = step.matmul->epilogue;
  return {input(0),
          input(1),
          input(ir::matmul_bias_input(epilogue)),
          input(ir::matmul_residual_input(epilogue)),
          input(ir::matmul_aux_input(epilogue)),
          result};
}

}  // namespace

void replay(const Plan& plan, std::span<const ir::NodePtr> pending,
            std::span<const ir::NodePtr> externals, Device& device,
            absl::FunctionRef<void(std::uint32_t, ir::TensorData)> held) {
  check_plan_fits(plan, pending, externals, device.total_memory(), device.description());
  absl::flat_hash_map<std::uint32_t, std::shared_ptr<ir::Storage>> roots, copies;
  std::vector<std::uint64_t> packed;
  // A kernel's scratch, freed (stream-ordered) once its launches are queued.
  std::vector<std::shared_ptr<DeviceBuffer>> scratch;
  std::vector<std::size_t> launch_index_at;  // where the launch's number goes in `packed`
  const auto writable = [&](const ir::Storage& storage) {
    return device.writable_here(storage.device_owner);
  };
  bool wrote_over_inputs = false;
  try {
    for (const PlannedKernel& kernel : plan.kernels) {
      absl::InlinedVector<std::uint32_t, 4> inputs_taken;  // external slots written over
      for (const PlannedOutput& out : kernel.outputs) {
        if (out.reuses) {
          // The dying input's memory, not poisoned: the kernel reads the input from it. Copied
          // first: inserting into `roots` may move the entry `at` refers to.
          std::shared_ptr<ir::Storage> taken = roots.at(*out.reuses);
          roots[out.node] = std::move(taken);
          continue;
        }
        if (auto memory = take_input_memory(externals, out, writable, inputs_taken)) {
          device.rewritten(memory->device_owner);
          roots[out.node] = std::move(memory);  // not poisoned either: the kernel reads it
          counters().in_place_updates++;
          continue;
        }
        auto storage = allocate_output(device, out, pending, externals);
        if (poison_outputs)
          device.fill_bytes(storage->device_address, kPoisonByte, storage->bytes());
        (out.external_copy ? copies : roots)[out.node] = std::move(storage);
      }
      if (kernel.numel == 0) {
        for (std::uint32_t node : kernel.release_after) roots.erase(node);
        continue;
      }
      pack_arguments(
          kernel, pending, device,
          [&](const ArgSource& arg, std::size_t) -> CUdeviceptr {
            switch (arg.kind) {
              case ArgSource::Kind::external_pointer:
                return input_address(device, *externals[arg.value]);
              case ArgSource::Kind::root_pointer:
                return roots.at(arg.value)->device_address;
              case ArgSource::Kind::copy_pointer:
                return copies.at(arg.value)->device_address;
              default:  // scratch
                scratch.push_back(device.allocate(arg.value));
                return scratch.back()->ptr();
            }
          },
          packed, launch_index_at);
      if (kernel.matmul) {
        const MatmulPointers pointers =
            matmul_pointers(kernel, packed, roots.at(kernel.outputs[0].node)->device_address);
        run_step(device, kernel, [&] { kernel.matmul->call->run(device, pointers); });
        counters().matmul_calls++;
      } else {
        for (int launch = 0; launch < kernel.launches; ++launch) {
          for (const std::size_t at : launch_index_at) packed[at] = std::uint64_t(launch);
          const std::span<const std::byte> bytes = std::as_bytes(std::span(packed));
          run_step(device, kernel,
                   [&] { device.launch(kernel.function, kernel.grid, kernel.block, bytes); });
          if (!kernel.computes_product) counters().kernel_launches++;
        }
        if (kernel.computes_product) {
          counters().matmul_calls++;
          counters().matmul_kernels++;
        }
      }
      scratch.clear();
      for (std::uint32_t node : kernel.release_after) roots.erase(node);
      wrote_over_inputs = wrote_over_inputs || !inputs_taken.empty();
    }
  } catch (const Error& failure) {
    if (wrote_over_inputs) throw InputsOverwritten(failure);
    throw;
  }

  hand_over_results(
      plan, pending, externals, [&](std::uint32_t root) { return roots.at(root); }, held);
}

InputsOverwritten::InputsOverwritten(const Error& failure)
    : RuntimeError(
          absl::StrCat(
              // The failure without its place, which this error carries.
              absl::StripSuffix(failure.what(), absl::StrCat(" (at ", failure.where().file_name(),
                                                             ":", failure.where().line(), ")")),
              ". But the sync had already queued kernels that write over inputs no one else "
              "held, so its recorded work cannot run again: it was dropped, and the tensors it "
              "was computing are lost (using them is an error); record them again"),
          failure.where()) {}

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

void set_poison_outputs(bool enabled) {
  poison_outputs = enabled;
}

bool poisoning_outputs() {
  return poison_outputs;
}

}  // namespace lazy::runtime
