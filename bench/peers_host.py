#!/usr/bin/env python3
"""Issue 15's host-bound steps in PyTorch, timed as bench/bench_host.cpp times lazyfuse.

step64: 64 pointwise ops on [4096] f32; block: rounds of a row softmax and the column mean taken
out of it on [16, 64] f32. Each in eager, torch.compile (default) and
torch.compile(mode="reduce-overhead"), timed two ways: us_per_step, the median over repeats of
(wall time of 200 steps, then torch.cuda.synchronize()) / 200; host_us, the median wall time of
one call alone, the GPU drained every 8 calls.
lengths: softmax then layer_norm on [64, L] f32, L random from 1 to 4096 each step (varying) or
2048 (fixed), in eager and torch.compile: the median step, its GPU work waited for, as
bench_host's lengths rows (torch.compile recompiles for a second length, dynamically, first).

    python3 bench/peers_host.py [--iters N] [--only WORKLOAD] [--json PATH]
"""

import argparse
import json
import statistics
import time

import torch

STEPS = 200
CHAIN_OPS = 64
BLOCK_ROUNDS = 6
WARMUP_STEPS = 20
HOST_BATCH = 8


def chain64(x):
    for _ in range(CHAIN_OPS // 8):
        s = torch.sigmoid(x * 1.01 + 0.1) - 0.25
        x = torch.tanh(s) * 0.9 + x
        x = torch.exp(x) * 0.5
    return x


def block(x):
    for _ in range(BLOCK_ROUNDS):
        s = torch.softmax(x * 1.5, -1)
        x = s - s.mean(0, keepdim=True) + x * 0.5
    return x


def time_steps(fn, x, repeats):
    for _ in range(WARMUP_STEPS):
        fn(x)
    torch.cuda.synchronize()
    per_step = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(STEPS):
            y = fn(x)
        float(y.sum())
        per_step.append((time.perf_counter() - start) / STEPS)
    host = []
    for _ in range(repeats * STEPS // HOST_BATCH):
        for _ in range(HOST_BATCH):
            start = time.perf_counter()
            fn(x)
            host.append(time.perf_counter() - start)
        torch.cuda.synchronize()
    return statistics.median(per_step), statistics.median(host)


LENGTH_STEPS = 200
LENGTH_ROWS = 64
MAX_LENGTH = 4096


def softmax_layer_norm(x, w, b):
    return torch.nn.functional.layer_norm(torch.softmax(x * 1.5, -1), (x.shape[-1],), w, b)


def length_rows(rows):
    generator = torch.Generator().manual_seed(12345)
    for impl, fn in (("torch_eager", softmax_layer_norm), ("torch_compile", torch.compile(softmax_layer_norm))):
        for varying in (True, False):
            lengths = [int(torch.randint(1, MAX_LENGTH + 1, (1,), generator=generator)) if varying
                       else MAX_LENGTH // 2 for _ in range(LENGTH_STEPS)]
            inputs = [(torch.randn(LENGTH_ROWS, n, device="cuda"), torch.randn(n, device="cuda"),
                       torch.randn(n, device="cuda")) for n in lengths]
            for x, w, b in inputs[:3] + [(torch.randn(LENGTH_ROWS, 7, device="cuda"),
                                          torch.randn(7, device="cuda"), torch.randn(7, device="cuda"))]:
                fn(x, w, b)  # the static and the dynamic compile
            torch.cuda.synchronize()
            steps = []
            for x, w, b in inputs:
                start = time.perf_counter()
                fn(x, w, b)
                torch.cuda.synchronize()
                steps.append(time.perf_counter() - start)
            rows.append({"workload": "lengths", "impl": impl + ("_varying" if varying else "_fixed"),
                         "unit": "us_per_step", "value": statistics.median(steps) * 1e6})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--only")
    parser.add_argument("--json", default="peers_host.json")
    args = parser.parse_args()
    repeats = max(3, args.iters // 5)
    workloads = {
        "step64": (chain64, torch.randn(4096, device="cuda")),
        "block": (block, torch.randn(16, 64, device="cuda")),
    }
    rows = []
    if not args.only or args.only == "lengths":
        length_rows(rows)
    for name, (fn, x) in workloads.items():
        if args.only and args.only != name:
            continue
        impls = {
            "torch_eager": fn,
            "torch_compile": torch.compile(fn),
            "torch_reduce_overhead": torch.compile(fn, mode="reduce-overhead"),
        }
        for impl, compiled in impls.items():
            per_step, host = time_steps(compiled, x, repeats)
            rows.append({"workload": name, "impl": impl, "unit": "us_per_step", "value": per_step * 1e6})
            rows.append({"workload": name, "impl": impl, "unit": "host_us", "value": host * 1e6})
    print(torch.cuda.get_device_name())
    for row in rows:
        print(f"{row['workload']:<10} {row['impl']:<22} {row['value']:10.3f}  {row['unit']}")
    with open(args.json, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
