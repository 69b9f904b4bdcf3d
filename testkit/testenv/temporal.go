package testenv

import (
	"fmt"
	"testing"

	"go.temporal.io/server/temporaltest"
)

// temporalStartAttempts bounds the starts of a test's Temporal server (TemporalServer).
const temporalStartAttempts = 3

// TemporalServer starts an in-process Temporal server for t and stops it when t ends.
//
// temporaltest picks each of its ports by binding port 0 and closing the socket; a connection
// the process opens in between (to Postgres, a chain, the API) can take that port as its own,
// and the server then fails to listen on it. Its start panics inside Temporal (ringpop's channel
// served on a nil listener), which failed whichever test happened to start a server then. A
// start that panics or fails is tried again on new ports. The server is not given t
// (temporaltest.WithT), because that registers a Stop which panics on a server that did not
// start; it is stopped here instead.
func TemporalServer(t testing.TB) *temporaltest.TestServer {
	t.Helper()
	var err error
	for attempt := 1; attempt <= temporalStartAttempts; attempt++ {
		var ts *temporaltest.TestServer
		if ts, err = tryTemporalServer(); err == nil {
			t.Cleanup(func() { stopTemporal(t, ts) })
			return ts
		}
		t.Logf("temporal test server, attempt %d: %v", attempt, err)
	}
	t.Fatalf("temporal test server: %v", err)
	return nil
}

func tryTemporalServer() (ts *temporaltest.TestServer, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("start failed: %v", r)
		}
	}()
	return temporaltest.NewServer(), nil
}

// stopTemporal stops ts; temporaltest reports a failed stop through the t it was not given, so
// that report is caught and logged here.
func stopTemporal(t testing.TB, ts *temporaltest.TestServer) {
	defer func() {
		if r := recover(); r != nil {
			t.Logf("temporal test server: stop: %v", r)
		}
	}()
	ts.Stop()
}
