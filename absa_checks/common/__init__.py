"""Plain data and helpers every stage uses: errors, examples, labels, domains, text, safe output writing."""
