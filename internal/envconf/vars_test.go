package envconf

import (
	"os"
	"strings"
	"testing"
)

// Secrets come from files (NAME_FILE) as Docker and Kubernetes mount them: the file's value,
// without its trailing newline; both ways at once, or an unreadable file, is a problem.
func TestValuesFromFiles(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/token"
	if err := os.WriteFile(path, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ADMIN_TOKEN_FILE": path, "BOTH": "x", "BOTH_FILE": path, "GONE_FILE": dir + "/missing"}
	v := New(func(k string) (string, bool) { s, ok := env[k]; return s, ok }, nil)
	if got := v.Get("ADMIN_TOKEN", ""); got != "s3cret" || !v.Set("ADMIN_TOKEN") {
		t.Fatalf("from file: %q", got)
	}
	_ = v.Get("BOTH", "")
	_ = v.Get("GONE", "")
	err := v.Err()
	if err == nil || !strings.Contains(err.Error(), "BOTH: is set both") || !strings.Contains(err.Error(), "GONE_FILE: cannot be read") ||
		strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("problems: %v", err)
	}
}
