// One Llama-style transformer block's forward pass, written as a user of lazyfuse would write it:
// pre-norm causal self-attention with rotary embeddings, then a pre-norm SwiGLU feed-forward,
// each with its residual add. samples/transformer_block.cpp runs it; bench/bench_matmul.cpp times
// this same code against bench/peers_matmul.py's PyTorch version of it.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include <lazy/lazy.h>

namespace transformer {

// TinyLlama-1.1B's widths (model 2048, feed-forward 5632) with 16 heads of 128 and full
// multi-head attention (no grouped keys and values).
struct Config {
  std::int64_t batch = 8;
  std::int64_t seq = 1024;
  std::int64_t heads = 16;
  std::int64_t head_dim = 128;
  std::int64_t ffn_hidden = 5632;
  double norm_eps = 1e-5;    // Llama 2's rms_norm_eps
  double rope_base = 10000;  // Llama's rope_theta
  lazy::DType dtype = lazy::bf16;

  std::int64_t dim() const { return heads * head_dim; }
};

struct Weights {
  lazy::Tensor attn_norm;  // [dim]
  lazy::Tensor qkv;        // [3 * dim, dim]: the q, k and v projections stacked, one product
  lazy::Tensor o;          // [dim, dim]
  lazy::Tensor ffn_norm;   // [dim]
  lazy::Tensor gate;       // [ffn_hidden, dim]
  lazy::Tensor up;         // [ffn_hidden, dim]
  lazy::Tensor down;       // [dim, ffn_hidden]
};

// What depends only on positions: made once, given to every call.
struct Positions {
  lazy::Tensor cos;     // [seq, head_dim], the rotary embedding's tables
  lazy::Tensor sin;     // [seq, head_dim]
  lazy::Tensor causal;  // [seq, seq] bool: query i may see key j when j <= i
};

// Normal weights scaled by 1/sqrt(fan_in), so activations stay O(1) through the block; norm
// weights start at one, as in training.
inline Weights random_weights(const Config& c, std::uint64_t seed) {
  auto projection = [&](std::int64_t out, std::int64_t in, std::uint64_t offset) {
    return lazy::randn({out, in}, seed + offset, c.dtype) * float(1 / std::sqrt(double(in)));
  };
  const std::int64_t dim = c.dim();
  return {lazy::ones({dim}, c.dtype),       projection(3 * dim, dim, 0),
          projection(dim, dim, 1),          lazy::ones({dim}, c.dtype),
          projection(c.ffn_hidden, dim, 2), projection(c.ffn_hidden, dim, 3),
          projection(dim, c.ffn_hidden, 4)};
}

// Llama's rotary tables: position p and frequency base^(-2i/head_dim) give the angle of pair i,
// repeated for both halves of a head (as torch.cat((freqs, freqs), -1)); computed in f32.
inline Positions positions(const Config& c) {
  const std::int64_t half = c.head_dim / 2;
  lazy::Tensor inv_freq = lazy::exp(lazy::arange(0, half, 1, lazy::f32) *
                                    float(-2.0 * std::log(c.rope_base) / double(c.head_dim)));
  lazy::Tensor angles = lazy::arange(0, c.seq, 1, lazy::f32).unsqueeze(1) * inv_freq;
  // Both halves from one broadcast: [seq, 1, half] -> [seq, 2, half] -> [seq, head_dim].
  lazy::Tensor both_halves = angles.unsqueeze(1).expand({c.seq, 2, half}).reshape({c.seq, -1});
  lazy::Tensor position = lazy::arange(c.seq);
  lazy::Tensor causal = position.unsqueeze(0) <= position.unsqueeze(1);
  return {lazy::cos(both_halves).to(c.dtype), lazy::sin(both_halves).to(c.dtype), causal};
}

// x [..., head_dim] seen as its two halves [..., 2, half] (a view).
inline lazy::Tensor halves(const lazy::Tensor& x) {
  lazy::Shape shape = x.shape();
  const std::int64_t half = shape[shape.rank() - 1] / 2;
  shape[shape.rank() - 1] = 2;
  shape.push_back(half);
  return x.reshape(shape);
}

// PyTorch's rotate_half, torch.cat((-x2, x1), -1), on the halves [..., 2, half]: reversing the
// axis of 2 swaps them and the signs (-1, 1) negate the new first one. lazyfuse has no
// concatenation; in the halves' shape the rotation stays a view.
inline lazy::Tensor rotate_halves(const lazy::Tensor& xh) {
  lazy::Tensor signs = lazy::arange(-1, 2, 2, xh.dtype()).reshape({2, 1});
  return xh.slice(-2, {}, {}, -1) * signs;
}

// x [batch, heads, seq, head_dim] rotated by its position: x * cos + rotate_half(x) * sin,
// computed on the halves and viewed back as [..., head_dim].
inline lazy::Tensor rope(const lazy::Tensor& x, const Positions& p) {
  lazy::Tensor xh = halves(x);
  return (xh * halves(p.cos) + rotate_halves(xh) * halves(p.sin)).reshape(x.shape());
}

// [batch, seq, heads * head_dim] <-> [batch, heads, seq, head_dim]
inline lazy::Tensor split_heads(const lazy::Tensor& x, const Config& c) {
  return x.reshape({c.batch, c.seq, c.heads, c.head_dim}).transpose(1, 2);
}
inline lazy::Tensor merge_heads(const lazy::Tensor& x, const Config& c) {
  return x.transpose(1, 2).reshape({c.batch, c.seq, c.dim()});
}

// Causal scaled dot-product attention, written out as Llama's reference code does: the scores'
// softmax runs in f32 (bf16's 8 bits would round the small weights away) and is cast back.
inline lazy::Tensor attention(const lazy::Tensor& q, const lazy::Tensor& k, const lazy::Tensor& v,
                              const Positions& p, const Config& c) {
  const float scale = float(1 / std::sqrt(double(c.head_dim)));
  lazy::Tensor scores = lazy::matmul(q, k.transpose(-2, -1)) * scale;  // [b, h, seq, seq]
  scores = lazy::where(p.causal, scores, -std::numeric_limits<float>::infinity());
  lazy::Tensor probs = lazy::softmax(scores.to(lazy::f32), -1).to(q.dtype());
  return lazy::matmul(probs, v);
}

// SwiGLU: down(silu(gate(x)) * up(x)).
inline lazy::Tensor ffn(const lazy::Tensor& x, const Weights& w) {
  return lazy::linear(lazy::silu(lazy::linear(x, w.gate)) * lazy::linear(x, w.up), w.down);
}

// x [batch, seq, dim] -> [batch, seq, dim]
inline lazy::Tensor block(const lazy::Tensor& x, const Weights& w, const Positions& p,
                          const Config& c) {
  const std::int64_t dim = c.dim();
  lazy::Tensor qkv = lazy::linear(lazy::rms_norm(x, w.attn_norm, c.norm_eps), w.qkv);
  lazy::Tensor q = split_heads(qkv.slice(-1, 0, dim), c);
  lazy::Tensor k = split_heads(qkv.slice(-1, dim, 2 * dim), c);
  lazy::Tensor v = split_heads(qkv.slice(-1, 2 * dim, 3 * dim), c);
  lazy::Tensor attended = attention(rope(q, p), rope(k, p), v, p, c);
  lazy::Tensor h = x + lazy::linear(merge_heads(attended, c), w.o);
  return h + ffn(lazy::rms_norm(h, w.ffn_norm, c.norm_eps), w);
}

}  // namespace transformer
