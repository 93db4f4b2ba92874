// One side of a RunPair order test. quit: exit 3 at once. wait: read
// stdin to EOF, then exit 0. spam: write to stdout until killed (SIGPIPE).
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "quit";
	if (strcmp(mode, "wait") == 0) {
		char buf[256];
		while (read(0, buf, sizeof buf) > 0) {
		}
		return 0;
	}
	if (strcmp(mode, "spam") == 0) {
		for (;;) {
			write(1, "x\n", 2);
		}
	}
	return 3;
}
