// A random program as a value: the steps the fuzzer records through the public API, with sizes
// kept symbolic so that a shrunk size leaves every step valid.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <lazy/lazy.h>

namespace lazy::fuzz {

// The size of one axis: a literal times a product of the program's named sizes. Two axes built
// from the same names are equal whatever the names' values, which is what keeps broadcasts and
// binary ops valid when the shrinker changes a size.
struct Dim {
  std::vector<int> sizes;  // ids into Program::sizes, sorted
  std::int64_t literal = 1;
  friend bool operator==(const Dim&, const Dim&) = default;
};

// A named size: free (the generator chose it, the shrinker may lower it) or read off the
// result of the step that made it (a slice's length).
struct SizeVar {
  std::int64_t value = 1;
  bool derived = false;
};

enum class Op : std::uint8_t {
  // leaves
  data,
  full,
  arange,
  rand,
  randn,
  // pointwise
  unary,
  binary,
  where,
  clamp,
  lerp,
  cast,
  // views
  reshape,
  permute,
  expand,
  slice,
  squeeze,
  unsqueeze,
  contiguous,
  // reductions and the normalizations written from them
  reduce,
  arg_reduce,
  var,
  std_dev,
  softmax,
  log_softmax,
  layer_norm,
  rms_norm,
  // cat or stack (the name says which) of its tensor arguments along `axis`
  join,
  // gather, index_select, embedding or take_along_axis (the name says which): source, index
  gather,
  // cumsum, cumprod, cummax, cummin (values), cummax_indices or cummin_indices along `axis`
  scan,
  // topk_values or topk_indices along `axis`: `k` (at most the axis), `largest`; sort_values or
  // sort_indices along `axis`, descending when `largest`
  top_k,
  // scatter_add, scatter or index_add (the name says which) along `axis`: x, index, src
  scatter,
  // matrix products: matmul, bmm, linear, addmm, einsum (the name says which)
  product,
  // tril or triu (the name says which) of the last two axes, `k` the diagonal
  triangle,
  // masked_fill: x, a bool mask broadcast with it, a number
  masked_fill,
  // roll, repeat, tile, or pad_<mode> (the name says which) of x, by `counts`: roll's shifts (along
  // `axes`, or of the flattened x without), repeat's and tile's counts, pad's (before, after)
  // pairs from the last axis; constant padding's fill is the second argument
  tiling,
  // median, nanmedian or kthvalue (values, or with _indices their positions) along `axis` (`k`
  // at most the axis), median_all or nanmedian_all of every element, quantile_<mode> or
  // nanquantile_<mode> at `q` along `axis` (of every element with no_axis), or cdist of x with
  // itself (`q` its p)
  order_statistic,
  // mse_loss, l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy_with_logits, kl_div,
  // kl_div_log_target, cross_entropy (class indices), cross_entropy_probabilities or nll_loss of
  // input and target, or binary_cross_entropy of a probability and a target, then "." and the
  // reduction (none, mean, sum, batchmean): "l1_loss.sum";
  // the class losses' ignore_index is `k`, their label smoothing `q`
  loss,
  // flip (along `axes`), diagonal (`k` the offset, of `axes`), narrow (along `axis`, from `start`,
  // `stop` elements), or piece `start` of chunk (`k` chunks), split (pieces of `k`) or unbind
  // along `axis` (the name says which)
  strided_view,
  // nansum, nanmean, count_nonzero or vector_norm (of order `q`) over `axes` (all when none), or
  // trace of a 2-d x
  statistic,
  // glu halving `axis`, normalize (p = 2, eps 1e-12) along `axis`, or cosine_similarity of x and
  // a second argument along `axis` (eps 1e-8): the name says which
  row_op,
  // isclose of x and a second argument of its dtype and shape (rtol `q`, atol `eps`, equal_nan
  // when `largest`), pairwise_distance of x and a second argument (p `q`, eps 1e-6, `keepdim`),
  // or outer of two 1-d arguments: the name says which
  pair,
  // one_hot of i32 or i64 ids (an index leaf) into shape[0] classes, of `dtype`
  one_hot,
};

// A tensor operand (an earlier step of the same program) or a number.
struct Arg {
  int step = -1;  // >= 0: a tensor
  double number = 0;
  Scalar::Kind kind = Scalar::Kind::floating;
  bool is_tensor() const { return step >= 0; }
};

// A number argument as the API takes it, of its kind.
Scalar scalar_of(const Arg& arg);

// How a data leaf's values are drawn: uniform in [lo, hi], rounded to multiples of 2^-quantum
// when quantum >= 0 (exact in narrow dtypes), with `special` in 128 of them NaN, +-inf or -0.
struct DataSpec {
  std::uint64_t key = 0;
  double lo = -1, hi = 1;
  int quantum = -1;
  int special = 0;
  int bool_percent = 50;
  // 0: lazy::from_data; 1 or 2: memory taken in through from_blob, laid out as fz_external's
  // layout of that number (input_values.h).
  int external = 0;
};

struct Step {
  Op op = Op::data;
  std::string name;  // the API function for unary, binary and reduce steps ("exp", "add", "sum")
  std::vector<Arg> args;
  DType dtype = DType::f32;  // leaves and casts
  std::vector<Dim> shape;    // leaves, reshape, expand
  DataSpec data;             // data leaves; rand and randn use data.key as the seed
  std::vector<int> axes;     // permute, reductions
  int axis = 0;              // slice, squeeze, unsqueeze, arg_reduce (-1 with no_axis)
  bool keepdim = false;
  bool no_axis = false;                        // argmax/argmin over the flattened tensor
  std::int64_t start = 0, stop = 0, step = 1;  // slice (with has_start / has_stop)
  bool has_start = false, has_stop = false;
  double correction = 1, eps = 1e-5;  // eps: the norms', isclose's atol
  std::string equation;               // einsum
  std::vector<std::int64_t> counts;   // tiling: shifts, repeats or padding
  int derived_size = -1;              // the size a slice, a cat or a top-k defines
  std::int64_t k = 1;                 // top-k and kthvalue (fewer where the axis is shorter)
  double q = 0.5;       // a quantile's q, cdist's and pairwise_distance's p, isclose's rtol
  bool largest = true;  // top-k; a sort's descending; isclose's equal_nan
  // A loss's weight (class weights for the class losses) and binary_cross_entropy_with_logits'
  // pos_weight: the indices into args of those given, -1 for none.
  int weight_arg = -1, pos_weight_arg = -1;
  // A data leaf of indices: its values lie in [0, this size), however the shrinker lowers it.
  std::optional<Dim> index_bound;
  bool held = false;  // an output: a handle holds it at the sync, its values compared
};

struct Program {
  std::uint64_t seed = 0;
  std::int64_t index = 0;
  std::vector<SizeVar> sizes;
  std::vector<Step> steps;
};

// What a step is called in counts and logs: its API function, else its kind ("lerp", "slice").
std::string step_label(const Step& step);

// Concrete value of a symbolic axis size.
std::int64_t dim_value(const Program& program, const Dim& dim);
// Whether `dim` is the literal 1, whatever the sizes.
inline bool is_one(const Dim& dim) {
  return dim.sizes.empty() && dim.literal == 1;
}
Shape concrete_shape(const Program& program, const std::vector<Dim>& dims);
// Axes of `rank` a reduction folds (non-negative): all of them when none are named.
std::vector<int> folded_axes(const std::vector<int>& axes, int rank);
// `in` with the `folded` axes (non-negative) kept as 1 or dropped.
std::vector<Dim> reduced_shape(const std::vector<Dim>& in, const std::vector<int>& folded,
                               bool keepdim);
// The elements of a shape with each empty dim counted as 1: a reduction over an empty axis makes
// that many (rms_norm over [144, 213, 6, 94, 213, 0] reduced to 3.7e9 values in the reference
// evaluator, seed 17307 program 431). In double, so that an absurd shape compares as large
// instead of wrapping around.
double element_count(const Program& program, const std::vector<Dim>& dims);
double element_count(const Shape& shape);

}  // namespace lazy::fuzz
