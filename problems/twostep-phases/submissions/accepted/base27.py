# Accepted, another scheme: the string as one big base-27 number
# (digits 1..26, so no leading-zero ambiguity), written in decimal.
import sys

mode = sys.argv[1]
line = sys.stdin.readline().strip()
if hasattr(sys, "set_int_max_str_digits"):  # Python >= 3.11 limits int <-> str size
    sys.set_int_max_str_digits(0)
if mode == "encode":
    value = 0
    for c in line:
        value = value * 27 + (ord(c) - ord("a") + 1)
    print(value)
else:
    value = int(line)
    letters = []
    while value > 0:
        value, d = divmod(value, 27)
        letters.append(chr(ord("a") + d - 1))
    print("".join(reversed(letters)))
