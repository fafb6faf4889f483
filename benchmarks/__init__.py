"""The benchmarks of airspeed velocity (asv.conf.json at the top of the repository)."""
