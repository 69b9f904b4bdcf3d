package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The run's summary: latency percentiles from the histograms, outcome counts and the machine,
// printed as a table or as JSON (-json).

// Summary is the result of a run (and the -json output).
type Summary struct {
	URL             string           `json:"url"`
	Scenario        string           `json:"scenario"`
	Mode            string           `json:"mode"` // closed-loop or open-loop
	Clients         int              `json:"clients"`
	TargetRate      float64          `json:"targetRate,omitempty"`
	Users           int              `json:"users"`
	APIKey          bool             `json:"apiKeySent"`
	WarmupSeconds   float64          `json:"warmupSeconds"`
	DurationSeconds float64          `json:"durationSeconds"`
	Interrupted     bool             `json:"interrupted,omitempty"`
	Requests        int64            `json:"requests"`
	Failed          int64            `json:"failed"`
	FailureRatio    float64          `json:"failureRatio"`
	Throughput      float64          `json:"throughputRps"`
	StatusCodes     map[string]int64 `json:"statusCodes"`
	ErrorCodes      map[string]int64 `json:"errorCodes"`
	TransportErrors map[string]int64 `json:"transportErrors"`
	LatencyMs       Latency          `json:"latencyMs"`
	// Open loop only: latency from the moment the request was actually sent, i.e. without the
	// send lag that LatencyMs (measured from the schedule) includes.
	ServiceLatencyMs *Latency `json:"serviceLatencyMs,omitempty"`
	MaxSendLagMs     *float64 `json:"maxSendLagMs,omitempty"`
	LateSends        *int64   `json:"lateSends,omitempty"`
	Machine          Machine  `json:"machine"`
	StartedAt        string   `json:"startedAt"`
}

// Latency percentiles in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99.9"`
	Max  float64 `json:"max"`
}

// Machine the generator ran on.
type Machine struct {
	NumCPU    int    `json:"numCPU"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	GoVersion string `json:"goVersion"`
	CPUModel  string `json:"cpuModel,omitempty"`
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func ms(us int64) float64 { return float64(us) / 1000 }

func summarize(c *config, endpoint string, r *recorder, window time.Duration, started time.Time, interrupted bool) *Summary {
	s := &Summary{
		URL: endpoint, Scenario: c.scenario, Mode: "closed-loop", Clients: c.clients, Users: c.users,
		APIKey: c.apiKey != "", WarmupSeconds: c.warmup.Seconds(), DurationSeconds: window.Seconds(),
		Interrupted: interrupted, Requests: r.requests, Failed: r.failed,
		StatusCodes: map[string]int64{}, ErrorCodes: r.codes, TransportErrors: r.transport,
		Machine: Machine{NumCPU: runtime.NumCPU(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
			GoVersion: runtime.Version(), CPUModel: cpuModel()},
		StartedAt: started.UTC().Format(time.RFC3339),
	}
	if c.rate > 0 {
		s.Mode, s.TargetRate = "open-loop", c.rate
		lag := float64(r.maxLag) / float64(time.Millisecond)
		s.MaxSendLagMs, s.LateSends = &lag, &r.lateSends
	}
	for k, v := range r.status {
		s.StatusCodes[strconv.Itoa(k)] = v
	}
	if r.requests > 0 {
		s.FailureRatio = float64(r.failed) / float64(r.requests)
	}
	if window > 0 {
		s.Throughput = float64(r.requests) / window.Seconds()
	}
	s.LatencyMs = latency(r.hist, r.maxLat)
	if c.rate > 0 {
		svc := latency(r.svc, r.maxSvc)
		s.ServiceLatencyMs = &svc
	}
	return s
}

func latency(h *hdrhistogram.Histogram, maxLat time.Duration) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Mean: h.Mean() / 1000,
		P50:  ms(h.ValueAtQuantile(50)), P90: ms(h.ValueAtQuantile(90)),
		P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)),
		Max: float64(maxLat) / float64(time.Millisecond), // exact; the histogram's is rounded
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *Summary) print(w io.Writer) {
	fmt.Fprintf(w, "\nquoteload: %s, scenario %s, %s, %d clients", s.URL, s.Scenario, s.Mode, s.Clients)
	if s.TargetRate > 0 {
		fmt.Fprintf(w, ", target %.6g req/s", s.TargetRate)
	}
	key := "no API key"
	if s.APIKey {
		key = "API key sent"
	}
	fmt.Fprintf(w, ", %d users, %s\n", s.Users, key)
	fmt.Fprintf(w, "machine:     %d CPUs, %s/%s, %s", s.Machine.NumCPU, s.Machine.GOOS, s.Machine.GOARCH, s.Machine.GoVersion)
	if s.Machine.CPUModel != "" {
		fmt.Fprintf(w, ", %s", s.Machine.CPUModel)
	}
	fmt.Fprintln(w)
	note := ""
	if s.Interrupted {
		note = " (interrupted)"
	}
	fmt.Fprintf(w, "measured:    %.1fs after %.1fs warm-up%s\n", s.DurationSeconds, s.WarmupSeconds, note)
	fmt.Fprintf(w, "requests:    %d (%d failed, %.2f%%)\n", s.Requests, s.Failed, 100*s.FailureRatio)
	fmt.Fprintf(w, "throughput:  %.1f req/s\n", s.Throughput)
	fmt.Fprintf(w, "status:     ")
	for _, k := range sortedKeys(s.StatusCodes) {
		fmt.Fprintf(w, " %s=%d", k, s.StatusCodes[k])
	}
	fmt.Fprintln(w)
	if len(s.ErrorCodes) > 0 {
		fmt.Fprintf(w, "errorCode:  ")
		for _, k := range sortedKeys(s.ErrorCodes) {
			fmt.Fprintf(w, " %s=%d", k, s.ErrorCodes[k])
		}
		fmt.Fprintln(w)
	}
	for _, k := range sortedKeys(s.TransportErrors) {
		fmt.Fprintf(w, "transport:   %s: %d\n", k, s.TransportErrors[k])
	}
	l, from := s.LatencyMs, ""
	if s.ServiceLatencyMs != nil {
		from = "; from the scheduled send time"
	}
	fmt.Fprintf(w, "latency ms:  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (mean %.3f%s)\n",
		l.P50, l.P90, l.P99, l.P999, l.Max, l.Mean, from)
	if v := s.ServiceLatencyMs; v != nil {
		fmt.Fprintf(w, "  from send: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (mean %.3f; without the send lag)\n",
			v.P50, v.P90, v.P99, v.P999, v.Max, v.Mean)
	}
	if s.MaxSendLagMs != nil {
		fmt.Fprintf(w, "send lag:    max %.3f ms, %d requests sent >1 ms late", *s.MaxSendLagMs, *s.LateSends)
		if *s.LateSends > s.Requests/100 {
			fmt.Fprintf(w, " (off schedule: every client was busy, or the generator was short of CPU; the latency includes that delay)")
		}
		fmt.Fprintln(w)
	}
}
