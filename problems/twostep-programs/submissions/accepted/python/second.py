# Accepted (second program): prints what first computed.
import sys

print(sys.stdin.readline().strip())
