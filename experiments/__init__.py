"""Experiments and tools built on the environment (tournaments, benchmarks)."""
