// The stub: main for the contestant's class halves. Its arguments are
// the FIFO from the manager, the FIFO to the manager and the copy's
// index.
import java.io.*;
import java.util.*;

public class stub {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new FileReader(args[0]));
        PrintWriter out = new PrintWriter(new FileWriter(args[1]));
        StringTokenizer st = new StringTokenizer(in.readLine());
        int n = Integer.parseInt(st.nextToken());
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = Long.parseLong(st.nextToken());
        out.println(halves.sum_half(n, a));
        out.flush();
    }
}
