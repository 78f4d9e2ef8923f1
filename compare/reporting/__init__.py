"""Tables, plots and report files, read from a run's store; they know results, not engines."""
