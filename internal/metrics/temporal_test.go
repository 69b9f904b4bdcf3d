package metrics

import (
	"testing"
	"time"
)

// The SDK records its latencies in seconds: a 30 ms local activity must land between the 25 ms
// and the 50 ms buckets, not in OpenTelemetry's default first bucket of "5" (meant as ms).
func TestTheSDKsLatenciesAreBucketedInSeconds(t *testing.T) {
	h := TemporalHandler()
	if h == nil {
		t.Fatal("no Temporal metrics handler")
	}
	h.Timer("temporal_bucket_probe_latency").Record(30 * time.Millisecond)
	families, err := Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "temporal_bucket_probe_latency_seconds" {
			continue
		}
		counts := map[float64]uint64{}
		for _, b := range f.GetMetric()[0].GetHistogram().GetBucket() {
			counts[b.GetUpperBound()] = b.GetCumulativeCount()
		}
		if counts[0.025] != 0 || counts[0.05] != 1 {
			t.Fatalf("a 30 ms latency: cumulative count %d at le=0.025 and %d at le=0.05 (buckets %v); want 0 and 1", counts[0.025], counts[0.05], counts)
		}
		return
	}
	t.Fatal("temporal_bucket_probe_latency_seconds not exported")
}
