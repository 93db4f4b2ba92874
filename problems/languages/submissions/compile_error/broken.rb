def main
  puts 1 +
end end
