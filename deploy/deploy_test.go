package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// compose is the part of docker-compose.yml these checks read.
type compose struct {
	Services map[string]struct {
		Image       string         `yaml:"image"`
		Build       any            `yaml:"build"`
		Ports       []string       `yaml:"ports"`
		Networks    []string       `yaml:"networks"`
		Environment map[string]any `yaml:"environment"`
		Volumes     []string       `yaml:"volumes"`
		Secrets     []any          `yaml:"secrets"`
		Deploy      struct {
			Replicas int `yaml:"replicas"`
		} `yaml:"deploy"`
	} `yaml:"services"`
	Networks map[string]struct {
		Internal bool `yaml:"internal"`
	} `yaml:"networks"`
	Secrets map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
}

func readCompose(t *testing.T) compose {
	t.Helper()
	raw, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

// secretVars are the variables that carry a secret: in the topology each is given as a file
// (NAME_FILE, or the oracle's /vault/secrets), never as a value.
var secretVars = regexp.MustCompile(`^(DATABASE_URL|ADMIN_TOKEN|WEBHOOK_SECRETS_KEY|SOLVER_PRIVATE_KEY|RELAYER_PRIVATE_KEY|ORACLE_API_KEY|ECDSA_PRIVATE_KEY|API_KEYS|PEERS|POSTGRES_PASSWORD|POSTGRES_PWD|TEMPORAL_AUTH_CLIENT_SECRET|GF_SECURITY_ADMIN_PASSWORD)$`)

// Issue 17, "a production topology that scales out": the Temporal server from its release
// images with Postgres persistence and a schema job (not auto-setup); the frontend and the Web
// UI on the internal network only (the UI published on the host's loopback, behind its
// sign-in); two API and two worker replicas; three oracles; Prometheus and Grafana; secrets
// from files, never values; every file a service mounts exists; every build target exists.
func TestComposeTopology(t *testing.T) {
	c := readCompose(t)
	for _, name := range []string{"postgres", "temporal-schema", "temporal", "temporal-setup", "temporal-ui", "migrate", "api",
		"worker", "dispatcher", "oracle-1", "oracle-2", "oracle-3", "redis", "prometheus", "grafana", "devnet"} {
		if _, ok := c.Services[name]; !ok {
			t.Errorf("no service %s", name)
		}
	}
	if !c.Networks["internal"].Internal {
		t.Error("the internal network must be internal (no route out, nothing published from it by default)")
	}
	for name, s := range c.Services {
		if strings.Contains(s.Image, "auto-setup") {
			t.Errorf("%s uses the development auto-setup image", name)
		}
		for k, v := range s.Environment {
			if secretVars.MatchString(k) {
				t.Errorf("%s: %s is given as a value; give %s_FILE (a secret file)", name, k, k)
			}
			if str, ok := v.(string); ok && regexp.MustCompile(`(?i)^(0x)?[0-9a-f]{64}$`).MatchString(str) {
				t.Errorf("%s: %s looks like a key written in the file", name, k)
			}
		}
		for _, v := range s.Volumes {
			if src, _, ok := strings.Cut(v, ":"); ok && strings.HasPrefix(src, "./") {
				if _, err := os.Stat(filepath.Join("..", src)); err != nil {
					t.Errorf("%s mounts %s, which the repository lacks", name, src)
				}
			}
		}
	}
	for _, name := range []string{"temporal", "temporal-ui", "temporal-schema", "temporal-setup", "postgres", "prometheus", "grafana"} {
		s := c.Services[name]
		for _, n := range s.Networks {
			if n != "internal" {
				t.Errorf("%s is on network %s: it must stay on the internal network", name, n)
			}
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond the host's loopback", name, p)
			}
		}
	}
	if c.Services["temporal"].Ports != nil {
		t.Error("the Temporal frontend must not be published at all")
	}
	if ui := c.Services["temporal-ui"].Environment; ui["TEMPORAL_AUTH_ENABLED"] != "true" {
		t.Error("the Web UI must require its sign-in")
	}
	for _, name := range []string{"api", "worker"} {
		if r := c.Services[name].Deploy.Replicas; r < 2 {
			t.Errorf("%s runs %d replicas, want 2", name, r)
		}
	}
	for name, s := range c.Secrets {
		if !strings.HasPrefix(s.File, "./secrets/") {
			t.Errorf("secret %s comes from %q, want a file under ./secrets (ignored by git)", name, s.File)
		}
	}
	ignored, _ := os.ReadFile("../.gitignore")
	if !bytes.Contains(ignored, []byte("/secrets/")) {
		t.Error(".gitignore must keep ./secrets out of the repository")
	}
	docker, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"intentd", "oracle", "devnet"} {
		if !regexp.MustCompile(`(?m)^FROM \S+ AS ` + target + `$`).Match(docker) {
			t.Errorf("the Dockerfile has no target %s", target)
		}
	}
	if bytes.Contains(docker, []byte("COPY --from=build-dev /out/intentd-dev")) &&
		regexp.MustCompile(`(?s)AS intentd\n.*intentd-dev`).Match(docker) {
		t.Error("the engine image must not carry intentd-dev (it links the Temporal server)")
	}
	if !bytes.Contains(docker, []byte(":nonroot")) {
		t.Error("the images must run as nonroot")
	}
}

// `docker compose config` validates the file where the Docker CLI and its compose plugin exist
// (not on the machines the project is built on: there the checks above stand in).
func TestComposeConfigValidates(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI")
	}
	if err := exec.Command("docker", "compose", "version").Run(); err != nil {
		t.Skip("no docker compose plugin")
	}
	env := append(os.Environ(), "SOLVER_ADDRESS=0x0000000000000000000000000000000000000001",
		"ORACLE_1_ADDRESS=0x0000000000000000000000000000000000000011", "ORACLE_2_ADDRESS=0x0000000000000000000000000000000000000012",
		"ORACLE_3_ADDRESS=0x0000000000000000000000000000000000000013", "TEMPORAL_AUTH_PROVIDER_URL=https://idp.example",
		"TEMPORAL_AUTH_CLIENT_ID=intentd")
	cmd := exec.Command("docker", "compose", "-f", "../docker-compose.yml", "config", "--quiet", "--no-path-resolution")
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("docker compose config: %v\n%s", err, out.String())
	}
}

// The Kubernetes manifests parse, run every role as nonroot with probes on the metrics port,
// two replicas of the api, worker and dispatcher, and take every secret from a Secret mount.
func TestKubernetesManifests(t *testing.T) {
	f, err := os.Open("kubernetes/intentd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	dec := yaml.NewDecoder(f)
	replicas := map[string]int{}
	for {
		var doc struct {
			Kind     string `yaml:"kind"`
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
			Spec struct {
				Replicas int `yaml:"replicas"`
				Template struct {
					Spec struct {
						SecurityContext struct {
							RunAsNonRoot bool `yaml:"runAsNonRoot"`
						} `yaml:"securityContext"`
						Containers []struct {
							Env []struct {
								Name  string `yaml:"name"`
								Value string `yaml:"value"`
							} `yaml:"env"`
							ReadinessProbe any `yaml:"readinessProbe"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("kubernetes/intentd.yaml: %v", err)
		}
		if doc.Kind != "Deployment" {
			continue
		}
		replicas[doc.Metadata.Name] = doc.Spec.Replicas
		ps := doc.Spec.Template.Spec
		if !ps.SecurityContext.RunAsNonRoot {
			t.Errorf("%s does not run as nonroot", doc.Metadata.Name)
		}
		for _, c := range ps.Containers {
			if c.ReadinessProbe == nil {
				t.Errorf("%s has no readiness probe", doc.Metadata.Name)
			}
			for _, e := range c.Env {
				if secretVars.MatchString(e.Name) && e.Value != "" {
					t.Errorf("%s: %s is a value; give %s_FILE", doc.Metadata.Name, e.Name, e.Name)
				}
			}
		}
	}
	for _, name := range []string{"api", "worker", "dispatcher"} {
		if replicas[name] < 2 {
			t.Errorf("%s: %d replicas, want 2", name, replicas[name])
		}
	}
	for _, name := range []string{"oracle-1", "oracle-2", "oracle-3"} {
		if replicas[name] != 1 {
			t.Errorf("%s: %d replicas, want 1 (each oracle has its own key)", name, replicas[name])
		}
	}
}

// Review L6: "the admin API is served on its own listener (an internal address by default),
// never on the public port". In compose, every service that holds the admin token names its
// ADMIN_ADDR and publishes nothing beyond the host's loopback, and no other service holds the
// token; on Kubernetes, every container with the token listens for the admin API on its pod's
// loopback and declares no port for it.
func TestTheAdminAPIIsNeverPublished(t *testing.T) {
	c := readCompose(t)
	holders := 0
	for name, s := range c.Services {
		if _, ok := s.Environment["ADMIN_TOKEN_FILE"]; !ok {
			continue
		}
		holders++
		if addr, _ := s.Environment["ADMIN_ADDR"].(string); !strings.HasSuffix(addr, ":8081") {
			t.Errorf("%s holds the admin token with ADMIN_ADDR %q", name, addr)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s holds the admin token and publishes %s beyond the host's loopback", name, p)
			}
		}
	}
	if holders != 1 {
		t.Errorf("%d compose services hold the admin token, want the admin service alone", holders)
	}

	raw, err := os.ReadFile("kubernetes/intentd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	holders = 0
	for {
		var doc struct {
			Metadata struct{ Name string } `yaml:"metadata"`
			Spec     struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Env   []struct{ Name, Value string } `yaml:"env"`
							Ports []struct {
								ContainerPort int `yaml:"containerPort"`
							} `yaml:"ports"`
						} `yaml:"containers"`
					} `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"spec"`
		}
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		for _, ctr := range doc.Spec.Template.Spec.Containers {
			env := map[string]string{}
			for _, e := range ctr.Env {
				env[e.Name] = e.Value
			}
			if _, ok := env["ADMIN_TOKEN_FILE"]; !ok {
				continue
			}
			holders++
			if !strings.HasPrefix(env["ADMIN_ADDR"], "127.0.0.1:") {
				t.Errorf("%s holds the admin token with ADMIN_ADDR %q, want the pod's loopback", doc.Metadata.Name, env["ADMIN_ADDR"])
			}
			for _, p := range ctr.Ports {
				if strings.HasSuffix(env["ADMIN_ADDR"], ":"+strconv.Itoa(p.ContainerPort)) {
					t.Errorf("%s declares the admin port %d", doc.Metadata.Name, p.ContainerPort)
				}
			}
		}
	}
	if holders == 0 {
		t.Error("no Kubernetes container holds the admin token: the manifests were not read")
	}
}
