#!/usr/bin/env python3
"""Where a Mooncake replay's cache hits come from, per run of one `homing simulate --request-log` file.

Usage: bench/request-log-gaps.py --trace conversation_trace.jsonl --kv-tokens 300000 [--window-secs 45]
           [--gap-edges 10,30,60,120] requests.jsonl

Two tables, one row per run (the runs of one command replay the same requests, so rows compare):

- Hits by reuse gap. Each request's reuse gap is the time since the latest earlier request that shares the longest
  prefix with it, counting only prefixes that go beyond the trace's first block (every request starts with block 0,
  which every engine holds). A hit here is a request whose engine had more than that first block cached. Under
  eviction pressure a prefix lives on an engine only until the engine has computed about its KV capacity in new
  tokens: the gaps show how long that is for each run.
- Churn spread. The new (uncached) prompt tokens each worker computed, per window of arrival time: the coefficient of
  variation across workers averaged over windows, and the share of worker-windows that computed less than one
  engine's KV capacity (in those, a prefix cached at the window's start can survive it).
"""
import argparse
import collections
import json
import statistics
import sys

def prefix_peers(trace_path):
    """Per trace line: the index of the latest earlier line sharing the longest prefix beyond block 0."""
    peers = {}
    by_opening = collections.defaultdict(list)
    with open(trace_path) as trace:
        rows = [json.loads(line)["hash_ids"] for line in trace if line.strip()]
    for i, blocks in enumerate(rows):
        if len(blocks) < 2:
            continue
        earlier = by_opening[tuple(blocks[:2])]
        best, shared = None, 0
        for j in earlier:
            common = 0
            for a, b in zip(rows[j], blocks):
                if a != b:
                    break
                common += 1
            if common >= shared:
                best, shared = j, common
        if best is not None:
            peers[i] = best
        earlier.append(i)
    return peers


def gap_bucket(seconds, edges):
    for edge in edges:
        if seconds < edge:
            return f"< {edge:g} s"
    return f">= {edges[-1]:g} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", required=True, help="the Mooncake trace the runs replayed")
    parser.add_argument("--kv-tokens", type=int, required=True, help="one engine's KV capacity, as simulated")
    parser.add_argument("--window-secs", type=float, default=45.0, help="churn window (default 45 s)")
    parser.add_argument("--gap-edges", default="10,30,60,120",
                        help="upper edges of the reuse-gap columns, in seconds (default 10,30,60,120)")
    parser.add_argument("--first-block-tokens", type=int, default=512, help="tokens of the trace's shared block 0")
    parser.add_argument("log", help="the --request-log file")
    args = parser.parse_args()

    runs = collections.defaultdict(dict)
    with open(args.log) as log:
        for line in log:
            row = json.loads(line)
            if row["turn"] == 0 and row["conversation"].startswith("mooncake-"):
                runs[row["run"]][int(row["conversation"].split("-", 1)[1])] = row
    if not runs:
        sys.exit("no Mooncake requests in " + args.log)
    peers = prefix_peers(args.trace)

    edges = sorted(float(edge) for edge in args.gap_edges.split(","))
    buckets = [f"< {edge:g} s" for edge in edges] + [f">= {edges[-1]:g} s"]
    print("Hits beyond the first block, by reuse gap (hits / requests):\n")
    print("| run | " + " | ".join(buckets) + " |")
    print("|---|" + "---:|" * len(buckets))
    for run, rows in runs.items():
        counts = {b: [0, 0] for b in buckets}
        for i, j in peers.items():
            if i in rows and j in rows:
                bucket = gap_bucket((rows[i]["arrivalMillis"] - rows[j]["arrivalMillis"]) / 1000, edges)
                counts[bucket][0] += rows[i]["cachedTokens"] > args.first_block_tokens
                counts[bucket][1] += 1
        print(f"| {run} | " + " | ".join(f"{h}/{n}" for h, n in counts.values()) + " |")

    print(f"\nChurn spread over windows of {args.window_secs:g} s:\n")
    print("| run | CV of new tokens across workers | worker-windows under one engine's capacity |")
    print("|---|---:|---:|")
    for run, rows in runs.items():
        workers = sorted({row["worker"] for row in rows.values()})
        windows = collections.defaultdict(lambda: dict.fromkeys(workers, 0))
        for row in rows.values():
            window = int(row["arrivalMillis"] // (args.window_secs * 1000))
            windows[window][row["worker"]] += row["promptTokens"] - row["cachedTokens"]
        spreads = [statistics.pstdev(w.values()) / statistics.mean(w.values())
                   for w in windows.values() if statistics.mean(w.values()) > 0]
        quiet = sum(tokens < args.kv_tokens for w in windows.values() for tokens in w.values())
        print(f"| {run} | {statistics.mean(spreads):.3f} | {quiet / (len(windows) * len(workers)):.1%} |")


if __name__ == "__main__":
    main()
