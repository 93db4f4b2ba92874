// The judge's grader: it calls the contestant's class Solution.
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(Solution.add(a, b));
    }
}
