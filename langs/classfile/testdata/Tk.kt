fun main() { println(1) }
