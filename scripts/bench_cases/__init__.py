"""Benchmark cases for `scripts/bench` (one module per case)."""
