"""Models that find the aspects themselves: extracted tuples, matching them to gold (strict and flexible,
after "Single Ground Truth Is Not Enough", Yang et al., NAACL 2025) and extraction quality (F1)."""
