"""Interview exercise (docs/interview/)."""
