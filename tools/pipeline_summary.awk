# One line from the `pipeline` note of a run's stderr (slab_run.cpp's pipeline_note): the
# slabs' done times (first, median, last) and the slowest hop of the first edges (slab k-1
# to k), which the whole note, a line of 32 slabs at 4 ranks, buries. The note itself stays
# in the stderr file. Used by gpu-ab.sh and gpu-check.sh:  awk -f tools/pipeline_summary.awk RUN.err
/pipeline/ {
  n = split($0, parts, ";")
  for (k = 1; k <= n; k++) {
    match(parts[k], /first edge [0-9.]+/); first[k - 1] = substr(parts[k], RSTART + 11, RLENGTH - 11) + 0
    match(parts[k], /done [0-9.]+/); done[k - 1] = substr(parts[k], RSTART + 5, RLENGTH - 5) + 0
  }
  for (k = 1; k <= n; k++) {  # insertion sort (POSIX awk has no asort)
    v = done[k - 1]
    for (j = k - 1; j >= 1 && sorted[j] > v; j--) sorted[j + 1] = sorted[j]
    sorted[j + 1] = v
  }
  hop = 0; at = 0
  for (k = 1; k < n; k++) if (first[k] - first[k - 1] > hop) { hop = first[k] - first[k - 1]; at = k }
  printf "  pipeline: %d slabs done at %.2f (first), %.2f (median), %.2f s (last); slowest first edge hop %.2f s, slab %d to %d\n",
         n, sorted[1], sorted[int((n + 1) / 2)], sorted[n], hop, at - 1, at
}
