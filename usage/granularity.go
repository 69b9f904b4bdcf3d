package usage

import "time"

// Granularity is the bucket GET /metrics/usage sums counts into.
type Granularity string

// Granularities (the spec's). Buckets start on the UTC minute, hour or day.
const (
	Minutely Granularity = "minutely"
	Hourly   Granularity = "hourly"
	Daily    Granularity = "daily"
)

// Valid reports whether g is one of the granularities.
func (g Granularity) Valid() bool { return g == Minutely || g == Hourly || g == Daily }

// Step is the width of g's buckets.
func (g Granularity) Step() time.Duration {
	switch g {
	case Hourly:
		return time.Hour
	case Daily:
		return 24 * time.Hour
	}
	return time.Minute
}

// DefaultWindow is how far back a query of g reaches when it names no start (the spec's:
// minutely the last 24 hours, hourly 7 days, daily 14 days).
func (g Granularity) DefaultWindow() time.Duration {
	switch g {
	case Hourly:
		return 7 * 24 * time.Hour
	case Daily:
		return Retention
	}
	return 24 * time.Hour
}

// MaxWindow is the widest window a query of g may ask for: a day of minutes (a wider one
// would answer up to tens of thousands of rows per key and endpoint: ask hourly), else the
// retention, since nothing older is kept.
func (g Granularity) MaxWindow() time.Duration {
	if g == Minutely {
		return 24 * time.Hour
	}
	return Retention
}
