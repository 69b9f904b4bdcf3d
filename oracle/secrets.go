package oracle

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// withSecretsFiles returns env with the secrets files of VAULT_SECRETS_DIR (default
// /vault/secrets) beneath it, as the spec's container entrypoint loads them: a variable set in
// the environment wins, a variable only in the files is read from them. When the folder does
// not exist env is returned as it is.
//
// Two forms of file are read, those a Vault agent template commonly writes: a file named like
// a variable (ECDSA_PRIVATE_KEY) holds that variable's value; any other file holds lines
// `NAME=value` or `export NAME=value` (blank lines and # comments skipped, one pair of
// surrounding quotes removed). Errors name the file and line, never a value.
func withSecretsFiles(env func(string) (string, bool)) (func(string) (string, bool), error) {
	dir := DefaultVaultSecretsDir
	if v, ok := env(EnvVaultSecretsDir); ok && strings.TrimSpace(v) != "" {
		dir = strings.TrimSpace(v)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return env, nil
	}
	if err != nil {
		return env, fmt.Errorf("read %s: %w", dir, err)
	}
	secrets := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return env, fmt.Errorf("read %s: %w", path, err)
		}
		if envName.MatchString(e.Name()) && !bytes.Contains(bytes.TrimSpace(b), []byte("\n")) && !bytes.HasPrefix(b, []byte("export ")) &&
			!bytes.Contains(b, []byte(e.Name()+"=")) {
			secrets[e.Name()] = strings.TrimSpace(string(b))
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
			name = strings.TrimSpace(name)
			if !ok || !envName.MatchString(name) {
				return env, fmt.Errorf("%s line %d is not NAME=value", path, n)
			}
			value = strings.TrimSpace(value)
			if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
				value = value[1 : len(value)-1]
			}
			secrets[name] = value
		}
	}
	return func(name string) (string, bool) {
		if v, ok := env(name); ok && strings.TrimSpace(v) != "" {
			return v, true
		}
		v, ok := secrets[name]
		return v, ok
	}, nil
}
