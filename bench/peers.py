#!/usr/bin/env python3
"""Issue 3's, 5's and 14's workloads (bench/peers_indexing.py) in PyTorch, eager and torch.compile, as bench_fusion times lazyfuse.

Same shapes, dtypes and formulas as bench/bench_fusion.cpp; each call is timed with CUDA events
around it, median over iterations after warm-up (torch.compile compiles during warm-up). As
triton.testing.do_bench does, a 256 MB memset is queued before each timed call: it flushes L2 and
keeps the GPU busy while the host dispatches, so the time measured is the GPU's. Copy bandwidth
is measured first, in the same process.

    python3 bench/peers.py [--iters N] [--only WORKLOAD] [--json PATH]

bench/compare.py puts the result beside bench_fusion's.
"""

import argparse
import json
import statistics
import sys

import torch
import torch._dynamo.utils
import torch.nn.functional as F

import peers_indexing

# Copy bandwidth: a buffer far larger than L2 (50 MB on H100), so the copy streams from HBM.
COPY_BYTES = 1 << 30
COPY_WARMUP_ITERS = 3
COPY_TIMED_ITERS = 20

# Iterations before timing: the first compiles, the rest settle the allocator and clocks.
WARMUP_ITERS = 5
DEFAULT_TIMED_ITERS = 50

# Shapes from issue 3 (the same constants as bench_fusion.cpp).
CHAIN4_ROWS, CHAIN4_COLS = 16384, 4096
CHAIN16_ELEMENTS = 1 << 26
CHAIN16_ROUNDS = 4
SWIGLU_ROWS, SWIGLU_COLS = 8192, 11008  # Llama-7B's MLP width
ADAM_PARAMS = 1 << 26

# Shapes from issue 5 (the same constants as bench_fusion.cpp).
SOFTMAX_ROWS, SOFTMAX_COLS = 8192, 8192
NORM_ROWS, NORM_COLS = 16384, 4096  # layernorm and add_rmsnorm
LAYER_NORM_EPS = 1e-5
RMS_NORM_EPS = 1e-6
SUM_ROWS, SUM_COLS = 16384, 4096  # sum_axis0 and sum_all
SOFTMAX_LONG_ROWS, SOFTMAX_LONG_COLS = 64, 1 << 20

# torch.optim.Adam's defaults, except a learning rate typical of training.
ADAM_LR, ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 1e-3, 0.9, 0.999, 1e-8

DEVICE = "cuda"


def chain4(x, bias, residual):
    return F.gelu((x + bias) * 1.2, approximate="tanh") + residual


def chain16(x):
    for _ in range(CHAIN16_ROUNDS):
        x = torch.sigmoid(x * 1.01 + 0.1) - 0.25
        x = torch.tanh(x) * 0.9
    return x


def swiglu(gate, up):
    return F.silu(gate) * up


def adam_step(p, g, m, v, correction1, correction2):
    m_next = ADAM_BETA1 * m + (1 - ADAM_BETA1) * g
    v_next = ADAM_BETA2 * v + (1 - ADAM_BETA2) * g * g
    p_next = p - ADAM_LR * (m_next * correction1) / (torch.sqrt(v_next * correction2) + ADAM_EPS)
    return p_next, m_next, v_next


def softmax(x):
    return torch.softmax(x, -1)


def layernorm(x, weight, bias):
    return F.layer_norm(x, (NORM_COLS,), weight, bias, LAYER_NORM_EPS)


def add_rmsnorm(x, residual, weight):
    # Written out: F.rms_norm is absent from older PyTorch. Both outputs are kept.
    h = x + residual
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + RMS_NORM_EPS) * weight
    return h, y


def sum_axis0(x):
    return x.sum(0)


def sum_all(x):
    return x.sum()


def bias_corrections(t):
    return 1.0 / (1.0 - ADAM_BETA1**t), 1.0 / (1.0 - ADAM_BETA2**t)


def randn(shape, seed, dtype):
    generator = torch.Generator(device=DEVICE).manual_seed(seed)
    return torch.randn(shape, generator=generator, dtype=dtype, device=DEVICE)


def itemsize(dtype):
    return torch.empty((), dtype=dtype).element_size()


class Workload:
    """A workload's inputs and, per implementation, a zero-argument step that runs it once."""

    def __init__(self, name, dtype, nbytes, make_steps):
        self.name = name
        self.dtype = dtype
        self.bytes = nbytes  # fewest bytes moved: each input read once, each output written once
        self.make_steps = make_steps  # () -> {"torch_eager": step, "torch_compile": step}


def compiled(fn):
    # Default mode; dynamic=False keeps shapes static, as lazyfuse's kernels are.
    return torch.compile(fn, fullgraph=True, dynamic=False)


def chain4_workload(dtype):
    n = CHAIN4_ROWS * CHAIN4_COLS

    def make_steps():
        x = randn((CHAIN4_ROWS, CHAIN4_COLS), 1, dtype)
        bias = randn((CHAIN4_COLS,), 2, dtype)
        residual = randn((CHAIN4_ROWS, CHAIN4_COLS), 3, dtype)
        fused = compiled(chain4)
        return {
            "torch_eager": lambda: chain4(x, bias, residual),
            "torch_compile": lambda: fused(x, bias, residual),
        }

    return Workload("chain4", dtype, (2 * n + CHAIN4_COLS + n) * itemsize(dtype), make_steps)


def chain16_workload():
    dtype = torch.float32

    def make_steps():
        x = randn((CHAIN16_ELEMENTS,), 4, dtype)
        fused = compiled(chain16)
        return {"torch_eager": lambda: chain16(x), "torch_compile": lambda: fused(x)}

    return Workload("chain16", dtype, 2 * CHAIN16_ELEMENTS * itemsize(dtype), make_steps)


def swiglu_workload():
    dtype = torch.bfloat16

    def make_steps():
        gate = randn((SWIGLU_ROWS, SWIGLU_COLS), 5, dtype)
        up = randn((SWIGLU_ROWS, SWIGLU_COLS), 6, dtype)
        fused = compiled(swiglu)
        return {"torch_eager": lambda: swiglu(gate, up), "torch_compile": lambda: fused(gate, up)}

    return Workload("swiglu", dtype, 3 * SWIGLU_ROWS * SWIGLU_COLS * itemsize(dtype), make_steps)


def adam_workload():
    """One Adam step; p, m, v stay fixed across iterations but the step counter advances, so
    the bias corrections change every iteration as in training."""
    dtype = torch.float32

    def make_steps():
        p = randn((ADAM_PARAMS,), 7, dtype)
        g = randn((ADAM_PARAMS,), 8, dtype)
        m = randn((ADAM_PARAMS,), 9, dtype)
        v = randn((ADAM_PARAMS,), 10, dtype).square()  # the second moment is non-negative
        step = {"torch_eager": 0, "torch_compile": 0}

        def eager():
            step["torch_eager"] += 1
            # Eager takes Python floats as kernel arguments: nothing to specialize on.
            return adam_step(p, g, m, v, *bias_corrections(step["torch_eager"]))

        # Dynamo guards on a Python float argument's value when it first compiles, and with
        # dynamic=False (no automatic dynamic) always: new bias corrections every step would
        # recompile, and past the recompile limit run eagerly. 0-d CUDA tensors are graph inputs
        # whose values are never guarded; fill_ updates them in place with one small kernel each
        # (no host-to-device copy), timed as part of the step.
        corrections = (torch.zeros((), dtype=dtype, device=DEVICE),
                       torch.zeros((), dtype=dtype, device=DEVICE))
        fused = compiled(adam_step)

        def compiled_step():
            step["torch_compile"] += 1
            for tensor, value in zip(corrections, bias_corrections(step["torch_compile"])):
                tensor.fill_(value)
            return fused(p, g, m, v, *corrections)

        return {"torch_eager": eager, "torch_compile": compiled_step}

    return Workload("adam", dtype, 7 * ADAM_PARAMS * itemsize(dtype), make_steps)


def softmax_workload(dtype, long_rows=False):
    """softmax over the last axis: issue 5's [8192, 8192], or softmax_long's few long rows."""
    rows, cols = (SOFTMAX_LONG_ROWS, SOFTMAX_LONG_COLS) if long_rows else (SOFTMAX_ROWS,
                                                                          SOFTMAX_COLS)

    def make_steps():
        x = randn((rows, cols), 12 if long_rows else 11, dtype)
        fused = compiled(softmax)
        return {"torch_eager": lambda: softmax(x), "torch_compile": lambda: fused(x)}

    name = "softmax_long" if long_rows else "softmax"
    return Workload(name, dtype, 2 * rows * cols * itemsize(dtype), make_steps)


def layernorm_workload(dtype):
    n = NORM_ROWS * NORM_COLS

    def make_steps():
        x = randn((NORM_ROWS, NORM_COLS), 13, dtype)
        weight = randn((NORM_COLS,), 14, dtype)
        bias = randn((NORM_COLS,), 15, dtype)
        fused = compiled(layernorm)
        return {
            "torch_eager": lambda: layernorm(x, weight, bias),
            "torch_compile": lambda: fused(x, weight, bias),
        }

    return Workload("layernorm", dtype, (2 * n + 2 * NORM_COLS) * itemsize(dtype), make_steps)


def add_rmsnorm_workload():
    """A residual add feeding rms_norm, as in a transformer block: h (the next block's residual)
    and y are both outputs."""
    dtype = torch.float32
    n = NORM_ROWS * NORM_COLS

    def make_steps():
        x = randn((NORM_ROWS, NORM_COLS), 16, dtype)
        residual = randn((NORM_ROWS, NORM_COLS), 17, dtype)
        weight = randn((NORM_COLS,), 18, dtype)
        fused = compiled(add_rmsnorm)
        return {
            "torch_eager": lambda: add_rmsnorm(x, residual, weight),
            "torch_compile": lambda: fused(x, residual, weight),
        }

    return Workload("add_rmsnorm", dtype, (4 * n + NORM_COLS) * itemsize(dtype), make_steps)


def sum_axis0_workload():
    dtype = torch.float32

    def make_steps():
        x = randn((SUM_ROWS, SUM_COLS), 19, dtype)
        fused = compiled(sum_axis0)
        return {"torch_eager": lambda: sum_axis0(x), "torch_compile": lambda: fused(x)}

    return Workload("sum_axis0", dtype, (SUM_ROWS * SUM_COLS + SUM_COLS) * itemsize(dtype),
                    make_steps)


def sum_all_workload():
    dtype = torch.float32

    def make_steps():
        x = randn((SUM_ROWS, SUM_COLS), 20, dtype)
        fused = compiled(sum_all)
        return {"torch_eager": lambda: sum_all(x), "torch_compile": lambda: fused(x)}

    return Workload("sum_all", dtype, (SUM_ROWS * SUM_COLS + 1) * itemsize(dtype), make_steps)


WORKLOAD_NAMES = ["chain4", "chain16", "swiglu", "adam", "softmax", "layernorm", "add_rmsnorm",
                  "sum_axis0", "sum_all", "softmax_long"]

FLUSH_BYTES = 256 << 20  # more than L2 (50 MB on H100, 60 MB on H200)


def time_ms(fn, iters):
    """Median CUDA-event time of fn(); its result stays alive until the stop event is queued."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=DEVICE)
    samples = []
    for _ in range(iters):
        flush.zero_()
        start.record()
        result = fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
        del result
    return statistics.median(samples)


def copy_bandwidth_gbps():
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device=DEVICE)
    dst = torch.empty_like(src)
    for _ in range(COPY_WARMUP_ITERS):
        dst.copy_(src)
    torch.cuda.synchronize()
    ms = time_ms(lambda: dst.copy_(src), COPY_TIMED_ITERS)
    return 2 * COPY_BYTES / (ms * 1e6)  # bytes read + bytes written


def compiled_graphs():
    return torch._dynamo.utils.counters["stats"]["unique_graphs"]


def measure(step, iters, label):
    for _ in range(WARMUP_ITERS):
        step()
    torch.cuda.synchronize()
    graphs_before = compiled_graphs()
    ms = time_ms(step, iters)
    if compiled_graphs() != graphs_before:
        print(f"warning: {label} compiled {compiled_graphs() - graphs_before} graph(s) while "
              "timed: the loop does not replay", file=sys.stderr)
    return ms


def gbps(nbytes, ms):
    return nbytes / (ms * 1e6)


def dtype_name(dtype):
    return {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}[dtype]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=DEFAULT_TIMED_ITERS)
    parser.add_argument("--only", choices=WORKLOAD_NAMES + peers_indexing.WORKLOAD_NAMES)
    parser.add_argument("--json", default="peers.json")
    args = parser.parse_args()
    if args.iters < 1:
        parser.error("--iters needs a positive count")
    if not torch.cuda.is_available():
        print("peers.py: no CUDA device; nothing to time")
        return 0

    workloads = [chain4_workload(torch.float32), chain4_workload(torch.bfloat16),
                 chain16_workload(), swiglu_workload(), adam_workload(),
                 softmax_workload(torch.float32), softmax_workload(torch.bfloat16),
                 layernorm_workload(torch.float32), layernorm_workload(torch.bfloat16),
                 add_rmsnorm_workload(), sum_axis0_workload(), sum_all_workload(),
                 softmax_workload(torch.float32, long_rows=True)] + peers_indexing.workloads()
    if args.only:
        workloads = [w for w in workloads if w.name == args.only]

    device_name = torch.cuda.get_device_name()
    print(f"device: {device_name}, torch {torch.__version__}")
    copy_gbps = copy_bandwidth_gbps()
    print(f"copy bandwidth: {copy_gbps:.0f} GB/s")

    rows = []  # (workload, dtype, bytes, {impl: ms})
    for workload in workloads:
        dtype = dtype_name(workload.dtype)
        steps = workload.make_steps()
        times = {}
        for impl in ("torch_compile", "torch_eager"):
            label = f"{workload.name} {dtype} {impl}"
            times[impl] = measure(steps[impl], args.iters, label)
            print(f"{label:<32} {times[impl]:9.3f} ms  {gbps(workload.bytes, times[impl]):7.0f} GB/s")
        rows.append((workload.name, dtype, workload.bytes, times))
        del steps  # frees the inputs before the next workload's
        torch.cuda.empty_cache()

    json_rows = []
    for name, dtype, nbytes, times in rows:
        for impl in ("torch_compile", "torch_eager"):
            rate = gbps(nbytes, times[impl])
            json_rows.append({"workload": name, "dtype": dtype, "impl": impl,
                              "median_ms": times[impl], "gbps": rate,
                              "pct_copy": 100 * rate / copy_gbps, "bytes": nbytes})
    with open(args.json, "w") as f:
        json.dump({"device": device_name, "torch": torch.__version__, "copy_gbps": copy_gbps,
                   "rows": json_rows}, f, indent=1)
        f.write("\n")
    print(f"wrote {args.json}")

    print(f"\ncopy bandwidth: {copy_gbps:.0f} GB/s (read + write)")
    print(f"{'workload':<12} {'dtype':<5} {'compile ms':>10} {'eager ms':>9} {'GB/s':>10} "
          f"{'% copy':>9} {'speedup':>8}")
    for name, dtype, nbytes, times in rows:
        rate = gbps(nbytes, times["torch_compile"])
        print(f"{name:<12} {dtype:<5} {times['torch_compile']:10.3f} {times['torch_eager']:9.3f} "
              f"{rate:10.0f} {100 * rate / copy_gbps:8.1f}% "
              f"{times['torch_eager'] / times['torch_compile']:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
