#!/usr/bin/env python3
"""PyTorch's side of bench_memory: one Adam step over 2^26 f32 parameters, updating p, m and v in
place as torch.optim's fused and foreach Adam do, in eager mode and through torch.compile. Prints
the median time (L2 flushed, as peers.py times) and the peak of torch.cuda.max_memory_allocated
over one step as a multiple of the state (p, g, m, v).
    python3 peers_memory.py [--iters N]"""
import argparse

import torch

from peers import (ADAM_BETA1, ADAM_BETA2, ADAM_EPS, ADAM_LR, DEVICE, bias_corrections, compiled,
                   copy_bandwidth_gbps, measure, randn)

PARAMS = 1 << 26


def adam_step_inplace(p, g, m, v, correction1, correction2):
    m.mul_(ADAM_BETA1).add_(g, alpha=1 - ADAM_BETA1)
    v.mul_(ADAM_BETA2).addcmul_(g, g, value=1 - ADAM_BETA2)
    p.sub_(ADAM_LR * (m * correction1) / (torch.sqrt(v * correction2) + ADAM_EPS))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=50)
    args = parser.parse_args()
    copy_gbps = copy_bandwidth_gbps()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"copy bandwidth: {copy_gbps:.0f} GB/s")
    state_bytes = 4 * PARAMS * 4
    for label in ("torch_eager", "torch_compile"):
        p, g = randn((PARAMS,), 1, torch.float32), randn((PARAMS,), 2, torch.float32)
        m, v = torch.zeros_like(p), torch.zeros_like(p)
        # 0-d tensors, so that torch.compile does not specialize on the corrections (peers.py).
        corrections = (torch.zeros((), device=DEVICE), torch.zeros((), device=DEVICE))
        fn = compiled(adam_step_inplace) if label == "torch_compile" else adam_step_inplace
        count = [0]

        def step():
            count[0] += 1
            for tensor, value in zip(corrections, bias_corrections(count[0])):
                tensor.fill_(value)
            fn(p, g, m, v, *corrections)

        ms = measure(step, args.iters, label)
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        step()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
        gbps = 7 * PARAMS * 4 / (ms * 1e6)
        print(f"adam_inplace {label}: {ms:.3f} ms, {gbps:.0f} GB/s ({100 * gbps / copy_gbps:.0f}% "
              f"of copy); peak {peak / 1e6:.0f} MB = {peak / state_bytes:.3f}x the state "
              f"({state_bytes / 1e6:.0f} MB; {before / 1e6:.0f} MB held before the step)")
        del p, g, m, v


if __name__ == "__main__":
    main()
