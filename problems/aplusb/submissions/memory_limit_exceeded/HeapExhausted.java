// Memory limit exceeded: asks for a 3.2 GB table, over the JVM's heap
// (-Xmx, the 64 MiB limit). The JVM ends with exit code 3
// (-XX:+ExitOnOutOfMemoryError): MLE, verdict_source memory_heap.
import java.util.Scanner;

public class HeapExhausted {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        long[] table = new long[400_000_000];
        table[0] = a + b;
        System.out.println(table[0]);
    }
}
