#include "tools/fuzz/tiling_recording.h"

#include <string>
#include <vector>

#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

namespace {

PadMode pad_mode(const std::string& name) {
  if (name == "pad_reflect") return PadMode::reflect;
  if (name == "pad_replicate") return PadMode::replicate;
  if (name == "pad_circular") return PadMode::circular;
  return PadMode::constant;
}

// repeat's (and tile's, its counts padded with leading 1s) symbolic shape: each axis of x its
// count times, new leading axes of their counts.
std::vector<Dim> repeated_shape(const std::vector<Dim>& in, std::vector<std::int64_t> counts) {
  if (counts.size() < in.size()) counts.insert(counts.begin(), in.size() - counts.size(), 1);
  const std::size_t extra = counts.size() - in.size();
  std::vector<Dim> out;
  for (std::size_t a = 0; a < counts.size(); ++a) {
    Dim d = a < extra ? Dim{} : in[a - extra];
    d.literal *= counts[a];
    if (d.literal == 0) d.sizes.clear();
    out.push_back(d);
  }
  return out;
}

}  // namespace

RecordedStep record_tiling(Program& program, const Step& step, const Builder& earlier,
                           std::source_location loc) {
  const int x = step.args[0].step;
  const Tensor& input = earlier.tensor(x);
  RecordedStep out;
  out.bounds = earlier.bounds(x);
  out.shape = earlier.shape(x);
  if (step.name == "roll") {
    const std::vector<int> axes(step.axes.begin(), step.axes.end());
    out.out = roll(input, step.counts, axes, loc);
    return out;
  }
  if (step.name == "repeat" || step.name == "tile") {
    out.out =
        step.name == "repeat" ? repeat(input, step.counts, loc) : tile(input, step.counts, loc);
    out.shape = repeated_shape(earlier.shape(x), step.counts);
    return out;
  }
  const PadMode mode = pad_mode(step.name);
  if (mode == PadMode::constant) {
    const Arg& value = step.args[1];
    out.out = pad(input, step.counts, mode, scalar_of(value), loc);
    const DType d = input.dtype();
    out.bounds = select_rule(Bounds{0, 1, 0, 0}, Operand{earlier.bounds(x), d},
                             Operand{number_bounds(value.number, d), d}, d);
  } else {
    out.out = pad(input, step.counts, mode, std::nullopt, loc);
  }
  const int last = int(out.shape.size()) - 1;
  program.sizes[std::size_t(step.derived_size)].value = out.out.shape()[last];
  out.shape[std::size_t(last)] = Dim{{step.derived_size}, 1};
  return out;
}

}  // namespace lazy::fuzz
