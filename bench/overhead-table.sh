#!/usr/bin/env bash
# Prints the Markdown tables of a proxy-overhead run from its results.tsv and hold.tsv (see proxy-overhead.sh): the
# rows, then the targets. Figures are means over the rounds, with the rounds' spread in brackets; "+" is the
# difference to the direct row (for the cold p50, to the engines measured directly by the same client at the end of
# the same cold step; for the cold p99, to the direct row's sequential figure); a ratio to HAProxy pairs the rows of
# the same round (its spread is over the rounds). Target 3 compares each row's cold and warm figures of one cold step:
# each figure against the engines measured in its own seconds (columns 25 and 26) where the step interleaved them,
# else against the engines measured directly at the end of the step; columns 28-31 split the first requests in four.
set -euo pipefail
results=$1 hold=${2:-} bursts=${3:-}
have_bursts=0
[ -n "$bursts" ] && [ -f "$bursts" ] && [ "$(wc -l <"$bursts")" -gt 1 ] && have_bursts=1

awk -F'\t' -v bursts=$have_bursts '
  NR == 1 { next }
  {
    row = $1; r = $2; if (!(row in n)) order[++rows] = row
    if (!(r in seen)) { seen[r] = 1; rounds[++nr] = r }
    n[row]++
    for (c = 3; c <= NF; c++) if ($c != "-" && $c != "") {
      sum[row, c] += $c; cnt[row, c]++; v[row, r, c] = $c
      if (!((row, c, "min") in ext) || $c < ext[row, c, "min"]) ext[row, c, "min"] = $c
      if (!((row, c, "max") in ext) || $c > ext[row, c, "max"]) ext[row, c, "max"] = $c
    }
  }
  function m(row, c) { return cnt[row, c] ? sum[row, c] / cnt[row, c] : "" }
  function f(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
  # mean (min-max) of a column
  function spread(row, c, fmt) {
    if (!cnt[row, c]) return "-"
    if (cnt[row, c] == 1) return sprintf(fmt, m(row, c))
    return sprintf(fmt " (" fmt "-" fmt ")", m(row, c), ext[row, c, "min"], ext[row, c, "max"])
  }
  # The cold p99 compares with the direct row warm (the engines are warm in both), the cold p50 with the direct
  # figure of its own step (column 24).
  function base(c) { return c == 11 ? 8 : c == 12 ? 9 : c }
  function plus(row, c) {
    if (c == 11 && m(row, 24) != "") return sprintf(" (%+.2f)", m(row, c) - m(row, 24))
    return row == "direct" || m(row, c) == "" || m("direct", base(c)) == "" ? "" : sprintf(" (%+.2f)", m(row, c) - m("direct", base(c)))
  }
  # The cold step of a round: the first requests of the fresh proxy (column 11) or of the warm helper (23) less the engines
  # measured directly by the same client (24).
  function instep(row, r, c) { return ((row, r, c) in v) && ((row, r, 24) in v) ? v[row, r, c] - v[row, r, 24] : "" }
  # The added latency of the first requests (c 11, interleaved 25) or the warm figure (23, interleaved 26).
  function coldadded(row, r, c, pc) { return ((row, r, pc) in v) ? v[row, r, pc] : instep(row, r, c) }
  # Per-round quantities for the targets: "" where a figure is missing.
  function added(row, r, c) { return ((row, r, c) in v) && (("direct", r, base(c)) in v) ? v[row, r, c] - v["direct", r, base(c)] : "" }
  function ratio(row, r) { return ((row, r, 5) in v) && (("haproxy", r, 5) in v) && v["haproxy", r, 5] > 0 ? v[row, r, 5] / v["haproxy", r, 5] : "" }
  function p99over(row, r) { return ((row, r, 9) in v) && (("haproxy", r, 9) in v) ? v[row, r, 9] - v["haproxy", r, 9] : "" }
  # Added latency against added latency (p50: the warm figure of the row against that of HAProxy; cold: the first
  # requests of a fresh proxy against a warm one, both of the same cold step): the ratio of the means over the rounds where both were measured, since
  # the added figure of one round can be near zero or below it in the noise. Undecided when the mean denominator is
  # not above zero.
  # PEER: the HAProxy row of the p50 comparison (haproxy, or haproxy-busy for a row that busy-polls too).
  function quotient(kind, row, limit, peer,   i, r, a, b, sa, sb, k, what) {
    sa = 0; sb = 0; k = 0
    for (i = 1; i <= nr; i++) {
      r = rounds[i]
      a = kind == "p50" ? added(row, r, 8) : coldadded(row, r, 11, 25)
      b = kind == "p50" ? added(peer, r, 8) : coldadded(row, r, 23, 26)
      if (a == "" || b == "") continue
      sa += a; sb += b; k++
    }
    if (!k) return "- | not measured"
    what = sprintf("%s %+.3f ms, %s %+.3f ms (%d rounds%s)", kind == "p50" ? row : "cold", sa / k,
                   kind == "p50" ? peer : "warm", sb / k, k, kind == "cold" && cnt[row, 25] ? ", baseline interleaved" : "")
    if (sb <= 0) return what " | undecided"
    return sprintf("%.2fx: %s | %s", sa / sb, what, sa / sb <= limit ? "**met**" : "**missed**")
  }
  # "mean (min-max)" of a per-round quantity, and whether its mean meets "<= limit" (or ">=" when atleast).
  function judge(kind, row, limit, atleast, fmt,   i, x, s, k, lo, hi, mean) {
    s = 0; k = 0; lo = ""; hi = ""
    for (i = 1; i <= nr; i++) {
      x = kind == "sat" ? ratio(row, rounds[i]) : p99over(row, rounds[i])
      if (x == "") continue
      s += x; k++; if (lo == "" || x < lo) lo = x; if (hi == "" || x > hi) hi = x
    }
    if (!k) return "- | not measured"
    mean = s / k
    return sprintf(fmt "%s | %s", mean, k > 1 ? sprintf(" (" fmt "-" fmt ")", lo, hi) : "",
                   (atleast ? mean >= limit : mean <= limit) ? "**met**" : "**missed**")
  }
  # The head of a table after another: a blank line, the caption and a blank line when there is one, then the header
  # row and the rule under it, with as many columns as the header has.
  function head(caption, cells,   k, parts, rule) {
    print ""
    if (caption != "") { print caption; print "" }
    rule = "|"
    for (k = split(cells, parts, "|") - 2; k > 0; k--) rule = rule "---|"
    print cells
    print rule
  }
  # The rows with a figure in column C into LIST[1..k], in the table'"'"'s order; returns k.
  function measured(c, list,   i, k) {
    k = 0
    for (i = 1; i <= rows; i++) if (cnt[order[i], c]) list[++k] = order[i]
    return k
  }
  END {
    print "| Row | Ready (ms) | Idle RSS (MB) | Saturation req/s | vs HAProxy | Proxy CPU per req (us) | Seq p50 ms (+ vs direct) | Seq p99 ms (+) | Cold p50 ms (+) | Cold p99 ms (+) | Errors | Load average before |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= rows; i++) {
      r = order[i]
      errors = sum[r, 6] + sum[r, 10] + sum[r, 13] + sum[r, 16] + sum[r, 21]
      printf "| %s | %s | %s | %s | %s | %s | %s%s | %s%s | %s%s | %s%s | %d | %s |\n", r,
        f(m(r, 3), "%.0f"), f(m(r, 4), "%.0f"), spread(r, 5, "%.0f"),
        f(m("haproxy", 5) ? m(r, 5) / m("haproxy", 5) : "", "%.2f"), spread(r, 7, "%.0f"),
        spread(r, 8, "%.3f"), plus(r, 8), f(m(r, 9), "%.2f"), plus(r, 9),
        spread(r, 11, "%.3f"), plus(r, 11), f(m(r, 12), "%.2f"), plus(r, 12), errors, spread(r, 22, "%.1f")
    }
    if (cnt["direct", 14] || cnt["direct", 17]) {
      head("", "| Row | Rate p50 ms (+) | Rate p99 ms (+) | TTFT p50 ms (+) | TTFT p99 ms (+) | Gap p50 ms (+) | Gap p99 ms (+) |")
      for (i = 1; i <= rows; i++) {
        r = order[i]
        printf "| %s | %s%s | %s%s | %s%s | %s%s | %s%s | %s%s |\n", r, f(m(r, 14), "%.2f"), plus(r, 14),
          f(m(r, 15), "%.2f"), plus(r, 15), f(m(r, 17), "%.2f"), plus(r, 17), f(m(r, 18), "%.2f"), plus(r, 18),
          f(m(r, 19), "%.3f"), plus(r, 19), f(m(r, 20), "%.2f"), plus(r, 20)
      }
    }
    if (cnt["haproxy", 23] || cnt["homing-laa", 23] || cnt["homing-ca", 23]) {
      head("Cold step: one client, a warm instance of the proxy (warm), then a fresh one (first requests), then the engines directly; \"interleaved\": against the engines measured between the requests of the same part.",
        "| Row | First requests p50 ms | Warm p50 ms | Engines directly p50 ms | Added: first | Added: warm | First / warm | Interleaved added: first | Interleaved added: warm | First / warm, interleaved | First requests took (s) |")
      shown = measured(23, cold)
      for (i = 1; i <= shown; i++) {
        r = cold[i]
        printf "| %s | %s | %s | %s | %+.3f | %+.3f | %s | %s | %s | %s | %s |\n", r, spread(r, 11, "%.3f"), spread(r, 23, "%.3f"),
          spread(r, 24, "%.3f"), m(r, 11) - m(r, 24), m(r, 23) - m(r, 24),
          (m(r, 23) - m(r, 24) > 0 ? sprintf("%.2fx", (m(r, 11) - m(r, 24)) / (m(r, 23) - m(r, 24))) : "-"),
          spread(r, 25, "%+.3f"), spread(r, 26, "%+.3f"),
          (cnt[r, 25] && cnt[r, 26] && m(r, 26) > 0 ? sprintf("%.2fx", m(r, 25) / m(r, 26)) : "-"), spread(r, 27, "%.2f")
      }
      # Columns 28-31: the first requests in four parts of equal count, each against its own interleaved baseline.
      if ((shown = measured(28, quarters))) {
        head("The first requests by quarter (interleaved added p50 ms of requests 1-250, 251-500, ... of 1,000), against the warm figure:",
          "| Row | First quarter | Second | Third | Fourth | Warm |")
        for (i = 1; i <= shown; i++) {
          r = quarters[i]
          printf "| %s | %s | %s | %s | %s | %s |\n", r, spread(r, 28, "%+.3f"), spread(r, 29, "%+.3f"),
            spread(r, 30, "%+.3f"), spread(r, 31, "%+.3f"), spread(r, 26, "%+.3f")
        }
      }
    }
    # With the bursts step, the targets are judged from it (below): proxies measured seconds apart.
    if (bursts) exit
    head("", "| Target | Row | Figure: mean over the rounds (spread) | Result |")
    for (i = 1; i <= rows; i++) {
      r = order[i]
      if (r == "direct" || r ~ /^haproxy/ || r == "nginx" || r ~ /^vertx/) continue
      printf "| 1. saturation at least 0.8x HAProxy | %s | %s |\n", r, judge("sat", r, 0.8, 1, "%.2fx")
      printf "| 2. added p50 at most 1.5x HAProxy'"'"'s | %s | %s |\n", r, quotient("p50", r, 1.5, "haproxy")
      if (r ~ /-busy$/ && cnt["haproxy-busy", 8])
        printf "| 2. the same, against HAProxy busy-polling | %s | %s |\n", r, quotient("p50", r, 1.5, "haproxy-busy")
      printf "| 2. p99 at most HAProxy'"'"'s + 1 ms | %s | %s |\n", r, judge("p99", r, 1.0, 0, "%+.2f ms")
      printf "| 3. cold added p50 at most 1.5x warm | %s | %s |\n", r, quotient("cold", r, 1.5, "")
    }
  }' "$results"

# The bursts step (see proxy-overhead.sh): the rows and the targets, each ratio taken within one burst (HAProxy and
# the row measured seconds apart), its mean over the bursts with their spread; target 3 comes from the cold step
# above (a fresh proxy's first requests against a warm one's, one client, one run).
if [ $have_bursts = 1 ]; then
  awk -F'\t' '
    FNR == 1 { next }
    FILENAME == ARGV[1] {
      # Against the interleaved baseline where the cold step had one, else the engines measured after (see above).
      if ($25 != "-" && $25 != "" && $26 != "-" && $26 != "") {
        cold[$1] += $25; warm[$1] += $26; coldn[$1]++; inter[$1] = ", baseline interleaved"
      } else if ($11 != "-" && $11 != "" && $23 != "-" && $23 != "" && $24 != "-" && $24 != "") {
        cold[$1] += $11 - $24; warm[$1] += $23 - $24; coldn[$1]++
      }
      next
    }
    {
      b = $1; row = $2; if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
      if (!(b in bs)) { bs[b] = 1; nb++ }
      for (c = 3; c <= 7; c++) if ($c != "-" && $c != "") v[b, row, c] = $c
    }
    function has(b, row, c) { return (b, row, c) in v }
    # mean, min and max of X over the bursts, X one of: value ROW C; ratio ROW C (to HAProxy); added ROW (seq p50
    # minus the direct row); over ROW (seq p99 minus HAProxy)
    function stat(kind, row, c, fmt,   b, x, s, k, lo, hi) {
      s = 0; k = 0; lo = ""; hi = ""
      for (b = 1; b <= nb; b++) {
        if (kind == "value") { if (!has(b, row, c)) continue; x = v[b, row, c] }
        else if (kind == "ratio") { if (!has(b, row, c) || !has(b, "haproxy", c) || v[b, "haproxy", c] <= 0) continue; x = v[b, row, c] / v[b, "haproxy", c] }
        else if (kind == "added") { if (!has(b, row, 5) || !has(b, "direct", 5)) continue; x = v[b, row, 5] - v[b, "direct", 5] }
        else { if (!has(b, row, 6) || !has(b, "haproxy", 6)) continue; x = v[b, row, 6] - v[b, "haproxy", 6] }
        s += x; k++; if (lo == "" || x < lo) lo = x; if (hi == "" || x > hi) hi = x
      }
      if (!k) { M = ""; return "-" }
      M = s / k
      return k > 1 ? sprintf(fmt " (" fmt " to " fmt ")", M, lo, hi) : sprintf(fmt, M)
    }
    function mean(kind, row, c) { stat(kind, row, c, "%f"); return M }
    function verdict(ok) { return ok ? "**met**" : "**missed**" }
    END {
      print ""
      printf "Bursts: %d per proxy, all proxies running at once, load moved from one to the next.\n\n", nb
      print "| Row | Saturation req/s | vs HAProxy (same burst) | Proxy CPU per req (us) | Seq p50 ms | Seq p50 added ms | Seq p99 ms | Load average |"
      print "|---|---|---|---|---|---|---|---|"
      for (i = 1; i <= rows; i++) {
        r = order[i]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r, stat("value", r, 3, "%.0f"), stat("ratio", r, 3, "%.2f"),
          stat("value", r, 4, "%.0f"), stat("value", r, 5, "%.3f"), r == "direct" ? "-" : stat("added", r, 0, "%+.3f"),
          stat("value", r, 6, "%.2f"), stat("value", r, 7, "%.1f")
      }
      print ""
      print "| Target | Row | Figure: mean over the bursts (spread) | Result |"
      print "|---|---|---|---|"
      hadd = mean("added", "haproxy", 0)
      for (i = 1; i <= rows; i++) {
        r = order[i]
        if (r == "direct" || r ~ /^haproxy/ || r == "nginx" || r ~ /^vertx/) continue
        x = stat("ratio", r, 3, "%.2fx")
        printf "| 1. saturation at least 0.8x HAProxy | %s | %s | %s |\n", r, x, M == "" ? "not measured" : verdict(M >= 0.8)
        a = mean("added", r, 0)
        if (a == "" || hadd == "") printf "| 2. added p50 at most 1.5x HAProxy'"'"'s | %s | - | not measured |\n", r
        else if (hadd <= 0) printf "| 2. added p50 at most 1.5x HAProxy'"'"'s | %s | %+.3f ms, HAProxy %+.3f ms | undecided |\n", r, a, hadd
        else printf "| 2. added p50 at most 1.5x HAProxy'"'"'s | %s | %.2fx: %+.3f ms, HAProxy %+.3f ms | %s |\n", r, a / hadd, a, hadd, verdict(a / hadd <= 1.5)
        # A row that busy-polls is also set beside HAProxy doing the same (the haproxy-busy row), if it ran.
        hbusy = r ~ /-busy$/ ? mean("added", "haproxy-busy", 0) : ""
        if (a != "" && hbusy != "" && hbusy > 0)
          printf "| 2. the same, against HAProxy busy-polling | %s | %.2fx: %+.3f ms, haproxy-busy %+.3f ms | %s |\n", r, a / hbusy, a, hbusy, verdict(a / hbusy <= 1.5)
        x = stat("over", r, 0, "%+.2f ms")
        printf "| 2. p99 at most HAProxy'"'"'s + 1 ms | %s | %s | %s |\n", r, x, M == "" ? "not measured" : verdict(M <= 1)
        if (!coldn[r]) printf "| 3. cold added p50 at most 1.5x warm | %s | - | not measured |\n", r
        else {
          ca = cold[r] / coldn[r]; wa = warm[r] / coldn[r]
          if (wa <= 0) printf "| 3. cold added p50 at most 1.5x warm | %s | cold %+.3f ms, warm %+.3f ms | undecided |\n", r, ca, wa
          else printf "| 3. cold added p50 at most 1.5x warm | %s | %.2fx: cold %+.3f ms, warm %+.3f ms (%d rounds, the cold step%s) | %s |\n", r, ca / wa, ca, wa, coldn[r], inter[r], verdict(ca / wa <= 1.5)
        }
      }
    }' "$results" "$bursts"
fi

if [ -n "$hold" ] && [ -f "$hold" ] && [ "$(wc -l <"$hold")" -gt 1 ]; then
  awk -F'\t' 'NR > 1 && $1 == 10000 { printf "| 4. 10,000 streams held, live heap within the documented 133-151 MB (+25%%) | homing-ca | %s of 10,000 succeeded, live heap %s MB | %s |\n", $6, $4, ($7 == 0 && $4 <= 189) ? "**met**" : "**missed**" }' "$hold"
  echo
  echo "| Streams opened at once (Homing, cache_aware, -Xmx1g) | Client sockets held (peak) | Upstream sockets (peak) | Live heap (MB) | RSS (MB) | Succeeded | Failed | Errors |"
  echo "|---|---|---|---|---|---|---|---|"
  awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | `%s` |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$hold"
fi
