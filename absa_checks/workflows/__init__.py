"""The generation workflows the front doors call: `generate` (and its LLM rewriter), `augment` and its leakage
guard. They drive the stages below (sources, suites, perturb, models) and the run core's variant cache; the run
core never imports them."""
