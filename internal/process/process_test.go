package process

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

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

// Stop ends the process gracefully and leaves the supervisor usable: Start runs it again.
func TestSupervisorStopsAndStartsAgain(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil || runtime.GOOS == "windows" {
		t.Skip("needs a Unix shell")
	}
	s := &Supervisor{Name: "sleeper", Bin: sh, Args: []string{"-c", "sleep 30"}, LogDir: t.TempDir(), RestartDelay: 10 * time.Millisecond}
	defer s.Close(time.Second)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	s.Stop(time.Second)
	time.Sleep(50 * time.Millisecond)
	if s.Pid() != 0 {
		t.Fatal("a stopped process runs")
	}
	if err := s.Start(); err != nil || s.Pid() == 0 {
		t.Fatalf("start after stop: %v", err)
	}
	if st := s.Stats(); st.Starts != 2 || len(st.Unexpected) != 0 {
		t.Fatalf("stats %+v", st)
	}
}
