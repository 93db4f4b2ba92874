class Helper {
    void main(String[] args) {}              // not static
    private static void main(int x) {}        // wrong descriptor
    static void main() {}                     // not public
    interface Inner { static void main(String[] a) {} } // public static: an interface's
}
