#include "tools/fuzz/step_recording.h"

#include "tools/fuzz/indexing_recording.h"
#include "tools/fuzz/loss_recording.h"
#include "tools/fuzz/mask_recording.h"
#include "tools/fuzz/order_recording.h"
#include "tools/fuzz/pair_recording.h"
#include "tools/fuzz/product_recording.h"
#include "tools/fuzz/row_recording.h"
#include "tools/fuzz/statistic_recording.h"
#include "tools/fuzz/tiling_recording.h"
#include "tools/fuzz/view_recording.h"

namespace lazy::fuzz {

bool recorded_by_its_module(Op op) {
  switch (op) {
    case Op::gather:
    case Op::scatter:
    case Op::triangle:
    case Op::masked_fill:
    case Op::tiling:
    case Op::order_statistic:
    case Op::loss:
    case Op::strided_view:
    case Op::statistic:
    case Op::row_op:
    case Op::product:
    case Op::pair:
    case Op::one_hot:
      return true;
    default:
      return false;
  }
}

RecordedStep record_by_its_module(Program& program, const Step& s, const Builder& earlier,
                                  std::source_location loc) {
  switch (s.op) {
    case Op::gather:
      return record_gather(s, earlier, loc);
    case Op::scatter:
      return record_scatter(s, earlier, loc);
    case Op::tiling:
      return record_tiling(program, s, earlier, loc);
    case Op::order_statistic:
      return record_order_statistic(s, earlier, loc);
    case Op::loss:
      return record_loss(s, earlier, loc);
    case Op::strided_view:
      return record_strided_view(program, s, earlier, loc);
    case Op::row_op:
      return record_row_op(program, s, earlier, loc);
    case Op::statistic: {
      const int rank = earlier.tensor(s.args[0].step).rank();
      return record_statistic(s, earlier, folded_axes(s.axes, rank), loc);
    }
    case Op::product:
      return record_product(program, s, earlier, loc);
    case Op::pair:
      return record_pair(s, earlier, loc);
    case Op::one_hot:
      return record_one_hot(program, s, earlier, loc);
    default:  // tril, triu and masked_fill
      return record_mask(s, earlier, loc);
  }
}

}  // namespace lazy::fuzz
