"""MiniZinc's solvers as engines: ``minizinc:solver=ID`` and ``gecode`` (see ``engine``)."""
