// The task's grader: it calls the contestant's class plus.
import java.util.Scanner;

public class grader {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        System.out.println(plus.sum(a, b));
    }
}
