"""Support code of the tests and benchmarks (not part of the sumjudge package)."""
