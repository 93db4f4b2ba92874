// Compile error: it compiles, but no class has public static void
// main(String[]), so there is nothing to run.
import java.util.Scanner;

public class NoMain {
    static long sum(Scanner in) {
        return in.nextLong() + in.nextLong();
    }
}
