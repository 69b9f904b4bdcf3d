package reliability

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/intentd/intentd/internal/process"
)

// EventKind is a fault the plan injects.
type EventKind int

// The faults a plan is made of.
const (
	// KillWorker sends SIGKILL to the worker process and starts it again after Down.
	KillWorker EventKind = iota
	// RestartPostgres stops Postgres (crash or clean, see Event.Shutdown) and starts it again
	// after Down.
	RestartPostgres
	// KillDispatcher sends SIGKILL to the webhook dispatcher process and starts it again after
	// Down.
	KillDispatcher
)

func (k EventKind) String() string {
	switch k {
	case RestartPostgres:
		return "restart-postgres"
	case KillDispatcher:
		return "kill-dispatcher"
	}
	return "kill-worker"
}

// Event is one fault at one moment.
type Event struct {
	Kind EventKind
	// After is the pause before the event, counted from the end of the previous one (or the
	// start of the run).
	After time.Duration
	// Down is how long the worker, the dispatcher or Postgres stays down.
	Down time.Duration
	// Shutdown is how Postgres is stopped (RestartPostgres only).
	Shutdown process.PostgresShutdown
}

func (e Event) String() string {
	s := fmt.Sprintf("%s after=%v down=%v", e.Kind, e.After.Round(time.Millisecond), e.Down.Round(time.Millisecond))
	if e.Kind == RestartPostgres {
		s += " shutdown=" + e.Shutdown.String()
	}
	return s
}

// PlanOptions says how many faults of each kind a plan has and the ranges their timing is drawn
// from.
type PlanOptions struct {
	Kills, PostgresRestarts, DispatcherKills int
	Gap                                      [2]time.Duration // pause before each event
	WorkerDown                               [2]time.Duration // how long a killed worker or dispatcher stays down
	PostgresDown                             [2]time.Duration // how long Postgres stays down
}

// NewPlan draws the events of o from the seed: the same seed gives the same plan. The order of
// the kinds is shuffled; Postgres restarts alternate between a crash (immediate shutdown, the
// first) and a clean fast shutdown.
func NewPlan(seed int64, o PlanOptions) []Event {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed_0f_fa_0175))
	between := func(b [2]time.Duration) time.Duration {
		if b[1] <= b[0] {
			return b[0]
		}
		return b[0] + time.Duration(r.Int64N(int64(b[1]-b[0])))
	}
	var kinds []EventKind
	for range o.Kills {
		kinds = append(kinds, KillWorker)
	}
	for range o.PostgresRestarts {
		kinds = append(kinds, RestartPostgres)
	}
	for range o.DispatcherKills {
		kinds = append(kinds, KillDispatcher)
	}
	r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	out := make([]Event, 0, len(kinds))
	pg := 0
	for _, k := range kinds {
		e := Event{Kind: k, After: between(o.Gap)}
		if k == KillWorker || k == KillDispatcher {
			e.Down = between(o.WorkerDown)
		} else {
			e.Down = between(o.PostgresDown)
			if pg%2 == 1 {
				e.Shutdown = process.Fast
			}
			pg++
		}
		out = append(out, e)
	}
	return out
}

// FormatPlan is a plan on one line.
func FormatPlan(p []Event) string {
	parts := make([]string, len(p))
	for i, e := range p {
		parts[i] = "[" + e.String() + "]"
	}
	return strings.Join(parts, " ")
}
