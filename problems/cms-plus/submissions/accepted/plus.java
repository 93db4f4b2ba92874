public class plus {
    public static long sum(long a, long b) {
        return a + b;
    }
}
