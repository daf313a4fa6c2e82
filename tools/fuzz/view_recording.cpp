#include "tools/fuzz/view_recording.h"

#include <string>
#include <vector>

namespace lazy::fuzz {

namespace {

// Piece `index` of `pieces`; a step naming one that is not there is dropped.
Tensor piece(const std::vector<Tensor>& pieces, std::int64_t index, const std::string& name) {
  if (index >= std::int64_t(pieces.size()))
    throw StepRejected(name + ": no piece " + std::to_string(index));
  return pieces[std::size_t(index)];
}

}  // namespace

RecordedStep record_strided_view(Program& program, const Step& step, const Builder& earlier,
                                 std::source_location loc) {
  const int xi = step.args[0].step;
  const Tensor& x = earlier.tensor(xi);
  const int rank = x.rank();
  const int axis = rank == 0 ? 0 : (step.axis % rank + rank) % rank;
  RecordedStep out;
  out.bounds = earlier.bounds(xi);
  out.shape = earlier.shape(xi);
  const std::string& name = step.name;
  if (name == "flip") {
    out.out = flip(x, step.axes, loc);
    return out;
  }
  if (name == "diagonal") {
    out.out = diagonal(x, step.k, step.axes[0], step.axes[1], loc);
    const int a = (step.axes[0] + rank) % rank, b = (step.axes[1] + rank) % rank;
    out.shape.erase(out.shape.begin() + std::max(a, b));
    out.shape.erase(out.shape.begin() + std::min(a, b));
  } else if (name == "unbind") {
    out.out = piece(unbind(x, step.axis, loc), step.start, name);
    out.shape.erase(out.shape.begin() + axis);
    return out;
  } else if (name == "narrow") {
    out.out = narrow(x, step.axis, step.start, step.stop, loc);
    out.shape[std::size_t(axis)] = Dim{{}, step.stop};
    return out;
  } else {
    out.out =
        piece(name == "chunk" ? chunk(x, step.k, step.axis, loc) : split(x, step.k, step.axis, loc),
              step.start, name);
  }
  // A length the step defines: the diagonal's (its last axis) or the piece's.
  const int defined = name == "diagonal" ? out.out.rank() - 1 : axis;
  program.sizes[std::size_t(step.derived_size)].value = out.out.shape()[defined];
  if (name == "diagonal")
    out.shape.push_back(Dim{{step.derived_size}, 1});
  else
    out.shape[std::size_t(defined)] = Dim{{step.derived_size}, 1};
  return out;
}

}  // namespace lazy::fuzz
