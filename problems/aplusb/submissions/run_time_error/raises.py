# Run time error: an uncaught exception. Its traceback's first and last
# lines are the test's stderr_excerpt (docs/protocol.md, "Result").
a, b = map(int, input().split())
raise ValueError(f"refusing to add {a} and {b}")
