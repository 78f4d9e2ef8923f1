"""What every engine that runs a solver executable shares (MiniZinc's solvers, a Java jar).

``run_solver`` runs one solve with the time limit, the memory limit and the
caller's interrupts held for the executable and every process it starts;
``find_executable`` says in one line why an executable cannot run
(``ExecutableMissing``, an ``Unsupported``). See docs/engines.md.
"""
from engines.external.process import (
    ExecutableMissing,
    Finished,
    find_executable,
    jvm_heap_flag,
    missing_reason,
    run_solver,
)

__all__ = ["ExecutableMissing", "Finished", "find_executable", "jvm_heap_flag", "missing_reason",
           "run_solver"]
