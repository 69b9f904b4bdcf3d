package app

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.yaml.in/yaml/v3"

	"github.com/intentd/intentd/events"
	"github.com/intentd/intentd/internal/metrics"
	"github.com/intentd/intentd/store"
)

// The alerting rules and the dashboard in deploy/ name only metrics the processes export: a
// renamed metric must not silently turn an alert off. (Temporal's are the SDK's own, checked
// by integration/metrics_test.go against a real worker.)
func TestDeployAlertsAndDashboardNameExportedMetrics(t *testing.T) {
	names := map[string]bool{}
	collect := func(c prometheus.Collector) {
		ch := make(chan *prometheus.Desc, 64)
		go func() { c.Describe(ch); close(ch) }()
		for d := range ch {
			if m := regexp.MustCompile(`fqName: "([a-z_]+)"`).FindStringSubmatch(d.String()); m != nil {
				names[m[1]] = true
			}
		}
	}
	collect(metrics.Registry)
	collect((&store.Store{}).NewGauges(0))
	collect(events.NewHub(nil, events.HubOptions{}).Collector())
	collect(newPoolCollector(nil))

	raw, err := os.ReadFile("../deploy/prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &rules); err != nil {
		t.Fatalf("alerts.yml: %v", err)
	}
	dash, err := os.ReadFile("../deploy/grafana/dashboards/intentd.json")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(dash)}
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts++
			texts = append(texts, r.Expr)
		}
	}
	if alerts < 8 {
		t.Fatalf("%d alerts parsed", alerts)
	}
	var missing []string
	for _, text := range texts {
		for _, n := range regexp.MustCompile(`intentd_[a-z_]+`).FindAllString(text, -1) {
			base := n
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				base = strings.TrimSuffix(base, suffix)
			}
			if !names[base] && !names[n] {
				missing = append(missing, n)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("deploy/ names metrics nothing exports: %v", missing)
	}
}
