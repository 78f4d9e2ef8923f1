"""The independent judge: the checker, the rules of each kind, and cross-engine verdicts."""
