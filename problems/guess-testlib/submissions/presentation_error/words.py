# Presentation error: writes "guess 500000000" instead of the bare number;
# the interactor cannot read the guess as an integer and exits 2 (PE).
# Kept in wrong_answer/ (there is no presentation_error directory in the
# format); expected docket verdict PE.
import sys

print("guess 500000000", flush=True)
sys.stdin.readline()
