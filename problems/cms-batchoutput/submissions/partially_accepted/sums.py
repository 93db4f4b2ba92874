# The program alone: test 2 takes only a file, "File not submitted".
n = int(input())
print(sum(map(int, input().split())))
