package contest;

import java.util.Scanner;

// Two classes with a main: without an entry point the first in order,
// contest.Minus, runs (wrong); --entry contest.Plus chooses the right one.
class Plus {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}

class Minus {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() - in.nextLong());
    }
}
