x <- scan(file("stdin"), what = numeric(), quiet = TRUE)
cat(format(x[1] - x[2], scientific = FALSE), "\n", sep = "")
