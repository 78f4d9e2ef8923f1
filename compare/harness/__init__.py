"""Running tasks: the plan, the worker processes, the runner and the results store."""
