# A custom grader in problemtools' protocol: stdin holds one line per
# test or subgroup of the group, "VERDICT SCORE"; the arguments are the
# group's grader_flags. It prints the group's "VERDICT SCORE".
# subtask_score=N: all accepted scores N, else the first failure's
# verdict and 0. Without it: the sum of the scores, the first failure's
# verdict.
import sys

flags = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
results = [line.split() for line in sys.stdin if line.strip()]
failed = [v for v, _ in results if v != "AC"]
if failed:
    print(failed[0], 0)
elif "subtask_score" in flags:
    print("AC", float(flags["subtask_score"]))
else:
    print("AC", sum(float(s) for _, s in results))
