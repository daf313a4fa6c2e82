#!/usr/bin/env python3
"""Checks the fuzzer's random programs against PyTorch, op by op.

lazyfuse-fuzz compares the GPU with our own reference evaluator, so a meaning both get wrong
passes it. This script runs `lazyfuse-fuzz --export` (tools/fuzz/export.h), which records each
program with every step held and writes what lazyfuse computed, then runs every step in PyTorch
on lazyfuse's values of the step's inputs and compares dtype, shape and values. Each step is
checked on its own, so a difference names the op that made it.

    python3 tools/fuzz/torch_check.py --fuzz build/tools/lazyfuse-fuzz --seed 17400 --count 500

With --fuzz-args=--gradients each step's gradient is compared with PyTorch's autograd as well
(torch_check_gradients.py).

Values agree within the step's bounds (tools/fuzz/bounds.h: twice the error bound lazyfuse may
have, plus 2^(2 - significand bits) of the value, two to four ulps), NaN where NaN, and exactly
where the bounds say the value is exact; where both are zero, the sign of the zero for pointwise
ops and data movement (SIGNED_ZEROS). PyTorch refusing what lazyfuse accepts, and the differences
docs/semantics.md lists as deliberate, are counted apart, not failed.
"""

import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings

# Kernels run synchronously, so that a fault in one of PyTorch's names the step that launched it.
os.environ.setdefault("CUDA_LAUNCH_BLOCKING", "1")

import torch  # noqa: E402

import torch_check_gradients  # noqa: E402
from torch_ops import DTYPES, number_of, run_step, tiny_half_rows

SIGNIFICAND_BITS = {torch.float32: 24, torch.float16: 11, torch.bfloat16: 8}

# Ops whose zeros must carry PyTorch's sign: pointwise ones and data movement. Sums, products,
# scans and norms are left out (their signs of zero follow the order of additions); `relu(-0)` is
# +0 by design (docs/semantics.md).
SIGNED_ZEROS = {"unary", "binary", "where", "clamp", "lerp", "cast", "reshape", "permute",
                "expand", "slice", "squeeze", "unsqueeze", "contiguous", "join", "gather",
                "triangle", "masked_fill", "tiling", "strided_view"}


def excused(step, inputs, ours):
    """Elements where docs/semantics.md says lazyfuse deliberately differs from PyTorch."""
    op, name = step["op"], step["name"]
    x = inputs[0] if inputs and torch.is_tensor(inputs[0]) else None
    if op == "scatter" and name == "scatter":
        # A repeated index keeps the last position's value (PyTorch leaves it undefined).
        index = inputs[1].long()
        hits = torch.zeros(ours.shape, dtype=torch.int64, device=ours.device)
        hits.scatter_add_(step["axis"], index, torch.ones_like(index))
        return hits > 1
    if op == "scan" and name in ("cummax_indices", "cummin_indices") and x.is_floating_point():
        # Once a NaN is met, lazyfuse keeps its index where PyTorch moves to later NaNs.
        return torch.cumsum(torch.isnan(x).int(), step["axis"] % max(x.dim(), 1)) > 0 \
            if x.dim() else torch.isnan(x)
    if op == "cast" and x.is_floating_point() and not ours.is_floating_point():
        return torch.isnan(x)  # NaN casts to integer 0 (PyTorch: -2^63 for i64)
    tiny = tiny_half_rows(step, inputs)
    if tiny is not None:
        return tiny.expand(ours.shape) if name == "normalize" else tiny.squeeze(step["axis"])
    if op == "unary" and name == "gelu" and x.is_floating_point():
        return ~torch.isfinite(x) | (x.abs() > 1e30)  # gelu(inf) is inf (PyTorch: NaN)
    return torch.zeros_like(ours, dtype=torch.bool)


def accumulated_terms(step, inputs):
    """How many values an element of an accumulating step (scan, scatter_add) adds up."""
    op, name = step["op"], step["name"]
    if op == "scan" and name in ("cumsum", "cumprod") and inputs[0].dim():
        return inputs[0].shape[step["axis"]]
    if op == "scatter" and name in ("scatter_add", "index_add") and inputs[1].dim():
        return inputs[1].shape[0 if name == "index_add" else step["axis"]] + 1
    return 0


def compare(step, inputs, ours, theirs):
    """The first element that differs beyond the bounds, described; None when all agree."""
    result = step["result"]
    bounds = result["bounds"]
    if theirs.dtype != ours.dtype:
        return f"dtype: lazyfuse {result['dtype']}, PyTorch {theirs.dtype}"
    if list(theirs.shape) != list(ours.shape):
        return f"shape: lazyfuse {list(ours.shape)}, PyTorch {list(theirs.shape)}"
    if bounds["unchecked"] or ours.numel() == 0:
        return None
    if (step["op"] == "top_k" and step["name"] == "topk_indices") or (
            step["op"] == "order_statistic" and step["name"].endswith("_indices")):
        # Ties may pick other positions: the values the indices pick must be the same.
        x, axis = inputs[0], step["axis"]
        if x.dim():
            kept = step["op"] == "top_k" or step["keepdim"]
            ours, theirs = (ours.long(), theirs.long()) if kept else (
                ours.long().unsqueeze(axis), theirs.long().unsqueeze(axis))
            ours = torch.take_along_dim(x, ours, dim=axis)
            theirs = torch.take_along_dim(x, theirs, dim=axis)
        bounds = dict(bounds, err=0)
    skip = excused(step, inputs, ours).flatten()
    if not ours.is_floating_point():
        bad = (ours.flatten() != theirs.flatten()) & ~skip
        if not bool(bad.any()):
            return None
        k = int(bad.nonzero()[0])
        return (f"{int(bad.sum())} of {ours.numel()} elements differ; element {k}: lazyfuse "
                f"{ours.flatten()[k].item()}, PyTorch {theirs.flatten()[k].item()}")
    r = ours.double().flatten()
    t = theirs.double().flatten()
    err = bounds["err"]
    dtype = ours.dtype
    terms = accumulated_terms(step, inputs)
    if terms and dtype in (torch.float16, torch.bfloat16):
        # PyTorch rounds every partial sum (or atomic add) of f16 and bf16 to the dtype, where
        # lazyfuse adds in f32 and rounds once (docs/semantics.md): allow a rounding a term.
        err += terms * max(abs(bounds["lo"]), abs(bounds["hi"])) * 2.0**-SIGNIFICAND_BITS[dtype]
    special = bounds["special"] and err > 0
    either_special = ~torch.isfinite(r) | ~torch.isfinite(t)
    if bounds["specials_may_differ"]:
        skip = skip | either_special
    if special:
        skip = skip | (~torch.isfinite(r) & ~torch.isfinite(t))
    nan_mismatch = torch.isnan(r) != torch.isnan(t)
    both_nan = torch.isnan(r) & torch.isnan(t)
    inf_mismatch = (torch.isinf(r) | torch.isinf(t)) & (r != t) & ~torch.isnan(r) & ~torch.isnan(t)
    if err == 0:
        slack = torch.zeros_like(r)
        far = (r != t) & ~both_nan
    else:
        bits = SIGNIFICAND_BITS.get(dtype, 53)
        slack = 2 * err + 2 * torch.clamp(r.abs(), min=1e-300) * 2.0**-(bits - 1)
        far = ((r - t).abs() > slack) & torch.isfinite(r) & torch.isfinite(t)
    bad = far | nan_mismatch | inf_mismatch
    if step["op"] in SIGNED_ZEROS and step["name"] != "relu":
        bad = bad | ((r == 0) & (t == 0) & (torch.signbit(r) != torch.signbit(t)))
    bad = bad & ~skip
    if not bool(bad.any()):
        return None
    k = int(bad.nonzero()[0])
    return (f"{int(bad.sum())} of {r.numel()} elements differ; element {k}: lazyfuse "
            f"{float(r[k])!r}, PyTorch {float(t[k])!r} (tolerance {float(slack[k]):.3g})")


def load_values(values, result, device):
    dtype = DTYPES[result["dtype"]]
    count = math.prod(result["shape"])
    raw = torch.frombuffer(values, dtype=torch.float64 if dtype.is_floating_point else torch.int64,
                           count=count, offset=result["offset"]) if count else torch.zeros(0)
    return raw.to(dtype).reshape(result["shape"]).to(device)


def step_label(step):
    return step["name"] or step["op"]


def check_step(step, inputs, ours, device):
    """What differs between lazyfuse's result of a step and PyTorch's on `device`, or None."""
    try:
        theirs = run_step(step, inputs, device)
    except torch.AcceleratorError:
        raise  # a fault in PyTorch's kernel, not a refusal: main names the step
    except (RuntimeError, TypeError, IndexError, ValueError) as e:
        return "refused: " + str(e).split("\n")[0][:90]
    return compare(step, inputs, ours, theirs)


class Tally:
    """What the checks found, over all programs."""

    def __init__(self):
        self.compared = collections.Counter()  # steps, by op
        self.cpu_only = collections.Counter()  # steps only PyTorch's CPU kernels agree with
        self.refused = collections.Counter()  # (op, PyTorch's message)
        self.refused_example = {}  # (op, message): the first (program, step) refused so
        self.differences = []  # (seed, program, step, op, what differs)
        self.gradients_compared = collections.Counter()  # steps' gradients, by op
        self.no_gradient = collections.Counter()  # steps lazyfuse has no gradient for, by op


def check_program(program, values, device, tally):
    ours = []
    for i, step in enumerate(program["steps"]):
        try:
            check_program_step(program, i, step, ours, values, device, tally)
        except torch.AcceleratorError as e:
            # The CUDA context is lost with it: nothing after can run.
            sys.exit(f"torch_check: PyTorch's CUDA kernel failed at seed {program['seed']} "
                     f"program {program['index']} step t{i} {step_label(step)}: "
                     f"{str(e).splitlines()[0]}")


def check_program_step(program, i, step, ours, values, device, tally):
    """Checks step i (its value, and its gradient where exported), appending lazyfuse's value to
    `ours`."""
    mine = load_values(values, step["result"], device)
    ours.append(mine)
    if step["op"] in ("data", "rand", "randn"):
        return
    inputs = [ours[arg["step"]] if "step" in arg else number_of(arg) for arg in step["args"]]
    if mine.numel() == 0 and device != "cpu":
        # An empty result is a shape and a dtype only, and some of PyTorch's CUDA kernels fail
        # on one (replicate padding launches an empty grid: "invalid argument", which loses the
        # context for every program after): PyTorch's CPU kernels check it.
        inputs = [v.cpu() if torch.is_tensor(v) else v for v in inputs]
        mine, device = mine.cpu(), "cpu"
    label = step_label(step)
    problem = check_step(step, inputs, mine, device)
    if problem and device != "cpu":
        # PyTorch's CUDA kernels differ from its CPU ones in places (mixed-dtype norms, the
        # order of ties): either side of PyTorch agreeing counts.
        on_cpu = [v.cpu() if torch.is_tensor(v) else v for v in inputs]
        if check_step(step, on_cpu, mine.cpu(), "cpu") is None:
            tally.cpu_only[label] += 1
            problem = None
    if problem and problem.startswith("refused: "):
        key = (label, problem[len("refused: "):])
        tally.refused[key] += 1
        tally.refused_example.setdefault(key, (program["index"], i))
        return
    tally.compared[label] += 1
    if problem:
        tally.differences.append((program["seed"], program["index"], i, label, problem))
    if "grad" in step:
        torch_check_gradients.check(program, i, step, inputs, values, device, tally, run_step,
                                    load_values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fuzz", help="lazyfuse-fuzz executable: export the programs first")
    parser.add_argument("--dir", help="where the exported programs are (or go)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--fuzz-args", default="", help="more arguments for lazyfuse-fuzz")
    parser.add_argument("--show", type=int, default=20, help="failures printed in full")
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="torch_check_")
    if args.fuzz:
        os.makedirs(directory, exist_ok=True)
        command = [args.fuzz, "--export", directory, "--seed", str(args.seed), "--start",
                   str(args.start), "--count", str(args.count)] + args.fuzz_args.split()
        subprocess.run(command, check=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    warnings.filterwarnings("ignore")  # var's degrees of freedom <= 0: lazyfuse's rule agrees
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    with open(os.path.join(directory, "values.bin"), "rb") as f:
        values = bytearray(f.read())
    tally, sync_errors = Tally(), 0
    with open(os.path.join(directory, "programs.jsonl")) as f:
        programs = [json.loads(line) for line in f]
    for program in programs:
        if "error" in program:
            sync_errors += 1
            continue
        if "grad_error" in program:
            tally.differences.append((program["seed"], program["index"], -1, "gradient sync",
                                      program["grad_error"][:300]))
        check_program(program, values, device, tally)
    for seed, index, i, label, problem in tally.differences[:args.show]:
        print(f"DIFF seed {seed} program {index} step t{i} {label}: {problem}")
    print("steps PyTorch refused (op, message):")
    for (label, message), n in tally.refused.most_common():
        index, step = tally.refused_example[(label, message)]
        print(f"  {n:6d}  {label}: {message} (program {index} step t{step})")

    def by_op(counter):
        return ", ".join(f"{k} {v}" for k, v in counter.most_common()) or "none"

    print("agreeing with PyTorch's CPU kernels only: " + by_op(tally.cpu_only))
    print("differences by op: " + by_op(collections.Counter(d[3] for d in tally.differences)))
    if tally.gradients_compared or tally.no_gradient:
        print("gradients compared by op: " + by_op(tally.gradients_compared))
        print("no lazyfuse gradient: " + by_op(tally.no_gradient))
    print(f"torch_check: {len(programs)} programs ({sync_errors} whose sync failed), "
          f"{sum(tally.compared.values())} steps compared over {len(tally.compared)} ops, "
          f"{len(tally.differences)} differ, {sum(tally.refused.values())} refused by PyTorch; "
          f"device {device}, torch {torch.__version__}")
    return 1 if tally.differences else 0


if __name__ == "__main__":
    sys.exit(main())
