x <- (1 +
cat(x)
