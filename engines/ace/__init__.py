"""ACE, the reference XCSP3 solver, as an engine: the XCSP3 writer and the engine."""
