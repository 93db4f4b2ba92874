# Accepted: uses all three passes. Pass 1 prints "z" and x in base 25
# (digits a..y, at most 7 of them); pass 2 sees the "z" and passes the
# digits on; pass 3 decodes them.
mode, arg = input().split()
if mode == "encode":
    x, w = int(arg), ""
    while True:
        w = chr(ord("a") + x % 25) + w
        x //= 25
        if x == 0:
            break
    print("z" + w, flush=True)
elif arg.startswith("z"):
    print(arg[1:], flush=True)
else:
    x = 0
    for c in arg:
        x = x * 25 + ord(c) - ord("a")
    print(x, flush=True)
