"""Stage 5, judge: outcomes, metrics, statistics, gates, comparisons, claims and the verdict."""
