a, b = map(int, input().split())
print(a - b)  # wrong: the entry point must choose b.py
