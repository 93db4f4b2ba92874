package verdict

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docketjudge/docket/sandbox"
	"github.com/docketjudge/docket/verdict/problem"
)

// A submission that writes four 1 MiB files to /tmp (each within a 1 MiB
// output limit): accepted under the default disk limit, OLE "disk" under a
// package's docket.disk_mb of 2, and the limit is reported in the result.
const tmpWriterC = `#include <stdio.h>
#include <string.h>
int main(void){static char b[1<<20];memset(b,'x',sizeof b);char n[32];
for(int i=0;i<4;i++){sprintf(n,"/tmp/s%d",i);FILE*f=fopen(n,"w");if(!f||fwrite(b,1,sizeof b,f)!=sizeof b||fclose(f))return 1;}
long long a,c;scanf("%lld %lld",&a,&c);printf("%lld\n",a+c);return 0;}
`

func TestPackageDiskLimit(t *testing.T) {
	j := testJudge(t)
	for _, tc := range []struct {
		yaml       string
		want       Verdict
		wantDiskMB int
	}{
		{"name: scratch\n", AC, DefaultDiskMB},
		{"name: scratch\ndocket:\n  disk_mb: 2\n", AC, 8}, // at least the output limit (8 MiB)
		{"name: scratch\nlimits:\n  output: 1\ndocket:\n  disk_mb: 2\n", OLE, 2},
	} {
		dir := filepath.Join(t.TempDir(), "scratch")
		os.MkdirAll(filepath.Join(dir, "data/secret"), 0o755)
		os.WriteFile(filepath.Join(dir, "problem.yaml"), []byte(tc.yaml), 0o644)
		os.WriteFile(filepath.Join(dir, "data/secret/1.in"), []byte("1 2\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "data/secret/1.ans"), []byte("3\n"), 0o644)
		p, err := problem.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		res := j.Judge(context.Background(), p, Submission{Language: "c", Files: map[string][]byte{"main.c": []byte(tmpWriterC)}}, Options{})
		if res.Verdict != tc.want || res.Limits.DiskMB != tc.wantDiskMB {
			t.Errorf("%q: verdict %s, disk_mb %d; want %s, %d (%s)", tc.yaml, res.Verdict, res.Limits.DiskMB, tc.want, tc.wantDiskMB, res.Error)
		}
		if tc.want == OLE && (len(res.Tests) != 1 || res.Tests[0].VerdictSource != sandbox.SourceDisk) {
			t.Errorf("%q: tests %+v, want one OLE from disk", tc.yaml, res.Tests)
		}
	}
}
