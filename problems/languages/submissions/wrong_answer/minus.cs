using System;

public class Sum
{
    public static void Main()
    {
        var p = Console.ReadLine().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        Console.WriteLine(long.Parse(p[0]) - long.Parse(p[1]));
    }
}
