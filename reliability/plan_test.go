package reliability

import (
	"reflect"
	"testing"
	"time"

	"github.com/intentd/intentd/internal/process"
)

func TestPlanIsDrawnFromTheSeed(t *testing.T) {
	o := PlanOptions{Kills: 3, PostgresRestarts: 2, Gap: [2]time.Duration{time.Second, 5 * time.Second},
		WorkerDown: [2]time.Duration{time.Second, 2 * time.Second}, PostgresDown: [2]time.Duration{3 * time.Second, 4 * time.Second}}
	a, b, c := NewPlan(7, o), NewPlan(7, o), NewPlan(8, o)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different plans:\n%s\n%s", FormatPlan(a), FormatPlan(b))
	}
	if reflect.DeepEqual(a, c) {
		t.Fatalf("different seeds, same plan %s", FormatPlan(a))
	}
	kills, restarts, crashes := 0, 0, 0
	for _, e := range a {
		if e.After < o.Gap[0] || e.After >= o.Gap[1] {
			t.Errorf("%s: pause outside %v", e, o.Gap)
		}
		switch e.Kind {
		case KillWorker:
			kills++
			if e.Down < o.WorkerDown[0] || e.Down >= o.WorkerDown[1] {
				t.Errorf("%s: down outside %v", e, o.WorkerDown)
			}
		case RestartPostgres:
			restarts++
			if e.Shutdown == process.Immediate {
				crashes++
			}
			if e.Down < o.PostgresDown[0] || e.Down >= o.PostgresDown[1] {
				t.Errorf("%s: down outside %v", e, o.PostgresDown)
			}
		}
	}
	if kills != 3 || restarts != 2 || crashes != 1 {
		t.Fatalf("plan %s: %d kills, %d restarts (%d crashes)", FormatPlan(a), kills, restarts, crashes)
	}
}
