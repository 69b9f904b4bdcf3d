package intent

// Status is a request's state as reported by GET /intents/status/v3 and the request record.
type Status string

// The statuses of the spec's "States and transitions" table.
const (
	StatusWaiting    Status = "waiting"    // waiting for deposit confirmation
	StatusDepositing Status = "depositing" // origin deposit confirmed via the execute endpoint, pending fill
	StatusPending    Status = "pending"    // deposit confirmed, pending destination-chain submission
	StatusSubmitted  Status = "submitted"  // destination transaction submitted
	StatusSuccess    Status = "success"    // successful fill on destination
	StatusDelayed    Status = "delayed"    // destination fill delayed, still processing
	StatusRefund     Status = "refund"     // successfully refunded
	StatusFailure    Status = "failure"    // unsuccessful fill
)

// Terminal reports whether no further transition can follow.
func (s Status) Terminal() bool {
	return s == StatusSuccess || s == StatusRefund || s == StatusFailure
}

// Valid reports whether s is one of the spec's statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusWaiting, StatusDepositing, StatusPending, StatusSubmitted, StatusSuccess,
		StatusDelayed, StatusRefund, StatusFailure:
		return true
	}
	return false
}
