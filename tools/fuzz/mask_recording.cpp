#include "tools/fuzz/mask_recording.h"

#include "tools/fuzz/api_functions.h"
#include "tools/fuzz/value_rules.h"

namespace lazy::fuzz {

RecordedStep record_mask(const Step& step, const Builder& earlier, std::source_location loc) {
  const int x = step.args[0].step;
  const Tensor& input = earlier.tensor(x);
  const Operand kept{earlier.bounds(x), input.dtype()};
  RecordedStep out;
  if (step.op == Op::triangle) {
    out.out = step.name == "tril" ? tril(input, step.k, loc) : triu(input, step.k, loc);
    out.bounds =
        select_rule(Bounds{0, 1, 0, 0}, kept,
                    Operand{number_bounds(0, input.dtype()), input.dtype()}, input.dtype());
    out.shape = earlier.shape(x);
    return out;
  }
  const int mask = step.args[1].step;
  const Arg& value = step.args[2];
  out.out = masked_fill(input, earlier.tensor(mask), scalar_of(value), loc);
  const DType d = out.out.dtype();
  out.bounds =
      select_rule(earlier.bounds(mask), Operand{number_bounds(value.number, d), d}, kept, d);
  if (!broadcast_dims(earlier.shape(x), earlier.shape(mask), out.shape))
    throw StepRejected("shapes do not broadcast symbolically");
  return out;
}

}  // namespace lazy::fuzz
