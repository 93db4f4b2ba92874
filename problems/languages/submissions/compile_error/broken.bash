if true; then
  echo 1
