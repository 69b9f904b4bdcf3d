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

// legacyStatus is how each status reads on the two older status endpoints, in one table so
// that the versions cannot drift apart. GET /intents/status/v2 predates `submitted` and
// `delayed`: a fill under way is still `pending` there. The legacy GET /intents/status has a
// vocabulary of its own: `pending` while nothing is deposited, `received` from the deposit
// until the fill lands, and `fallback` for a refund.
var legacyStatus = map[Status]struct{ v1, v2 string }{
	StatusWaiting:    {v1: "pending", v2: "waiting"},
	StatusDepositing: {v1: "received", v2: "depositing"},
	StatusPending:    {v1: "received", v2: "pending"},
	StatusSubmitted:  {v1: "received", v2: "pending"},
	StatusDelayed:    {v1: "received", v2: "pending"},
	StatusSuccess:    {v1: "success", v2: "success"},
	StatusRefund:     {v1: "fallback", v2: "refund"},
	StatusFailure:    {v1: "failure", v2: "failure"},
}

// V1 is the status as the legacy GET /intents/status reports it (pending, received, success,
// failure, fallback). A value that is not a status is returned unchanged.
func (s Status) V1() string {
	if l, ok := legacyStatus[s]; ok {
		return l.v1
	}
	return string(s)
}

// V2 is the status as GET /intents/status/v2 reports it (refund, waiting, depositing, failure,
// pending, success). A value that is not a status is returned unchanged.
func (s Status) V2() string {
	if l, ok := legacyStatus[s]; ok {
		return l.v2
	}
	return string(s)
}
