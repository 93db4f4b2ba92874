# The judge's grader: it imports the contestant's module solution.py.
from solution import add

a, b = map(int, input().split())
print(add(a, b))
