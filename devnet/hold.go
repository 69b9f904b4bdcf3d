package devnet

// Pause stops the chain's automatic blocks: transactions sent meanwhile wait in the pool, as on
// a congested chain that does not include them. Mine still seals a block on demand. Tests use
// it to hold a deposit below its confirmations or a fill out of a block.
func (c *Chain) Pause() { c.paused.Store(true) }

// Resume restarts the automatic blocks after Pause.
func (c *Chain) Resume() { c.paused.Store(false) }

// Paused reports whether the chain's automatic blocks are stopped.
func (c *Chain) Paused() bool { return c.paused.Load() }
