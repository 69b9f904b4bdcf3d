//go:build !unix

package devstack

import (
	"io/fs"
	"os/exec"
)

// setCredential is never needed off Unix: there is no root there.
func setCredential(*exec.Cmd, *osUser) {}

// fileOwner is unknown off Unix.
func fileOwner(fs.FileInfo) (uint32, bool) { return 0, false }

// searchableBy assumes directories are traversable off Unix.
func searchableBy(fs.FileInfo, *osUser) bool { return true }

// processAlive cannot cheaply tell off Unix; assume the pid file is current
// and let pg_ctl decide.
func processAlive(int) bool { return true }
