package reliability

import (
	"os/exec"
	"reflect"
	"runtime"
	"testing"
	"time"
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
			if e.Shutdown == Immediate {
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

// The supervisor kills on request, and restarts a process that exits on its own, counting it.
func TestSupervisorKillsAndRestarts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a Unix shell")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	s := &Supervisor{Name: "sleeper", Bin: sh, Args: []string{"-c", "sleep 30"}, LogDir: t.TempDir(), RestartDelay: 10 * time.Millisecond}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err == nil {
		t.Fatal("a second Start of a running process succeeded")
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if s.Pid() != 0 {
		t.Fatal("killed process still has a pid")
	}
	time.Sleep(50 * time.Millisecond)
	if s.Pid() != 0 {
		t.Fatal("a killed process was restarted without Start")
	}
	s.Args = []string{"-c", "exit 3"}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Starts < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s.Close(time.Second)
	st := s.Stats()
	if st.Kills != 1 || st.Starts < 3 || len(st.Unexpected) < 1 || len(st.Logs) != st.Starts {
		t.Fatalf("stats %+v", st)
	}
}
