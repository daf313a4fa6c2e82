#!/usr/bin/env python3
"""lazyfuse (bench_fusion) beside PyTorch (peers.py), one table per workload.

    python3 bench/compare.py [bench_fusion.json] [peers.json]

% copy is relative to the copy bandwidth that each run measured itself, so two runs on different
days (or clocks) still compare on how close each gets to the memory system's limit.
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
        moved = f", {nbytes / 1e6:.0f} MB moved" if nbytes else ""
        print(f"\n{workload} {dtype}{moved}")
        print(f"  {'impl':<17} {'ms':>9} {'GB/s':>8} {'% copy':>8}")
        for impl, label in IMPLS:
            row = by_impl.get(impl)
            if row is None:
                print(f"  {label:<17} {'-':>9} {'-':>8} {'-':>8}")
                continue
            print(f"  {label:<17} {row['median_ms']:9.3f} {row['gbps']:8.0f} "
                  f"{row['pct_copy']:7.1f}%")
        ours, theirs = by_impl.get("lazyfuse"), by_impl.get("torch_compile")
        if ours and theirs:
            ratio = theirs["median_ms"] / ours["median_ms"]
            verdict = "faster" if ratio >= 1 else "slower"
            print(f"  lazyfuse vs torch.compile: {ratio:.2f}x ({verdict}; torch.compile ms / "
                  "lazyfuse ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
