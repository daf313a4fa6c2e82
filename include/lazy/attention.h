// Attention as PyTorch's torch.nn.functional.scaled_dot_product_attention computes it (its math
// path): two matrix products around a masked softmax, recorded as ordinary ops, so the scaling,
// the mask and the softmax fuse into one row kernel between the two products.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>

#include "lazy/tensor.h"

namespace lazy {

// softmax(query @ key^T * scale + mask) @ value over query [..., L, E], key [..., S, E] and value
// [..., S, Ev], giving [..., L, Ev]; the batch axes broadcast as matmul's. query, key and value
// have one floating dtype. The softmax runs in f32; in f16 and bf16 the scores and the weights
// are rounded to the dtype, as the products written out would be (PyTorch's math path keeps both
// in f32, its flash kernel rounds the weights).
// - attn_mask broadcasts to [..., L, S]: bool (true where a query may attend), f32 or query's
//   dtype (added to the scores). A row that may attend nowhere gives zeros, as PyTorch's does.
// - is_causal: query i attends keys 0..i (the upper-left triangle where L != S); not together
//   with attn_mask.
// - scale defaults to 1 / sqrt(E).
// - dropout_p drops attention weights as lazy::dropout does, from dropout_seed (lazy draws random
//   numbers from explicit seeds, so a dropout_p above 0 needs one).
// - enable_gqa: key and value may have fewer heads (axis -3) than query, each a divisor of its
//   count; query head h reads key head h / (query heads / key heads), and value's likewise, as
//   PyTorch's repeat_interleave gives.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = {},
                                    double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = {}, bool enable_gqa = false,
                                    std::optional<std::uint64_t> dropout_seed = {},
                                    std::source_location loc = std::source_location::current());

}  // namespace lazy
