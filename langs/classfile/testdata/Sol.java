package contest.a;

public class Sol {
    public static final long BIG = 1L << 40; // a Long constant: two pool slots
    public static final double HALF = 0.5;
    public static void main(String[] args) { System.out.println(BIG + HALF); }
}
