public class Broken {
    public static void Main() { System.Console.WriteLine(1 +); }
}
