print(1 +)
