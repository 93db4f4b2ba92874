# Accepted: x in base 26, digits a..z, most significant first.
mode, arg = input().split()
if mode == "encode":
    x, w = int(arg), ""
    while True:
        w = chr(ord("a") + x % 26) + w
        x //= 26
        if x == 0:
            break
    print(w)
else:
    x = 0
    for c in arg:
        x = x * 26 + ord(c) - ord("a")
    print(x)
