#!/usr/bin/env python3
"""lazyfuse (bench_fusion, bench_matmul) beside PyTorch (peers.py, peers_matmul.py), one table
per workload.

    python3 bench/compare.py [bench_fusion.json] [peers.json]
    python3 bench/compare.py bench_matmul.json peers_matmul.json

% copy is relative to the copy bandwidth that each run measured itself, so two runs on different
days (or clocks) still compare on how close each gets to the memory system's limit. Rows that
count flops (bench_matmul's) also show TFLOP/s, the peak memory over one call (MB, inputs
included) and that peak less the memory held before the call (+MB), and where measured the time
per call of a loop that waits for each result (loop us); "-" where a run has no value.
"""

import argparse
import json
import sys

IMPLS = [("lazyfuse", "lazyfuse"), ("lazyfuse_unfused", "lazyfuse unfused"),
         ("torch_eager", "torch eager"), ("torch_compile", "torch.compile")]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as error:
        sys.exit(f"compare.py: {error}")


def cell(value, width, digits=0):
    return f"{'-':>{width}}" if value is None else f"{value:{width}.{digits}f}"


def megabytes(nbytes):
    return None if nbytes is None else nbytes / 1e6


def print_bandwidth_rows(by_impl):
    print(f"  {'impl':<17} {'ms':>9} {'GB/s':>8} {'% copy':>8}")
    for impl, label in IMPLS:
        row = by_impl.get(impl)
        if row is None:
            print(f"  {label:<17} {'-':>9} {'-':>8} {'-':>8}")
            continue
        print(f"  {label:<17} {row['median_ms']:9.3f} {row['gbps']:8.0f} {row['pct_copy']:7.1f}%")


def print_product_rows(by_impl):
    looped = any(row.get("loop_us") is not None for row in by_impl.values())
    loop_header = f" {'loop us':>8} {'compiled':>8}" if looped else ""
    print(f"  {'impl':<17} {'ms':>9} {'TFLOP/s':>8} {'% copy':>8} {'peak MB':>8} {'+MB':>7}"
          f"{loop_header}")
    for impl, label in IMPLS:
        row = by_impl.get(impl, {})
        ms = row.get("median_ms")
        loop = (f" {cell(row.get('loop_us'), 8, 1)} {cell(row.get('compiled_loop_us'), 8, 1)}"
                if looped else "")
        print(f"  {label:<17} {cell(ms, 9, 3)} {cell(row.get('tflops'), 8, 1)} "
              f"{cell(row.get('pct_copy'), 7, 1)}{'%' if ms is not None else ' '} "
              f"{cell(megabytes(row.get('peak_bytes')), 8)} "
              f"{cell(megabytes(row.get('peak_extra_bytes')), 7, 1)}{loop}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lazyfuse_json", nargs="?", default="bench_fusion.json")
    parser.add_argument("peers_json", nargs="?", default="peers.json")
    args = parser.parse_args()
    runs = [load(args.lazyfuse_json), load(args.peers_json)]

    for run, path in zip(runs, (args.lazyfuse_json, args.peers_json)):
        extra = f", torch {run['torch']}" if "torch" in run else ""
        print(f"{path}: {run['device']}{extra}, copy {run['copy_gbps']:.0f} GB/s")
    if runs[0]["device"] != runs[1]["device"]:
        print("warning: the two runs are on different devices; compare % copy, not ms")

    # (workload, dtype) in the order bench_fusion ran them, then any that only peers.py ran.
    rows = {}
    for run in runs:
        for row in run["rows"]:
            rows.setdefault((row["workload"], row["dtype"]), {})[row["impl"]] = row

    for (workload, dtype), by_impl in rows.items():
        nbytes = next((r["bytes"] for r in by_impl.values() if "bytes" in r), None)
        flops = next((r["flops"] for r in by_impl.values() if "flops" in r), None)
        counted = f", {flops / 1e9:.1f} GFLOP" if flops else ""
        moved = f", {nbytes / 1e6:.0f} MB moved" if nbytes else ""
        print(f"\n{workload} {dtype}{counted}{moved}")
        if flops:
            print_product_rows(by_impl)
        else:
            print_bandwidth_rows(by_impl)
        ours, theirs = by_impl.get("lazyfuse"), by_impl.get("torch_compile")
        if ours and theirs:
            ratio = theirs["median_ms"] / ours["median_ms"]
            verdict = "faster" if ratio >= 1 else "slower"
            print(f"  lazyfuse vs torch.compile: {ratio:.2f}x ({verdict}; torch.compile ms / "
                  "lazyfuse ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
