"""Pure-Python models of parallel prefix scans
(docs/reference/parallel-prefix-scan.md)."""
