package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// dockerignore reads ../.dockerignore's patterns (no comments, no blanks).
func dockerignore(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out
}

// ignored reports whether the build context leaves out p (a slash path from the repository's
// root), as Docker reads .dockerignore: a pattern matches the path or one of its parent
// directories; "**/" matches any number of directories. Exceptions ("!") are not used here.
func ignored(patterns []string, p string) bool {
	parts := strings.Split(p, "/")
	for _, pat := range patterns {
		pat = strings.Trim(path.Clean("/"+pat), "/")
		for n := 1; n <= len(parts); n++ {
			prefix := strings.Join(parts[:n], "/")
			if globMatch(pat, prefix) {
				return true
			}
		}
	}
	return false
}

func globMatch(pat, p string) bool {
	if rest, ok := strings.CutPrefix(pat, "**/"); ok {
		parts := strings.Split(p, "/")
		for i := range parts {
			if globMatch(rest, strings.Join(parts[i:], "/")) {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(pat, p)
	return ok
}

// Review L12 (issue 33, point 7): "a .dockerignore excluding secrets/, .data/, bin/, .git/,
// node_modules, e2e/node_modules etc. and check the Dockerfile still has what it copies". The
// build stage copies the whole context, so the solver's key in ./secrets would otherwise sit in
// its layers and cache. Everything the images' builds read stays: go.mod, go.sum, devstack/trim,
// configs/, and every Go file and embedded file of the packages the two binaries are built from.
func TestDockerignoreKeepsSecretsAndStateOutOfTheBuildContext(t *testing.T) {
	patterns := dockerignore(t)
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") {
			t.Fatalf(".dockerignore has an exception %q: keep it to plain exclusions", p)
		}
	}
	for _, p := range []string{"secrets/solver_private_key", "secrets/oracle_1_key", ".data/pg/PG_VERSION",
		".data/dev-admin-token", "bin/intentd", ".git/HEAD", "node_modules/x/index.js", "e2e/node_modules/viem/package.json",
		"contracts/node_modules/x/y.js", ".env", "intentd-dev"} {
		if !ignored(patterns, p) {
			t.Errorf("the build context includes %s", p)
		}
	}
	// What the Dockerfile copies by name.
	need := []string{"go.mod", "go.sum", "devstack/trim/README.md", "Dockerfile"}
	configs, _ := filepath.Glob("../configs/*")
	if len(configs) == 0 {
		t.Fatal("no configs/ files")
	}
	for _, c := range configs {
		need = append(need, "configs/"+filepath.Base(c))
	}
	// Every file the two binaries are built from, within the module.
	out, err := exec.Command("go", "list", "-tags=nomsgpack,netgo,osusergo", "-deps",
		"-f", `{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .CgoFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`,
		"../cmd/intentd", "../cmd/intentd-dev").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(string(out))
	if len(files) < 50 {
		t.Fatalf("go list named %d files", len(files))
	}
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // the module cache's replacements
		}
		need = append(need, filepath.ToSlash(rel))
	}
	for _, p := range need {
		if ignored(patterns, p) {
			t.Errorf("the build needs %s, which .dockerignore leaves out", p)
		}
	}
}

// composeTLS is the part of docker-compose.yml the TLS checks read.
type composeTLS struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Ports       []string          `yaml:"ports"`
		Networks    []string          `yaml:"networks"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
	} `yaml:"services"`
	Networks map[string]struct {
		Internal bool `yaml:"internal"`
		IPAM     struct {
			Config []struct {
				Subnet string `yaml:"subnet"`
			} `yaml:"config"`
		} `yaml:"ipam"`
	} `yaml:"networks"`
}

// Review L9 (issue 33, point 7): "no TLS in either server; compose publishes 8080 in clear. Ship
// a TLS-terminating proxy in docker-compose.yml (self-signed/dev cert by default, documented how
// to put real certs)". And L10's rule in compose: X-Forwarded-For is believed from the proxy's
// network only, which nothing but the proxy and the API replicas joins.
func TestComposeServesTheAPIOnlyThroughATLSProxy(t *testing.T) {
	raw, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeTLS
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	proxy, ok := c.Services["tls"]
	if !ok {
		t.Fatal("no tls service")
	}
	if !strings.HasPrefix(proxy.Image, "caddy:") || !slices.Contains(proxy.Ports, "443:443") {
		t.Errorf("tls: image %s, ports %v, want Caddy publishing 443", proxy.Image, proxy.Ports)
	}
	if proxy.Environment["INTENTD_TLS"] != "${INTENTD_TLS:-internal}" {
		t.Errorf("tls: INTENTD_TLS %q, want a development certificate (internal) by default", proxy.Environment["INTENTD_TLS"])
	}
	caddyfile, err := os.ReadFile("caddy/Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(proxy.Volumes, "./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro") {
		t.Errorf("tls does not mount deploy/caddy/Caddyfile: %v", proxy.Volumes)
	}
	for _, want := range []string{"tls {$INTENTD_TLS:internal}", "reverse_proxy", "name api", "port 8080"} {
		if !bytes.Contains(caddyfile, []byte(want)) {
			t.Errorf("the Caddyfile lacks %q", want)
		}
	}
	for _, line := range strings.Split(string(caddyfile), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "trusted_proxies" {
			t.Error("the Caddyfile trusts a proxy before it: clients could then choose their X-Forwarded-For")
		}
	}
	for name, s := range c.Services {
		if name == "tls" {
			continue
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s in clear beyond the host's loopback", name, p)
			}
		}
	}
	edge := c.Networks["edge"]
	if len(edge.IPAM.Config) != 1 {
		t.Fatalf("the edge network has no fixed subnet: %+v", edge)
	}
	subnet := netip.MustParsePrefix(edge.IPAM.Config[0].Subnet)
	for name, s := range c.Services {
		if slices.Contains(s.Networks, "edge") != (name == "tls" || name == "api") {
			t.Errorf("%s: networks %v: only tls and api are on edge", name, s.Networks)
		}
	}
	trusted := c.Services["api"].Environment["TRUSTED_PROXIES"]
	if trusted != "${TRUSTED_PROXIES:-"+subnet.String()+"}" {
		t.Errorf("api: TRUSTED_PROXIES %q, want the edge subnet %s by default", trusted, subnet)
	}
}

// k8sDoc is the part of a Kubernetes object the isolation checks read.
type k8sDoc struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name        string            `yaml:"name"`
		Namespace   string            `yaml:"namespace"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec yaml.Node `yaml:"spec"`
}

func k8sDocs(t *testing.T) []k8sDoc {
	t.Helper()
	f, err := os.Open("kubernetes/intentd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	dec := yaml.NewDecoder(f)
	var out []k8sDoc
	for {
		var d k8sDoc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("kubernetes/intentd.yaml: %v", err)
		}
		out = append(out, d)
	}
}

// networkPolicy is a NetworkPolicy's spec.
type networkPolicy struct {
	PodSelector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"podSelector"`
	PolicyTypes []string `yaml:"policyTypes"`
	Ingress     []struct {
		From []struct {
			NamespaceSelector *struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"namespaceSelector"`
			PodSelector *struct {
				MatchLabels      map[string]string `yaml:"matchLabels"`
				MatchExpressions []struct {
					Key      string   `yaml:"key"`
					Operator string   `yaml:"operator"`
					Values   []string `yaml:"values"`
				} `yaml:"matchExpressions"`
			} `yaml:"podSelector"`
		} `yaml:"from"`
		Ports []struct {
			Port int `yaml:"port"`
		} `yaml:"ports"`
	} `yaml:"ingress"`
}

// Review L9, L10 and L11 (issue 33, point 7) on Kubernetes: the API is reached over TLS at the
// ingress; TRUSTED_PROXIES no longer trusts all of 10.0.0.0/8 (nothing wider than a /24); the
// intentd namespace is default deny for ingress with the API's port from the ingress
// controller, the oracles' from the workers and each other, metrics from the monitoring
// namespace; the Temporal frontend admits intentd's api and worker pods only; the migrate Job
// is hardened like every pod.
func TestKubernetesIsolatesTheNamespaceAndTheTemporalFrontend(t *testing.T) {
	policies := map[string]networkPolicy{}
	var ingressTLS bool
	for _, d := range k8sDocs(t) {
		switch d.Kind {
		case "NetworkPolicy":
			var p networkPolicy
			if err := d.Spec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			policies[d.Metadata.Namespace+"/"+d.Metadata.Name] = p
		case "Ingress":
			var spec struct {
				TLS []struct {
					SecretName string `yaml:"secretName"`
				} `yaml:"tls"`
			}
			_ = d.Spec.Decode(&spec)
			ingressTLS = d.Metadata.Name == "api" && len(spec.TLS) == 1 && spec.TLS[0].SecretName != "" &&
				d.Metadata.Annotations["nginx.ingress.kubernetes.io/force-ssl-redirect"] == "true"
		case "Deployment":
			var spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Env []struct{ Name, Value string } `yaml:"env"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			}
			_ = d.Spec.Decode(&spec)
			for _, c := range spec.Template.Spec.Containers {
				for _, e := range c.Env {
					if e.Name != "TRUSTED_PROXIES" {
						continue
					}
					for _, v := range strings.Split(e.Value, ",") {
						p, err := netip.ParsePrefix(strings.TrimSpace(v))
						if err != nil {
							var a netip.Addr
							if a, err = netip.ParseAddr(strings.TrimSpace(v)); err == nil {
								p = netip.PrefixFrom(a, a.BitLen())
							}
						}
						if err != nil || p.Bits() < 24 {
							t.Errorf("%s: TRUSTED_PROXIES %q trusts %q: list the ingress controller's addresses only", d.Metadata.Name, e.Value, v)
						}
					}
				}
			}
		case "Job":
			var spec struct {
				Template struct {
					Spec struct {
						SecurityContext struct {
							RunAsNonRoot   bool `yaml:"runAsNonRoot"`
							SeccompProfile struct {
								Type string `yaml:"type"`
							} `yaml:"seccompProfile"`
						} `yaml:"securityContext"`
						Containers []struct {
							SecurityContext struct {
								ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
								AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
								Capabilities             struct {
									Drop []string `yaml:"drop"`
								} `yaml:"capabilities"`
							} `yaml:"securityContext"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			}
			_ = d.Spec.Decode(&spec)
			ps := spec.Template.Spec
			if !ps.SecurityContext.RunAsNonRoot || ps.SecurityContext.SeccompProfile.Type != "RuntimeDefault" {
				t.Errorf("job %s: pod security context %+v", d.Metadata.Name, ps.SecurityContext)
			}
			for _, c := range ps.Containers {
				sc := c.SecurityContext
				if !sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
					!slices.Equal(sc.Capabilities.Drop, []string{"ALL"}) {
					t.Errorf("job %s: container security context %+v", d.Metadata.Name, sc)
				}
			}
		}
	}
	if !ingressTLS {
		t.Error("no api Ingress terminating TLS with a certificate Secret and redirecting plain HTTP")
	}
	deny, ok := policies["intentd/default-deny-ingress"]
	if !ok || len(deny.PodSelector.MatchLabels) != 0 || !slices.Equal(deny.PolicyTypes, []string{"Ingress"}) || len(deny.Ingress) != 0 {
		t.Errorf("no default deny for the intentd namespace: %+v", deny)
	}
	// Every other policy of intentd admits one port, from named peers only.
	want := map[string]struct {
		role string
		port int
		from string // a namespace, or pod roles
	}{
		"intentd/api-from-ingress":               {"api", 8080, "ns:ingress-nginx"},
		"intentd/oracles-from-workers-and-peers": {"oracle", 3000, "pods:worker,oracle"},
		"intentd/metrics-from-monitoring":        {"", 9100, "ns:monitoring"},
	}
	for name, w := range want {
		p, ok := policies[name]
		if !ok {
			t.Errorf("no NetworkPolicy %s", name)
			continue
		}
		if p.PodSelector.MatchLabels["app"] != "intentd" || p.PodSelector.MatchLabels["role"] != w.role ||
			len(p.Ingress) != 1 || len(p.Ingress[0].Ports) != 1 || p.Ingress[0].Ports[0].Port != w.port {
			t.Errorf("%s: %+v", name, p)
			continue
		}
		var from []string
		for _, f := range p.Ingress[0].From {
			switch {
			case f.NamespaceSelector != nil && f.PodSelector == nil:
				from = append(from, "ns:"+f.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"])
			case f.PodSelector != nil && f.NamespaceSelector == nil:
				from = append(from, f.PodSelector.MatchLabels["role"])
			default:
				from = append(from, "?")
			}
		}
		got := strings.Join(from, ",")
		if !strings.HasPrefix(w.from, "ns:") {
			got = "pods:" + got
		}
		if got != w.from {
			t.Errorf("%s admits %s, want %s", name, got, w.from)
		}
	}
	frontend, ok := policies["temporal/temporal-frontend-from-intentd-only"]
	if !ok || len(frontend.Ingress) != 1 {
		t.Fatalf("the Temporal frontend's policy: %+v", frontend)
	}
	var fromIntentd bool
	for _, f := range frontend.Ingress[0].From {
		if f.NamespaceSelector == nil {
			continue // Temporal's own namespace
		}
		if f.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "intentd" || f.PodSelector == nil ||
			len(f.PodSelector.MatchExpressions) != 1 || f.PodSelector.MatchExpressions[0].Key != "role" ||
			f.PodSelector.MatchExpressions[0].Operator != "In" ||
			!slices.Equal(f.PodSelector.MatchExpressions[0].Values, []string{"api", "worker"}) {
			t.Errorf("the frontend admits %+v from outside Temporal's namespace: only intentd's api and worker pods may reach it", f)
			continue
		}
		fromIntentd = true
	}
	if !fromIntentd {
		t.Error("the frontend does not admit intentd's api and worker pods")
	}
}
