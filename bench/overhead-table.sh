#!/usr/bin/env bash
# Prints the Markdown tables of a proxy-overhead run from its results.tsv and hold.tsv (see proxy-overhead.sh).
# Figures are means over the rounds; "+" columns are the difference to the direct row of the same run.
set -euo pipefail
results=$1 hold=${2:-}

awk -F'\t' '
  NR == 1 { next }
  {
    row = $1; if (!(row in n)) order[++rows] = row
    n[row]++
    for (c = 3; c <= NF; c++) if ($c != "-" && $c != "") { sum[row, c] += $c; cnt[row, c]++ }
    # Saturation spread over the rounds.
    if (!((row, "min") in sat) || $5 < sat[row, "min"]) sat[row, "min"] = $5
    if (!((row, "max") in sat) || $5 > sat[row, "max"]) sat[row, "max"] = $5
  }
  function m(row, c) { return cnt[row, c] ? sum[row, c] / cnt[row, c] : "" }
  function f(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
  function plus(row, c) { return row == "direct" || m(row, c) == "" ? "" : sprintf(" (%+.2f)", m(row, c) - m("direct", c)) }
  END {
    print "| Row | Ready (ms) | Idle RSS (MB) | Saturation req/s (rounds) | vs direct | Proxy CPU per req (us) | p50 ms (+ vs direct) | p99 ms (+) | TTFT p50 ms (+) | TTFT p99 ms (+) | Gap p50 ms (+) | Gap p99 ms (+) | Errors | Busiest worker share | Upstream mean ms |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= rows; i++) {
      r = order[i]
      errors = sum[r, 6] + sum[r, 10] + sum[r, 15]
      printf "| %s | %s | %s | %s (%s-%s) | %s | %s | %s%s | %s%s | %s%s | %s%s | %s%s | %s%s | %d | %s | %s |\n", r,
        f(m(r, 3), "%.0f"), f(m(r, 4), "%.0f"), f(m(r, 5), "%.0f"), sat[r, "min"], sat[r, "max"],
        f(m("direct", 5) ? m(r, 5) / m("direct", 5) : "", "%.2f"), f(m(r, 7), "%.0f"),
        f(m(r, 8), "%.2f"), plus(r, 8), f(m(r, 9), "%.2f"), plus(r, 9),
        f(m(r, 11), "%.2f"), plus(r, 11), f(m(r, 12), "%.2f"), plus(r, 12),
        f(m(r, 13), "%.3f"), plus(r, 13), f(m(r, 14), "%.2f"), plus(r, 14), errors, f(m(r, 16), "%.2f"),
        f(m(r, 17), "%.3f")
    }
  }' "$results"

if [ -n "$hold" ] && [ -f "$hold" ]; then
  echo
  echo "| Streams opened at once (Homing, cache_aware, -Xmx1g) | Client sockets held (peak) | Upstream sockets (peak) | Heap after GC (MB) | RSS (MB) | Succeeded | Failed | Errors |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | `%s` |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$hold"
fi
