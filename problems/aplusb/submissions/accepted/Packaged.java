// Accepted: a class in a package. javac writes contest/aplusb/Packaged.class
// and docket runs contest.aplusb.Packaged, found among the compiled classes.
package contest.aplusb;

import java.util.Scanner;

public class Packaged {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
