package process

// PostgresShutdown is how StopPostgres stops a cluster.
type PostgresShutdown int

const (
	// Immediate is a crash: SIGQUIT to the postmaster, which exits without a checkpoint, so the
	// next start runs crash recovery.
	Immediate PostgresShutdown = iota
	// Fast is a clean restart: SIGINT, which disconnects every client and checkpoints.
	Fast
)

func (m PostgresShutdown) String() string {
	if m == Fast {
		return "fast"
	}
	return "immediate"
}
