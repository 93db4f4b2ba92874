// A heap request the 256 MiB limit cannot hold: the JVM exits with
// -XX:+ExitOnOutOfMemoryError's code 3, which docket judges MLE
// (verdict_source memory_heap), as for Java and Kotlin.
object Main {
  def main(args: Array[String]): Unit = {
    val big = new Array[Long](400000000)
    println(big.length)
  }
}
