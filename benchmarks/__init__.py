"""Speed measurements: ``python benchmarks/throughput.py`` (``sky-envs bench``) and the training throughput."""
