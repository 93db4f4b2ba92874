// Accepted: binary search in Java, flushing after every guess.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintWriter out = new PrintWriter(System.out);
        long lo = 1, hi = 1000000000L;
        while (lo <= hi) {
            long g = lo + (hi - lo) / 2;
            out.println(g);
            out.flush();
            String reply = in.readLine();
            if (reply == null || reply.trim().equals("=")) return;
            if (reply.trim().equals("<")) hi = g - 1; else lo = g + 1;
        }
    }
}
