"""Stage 3, perturbations: variants generated from units, checked, or quarantined."""
