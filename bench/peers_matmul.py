#!/usr/bin/env python3
"""Issue 13's matrix-product workloads in PyTorch, eager and torch.compile, as bench_matmul times
lazyfuse.

Same shapes, dtypes and formulas as bench/bench_matmul.cpp (the transformer block as
samples/transformer_block.h writes it), timed as peers.py times its workloads: CUDA events around
each call, a 256 MB memset before it, the median over iterations after warm-up. Peak memory is
torch.cuda.max_memory_allocated over one call after warm-up, reported twice: as it is (the
inputs and weights the call reads are included) and less torch.cuda.memory_allocated just before
the call (the call's outputs, temporaries and library workspaces only). decode_linear is also
timed as a loop of back-to-back calls that each wait for their result (torch.cuda.synchronize),
which counts the host's dispatch cost per call. decode_layers runs decode_linear's layer 8 times
back to back in one call, each with its own weight, and also reports the time per layer.

    python3 bench/peers_matmul.py [--iters N] [--only WORKLOAD] [--json PATH]

bench/compare.py puts the result beside bench_matmul's.
"""

import argparse
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

import peers

# Shapes from issue 13 (the same constants as bench_matmul.cpp).
GEMM_ROWS, GEMM_COLS, GEMM_INNER = 4096, 4096, 4096
FFN_TOKENS, FFN_DIM, FFN_HIDDEN = 8192, 4096, 11008  # Llama-7B's MLP widths
DECODE_TOKENS, DECODE_DIM = 16, 4096
# Calls in decode_linear's back-to-back loop: enough to average the host's jitter away.
DECODE_LOOP_CALLS = 1000
# decode_layers: 8 weights of 32 MiB, five times H100's 50 MB L2, so each is read from HBM.
DECODE_LAYERS = 8

# The transformer block: samples/transformer_block.h's Config.
BATCH, SEQ, HEADS, HEAD_DIM, BLOCK_FFN_HIDDEN = 8, 1024, 16, 128, 5632
DIM = HEADS * HEAD_DIM
NORM_EPS = 1e-5  # Llama 2's rms_norm_eps
ROPE_BASE = 10000.0  # Llama's rope_theta

DTYPE = torch.bfloat16
DEVICE = peers.DEVICE


def gemm_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b), approximate="tanh")


def decode_layers(x, *weights_and_biases):
    for w, b in zip(weights_and_biases[0::2], weights_and_biases[1::2]):
        x = gemm_gelu(x, w, b)
    return x


def swiglu_ffn(x, gate, up, down):
    return F.linear(F.silu(F.linear(x, gate)) * F.linear(x, up), down) + x


def rms_norm(x, weight):
    return F.rms_norm(x, (x.shape[-1],), weight, NORM_EPS)


def rotate_half(x):
    x1, x2 = x.chunk(2, -1)
    return torch.cat((-x2, x1), -1)


def rope(x, cos, sin):
    return x * cos + rotate_half(x) * sin


def attention(q, k, v, causal):
    """Written out as Llama's reference code does: the softmax in f32, cast back."""
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1 / math.sqrt(HEAD_DIM))
    scores = torch.where(causal, scores, float("-inf"))
    probs = torch.softmax(scores.float(), -1).to(q.dtype)
    return torch.matmul(probs, v)


def block(x, w, cos, sin, causal):
    batch, seq, dim = x.shape
    qkv = F.linear(rms_norm(x, w["attn_norm"]), w["qkv"])
    q, k, v = [t.view(batch, seq, HEADS, HEAD_DIM).transpose(1, 2) for t in qkv.split(dim, -1)]
    attended = attention(rope(q, cos, sin), rope(k, cos, sin), v, causal)
    h = x + F.linear(attended.transpose(1, 2).reshape(batch, seq, dim), w["o"])
    n = rms_norm(h, w["ffn_norm"])
    return h + F.linear(F.silu(F.linear(n, w["gate"])) * F.linear(n, w["up"]), w["down"])


def positions():
    """Rotary tables [SEQ, HEAD_DIM] (computed in f32) and the causal mask [SEQ, SEQ]."""
    half = HEAD_DIM // 2
    inv_freq = torch.exp(torch.arange(half, dtype=torch.float32, device=DEVICE) *
                         (-2 * math.log(ROPE_BASE) / HEAD_DIM))
    angles = torch.arange(SEQ, dtype=torch.float32, device=DEVICE).unsqueeze(1) * inv_freq
    both_halves = torch.cat((angles, angles), -1)
    position = torch.arange(SEQ, device=DEVICE)
    causal = position.unsqueeze(0) <= position.unsqueeze(1)
    return both_halves.cos().to(DTYPE), both_halves.sin().to(DTYPE), causal


def randn(shape, seed, scale=1.0):
    """Normal values times scale: weights take 1/sqrt(fan_in) so that products stay O(1)."""
    return peers.randn(shape, seed, DTYPE) * scale


def block_weights():
    def projection(out, inp, seed):
        return randn((out, inp), seed, 1 / math.sqrt(inp))

    ones = torch.ones(DIM, dtype=DTYPE, device=DEVICE)
    return {"attn_norm": ones, "qkv": projection(3 * DIM, DIM, 11), "o": projection(DIM, DIM, 12),
            "ffn_norm": ones.clone(), "gate": projection(BLOCK_FFN_HIDDEN, DIM, 13),
            "up": projection(BLOCK_FFN_HIDDEN, DIM, 14),
            "down": projection(DIM, BLOCK_FFN_HIDDEN, 15)}


def product_flops(m, n, k):
    return 2 * m * n * k


def block_flops():
    """The q, k, v and output projections, the feed-forward's three products and attention's two
    (q k^T and probs v) counted in full, as a dense product computes them, not causal-halved."""
    tokens = BATCH * SEQ
    return (4 * product_flops(tokens, DIM, DIM) + 3 * product_flops(tokens, BLOCK_FFN_HIDDEN, DIM)
            + 2 * BATCH * HEADS * product_flops(SEQ, SEQ, HEAD_DIM))


def bf16_bytes(elements):
    return elements * peers.itemsize(DTYPE)


class Workload:
    """A workload's inputs and, per implementation, a zero-argument step that runs it once."""

    def __init__(self, name, flops, nbytes, make_steps, per_call_loop=False, layers=1):
        self.name = name
        self.flops = flops  # 2 * M * N * K summed over the products
        self.bytes = nbytes  # fewest bytes moved: each input read once, each output written once
        self.make_steps = make_steps  # () -> {"torch_eager": step, "torch_compile": step}
        self.per_call_loop = per_call_loop  # also timed as back-to-back calls
        self.layers = layers  # identical layers in a step, for the time per layer


def steps_of(fn, *inputs):
    fused = peers.compiled(fn)
    return {"torch_eager": lambda: fn(*inputs), "torch_compile": lambda: fused(*inputs)}


def gemm_gelu_workload():
    def make_steps():
        x = randn((GEMM_ROWS, GEMM_INNER), 1)
        w = randn((GEMM_COLS, GEMM_INNER), 2, 1 / math.sqrt(GEMM_INNER))
        b = randn((GEMM_COLS,), 3)
        return steps_of(gemm_gelu, x, w, b)

    nbytes = bf16_bytes(GEMM_ROWS * GEMM_INNER + GEMM_COLS * GEMM_INNER + GEMM_COLS +
                        GEMM_ROWS * GEMM_COLS)
    return Workload("gemm_gelu", product_flops(GEMM_ROWS, GEMM_COLS, GEMM_INNER), nbytes,
                    make_steps)


def swiglu_ffn_workload():
    def make_steps():
        x = randn((FFN_TOKENS, FFN_DIM), 4)
        gate = randn((FFN_HIDDEN, FFN_DIM), 5, 1 / math.sqrt(FFN_DIM))
        up = randn((FFN_HIDDEN, FFN_DIM), 6, 1 / math.sqrt(FFN_DIM))
        down = randn((FFN_DIM, FFN_HIDDEN), 7, 1 / math.sqrt(FFN_HIDDEN))
        return steps_of(swiglu_ffn, x, gate, up, down)

    nbytes = bf16_bytes(2 * FFN_TOKENS * FFN_DIM + 3 * FFN_HIDDEN * FFN_DIM)
    return Workload("swiglu_ffn", 3 * product_flops(FFN_TOKENS, FFN_HIDDEN, FFN_DIM), nbytes,
                    make_steps)


def decode_linear_workload():
    def make_steps():
        x = randn((DECODE_TOKENS, DECODE_DIM), 8)
        w = randn((DECODE_DIM, DECODE_DIM), 9, 1 / math.sqrt(DECODE_DIM))
        b = randn((DECODE_DIM,), 10)
        return steps_of(gemm_gelu, x, w, b)

    nbytes = bf16_bytes(2 * DECODE_TOKENS * DECODE_DIM + DECODE_DIM * DECODE_DIM + DECODE_DIM)
    return Workload("decode_linear", product_flops(DECODE_TOKENS, DECODE_DIM, DECODE_DIM), nbytes,
                    make_steps, per_call_loop=True)


def decode_weight_read_workload():
    """decode_linear's floor, timed the same way: one read of its weight (a row sum)."""
    def make_steps():
        w = randn((DECODE_DIM, DECODE_DIM), 9, 1 / math.sqrt(DECODE_DIM))
        return steps_of(lambda w: w.sum(1), w)

    return Workload("decode_weight_read", 0, bf16_bytes(DECODE_DIM * DECODE_DIM + DECODE_DIM),
                    make_steps)


def decode_layer_weights():
    """decode_layers' weights, the same in its floor decode_layers_read."""
    return [randn((DECODE_DIM, DECODE_DIM), 40 + layer, 1 / math.sqrt(DECODE_DIM))
            for layer in range(DECODE_LAYERS)]


def decode_layers_workload():
    """decode_linear's layer 8 times back to back, each with its own weight and bias, in one call:
    every weight comes from HBM, as in a model's decode step."""
    def make_steps():
        x = randn((DECODE_TOKENS, DECODE_DIM), 8)
        params = []
        for layer, weight in enumerate(decode_layer_weights()):
            params += [weight, randn((DECODE_DIM,), 60 + layer)]
        return steps_of(decode_layers, x, *params)

    layer_bytes = bf16_bytes(2 * DECODE_TOKENS * DECODE_DIM + DECODE_DIM * DECODE_DIM + DECODE_DIM)
    return Workload("decode_layers",
                    DECODE_LAYERS * product_flops(DECODE_TOKENS, DECODE_DIM, DECODE_DIM),
                    DECODE_LAYERS * layer_bytes, make_steps, layers=DECODE_LAYERS)


def decode_layers_read_workload():
    """decode_layers' floor, timed the same way: one read of each of its weights (row sums)."""
    def make_steps():
        return steps_of(lambda *ws: [w.sum(1) for w in ws], *decode_layer_weights())

    return Workload("decode_layers_read", 0,
                    DECODE_LAYERS * bf16_bytes(DECODE_DIM * DECODE_DIM + DECODE_DIM), make_steps,
                    layers=DECODE_LAYERS)


ATTN_SHAPE = (8, 16, 1024, 128)  # attention: the block's heads at 8 x 1024 tokens


def sdpa_causal(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def attention_workload():
    def make_steps():
        q, k, v = (randn(ATTN_SHAPE, seed) for seed in (31, 32, 33))
        return steps_of(sdpa_causal, q, k, v)

    b, h, s, d = ATTN_SHAPE
    return Workload("attention", 2 * b * h * product_flops(s, s, d), bf16_bytes(4 * b * h * s * d),
                    make_steps)


def transformer_block_workload():
    def make_steps():
        x = randn((BATCH, SEQ, DIM), 20)
        return steps_of(block, x, block_weights(), *positions())

    activations = BATCH * SEQ * DIM
    weights = 4 * DIM * DIM + 3 * BLOCK_FFN_HIDDEN * DIM + 2 * DIM
    return Workload("transformer_block", block_flops(), bf16_bytes(2 * activations + weights),
                    make_steps)


def training_step(loss_fn, optimizer, x, target):
    """One step: gradients set to None, the loss, backward, the optimizer's update."""
    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(x, target)
        loss.backward()
        optimizer.step()
        return loss
    return step


# mlp_train (issue 16): bench_matmul.cpp's constants.
TRAIN_BATCH, TRAIN_WIDTH, TRAIN_LAYERS = 8192, 4096, 4


def mlp_train_workload():
    """One training step: f32 master weights under bf16 autocast, gelu_tanh between 4 linear
    layers, a mean-square loss, backward and a fused AdamW step, as bench_matmul's mlp_train."""
    def make_steps():
        x = randn((TRAIN_BATCH, TRAIN_WIDTH), 30)
        target = randn((TRAIN_BATCH, TRAIN_WIDTH), 31)
        steps = {}
        for name in ("torch_eager", "torch_compile"):
            layers = torch.nn.ModuleList(
                torch.nn.Linear(TRAIN_WIDTH, TRAIN_WIDTH, device=DEVICE)
                for _ in range(TRAIN_LAYERS))
            optimizer = torch.optim.AdamW(layers.parameters(), lr=1e-4, weight_decay=0.01,
                                          fused=True)

            def loss_of(x, target, layers=layers):
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    h = x
                    for i, layer in enumerate(layers):
                        h = layer(h)
                        if i + 1 < len(layers):
                            h = F.gelu(h, approximate="tanh")
                    return torch.mean(torch.square((h - target).float()))

            loss_fn = peers.compiled(loss_of) if name == "torch_compile" else loss_of

            steps[name] = training_step(loss_fn, optimizer, x, target)
        return steps
    params = TRAIN_LAYERS * (TRAIN_WIDTH * TRAIN_WIDTH + TRAIN_WIDTH)
    return Workload("mlp_train",
                    (3 * TRAIN_LAYERS - 1) * product_flops(TRAIN_BATCH, TRAIN_WIDTH, TRAIN_WIDTH),
                    bf16_bytes(2 * TRAIN_BATCH * TRAIN_WIDTH) + 6 * 4 * params, make_steps)


def block_train_workload():
    """One training step of the block: its seven weights in f32, cast to bf16 inside the loss
    (as bench_matmul's block_train does), a mean-square loss against a random target, backward
    and a fused AdamW step."""
    def make_steps():
        x = randn((BATCH, SEQ, DIM), 20)
        target = randn((BATCH, SEQ, DIM), 21)
        cos, sin, causal = positions()
        steps = {}
        for name in ("torch_eager", "torch_compile"):
            params = {k: torch.nn.Parameter(v.float()) for k, v in block_weights().items()}
            optimizer = torch.optim.AdamW(params.values(), lr=1e-4, weight_decay=0.01, fused=True)

            def loss_of(x, target, params=params):
                w = {k: v.to(DTYPE) for k, v in params.items()}
                return torch.mean(torch.square((block(x, w, cos, sin, causal) - target).float()))

            loss_fn = peers.compiled(loss_of) if name == "torch_compile" else loss_of

            steps[name] = training_step(loss_fn, optimizer, x, target)
        return steps
    activations = BATCH * SEQ * DIM
    params = 4 * DIM * DIM + 3 * BLOCK_FFN_HIDDEN * DIM + 2 * DIM
    return Workload("block_train", 3 * block_flops(), bf16_bytes(2 * activations) + 6 * 4 * params,
                    make_steps)


WORKLOAD_NAMES = ["gemm_gelu", "swiglu_ffn", "decode_linear", "decode_weight_read",
                  "decode_layers", "decode_layers_read", "attention",
                  "transformer_block", "mlp_train", "block_train"]


def peak_memory(step):
    """(max allocated over one call, that less what was allocated before it)."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    result = step()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    del result
    return peak, peak - before


def loop_us_per_call(step):
    """Each call waits for its result before the next is dispatched, as a decode loop does."""
    for _ in range(peers.WARMUP_ITERS):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(DECODE_LOOP_CALLS):
        step()
        torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e6 / DECODE_LOOP_CALLS


def tflops(flops, ms):
    return flops / (ms * 1e9)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=peers.DEFAULT_TIMED_ITERS)
    parser.add_argument("--only", choices=WORKLOAD_NAMES)
    parser.add_argument("--json", default="peers_matmul.json")
    args = parser.parse_args()
    if args.iters < 1:
        parser.error("--iters needs a positive count")
    if not torch.cuda.is_available():
        print("peers_matmul.py: no CUDA device; nothing to time")
        return 0

    workloads = [gemm_gelu_workload(), swiglu_ffn_workload(), decode_linear_workload(),
                 decode_weight_read_workload(), decode_layers_workload(),
                 decode_layers_read_workload(), attention_workload(),
                 transformer_block_workload(), mlp_train_workload(), block_train_workload()]
    if args.only:
        workloads = [w for w in workloads if w.name == args.only]

    device_name = torch.cuda.get_device_name()
    print(f"device: {device_name}, torch {torch.__version__}")
    copy_gbps = peers.copy_bandwidth_gbps()
    print(f"copy bandwidth: {copy_gbps:.0f} GB/s")

    json_rows = []
    for workload in workloads:
        steps = workload.make_steps()
        for impl in ("torch_compile", "torch_eager"):
            label = f"{workload.name} {impl}"
            ms = peers.measure(steps[impl], args.iters, label)
            peak, extra = peak_memory(steps[impl])
            loop_us = loop_us_per_call(steps[impl]) if workload.per_call_loop else None
            rate = peers.gbps(workload.bytes, ms)
            print(f"{label:<32} {ms:9.3f} ms  {tflops(workload.flops, ms):7.1f} TFLOP/s  "
                  f"{rate:6.0f} GB/s  peak {peak / 1e6:.0f} MB ({extra / 1e6:.0f} MB over the "
                  "inputs)")
            if workload.layers > 1:
                print(f"{label + ' layer':<32} {1e3 * ms / workload.layers:9.1f} us per layer")
            if loop_us is not None:
                print(f"{label + ' loop':<32} {loop_us:9.1f} us per call waiting for each result")
            json_rows.append({"workload": workload.name, "dtype": peers.dtype_name(DTYPE),
                              "impl": impl, "median_ms": ms, "layers": workload.layers,
                              "us_per_layer": 1e3 * ms / workload.layers,
                              "tflops": tflops(workload.flops, ms),
                              "flops": workload.flops, "gbps": rate,
                              "pct_copy": 100 * rate / copy_gbps, "bytes": workload.bytes,
                              "peak_bytes": peak, "peak_extra_bytes": extra, "loop_us": loop_us})
        del steps  # frees the inputs before the next workload's
        torch.cuda.empty_cache()

    with open(args.json, "w") as f:
        json.dump({"device": device_name, "torch": torch.__version__, "copy_gbps": copy_gbps,
                   "rows": json_rows}, f, indent=1)
        f.write("\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
