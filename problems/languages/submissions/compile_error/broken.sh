case x in
  x) echo 1
