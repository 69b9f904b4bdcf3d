//go:build unix

package devstack

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
)

// setCredential makes cmd run as u (used when we are root).
func setCredential(cmd *exec.Cmd, u *osUser) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid},
	}
}

// fileOwner returns the owner of fi when the platform reports it.
func fileOwner(fi fs.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}

// searchableBy reports whether u may traverse the directory fi (considering
// its primary group only).
func searchableBy(fi fs.FileInfo, u *osUser) bool {
	mode := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return mode&0o001 != 0
	}
	switch {
	case st.Uid == u.uid:
		return mode&0o100 != 0
	case st.Gid == u.gid:
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
