"""Code shown on the correctness and qualification pages; the evaluator
(scripts/qualify.py) imports its contract and input builders from here."""
