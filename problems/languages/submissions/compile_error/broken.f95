program broken
  print *, (1 +
end program broken
